// The SDK adapter protocol (version 1; docs/sdk-adapters.md): the messages payconform writes to an SDK's adapter and
// the answers it reads, each checked against its JSON Schema (schemas/sdk-adapter-*.schema.json). The adapter process
// itself is started by the caller (the CLI) and handed in as an `SdkAdapterLink`.
import { validateAgainst } from '../../src/schemas/validator.js';
import { SHELL_NOT_FOUND_EXIT } from '../process/process-group.js';

export const SDK_ADAPTER_PROTOCOL_VERSION = 1;

const SCHEMA = (name: string): string =>
  `https://payconform.dev/schemas/sdk-adapter-${name}.schema.json`;

/** The operations an SDK is asked for (besides `configure`). */
export const SDK_OPERATIONS = [
  'createPayout',
  'commitPayout',
  'cancelPayout',
  'createRefund',
  'verifyWebhook',
] as const;
export type SdkOperation = (typeof SDK_OPERATIONS)[number];

/** What the adapter's process gave back for one line (the vectors harness's AdapterProcess answers with this type). */
export type LinkReply =
  | { readonly kind: 'answer'; readonly message: Record<string, unknown> }
  | { readonly kind: 'garbage'; readonly line: string }
  | { readonly kind: 'timeout' }
  | { readonly kind: 'exited'; readonly code: number | null; readonly signal: string | null };

/** A started adapter: one line out, the next line back, every wait bounded. */
export interface SdkAdapterLink {
  ask(message: Record<string, unknown>, timeoutMs: number): Promise<LinkReply>;
  /** The last few KB it wrote to stderr. */
  stderr(): string;
  stop(): Promise<void>;
}

export interface SdkError {
  readonly status: number | null;
  readonly body?: string | null;
  readonly message?: string | null;
  readonly code?: string | null;
}

/** What the SDK returned to its caller, or why nothing usable came back. */
export type SdkAnswer =
  | { readonly kind: 'resource'; readonly resource: Record<string, unknown> }
  | { readonly kind: 'error'; readonly error: SdkError }
  | { readonly kind: 'webhook'; readonly valid: boolean; readonly reason?: string }
  | { readonly kind: 'unsupported'; readonly reason: string }
  | { readonly kind: 'broken'; readonly reason: string };

/** The configure message of a sequence (the secret and private key travel in the adapter's environment). */
export interface AdapterConfiguration {
  readonly baseUrl: string;
  readonly applicationId: string;
  readonly merchantId: string;
  readonly keyId: string;
  readonly payInAccountSelector: string;
}

/** Why a reply is no protocol answer: said in words, or undefined for a valid answer. */
function brokenReply(reply: LinkReply, id: string, schema: string): string | undefined {
  if (reply.kind === 'timeout') return 'the adapter did not answer in time';
  if (reply.kind === 'exited')
    return `the adapter exited (${reply.code === SHELL_NOT_FOUND_EXIT ? `code ${SHELL_NOT_FOUND_EXIT}: the shell found no such command` : reply.code !== null ? `code ${reply.code}` : `signal ${reply.signal ?? '?'}`})`;
  if (reply.kind === 'garbage')
    return `the adapter wrote a line that is not JSON: ${reply.line.slice(0, 120)}`;
  if (reply.message['id'] !== id)
    return `the adapter answered id ${JSON.stringify(reply.message['id'])}, not "${id}"`;
  if (reply.message['unsupported'] === true) return undefined;
  const checked = validateAgainst(SCHEMA(schema), reply.message);
  if (checked.valid) return undefined;
  return `the answer breaks sdk-adapter-${schema}.schema.json: ${checked.errors.map((e) => `${e.pointer} ${e.message}`).join('; ')}`;
}

/** Sends `configure`; undefined when the adapter took it, else why not. */
export async function configureAdapter(
  link: SdkAdapterLink,
  config: AdapterConfiguration,
  timeoutMs: number,
): Promise<string | undefined> {
  const id = 'configure';
  const input = { protocolVersion: SDK_ADAPTER_PROTOCOL_VERSION, ...config };
  const reply = await link.ask({ id, op: 'configure', input }, timeoutMs);
  const broken = brokenReply(reply, id, 'configured');
  if (broken !== undefined) return broken;
  const message = (reply as { message: Record<string, unknown> }).message;
  if (message['unsupported'] === true)
    return `the adapter refused configure: ${String(message['reason'] ?? '')}`;
  return undefined;
}

/** Asks for one operation and reads what the SDK returned to its caller. */
export async function askOperation(
  link: SdkAdapterLink,
  id: string,
  op: SdkOperation,
  input: Record<string, unknown>,
  timeoutMs: number,
): Promise<SdkAnswer> {
  const reply = await link.ask({ id, op, input }, timeoutMs);
  const broken = brokenReply(reply, id, 'answer');
  if (broken !== undefined) return { kind: 'broken', reason: broken };
  const m = (reply as { message: Record<string, unknown> }).message;
  if (m['unsupported'] === true)
    return { kind: 'unsupported', reason: String(m['reason'] ?? 'unsupported') };
  if (m['resource'] !== undefined)
    return { kind: 'resource', resource: m['resource'] as Record<string, unknown> };
  if (m['error'] !== undefined) return { kind: 'error', error: m['error'] as SdkError };
  const webhook = m['webhook'] as { valid: boolean; reason?: string };
  return {
    kind: 'webhook',
    valid: webhook.valid,
    ...(webhook.reason !== undefined ? { reason: webhook.reason } : {}),
  };
}
