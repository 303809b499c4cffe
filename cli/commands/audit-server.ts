// `payconform audit server`: audits a service implementation against the spec. Without a target it starts the
// reference service in-process on loopback (short timers, webhooks to the runner's own listener) and audits that.
import { showControls } from '../../conformance/reporters/printable.js';
import { generateKeyPair } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { CliIo } from '../io.js';
import type { ForgerySettings } from '../../conformance/checks/server/context.js';
import { EXIT, UsageError } from '../io.js';
import { parseExploreBudget } from '../explore-options.js';
import { resolveTrustedCa } from '../tls-options.js';
import { parseForgeOptions, withForgeries } from '../forge-options.js';
import { commandSpec, parseArgsOptions, usageLine } from '../command-table.js';
import {
  EMBEDDED_REQUEST_TIMEOUT_MS,
  MAX_TIMEOUT_MS,
  PROBE_TIMEOUT_MS,
} from '../command-defaults.js';
import {
  auditCommand,
  auditSteps,
  checkHttpUrl,
  parseAuditArgs,
  parseIntegerOption,
  selectionOptions,
  toolVersion,
  type AuditStepContext,
  type CommonAuditArgs,
  type PreparedAudit,
} from '../audit-command.js';
import { validatePayload } from '../../src/schemas/index.js';
import { exportEd25519SeedBase64, parseEd25519PrivateKey } from '../../src/keys/index.js';
import { endpointSpecs } from '../../conformance/client-audit/endpoints.js';
import {
  availableFields,
  describeNeed,
  loadConfig,
  statesNoSandbox,
  type ConformanceConfig,
} from '../../conformance/config.js';
import { discoverFromSandbox } from '../../conformance/discover.js';
import { exploreProgress } from '../explore-progress.js';
import { shellQuote } from '../../conformance/curl.js';
import {
  createExploreCheck,
  EXPLORE_DEFAULTS,
  parseReplayToken,
  type ExploreSettings,
} from '../../conformance/explore/explorer.js';
import { runChecks, type LevelFilter } from '../../conformance/engine.js';
import type { SuiteRerun } from '../../conformance/flaky.js';
import { sendRequest } from '../../conformance/http-client.js';
import { withTolerance } from '../../conformance/checks/server/waits.js';
import { closeStateHook } from '../../conformance/state-hook/index.js';
import { isLoopbackTarget, reachesLoopback } from '../../net/loopback.js';
import { createRedactor, type Redactor } from '../../conformance/redact.js';
import { loadCatalogue } from '../../conformance/requirements.js';
import type { RunGate, RunSummary } from '../../conformance/result.js';
import { startWebhookListener, type WebhookListener } from '../../conformance/webhook-listener.js';
import {
  serverChecks,
  startRun,
  type AuditCredentials,
  type ServerAuditContext,
} from '../../conformance/checks/server/index.js';
import { SANDBOX_BASE_PATH } from '../../net/sandbox-protocol.js';
import {
  startReferenceService,
  type FaultName,
  type ReferenceServiceOptions,
  type RunningReferenceService,
  type ServerTls,
  type ServiceVariant,
} from '../../server/index.js';

const SPEC = commandSpec('audit server');
const USAGE = usageLine(SPEC);

/** Checks running at once (independent checks; the refund checks share a group and run one after another). */
export const AUDIT_CONCURRENCY = 16;

/** Timers of the embedded reference service: short, so lifecycles and redeliveries happen within the audit. */
export const EMBEDDED_TIMERS = {
  lifecycleDelayMs: 250,
  retry: { initialDelayMs: 40, maxDelayMs: 200, maxAttempts: 6, requestTimeoutMs: 2_000 },
} as const;

/** How a report names the embedded service after its URL (a report of it has no target to reach afterwards). */
export const EMBEDDED_LABEL = ' (embedded reference service)';

