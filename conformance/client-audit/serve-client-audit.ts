// Runs the client audit's serving phase: the reference service in-process (with the client's application and
// seeded payments), the verifying endpoint in front of it, and the client command (`--exec`) or a serving window.
import type { ServerTls } from '../../net/tls.js';
import { programEnv } from '../process/program-env.js';
import { runBounded, spawnInGroup, type ProcessGroup } from '../process/process-group.js';
import type { ClientAuditContext } from '../checks/client/context.js';
import type { ClientExchange } from '../checks/client/context.js';
import {
  ClientSession,
  type ClientCredentials,
  type ClientSessionOptions,
} from './evaluate-request.js';
import { matchEndpoint } from './endpoints.js';
import { startVerifyingEndpoint, type ForwardedRequest } from './verifying-endpoint.js';

/** The audited client, run as a command with the audit's address in its environment. */
export interface ClientCommand {
  /** Run through the shell (`sh -c`), as typed after `--exec`. */
  readonly command: string;
  /**
   * The environment it is started from: it gets the ordinary part and its credentials, never another variable
   * payconform reads for itself (programEnv, role exec-client); PAYCONFORM_BASE_URL and the seeded payment are added.
   */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Stopped (its whole process group: SIGTERM, SIGKILL after STOP_GRACE_MS) when it runs longer. */
  readonly timeoutMs: number;
  /** Its standard output and error, in chunks. */
  readonly onOutput?: (stream: 'stdout' | 'stderr', text: string) => void;
}

/** The client's application, as the service behind the verifying endpoint must know it. */
export interface ClientAuditApplication {
  readonly applicationId: string;
  readonly applicationSecret: string;
  readonly keyId: string;
  readonly publicKey: ClientCredentials['publicKey'];
  readonly merchantId: string;
  readonly payInAccountSelector?: string;
}

/**
 * The service the verifying endpoint forwards to once it has judged a request: it holds the client's application
 * and a settled (and, where it can, an unsettled) payment to refund. The CLI starts the reference service for it;
 * the conformance library never imports a service itself.
 */
export interface ClientAuditBackend {
  readonly baseUrl: string;
  readonly settledPayment: { readonly paymentId: string; readonly amount: string };
  readonly unsettledPayment?: { readonly paymentId: string; readonly status: string };
  readonly payInAccountSelector: string;
  close(): Promise<void>;
}

/**
 * Starts the service behind the client audit's verifying endpoint for one application (the CLI
 * passes the reference service).
 */
export type StartClientAuditBackend = (
  application: ClientAuditApplication,
) => Promise<ClientAuditBackend>;

/**
 * How to serve a client audit: the client's credentials, the backend behind the verifying
 * endpoint, and where to listen.
 */
export interface ClientAuditServeOptions {
  readonly credentials: ClientCredentials;
  /** Starts the service behind the verifying endpoint (the CLI passes the reference service). */
  readonly startBackend: StartClientAuditBackend;
  /** The virtual account selector the client sends (default: generated; alias "main" always works). */
  readonly payInAccountSelector?: string;
  /** Default 127.0.0.1, a free port. */
  readonly listen?: { readonly host: string; readonly port: number };
  /** Serve HTTPS with this certificate (and plain HTTP on a second port, to see a client that uses it). */
  readonly tls?: ServerTls;
  /** The CA certificate file the client should trust (given to the command as PAYCONFORM_CA_FILE). */
  readonly tlsCaFile?: string;
  /** With a command: serve until it exits. */
  readonly exec?: ClientCommand;
  /** Without a command: serve this long (undefined: until `signal`). */
  readonly serveMs?: number;
  readonly signal?: AbortSignal;
  readonly session?: ClientSessionOptions;
  /** Called once the endpoint listens, before the command starts. */
  readonly onListening?: (info: ClientAuditListening) => void;
  readonly onExchange?: (exchange: ClientExchange) => void;
}

/**
 * Where the client audit listens and what it offers the client: its base URL and a settled payment
 * to refund.
 */
