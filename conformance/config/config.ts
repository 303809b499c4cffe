// Audit configuration: the JSON config file (non-secret settings) merged with the environment (secrets only there).
import { dirname } from 'node:path';
import {
  FileReadError,
  FILE_SIZE_LIMITS,
  parseJsonFile,
  readRegularFile,
  textOf,
} from '../../net/file-read.js';
import {
  copStatuses,
  getRegisteredSchema,
  validateAgainst,
  type SchemaViolation,
} from '../../src/schemas/index.js';
import { DEFAULT_TIMEOUT_MS } from './config-defaults.js';
import { maskUrlCredentials } from '../report/redact.js';
import {
  refuseMissingProgram,
  resolveStateHook,
  type StateHookFile,
} from '../state-hook/config.js';
import type { StateHookConfig } from '../state-hook/contract.js';

/** The keys of `copDestinations`: each copStatus (src/schemas/statuses.ts), and `null` for CoP not active. */
export const COP_STATUS_KEYS = [...copStatuses, 'null'] as const;
export type CopStatusKey = (typeof COP_STATUS_KEYS)[number];

/** A payout destination as the configuration gives it (the spec's Payout destination object). */
export interface PayoutDestinationConfig {
  readonly destinationType: string;
  readonly accountType: string;
  readonly holderName: string;
  readonly accountNumber: string;
  readonly sortCode: string;
  readonly iban?: string | null;
}

/** A secret value: prints as `[REDACTED]` in JSON, template strings and `util.inspect`; `reveal()` gives the value. */
export class SecretValue {
  readonly #value: string;
  constructor(value: string) {
    this.#value = value;
  }
  reveal(): string {
    return this.#value;
  }
  toJSON(): string {
    return '[REDACTED]';
  }
  toString(): string {
    return '[REDACTED]';
  }
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return 'SecretValue([REDACTED])';
  }
}

export type ConfigSource = 'config' | 'env' | 'default';

/** The account a settled payment came from (config payments.settled[].payer): where its refunds must go. */
export interface PayerAccount {
  readonly name: string;
  readonly accountNumber: string;
  readonly sortCode: string;
}

/**
 * An audit configuration file (`--config`): the target, ids, the pay-in account, CoP destinations,
 * payments and the webhook listener. docs/cli.md lists every field.
 */
export interface ConformanceConfig {
  readonly target?: string;
  readonly merchantId?: string;
  readonly applicationId?: string;
  readonly keyId?: string;
  readonly payInAccountSelector?: string;
  readonly copDestinations: Readonly<Partial<Record<CopStatusKey, PayoutDestinationConfig>>>;
  readonly payments: {
    /** Amounts normalised to decimal strings (`"10.50"`), whether given as JSON numbers or strings. */
    readonly settled: ReadonlyArray<{
      readonly paymentId: string;
      readonly amount: string;
      readonly payer?: PayerAccount;
    }>;
    readonly unsettled: ReadonlyArray<{ readonly paymentId: string; readonly status: string }>;
  };
  readonly webhookListen?: { readonly host: string; readonly port: number };
  /** Redelivery timing: how long to wait (`waitMs`), or the target's stated interval (`withinMs`: no redelivery within it fails). */
  readonly webhookRetry?: { readonly waitMs?: number; readonly withinMs?: number };
  /**
   * The target's automatic lifecycle: each step (IN_PROGRESS → PROCESSED...) within `withinMs`, or none
   * (`automatic: false`: payouts and refunds move only when asked, e.g. through payconform's /sandbox/).
   */
  readonly lifecycle?: { readonly withinMs?: number; readonly automatic?: boolean };
  /** The target implements payconform's /sandbox/ helper endpoints (default false). */
  readonly sandbox: boolean;
  /** The target's state hook (docs/state-hook.md): asked for states the spec shows no API for. */
  readonly stateHook?: StateHookConfig;
  readonly timeoutMs: number;
  /** From PAYCONFORM_APPLICATION_SECRET only. */
  readonly applicationSecret?: SecretValue;
  /** From PAYCONFORM_PRIVATE_KEY only (base64 seed or PEM, as given). */
  readonly privateKey?: SecretValue;
  /** Where each set field came from. */
  readonly sources: Readonly<Record<string, ConfigSource>>;
}