/** A target ready to audit: the check context, what the engine needs to know, and how to stop what was started. */
export interface AuditTarget {
  readonly context: ServerAuditContext;
  /** As shown in reports. */
  readonly label: string;
  readonly isAvailable: (need: string) => boolean;
  readonly checkTimeoutMs: number;
  readonly close: () => Promise<void>;
}

export interface EmbeddedOptions {
  /** Reference-service faults (tests: prove each check can fail). */
  readonly faults?: readonly FaultName[];
  /**
   * The reference service's personality (default clean; alt takes the other permitted choices; lenient parses signed
   * requests as RFC 8941 does).
   */
  readonly variant?: ServiceVariant;
  /** RSA webhook signing key (PEM); default generated at start. */
  readonly webhookSigningKey?: string;
  readonly requestTimeoutMs?: number;
  /** Serve the embedded service over HTTPS with this certificate; the audit trusts `caCert` only. */
  readonly tls?: ServerTls & { readonly caCert: string };
  /**
   * Where the service serves /sandbox/ (default `/sandbox`): another path, or false, makes a target without it; the
   * audit context then says `sandbox: false` (tests of the state hook and of the config's payments).
   */
  readonly sandboxPath?: string | false;
  /**
   * The service's clock this many ms from this machine's (tests: a target whose clock differs, as a server elsewhere
   * may; it judges `created` and writes its Date header by it).
   */
  readonly clockOffsetMs?: number;
}

function generateRsaPem(): Promise<string> {
  return new Promise((resolve, reject) => {
    generateKeyPair(
      'rsa',
      {
        modulusLength: 2048,
        privateKeyEncoding: { format: 'pem', type: 'pkcs8' },
        publicKeyEncoding: { format: 'pem', type: 'spki' },
      },
      (error, _publicKey, privateKey) => (error ? reject(error) : resolve(privateKey)),
    );
  });
}

/** Starts the runner's listener and the reference service wired to it, and the context to audit it with. */
export async function startEmbeddedTarget(
  options: EmbeddedOptions = {},
): Promise<
  AuditTarget & { readonly service: RunningReferenceService; readonly listener: WebhookListener }
> {
  // The RSA key pair is generated on the thread pool while this thread compiles the schemas (both one-time costs).
  const keyPem = options.webhookSigningKey ?? generateRsaPem();
  validatePayload('payout', {});
  const listener = await startWebhookListener();
  let service: RunningReferenceService;
  try {
    service = await startReferenceService(embeddedServiceOptions(options, listener, await keyPem));
  } catch (error) {
    await listener.close();
    throw error;
  }
  if (service.credentials.privateKey === undefined) {
    await Promise.all([service.close(), listener.close()]);
    throw new TypeError('the embedded service did not hand back its development private key');
  }
  return {
    context: embeddedContext(service, listener, options),
    service,
    listener,
    label: `${service.baseUrl}${EMBEDDED_LABEL}`,
    isAvailable: () => true,
    checkTimeoutMs: 15_000,
    close: async () => {
      await service.close();
      await listener.close();
    },
  };
}

/** The embedded service: the faults and variant asked for, short timers, webhooks to the runner's listener. */
function embeddedServiceOptions(
  options: EmbeddedOptions,
  listener: WebhookListener,
  webhookSigningKey: string,
): ReferenceServiceOptions {
  const offset = options.clockOffsetMs;
  return {
    faults: options.faults ?? [],
    ...(options.variant !== undefined ? { variant: options.variant } : {}),
    webhookUrls: {
      payment: listener.urlFor('payment'),
      payout: listener.urlFor('payout'),
      refund: listener.urlFor('refund'),
    },
    ...EMBEDDED_TIMERS,
    webhookSigningKey,
    ...(options.tls !== undefined ? { tls: options.tls } : {}),
    ...(options.sandboxPath !== undefined ? { sandboxPath: options.sandboxPath } : {}),
    ...(offset !== undefined ? { now: () => Date.now() + offset } : {}),
  };
}