export interface ClientAuditListening {
  readonly baseUrl: string;
  readonly settledPayment: { readonly paymentId: string; readonly amount: string };
  readonly unsettledPayment?: { readonly paymentId: string; readonly status: string };
  readonly payInAccountSelector: string;
  /** With TLS: the same endpoint over plain HTTP (a conformant client sends no signed request there). */
  readonly plainBaseUrl?: string;
  readonly caFile?: string;
}

/** The environment variables a client command receives in addition to the given environment. */
export function clientCommandEnv(info: ClientAuditListening): Record<string, string> {
  return {
    PAYCONFORM_BASE_URL: info.baseUrl,
    ...(info.plainBaseUrl !== undefined
      ? { PAYCONFORM_PLAIN_HTTP_BASE_URL: info.plainBaseUrl }
      : {}),
    ...(info.caFile !== undefined ? { PAYCONFORM_CA_FILE: info.caFile } : {}),
    PAYCONFORM_SETTLED_PAYMENT_ID: info.settledPayment.paymentId,
    PAYCONFORM_SETTLED_PAYMENT_AMOUNT: info.settledPayment.amount,
    PAYCONFORM_PAY_IN_ACCOUNT_SELECTOR: info.payInAccountSelector,
    ...(info.unsettledPayment
      ? { PAYCONFORM_UNSETTLED_PAYMENT_ID: info.unsettledPayment.paymentId }
      : {}),
  };
}

const delay = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

/** How the command ended: a line for the report, and `failure` unless it exited by itself with code 0. */
interface CommandEnd {
  readonly note: string;
  readonly failure?: string;
}

/** The command's end as a line: why it was stopped, or its exit code (or signal) and how long it ran. */
function commandEnd(
  reason: string | undefined,
  code: number | null,
  sig: NodeJS.Signals | null,
  started: number,
): CommandEnd {
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const note =
    reason !== undefined
      ? `client command ${reason}`
      : `client command exited with ${code !== null ? `code ${code}` : `signal ${sig ?? '?'}`} after ${seconds} s`;
  return reason === undefined && code === 0 ? { note } : { note, failure: note };
}

/** Runs the command to its end (or its timeout, or the signal), in its own process group. Never throws. */
async function runCommand(
  cmd: ClientCommand,
  extraEnv: Record<string, string>,
  signal: AbortSignal | undefined,
): Promise<CommandEnd> {
  const started = Date.now();
  let group: ProcessGroup;
  try {
    group = spawnInGroup(cmd.command, [], {
      shell: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: programEnv('exec-client', cmd.env, extraEnv),
    });
  } catch (error) {
    const note = `client command could not start: ${error instanceof Error ? error.message : String(error)}`;
    return { note, failure: note };
  }
  const run = runBounded(group, {
    timeoutMs: cmd.timeoutMs,
    timedOut: `timed out after ${Math.round(cmd.timeoutMs / 1000)} s and was stopped`,
    signal,
    aborted: 'was stopped (audit interrupted)',
  });
  group.child.stdout?.on('data', (b: Buffer) => cmd.onOutput?.('stdout', b.toString('utf8')));
  group.child.stderr?.on('data', (b: Buffer) => cmd.onOutput?.('stderr', b.toString('utf8')));
  const { exit: end, stopped } = await run.done;
  if (end.error !== undefined) {
    const note = `client command failed to run: ${end.error.message}`;
    return { note, failure: note };
  }
  return commandEnd(stopped, end.code, end.signal, started);
}