/** An audit configuration read and checked, or a message saying what is wrong with it. */
export type ConfigResult =
  | { readonly ok: true; readonly config: ConformanceConfig }
  | { readonly ok: false; readonly message: string };

export { DEFAULT_TIMEOUT_MS };
/** Config files above this size are refused unread (the one table of limits: net/file-read.ts). */
export const MAX_CONFIG_BYTES = FILE_SIZE_LIMITS.config;

/** Environment variables for the non-secret fields (they override the config file). */
export const ENV_FIELDS = {
  target: 'PAYCONFORM_TARGET',
  applicationId: 'PAYCONFORM_APPLICATION_ID',
  keyId: 'PAYCONFORM_KEY_ID',
  merchantId: 'PAYCONFORM_MERCHANT_ID',
} as const;

/** Member names that look like a secret; such a member in a config file is refused (secrets come from the environment). */
const SECRET_NAME = /secret|private.?key|password|passphrase|seed|credential|token/i;

export const CONFIG_SCHEMA_ID = 'https://payconform.dev/schemas/conformance-config.schema.json';

/** `/payments/settled/0` → `"payments.settled.0"`; the root is "the config". */
function describePointer(pointer: string): string {
  return pointer === '' ? 'the config' : `"${pointer.slice(1).replace(/\//g, '.')}"`;
}

function unescapeToken(token: string): string {
  return token.replaceAll('~1', '/').replaceAll('~0', '~');
}

/** The value at an RFC 6901 pointer (into the config document or a registered schema), or undefined. */
function resolvePointer(root: unknown, pointer: string): unknown {
  let node = root;
  for (const token of pointer === '' ? [] : pointer.slice(1).split('/')) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[unescapeToken(token)];
  }
  return node;
}

/** One readable message per schema violation, naming the field by its dotted path. */
function describeViolation(v: SchemaViolation, doc: object): string {
  const slash = v.pointer.lastIndexOf('/');
  const parent = slash === -1 ? '' : v.pointer.slice(0, slash);
  const member = unescapeToken(v.pointer.slice(slash + 1));
  if (v.keyword === 'additionalProperties')
    return `${describePointer(parent)}: unknown field "${member}"`;
  if (v.keyword === 'required') return `${describePointer(parent)} ${v.message}`;
  if (
    v.keyword === 'propertyNames' ||
    (v.keyword === 'enum' && v.schemaLocation.includes('/propertyNames/'))
  ) {
    const value = resolvePointer(doc, v.pointer);
    const keys =
      typeof value === 'object' && value !== null
        ? Object.keys(value).filter((k) => !(COP_STATUS_KEYS as readonly string[]).includes(k))
        : [];
    return `${describePointer(v.pointer)}: key ${keys.map((k) => `"${k}"`).join(', ')} is not a copStatus value (${COP_STATUS_KEYS.join(', ')})`;
  }
  if (v.keyword === 'type') {
    // The schema's own type name ("must be integer"), as the config's readers know it from the schema file.
    const [id = '', location = ''] = v.schemaLocation.split('#');
    const type = resolvePointer(getRegisteredSchema(id), location);
    if (typeof type === 'string' || Array.isArray(type))
      return `${describePointer(v.pointer)} must be ${[type].flat().join(',')}`;
  }
  return `${describePointer(v.pointer)} ${v.message}`;
}

/** Finds secret-looking member names anywhere in the document (bounded depth). */
function findSecretFields(value: unknown, path: string, out: string[], depth = 0): void {
  if (depth > 20 || typeof value !== 'object' || value === null) return;
  for (const [key, child] of Object.entries(value)) {
    const here = path ? `${path}.${key}` : key;
    if (SECRET_NAME.test(key)) out.push(here);
    findSecretFields(child, here, out, depth + 1);
  }
}