/** The check context of the embedded service: its generated credentials, its seeded data, and its short timings. */
function embeddedContext(
  service: RunningReferenceService,
  listener: WebhookListener,
  options: EmbeddedOptions,
): ServerAuditContext {
  const c = service.credentials;
  const privateKey = c.privateKey!;
  const redactor = createRedactor({
    applicationSecret: c.applicationSecret,
    privateKey: exportEd25519SeedBase64(privateKey),
  });
  return {
    baseUrl: service.baseUrl,
    credentials: {
      applicationId: c.applicationId,
      applicationSecret: c.applicationSecret,
      keyId: c.keyId,
      privateKey,
    },
    applicationId: c.applicationId,
    applicationSecret: c.applicationSecret,
    merchantId: c.merchantId,
    payInAccountSelector: c.payInAccountSelector,
    copDestinations: service.copDestinations,
    payments: service.seededPayments,
    webhooks: listener,
    requestTimeoutMs: options.requestTimeoutMs ?? EMBEDDED_REQUEST_TIMEOUT_MS,
    ...(options.tls !== undefined ? { tlsCa: options.tls.caCert } : {}),
    webhookWaitMs: 2_000,
    quietWaitMs: 300,
    knownTimings: { lifecycleWithinMs: 2_000, redeliveryWithinMs: 2_000 },
    sandbox: service.sandboxPath === SANDBOX_BASE_PATH,
    redactor,
  };
}

/** The context for a target given by URL: credentials from the environment, test data from the config. */
export async function prepareExternalTarget(
  target: string,
  config: ConformanceConfig,
  requestTimeoutMs: number,
  tls: { readonly tlsCa?: string } = {},
): Promise<AuditTarget> {
  const secret = config.applicationSecret?.reveal();
  const keyText = config.privateKey?.reveal();
  const redactor = createRedactor({ applicationSecret: secret, privateKey: keyText });
  const credentials = signingCredentials(config, secret, keyText, redactor);
  const listener = await startConfiguredListener(config);
  const fields = availableFields(config);
  const webhookWaitMs = requestTimeoutMs;
  const retry = config.webhookRetry;
  const redelivery = {
    waitMs: retry?.withinMs ?? retry?.waitMs ?? webhookWaitMs,
    stated: retry?.withinMs !== undefined,
  };
  const context: ServerAuditContext = {
    baseUrl: target.replace(/\/+$/, ''),
    ...(credentials ? { credentials } : {}),
    ...(config.applicationId !== undefined ? { applicationId: config.applicationId } : {}),
    ...(secret !== undefined ? { applicationSecret: secret } : {}),
    ...(config.merchantId !== undefined ? { merchantId: config.merchantId } : {}),
    ...(config.payInAccountSelector !== undefined
      ? { payInAccountSelector: config.payInAccountSelector }
      : {}),
    copDestinations: config.copDestinations,
    payments: config.payments,
    ...(listener ? { webhooks: listener } : {}),
    requestTimeoutMs,
    ...(tls.tlsCa !== undefined ? { tlsCa: tls.tlsCa } : {}),
    webhookWaitMs,
    quietWaitMs: Math.min(3_000, requestTimeoutMs),
    redelivery,
    ...(config.lifecycle !== undefined ? { lifecycle: config.lifecycle } : {}),
    sandbox: config.sandbox,
    ...(config.stateHook !== undefined ? { stateHook: config.stateHook } : {}),
    // "sandbox": false stated in the config: the target lacks payconform's /sandbox/, so what needs it does not apply.
    sandboxAbsent: statesNoSandbox(config),
    redactor,
  };
  return {
    context,
    label: target,
    isAvailable: (need) =>
      need === 'webhookListen'
        ? listener !== undefined
        : need === 'privateKey'
          ? credentials !== undefined
          : fields.has(need),
    checkTimeoutMs: externalCheckTimeoutMs(
      requestTimeoutMs,
      webhookWaitMs,
      redelivery.waitMs,
      config,
    ),
    close: async () => {
      // A hook command that stays ("lines": true) is stopped with the audit (docs/state-hook.md).
      await Promise.all([listener?.close(), closeStateHook(config.stateHook)]);
    },
  };
}