// Spec leaves the merchant id to configuration: when none is configured, any merchant id is accepted, so the
// refund is forwarded under the service's one (and unsigned, as the rewritten path would break a signature).
function refundUnderMerchant(merchantId: string): (request: ForwardedRequest) => ForwardedRequest {
  return (request) => {
    const match = matchEndpoint(request.method, request.target);
    if (match.endpoint !== 'create-refund' || match.wrongMethod) return request;
    const target = request.target.replace(
      /^\/api\/merchants\/[^/?#]+/,
      `/api/merchants/${merchantId}`,
    );
    if (target === request.target) return request;
    return {
      ...request,
      target,
      headers: request.headers.filter(
        ([n]) => !['signature', 'signature-input'].includes(n.toLowerCase()),
      ),
    };
  };
}

type RunningEndpoint = Awaited<ReturnType<typeof startVerifyingEndpoint>>;

/** What the client (and its command) is told once the endpoint listens. */
function listeningInfo(
  endpoint: RunningEndpoint,
  service: ClientAuditBackend,
  options: ClientAuditServeOptions,
): ClientAuditListening {
  return {
    baseUrl: endpoint.baseUrl,
    settledPayment: service.settledPayment,
    ...(service.unsettledPayment ? { unsettledPayment: service.unsettledPayment } : {}),
    payInAccountSelector: service.payInAccountSelector,
    ...(endpoint.plainBaseUrl !== undefined ? { plainBaseUrl: endpoint.plainBaseUrl } : {}),
    ...(options.tlsCaFile !== undefined ? { caFile: options.tlsCaFile } : {}),
  };
}

/** Runs the command, or serves for the window or until the signal; the command's end when there is one. */
async function serveClient(
  options: ClientAuditServeOptions,
  info: ClientAuditListening,
): Promise<CommandEnd | undefined> {
  if (options.exec) return runCommand(options.exec, clientCommandEnv(info), options.signal);
  if (options.serveMs !== undefined) await delay(options.serveMs, options.signal);
  else if (options.signal) await delay(2 ** 31 - 1, options.signal);
  return undefined;
}

/** What the checks judge: the exchanges, and notes on the command's end and on refused requests. */
function auditContext(
  endpoint: RunningEndpoint,
  end: CommandEnd | undefined,
  options: ClientAuditServeOptions,
): ClientAuditContext {
  const refused = endpoint.refused();
  const notes = [
    end?.note,
    refused > 0 ? `${refused} request(s) refused unexamined: body over the size limit` : undefined,
  ].filter((n): n is string => n !== undefined);
  return {
    baseUrl: endpoint.baseUrl,
    exchanges: [...endpoint.exchanges()],
    ...(notes.length > 0 ? { commandNote: notes.join('; ') } : {}),
    ...(end?.failure !== undefined ? { commandFailure: end.failure } : {}),
    ...(options.tls !== undefined ? { tls: true } : {}),
  };
}

/** Serves the audit until the command exits (or the window ends); returns what the checks judge. */
export async function serveClientAudit(
  options: ClientAuditServeOptions,
): Promise<ClientAuditContext> {
  const { credentials } = options;
  const merchantForService = credentials.merchantId ?? '00000000-0000-4000-8000-000000000000';
  const service = await options.startBackend({
    applicationId: credentials.applicationId,
    applicationSecret: credentials.applicationSecret,
    keyId: credentials.keyId,
    publicKey: credentials.publicKey,
    merchantId: merchantForService,
    ...(options.payInAccountSelector !== undefined
      ? { payInAccountSelector: options.payInAccountSelector }
      : {}),
  });
  const session = new ClientSession(credentials, options.session ?? {});
  const rewrite =
    credentials.merchantId !== undefined ? undefined : refundUnderMerchant(merchantForService);
  let endpoint: RunningEndpoint | undefined;
  try {
    endpoint = await startVerifyingEndpoint({
      host: options.listen?.host ?? '127.0.0.1',
      port: options.listen?.port ?? 0,
      session,
      backendUrl: service.baseUrl,
      ...(options.tls !== undefined ? { tls: options.tls } : {}),
      ...(rewrite ? { rewrite } : {}),
      ...(options.onExchange ? { onExchange: options.onExchange } : {}),
    });
    const info = listeningInfo(endpoint, service, options);
    options.onListening?.(info);
    const end = await serveClient(options, info);
    await endpoint.close();
    return auditContext(endpoint, end, options);
  } finally {
    await endpoint?.close();
    await service.close();
  }
}