/** Normalises an amount (JSON number or decimal string) to a decimal string, or undefined when not a plain decimal. */
export function normalizeAmount(amount: number | string): string | undefined {
  if (typeof amount === 'string')
    return /^(?:0|[1-9]\d{0,14})(?:\.\d{1,10})?$/.test(amount) ? amount : undefined;
  if (!Number.isFinite(amount) || amount <= 0) return undefined;
  const text = String(amount);
  return /^\d+(?:\.\d+)?$/.test(text) ? text : undefined;
}

export function parseHostPort(value: string): { host: string; port: number } | undefined {
  const m = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(value);
  if (!m) return undefined;
  const port = Number(m[2]);
  if (port > 65535) return undefined;
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
}

function checkTarget(target: string, origin: string): string | undefined {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    // Quoted with any credentials masked: a password in the URL is refused below, and never repeated.
    return `${origin}: target "${maskUrlCredentials(target)}" is not a URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return `${origin}: target must be an http or https URL (got "${url.protocol}")`;
  if (url.username !== '' || url.password !== '')
    return `${origin}: target must not carry credentials in the URL; use PAYCONFORM_APPLICATION_SECRET`;
  if (url.hash !== '') return `${origin}: target must not have a fragment`;
  return undefined;
}

/** A config document as the schema admits it. */
interface ConfigFile {
  target?: string;
  merchantId?: string;
  applicationId?: string;
  keyId?: string;
  payInAccountSelector?: string;
  copDestinations?: Partial<Record<CopStatusKey, PayoutDestinationConfig>>;
  payments?: {
    settled?: Array<{ paymentId: string; amount: number | string; payer?: PayerAccount }>;
    unsettled?: Array<{ paymentId: string; status: string }>;
  };
  webhookListen?: string;
  timeoutMs?: number;
  sandbox?: boolean;
  stateHook?: StateHookFile;
  webhookRetry?: { waitMs?: number; withinMs?: number };
  lifecycle?: { withinMs?: number; automatic?: boolean };
}

/** The document as a config file: a JSON object, without secrets, valid against the config schema; or why not. */
function readConfigFile(document: unknown, origin: string): ConfigFile | string {
  const doc = document ?? {};
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    return `${origin}: the top level must be a JSON object`;
  const secrets: string[] = [];
  findSecretFields(doc, '', secrets);
  if (secrets.length > 0) {
    return `${origin}: field ${secrets.map((s) => `"${s}"`).join(', ')} looks like a secret; secrets are read only from the environment (PAYCONFORM_APPLICATION_SECRET, PAYCONFORM_PRIVATE_KEY), never from config files or arguments`;
  }
  const checked = validateAgainst(CONFIG_SCHEMA_ID, doc);
  if (!checked.valid)
    return `${origin}: ${[...new Set(checked.errors.map((v) => describeViolation(v, doc)))].slice(0, 10).join('; ')}`;
  return doc as ConfigFile;
}

type SettledPayment = { paymentId: string; amount: string; payer?: PayerAccount };

/** The settled payments with their amounts normalised, or why an amount is not one. */
function resolveSettled(file: ConfigFile, origin: string): SettledPayment[] | string {
  const settled: SettledPayment[] = [];
  for (const [i, p] of (file.payments?.settled ?? []).entries()) {
    const amount = normalizeAmount(p.amount);
    if (amount === undefined)
      return `${origin}: "payments.settled.${i}.amount" must be a positive decimal number without exponent (got ${JSON.stringify(p.amount)})`;
    settled.push({
      paymentId: p.paymentId,
      amount,
      ...(p.payer !== undefined ? { payer: p.payer } : {}),
    });
  }
  return settled;
}

function resolveWebhookListen(
  file: ConfigFile,
  origin: string,
): { host: string; port: number } | undefined | string {
  if (file.webhookListen === undefined) return undefined;
  return (
    parseHostPort(file.webhookListen) ??
    `${origin}: "webhookListen" must be host:port with a port up to 65535 (got "${file.webhookListen}")`
  );
}

/** A field named in ENV_FIELDS: from its environment variable when set and not empty, else from the file. */
function pickField(
  field: keyof typeof ENV_FIELDS,
  file: ConfigFile,
  env: Readonly<Record<string, string | undefined>>,
  sources: Record<string, ConfigSource>,
): string | undefined {
  const fromEnv = env[ENV_FIELDS[field]];
  if (fromEnv !== undefined && fromEnv !== '') {
    sources[field] = 'env';
    return fromEnv;
  }
  if (file[field] !== undefined) sources[field] = 'config';
  return file[field];
}

/** Where the file-only fields and the secrets came from (the secrets' presence only). */
function recordFileSources(
  file: ConfigFile,
  secrets: { readonly applicationSecret?: string; readonly privateKey?: string },
  sources: Record<string, ConfigSource>,
): void {
  if (secrets.applicationSecret) sources['applicationSecret'] = 'env';
  if (secrets.privateKey) sources['privateKey'] = 'env';
  for (const f of [
    'payInAccountSelector',
    'copDestinations',
    'payments',
    'webhookListen',
    'timeoutMs',
    'sandbox',
    'stateHook',
  ] as const)
    if (file[f] !== undefined) sources[f] = 'config';
  if (file.timeoutMs === undefined) sources['timeoutMs'] = 'default';
  if (file.sandbox === undefined) sources['sandbox'] = 'default';
}

/**
 * Builds the config from a parsed config document (or `undefined` when there is no file) and the environment.
 * Pure; never throws for bad input.
 */
export function resolveConfig(
  document: unknown,
  env: Readonly<Record<string, string | undefined>>,
  origin = 'config',
): ConfigResult {
  const file = readConfigFile(document, origin);
  if (typeof file === 'string') return { ok: false, message: file };
  const sources: Record<string, ConfigSource> = {};
  const pick = (field: keyof typeof ENV_FIELDS): string | undefined =>
    pickField(field, file, env, sources);
  const target = pick('target');
  const targetProblem =
    target === undefined
      ? undefined
      : checkTarget(target, sources['target'] === 'env' ? ENV_FIELDS.target : origin);
  if (targetProblem) return { ok: false, message: targetProblem };
  const settled = resolveSettled(file, origin);
  if (typeof settled === 'string') return { ok: false, message: settled };
  const webhookListen = resolveWebhookListen(file, origin);
  if (typeof webhookListen === 'string') return { ok: false, message: webhookListen };
  const stateHook = resolveStateHook(file.stateHook, origin);
  if (typeof stateHook === 'string') return { ok: false, message: stateHook };
  const applicationSecret = env['PAYCONFORM_APPLICATION_SECRET'];
  const privateKey = env['PAYCONFORM_PRIVATE_KEY'];
  recordFileSources(file, { applicationSecret, privateKey }, sources);
  const merchantId = pick('merchantId');
  const applicationId = pick('applicationId');
  const keyId = pick('keyId');
  const config: ConformanceConfig = {
    ...(target !== undefined ? { target } : {}),
    ...(merchantId !== undefined ? { merchantId } : {}),
    ...(applicationId !== undefined ? { applicationId } : {}),
    ...(keyId !== undefined ? { keyId } : {}),
    ...(file.payInAccountSelector !== undefined
      ? { payInAccountSelector: file.payInAccountSelector }
      : {}),
    copDestinations: { ...(file.copDestinations ?? {}) },
    payments: { settled, unsettled: [...(file.payments?.unsettled ?? [])] },
    ...(webhookListen ? { webhookListen } : {}),
    ...(file.webhookRetry !== undefined ? { webhookRetry: { ...file.webhookRetry } } : {}),
    ...(file.lifecycle !== undefined ? { lifecycle: { ...file.lifecycle } } : {}),
    sandbox: file.sandbox ?? false,
    ...(stateHook !== undefined ? { stateHook } : {}),
    timeoutMs: file.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    ...(applicationSecret ? { applicationSecret: new SecretValue(applicationSecret) } : {}),
    ...(privateKey ? { privateKey: new SecretValue(privateKey) } : {}),
    sources,
  };
  return { ok: true, config };
}

/** Reads and resolves a config file (`path` undefined: environment only). Never throws; errors are readable messages. */
export async function loadConfig(
  path: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Promise<ConfigResult> {
  if (path === undefined) return resolveConfig(undefined, env);
  let text: string;
  try {
    // The one reader: a regular file within the limit (a FIFO or /dev/zero refused at once), a byte-order mark dropped.
    text = textOf(readRegularFile(path, 'config'));
  } catch (error) {
    if (!(error instanceof FileReadError)) throw error;
    return { ok: false, message: `cannot read config "${path}": ${error.message}` };
  }
  let document: unknown;
  try {
    document = parseJsonFile(text);
  } catch (error) {
    return { ok: false, message: `config "${path}": ${(error as Error).message}` };
  }
  const resolved = resolveConfig(document, env, `config "${path}"`);
  // A hook command whose program cannot start would fail every call of the run: refused here, with the config.
  const hookProblem = resolved.ok
    ? refuseMissingProgram(
        resolved.config.stateHook,
        { cwd: process.cwd(), path: env['PATH'] ?? process.env['PATH'], configDir: dirname(path) },
        `config "${path}"`,
      )
    : undefined;
  return hookProblem !== undefined ? { ok: false, message: hookProblem } : resolved;
}

/**
 * True when the config states that the target has no payconform /sandbox/ endpoints (`"sandbox": false` written in
 * the file, not the default): the checks that need them are then not applicable to this target rather than skipped.
 */
export function statesNoSandbox(config: ConformanceConfig): boolean {
  return config.sources['sandbox'] === 'config' && !config.sandbox;
}

/** Where each config field a check may need comes from, for skip reasons: secrets only from the environment. */
const NEED_SOURCES: Readonly<Record<string, string>> = {
  applicationSecret: 'PAYCONFORM_APPLICATION_SECRET (environment only)',
  privateKey: 'PAYCONFORM_PRIVATE_KEY (environment only)',
  applicationId: '"applicationId" (config or PAYCONFORM_APPLICATION_ID)',
  keyId: '"keyId" (config or PAYCONFORM_KEY_ID)',
  merchantId: '"merchantId" (config or PAYCONFORM_MERCHANT_ID)',
  target: '"target" (--target, config or PAYCONFORM_TARGET)',
};

/** Names a missing need the way a user sets it (`describeNeed` for the engine). */
export function describeNeed(need: string): string {
  return NEED_SOURCES[need] ?? `"${need}" in the config`;
}

/**
 * The config fields a check can name in `needs`: `target`, `merchantId`, `applicationId`, `keyId`,
 * `payInAccountSelector`, `applicationSecret`, `privateKey`, `webhookListen`, `payments.settled`,
 * `payments.unsettled`, `copDestinations.<COP_STATUS>` (e.g. `copDestinations.PARTIAL_MATCH`), `sandbox` (when true).
 */
export function availableFields(config: ConformanceConfig): Set<string> {
  const fields = new Set<string>();
  for (const f of [
    'target',
    'merchantId',
    'applicationId',
    'keyId',
    'payInAccountSelector',
    'applicationSecret',
    'privateKey',
    'webhookListen',
  ] as const) {
    if (config[f] !== undefined) fields.add(f);
  }
  if (config.sandbox) fields.add('sandbox');
  if (config.payments.settled.length > 0) fields.add('payments.settled');
  if (config.payments.unsettled.length > 0) fields.add('payments.unsettled');
  for (const key of Object.keys(config.copDestinations)) fields.add(`copDestinations.${key}`);
  return fields;
}