/**
 * A check's time limit against a target given by URL: room for the longest waits, a straggler wait (3x the request
 * timeout), a lifecycle step, and two redeliveries after the first webhook.
 */
function externalCheckTimeoutMs(
  requestTimeoutMs: number,
  webhookWaitMs: number,
  redeliveryWaitMs: number,
  config: ConformanceConfig,
): number {
  return (
    3 * requestTimeoutMs +
    2 * webhookWaitMs +
    2 * withTolerance(redeliveryWaitMs) +
    withTolerance(config.lifecycle?.withinMs ?? 0) +
    5_000
  );
}

/**
 * The credentials the signing checks use: undefined unless the private key, application id, key id and secret are
 * all given. A private key that does not parse is a usage error (its text masked).
 */
function signingCredentials(
  config: ConformanceConfig,
  secret: string | undefined,
  keyText: string | undefined,
  redactor: Redactor,
): AuditCredentials | undefined {
  if (keyText === undefined) return undefined;
  let privateKey;
  try {
    privateKey = parseEd25519PrivateKey(keyText.trim());
  } catch (error) {
    throw new UsageError(
      `PAYCONFORM_PRIVATE_KEY is not a usable Ed25519 key (base64 seed or PEM): ${redactor.redactText(error instanceof Error ? error.message : String(error))}`,
    );
  }
  if (config.applicationId === undefined || config.keyId === undefined || secret === undefined)
    return undefined;
  return {
    applicationId: config.applicationId,
    applicationSecret: secret,
    keyId: config.keyId,
    privateKey,
  };
}

/** The webhook listener the config's "webhookListen" asks for (none without it); a usage error when it cannot listen. */
async function startConfiguredListener(
  config: ConformanceConfig,
): Promise<WebhookListener | undefined> {
  if (config.webhookListen === undefined) return undefined;
  try {
    return await startWebhookListener({
      host: config.webhookListen.host,
      port: config.webhookListen.port,
    });
  } catch (error) {
    throw new UsageError(
      `cannot listen for webhooks on ${config.webhookListen.host}:${config.webhookListen.port}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
}

/** GET the public-key endpoint with a short timeout: any HTTP answer means reachable. */
async function probe(
  target: string,
  timeoutMs: number,
  ca: string | undefined,
): Promise<string | undefined> {
  const ex = await sendRequest(
    {
      method: 'GET',
      url: `${target.replace(/\/+$/, '')}${endpointSpecs['public-key'].path}`,
      headers: [['accept', '*/*']],
    },
    { timeoutMs, ...(ca !== undefined ? { ca } : {}) },
  );
  return ex.response === undefined
    ? `${ex.error?.code ?? 'NETWORK_ERROR'}: ${ex.error?.message ?? 'no response'}`
    : undefined;
}

/** What `--explore`, `--explore-only` and their options asked for. */
interface ExploreArgs {
  readonly only: boolean;
  readonly runs: number;
  readonly seconds: number;
  readonly seed?: number;
  readonly replay?: string;
}

/** `audit server`'s arguments, parsed (`payconform replay` builds them from a report). */
export interface Parsed extends CommonAuditArgs {
  readonly target?: string;
  /** The embedded service, whatever the config or PAYCONFORM_TARGET name (replay of a report of it). */
  readonly embedded?: true;
  readonly explore?: ExploreArgs;
  readonly configPath?: string;
  readonly allowLive: boolean;
  readonly timeoutMs?: number;
  readonly caFile?: string;
  readonly forgeries?: ForgerySettings;
}

function parse(args: readonly string[]): Parsed {
  const { values, common } = parseAuditArgs(args, {
    usage: USAGE,
    secretHint:
      'secrets are read only from the environment (PAYCONFORM_APPLICATION_SECRET, PAYCONFORM_PRIVATE_KEY), never from command-line arguments, which other users of this machine and shell histories can see',
    options: parseArgsOptions(SPEC.options),
  });
  const explore = parseExplore(values);
  const timeoutMs = parseIntegerOption(
    values['timeout-ms'] as string | undefined,
    MAX_TIMEOUT_MS,
    `--timeout-ms must be an integer from 1 to ${MAX_TIMEOUT_MS}`,
  );
  const target = values['target'];
  return {
    ...common,
    ...(typeof target === 'string'
      ? {
          target: checkHttpUrl(target, '--target', {
            baseUrl: true,
            credentialsHint: '; use PAYCONFORM_APPLICATION_SECRET',
          }),
        }
      : {}),
    ...(typeof values['config'] === 'string' ? { configPath: values['config'] } : {}),
    allowLive: values['allow-live'] === true,
    ...(explore !== undefined ? { explore } : {}),
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...(typeof values['ca'] === 'string' ? { caFile: values['ca'] } : {}),
    ...parseForgeOptions(values),
  };
}

function parseExplore(values: Record<string, unknown>): ExploreArgs | undefined {
  const replay = values['explore-replay'] as string | undefined;
  // The explorer runs by default; --no-explore leaves it out (and cannot be given with what configures it).
  if (values['no-explore'] === true) {
    const with_ = [
      'explore',
      'explore-only',
      'explore-replay',
      'explore-runs',
      'explore-seconds',
      'explore-seed',
    ].find((k) => values[k] !== undefined);
    if (with_ !== undefined) throw new UsageError(`--no-explore cannot be given with --${with_}`);
    return undefined;
  }
  if (replay !== undefined) {
    const parsed = parseReplayToken(replay);
    if (!parsed.ok) throw new UsageError(`--explore-replay: ${parsed.message}`);
    if (parsed.token.replayPath === undefined)
      throw new UsageError(
        '--explore-replay: this token names an SDK exploration (audit client --adapter); a server exploration prints SEED~PATH~REPLAYPATH',
      );
  }
  const { runs, seconds, seed } = parseExploreBudget(values);
  return {
    // A replay runs the one sequence alone; so does --explore-only.
    only: values['explore-only'] === true || replay !== undefined,
    runs: runs ?? EXPLORE_DEFAULTS.runs,
    seconds: seconds ?? EXPLORE_DEFAULTS.seconds,
    ...(seed !== undefined ? { seed } : {}),
    ...(replay !== undefined ? { replay } : {}),
  };
}

export interface AuditRunOptions {
  /** Adds the explorer (`explore-model`) after the fixed checks, or runs it alone. */
  readonly explore?: ExploreSettings & { readonly only: boolean };
  readonly only?: readonly string[];
  readonly level?: LevelFilter;
  readonly gate?: RunGate;
  /** The command that re-runs one check against this target (shown with failing checks). */
  readonly rerunCommand?: (checkId: string) => string;
  readonly refuseMutating?: string;
  readonly subscribers?: Parameters<typeof runChecks>[0]['subscribers'];
  readonly signal?: AbortSignal;
  /** Whether a failing check runs once more before it is reported (default again: conformance/flaky.ts). */
  readonly rerunFailures?: SuiteRerun;
}

/** Runs the server checks against a prepared target (the engine validates the suite, grades and redacts). */
export function auditTarget(
  target: AuditTarget,
  options: AuditRunOptions = {},
): Promise<RunSummary> {
  // The engine adds one abort listener per running check to the run's signal.
  if (options.signal !== undefined) setMaxListeners(4 * AUDIT_CONCURRENCY, options.signal);
  const explorer = options.explore !== undefined ? [createExploreCheck(options.explore)] : [];
  return runChecks({
    checks: options.explore?.only === true ? explorer : [...serverChecks, ...explorer],
    // Each run starts with a state of its own: nothing an earlier run of this target did counts in this one.
    context: startRun(target.context),
    role: 'server',
    target: target.label,
    toolVersion: toolVersion(),
    catalogue: loadCatalogue(),
    concurrency: AUDIT_CONCURRENCY,
    checkTimeoutMs: target.checkTimeoutMs,
    redactor: target.context.redactor,
    isAvailable: target.isAvailable,
    describeNeed,
    ...selectionOptions(options),
    ...(options.refuseMutating !== undefined ? { refuseMutating: options.refuseMutating } : {}),
    ...(options.signal !== undefined ? { signal: options.signal } : {}),
    ...(options.rerunFailures !== undefined ? { rerunFailures: options.rerunFailures } : {}),
  });
}

/** The explorer's settings from the flags: the replay command names this target; progress as exploreProgress prints it. */
function exploreSettings(
  args: ExploreArgs,
  targetUrl: string | undefined,
  configPath: string | undefined,
  out: (text: string) => void,
  verbose: boolean,
): ExploreSettings & { readonly only: boolean } {
  const where = [
    targetUrl !== undefined ? `--target ${shellQuote(targetUrl)}` : '',
    configPath !== undefined ? `--config ${shellQuote(configPath)}` : '',
  ]
    .filter((p) => p !== '')
    .join(' ');
  return {
    ...args,
    replayCommand: (token) =>
      `payconform audit server ${where}${where !== '' ? ' ' : ''}--explore-only --explore-replay ${shellQuote(token)}`,
    progress: exploreProgress(out, {
      verbose,
      seconds: args.seconds,
      what: 'the target',
      ...(args.replay !== undefined ? { replay: args.replay } : {}),
    }),
  };
}

/** The command, leaving a report on every exit (see `auditCommand`). */
export const run = auditCommand(
  { command: 'audit server', role: 'server' },
  auditSteps({ spec: SPEC, parse, prepare }),
);

/** A target to audit, and why mutating checks are not sent to it (a live target without --allow-live). */
interface ResolvedTarget {
  readonly target: AuditTarget;
  readonly refuseMutating?: string;
}

/** config → the target (embedded, or given by URL) → the checks, the explorer, and a review of a target that went quiet. */
export async function prepare(
  parsed: Parsed,
  { io, output, selection }: AuditStepContext,
): Promise<PreparedAudit | number> {
  const loaded = await loadConfig(parsed.configPath, io.env);
  if (!loaded.ok) {
    io.stderr(`payconform audit server: ${showControls(loaded.message, { multiline: true })}\n`);
    return EXIT.usage;
  }
  const config = loaded.config;
  const targetUrl = parsed.embedded === true ? undefined : (parsed.target ?? config.target);
  const { out } = output;
  const resolved =
    targetUrl === undefined
      ? await embeddedTarget(parsed, out)
      : await externalTarget(parsed, config, targetUrl, io, out);
  if (typeof resolved === 'number') return resolved;
  const { refuseMutating } = resolved;
  const target = withForgeries(resolved.target, parsed.forgeries);
  const controller = new AbortController();
  const onSigint = (): void => controller.abort();
  process.once('SIGINT', onSigint);
  return {
    run: (subscribers) =>
      auditTarget(target, {
        ...(parsed.explore !== undefined
          ? {
              explore: exploreSettings(
                parsed.explore,
                targetUrl,
                parsed.configPath,
                out,
                parsed.verbose,
              ),
            }
          : {}),
        ...selection(subscribers),
        ...(refuseMutating !== undefined ? { refuseMutating } : {}),
        signal: controller.signal,
      }),
    cleanup: async () => {
      process.off('SIGINT', onSigint);
      await target.close();
    },
    ...(targetUrl === undefined ? { next: NEXT_AFTER_EMBEDDED } : {}),
    ...(targetUrl !== undefined
      ? {
          review: (summary: RunSummary) =>
            stoppedAnswering(
              summary,
              targetUrl,
              parsed.timeoutMs ?? config.timeoutMs,
              parsed.caFile,
            ),
        }
      : {}),
  };
}

/** What to try after auditing the embedded service (`npm start`): the same audit of one's own server. */
export const NEXT_AFTER_EMBEDDED =
  'audit your own server: payconform audit server --target URL, its ids and secrets in the environment (README, "Your first audit of your own server")';

/** No target given: the embedded reference service on loopback. */
async function embeddedTarget(
  parsed: Parsed,
  out: (text: string) => void,
): Promise<ResolvedTarget> {
  const target = await startEmbeddedTarget(
    parsed.timeoutMs !== undefined ? { requestTimeoutMs: parsed.timeoutMs } : {},
  );
  out(
    'no target given: auditing the embedded reference service (credentials generated for this run only)\n',
  );
  return { target };
}

/**
 * A target given by URL: probed (exit 3 when it does not answer), what its /sandbox/ tells filled in, the context
 * prepared; mutating checks refused off loopback without --allow-live.
 */
async function externalTarget(
  parsed: Parsed,
  config: ConformanceConfig,
  targetUrl: string,
  io: CliIo,
  out: (text: string) => void,
): Promise<ResolvedTarget | number> {
  const timeoutMs = parsed.timeoutMs ?? config.timeoutMs;
  const ca = await resolveTrustedCa({ ca: parsed.caFile });
  const unreachable = await probe(targetUrl, Math.min(timeoutMs, PROBE_TIMEOUT_MS), ca);
  if (unreachable !== undefined) {
    io.stderr(
      `payconform audit server: ${showControls(`target ${targetUrl} is unreachable (${unreachable})`)}\n`,
    );
    return EXIT.unreachable;
  }
  const discovery = await discoverFromSandbox(targetUrl, config, {
    timeoutMs: Math.min(timeoutMs, PROBE_TIMEOUT_MS),
    ...(ca !== undefined ? { ca } : {}),
  });
  if (discovery.found.length > 0)
    out(
      `discovered from ${targetUrl.replace(/\/+$/, '')}/sandbox/ (not in the config): ${discovery.found.join('; ')}\n`,
    );
  const target = await prepareExternalTarget(
    targetUrl,
    discovery.config,
    timeoutMs,
    ca !== undefined ? { tlsCa: ca } : {},
  );
  let refuseMutating: string | undefined;
  // Judged by the addresses the name resolves to, not the name: `localhost` may resolve elsewhere.
  const loopback = await reachesLoopback(targetUrl);
  if (!loopback && !parsed.allowLive) {
    refuseMutating = `not sent: ${new URL(targetUrl).host} is not a loopback address${isLoopbackTarget(targetUrl) ? ' (its name resolves to an address that is not loopback)' : ''} and payouts and refunds move real money; pass --allow-live to run mutating checks against a sandbox you own`;
    out(`note: mutating checks are skipped (${refuseMutating})\n`);
  } else if (!loopback) {
    out(
      `warning: --allow-live given: mutating checks will create payouts and refunds on ${new URL(targetUrl).host}\n`,
    );
  }
  if (target.context.webhooks === undefined)
    out('note: no "webhookListen" in the config: webhook checks are skipped\n');
  return { target, ...(refuseMutating !== undefined ? { refuseMutating } : {}) };
}

/**
 * A run with inconclusive checks whose target no longer answers ends with exit 3, as one that was unreachable from
 * the start: the target stopped answering mid-run, which no report may pass off as a finding (docs/verdicts.md).
 */
async function stoppedAnswering(
  summary: RunSummary,
  targetUrl: string,
  timeoutMs: number,
  caFile: string | undefined,
): Promise<RunSummary> {
  const undecided = summary.results.filter((r) => r.outcome === 'error');
  if (undecided.length === 0 || summary.stopped !== undefined) return summary;
  const ca = await resolveTrustedCa({ ca: caFile });
  const unreachable = await probe(targetUrl, Math.min(timeoutMs, PROBE_TIMEOUT_MS), ca);
  if (unreachable === undefined) return summary;
  return {
    ...summary,
    stopped: {
      exitCode: EXIT.unreachable,
      reason: `the target stopped answering during the run (${unreachable}): ${undecided.length} check(s) inconclusive (${undecided.map((r) => r.id).join(', ')}); a request without an answer is no finding against the target`,
    },
  };
}
