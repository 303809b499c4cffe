// `payconform serve`: runs the reference service until Ctrl-C; prints its base URL, application ids, seeded payments and
// triggers. Generated development secrets go only to --credentials-out FILE (mode 0600), never to standard output.
import { inputPaths } from '../audit-paths.js';
import { pathClash } from '../path-clash.js';
import { dirname, resolve } from 'node:path';
import { isLoopbackHost } from '../../net/loopback.js';
import {
  type CliIo,
  applicationSecretFromEnv,
  EXIT,
  readFileArgument,
  readKeyFile,
  UsageError,
  wantsHelp,
  parseCommandFlags,
} from '../io.js';
import {
  defaultRetryPolicy,
  isFaultName,
  startReferenceService,
  type ApplicationConfig,
  type FaultName,
  type ReferenceServiceOptions,
  type ServiceVariant,
  type RunningReferenceService,
} from '../../server/index.js';
import { listFaults, serviceVariants } from '../../server/faults.js';
import type { WebhookKind } from '../../src/webhooks/kinds.js';
import {
  parseServiceConfig,
  ServiceConfigError,
  type ServiceConfigFile,
} from '../../server/config.js';
import { isServeWorker, readWorkerSetup, runPrimary } from '../serve-workers.js';
import { resolveListenTls, type ListenTls } from '../tls-options.js';
import { commandSpec, formatHelp } from '../command-table.js';
import { SERVE_DEFAULTS } from '../command-defaults.js';
import { announce, type ServeWebhookUrls } from './serve-announce.js';
import {
  integer,
  redisUrlOption,
  httpUrl,
  applicationFromEnv,
  sandboxPathOption,
} from './serve-values.js';

export { auditConfigFor } from './serve-announce.js';

const SPEC = commandSpec('serve');

type ServeValues = Record<string, string | boolean | string[] | undefined>;

/** The flags, config file and environment, checked: everything but the application and the TLS. */
interface ServeSettings {
  readonly config: ServiceConfigFile;
  readonly configApps: readonly ApplicationConfig[];
  readonly faults: FaultName[];
  readonly variant: ServiceVariant;
  readonly host: string;
  readonly port: number;
  readonly lifecycleDelayMs: number | undefined;
  /** Where /sandbox/ is served (--sandbox-path), or false: nowhere. */
  readonly sandboxPath: string | false | undefined;
  readonly webhookUrls: ServeWebhookUrls;
  readonly webhookSigningKey: string | undefined;
  readonly redisUrl: string | undefined;
  readonly workers: number;
}

/** Who this process serves as: the applications, the webhook key and the TLS, a worker's from its primary. */
interface ServeIdentity {
  readonly worker: ReturnType<typeof readWorkerSetup> | undefined;
  readonly listenTls: ListenTls | undefined;
  readonly applications: readonly ApplicationConfig[];
  readonly webhookSigningKey: string | undefined;
  /** The application was generated (here, or by the primary for every worker). */
  readonly generated: boolean;
}

/** parse options → resolve settings and identity → start the service (or the workers) → describe → wait. */
export async function run(args: readonly string[], io: CliIo): Promise<number> {
  if (wantsHelp(args)) {
    io.stdout(formatHelp(SPEC));
    return EXIT.ok;
  }
  const values = parseServeArgs(args);
  if (values.help === true) {
    io.stdout(formatHelp(SPEC));
    return EXIT.ok;
  }
  const auditConfigPath = outputFile(values, 'write-audit-config');
  const credentialsOut = outputFile(values, 'credentials-out');
  // Inputs are never outputs: the credentials written over --config would leave the secret in a "no secrets" file.
  const clash = pathClash(inputPaths(args, io), [
    ...(auditConfigPath !== undefined
      ? [{ given: `--write-audit-config ${auditConfigPath}`, path: auditConfigPath }]
      : []),
    ...(credentialsOut !== undefined
      ? [{ given: `--credentials-out ${credentialsOut}`, path: credentialsOut }]
      : []),
  ]);
  if (clash !== undefined) throw new UsageError(clash);
  if (values['list-faults'] === true) {
    io.stdout(listFaults());
    return EXIT.ok;
  }
  applicationSecretFromEnv(io, false); // the one secret rule, before anything runs

  const settings = await resolveSettings(values, io);
  const identity = await resolveIdentity(values, io, settings);
  if (settings.workers > 1 && identity.worker === undefined) {
    return runPrimary(
      {
        workers: settings.workers,
        args,
        generateApplication: identity.applications.length === 0,
        generateWebhookKey: identity.webhookSigningKey === undefined,
        ...(identity.listenTls !== undefined ? { listenTls: identity.listenTls } : {}),
      },
      io,
    );
  }
  const options = await serviceOptions(values, io, settings, identity);
  const service = await startService(options, settings);
  // Handlers first, then the banner: whoever reads "Ctrl-C stops." may signal at once.
  const stopped = stopOnSignal(service, io);
  await announce(
    service,
    {
      listenTls: identity.listenTls,
      worker: identity.worker !== undefined,
      auditConfigPath,
      credentialsOut,
      generated: identity.generated,
      webhookUrls: settings.webhookUrls,
      lifecycleMs: settings.lifecycleDelayMs ?? 0,
      retry: { ...defaultRetryPolicy, ...settings.config.retry },
      portal: values['no-portal'] !== true,
    },
    io,
  );
  await stopped;
  return EXIT.ok;
}

function parseServeArgs(args: readonly string[]): ServeValues {
  return parseCommandFlags(SPEC, args) as ServeValues;
}

/** An output file flag's path (undefined when not given); an empty one is a usage error. */
function outputFile(
  values: ServeValues,
  flag: 'write-audit-config' | 'credentials-out',
): string | undefined {
  const path = values[flag];
  if (path === '') throw new UsageError(`--${flag} needs a FILE`);
  return typeof path === 'string' ? path : undefined;
}

/** The config file first, then the flags and the environment over it. */
async function resolveSettings(values: ServeValues, io: CliIo): Promise<ServeSettings> {
  const { config, configApps, configDir } = await readConfigFile(values, io);
  const faults = (values.fault as string[] | undefined) ?? [];
  const unknown = faults.filter((f) => !isFaultName(f));
  if (unknown.length > 0)
    throw new UsageError(
      `unknown fault ${unknown.map((f) => JSON.stringify(f)).join(', ')}; see payconform serve --list-faults`,
    );
  const variant = (values.variant as string | undefined) ?? SERVE_DEFAULTS.variant;
  if (!(serviceVariants as readonly string[]).includes(variant))
    throw new UsageError(`--variant must be one of ${serviceVariants.join(', ')}`);
  const host = (values.host as string | undefined) ?? config.host ?? SERVE_DEFAULTS.host;
  if (faults.length > 0 && !isLoopbackHost(host)) {
    throw new UsageError(
      `refusing to start with --fault on ${host}: a deliberately faulty service binds only to loopback (127.0.0.1, ::1, localhost)`,
    );
  }
  const port =
    integer(values.port as string | undefined, '--port', 65535) ??
    config.port ??
    SERVE_DEFAULTS.port;
  const lifecycleDelayMs =
    integer(values['lifecycle-ms'] as string | undefined, '--lifecycle-ms', 86_400_000) ??
    config.lifecycleMs;
  const webhookUrls = resolveWebhookUrls(values, io, config);
  const webhookSigningKey = await readSigningKey(values, config, configDir);

  const redisUrl = redisUrlOption(
    values['redis-url'] as string | undefined,
    io.env.PAYCONFORM_REDIS_URL,
  );
  const workers = workerCount(values, redisUrl);
  return {
    config,
    configApps,
    faults: faults as FaultName[],
    variant: variant as ServiceVariant,
    host,
    port,
    lifecycleDelayMs,
    sandboxPath: sandboxPathOption(values['sandbox-path'] as string | undefined),
    webhookUrls,
    webhookSigningKey,
    redisUrl,
    workers,
  };
}

/** --config FILE, parsed (nothing without it); its relative paths resolve against its folder. */
async function readConfigFile(
  values: ServeValues,
  io: CliIo,
): Promise<{
  config: ServiceConfigFile;
  configApps: readonly ApplicationConfig[];
  configDir: string;
}> {
  if (typeof values.config !== 'string')
    return { config: {}, configApps: [], configDir: process.cwd() };
  const text = readFileArgument(values.config, 'config', '--config');
  try {
    const { config, applications } = parseServiceConfig(text, io.env);
    return { config, configApps: applications, configDir: dirname(resolve(values.config)) };
  } catch (error) {
    if (error instanceof ServiceConfigError)
      throw new UsageError(`--config ${values.config}: ${error.message}`);
    throw error;
  }
}

/** Each kind's URL: its own flag or variable, else --webhook-url (PAYCONFORM_WEBHOOK_URL), else the config file's. */
function resolveWebhookUrls(
  values: ServeValues,
  io: CliIo,
  config: ServiceConfigFile,
): ServeWebhookUrls {
  const all = httpUrl(
    (values['webhook-url'] as string | undefined) ?? io.env.PAYCONFORM_WEBHOOK_URL,
    '--webhook-url',
  );
  const pick = (flag: string, envName: string, kind: WebhookKind) =>
    httpUrl((values[flag] as string | undefined) ?? io.env[envName], `--${flag}`) ??
    all ??
    config.webhookUrls?.[kind];
  return {
    payment: pick('payment-webhook-url', 'PAYCONFORM_PAYMENT_WEBHOOK_URL', 'payment'),
    payout: pick('payout-webhook-url', 'PAYCONFORM_PAYOUT_WEBHOOK_URL', 'payout'),
    refund: pick('refund-webhook-url', 'PAYCONFORM_REFUND_WEBHOOK_URL', 'refund'),
  };
}

/** The webhook signing key's PEM from --signing-key or the config file's signingKeyFile (undefined: generate one). */
async function readSigningKey(
  values: ServeValues,
  config: ServiceConfigFile,
  configDir: string,
): Promise<string | undefined> {
  const keyFile =
    (values['signing-key'] as string | undefined) ??
    (config.signingKeyFile !== undefined ? resolve(configDir, config.signingKeyFile) : undefined);
  if (keyFile === undefined) return undefined;
  return readKeyFile(keyFile, 'the signing key');
}

function workerCount(values: ServeValues, redisUrl: string | undefined): number {
  const workers =
    integer(values.workers as string | undefined, '--workers', 64) ?? SERVE_DEFAULTS.workers;
  if (workers < 1) throw new UsageError('--workers must be at least 1');
  if (workers > 1 && redisUrl === undefined) {
    throw new UsageError(
      '--workers N > 1 requires --redis-url (or PAYCONFORM_REDIS_URL): each worker is its own process, and only Redis lets them share nonces and state',
    );
  }
  return workers;
}

/** The applications (environment, then config file), webhook key and TLS; a worker takes what its primary generated. */
async function resolveIdentity(
  values: ServeValues,
  io: CliIo,
  settings: ServeSettings,
): Promise<ServeIdentity> {
  const envApp = applicationFromEnv(io);
  const worker = isServeWorker() ? readWorkerSetup() : undefined;
  // Resolved once: by the primary for all its workers (each worker takes the primary's), or here for one process.
  const listenTls = worker !== undefined ? worker.listenTls : await resolveListenTls(values);
  const applications = [...(envApp ? [envApp] : []), ...settings.configApps];
  let webhookSigningKey = settings.webhookSigningKey;
  // A worker: the primary's generated application and webhook key, so that every worker is the same service.
  if (worker?.application !== undefined && applications.length === 0)
    applications.push(worker.application);
  if (worker?.webhookSigningKeyPem !== undefined && webhookSigningKey === undefined)
    webhookSigningKey = worker.webhookSigningKeyPem;
  const generated = applications.length === 0 || worker?.application !== undefined;
  return { worker, listenTls, applications, webhookSigningKey, generated };
}

async function serviceOptions(
  values: ServeValues,
  io: CliIo,
  s: ServeSettings,
  identity: ServeIdentity,
): Promise<ReferenceServiceOptions> {
  const { listenTls, webhookSigningKey } = identity;
  const quiet = values.quiet === true;
  return {
    host: s.host,
    port: s.port,
    ...(listenTls !== undefined ? { tls: listenTls.tls } : {}),
    applications: identity.applications,
    faults: s.faults,
    variant: s.variant,
    webhookUrls: Object.fromEntries(
      Object.entries(s.webhookUrls).filter(([, v]) => v !== undefined),
    ),
    ...(webhookSigningKey !== undefined ? { webhookSigningKey } : {}),
    ...(s.lifecycleDelayMs !== undefined ? { lifecycleDelayMs: s.lifecycleDelayMs } : {}),
    ...(s.sandboxPath !== undefined ? { sandboxPath: s.sandboxPath } : {}),
    ...(s.config.retry !== undefined ? { retry: s.config.retry } : {}),
    requireSignatureOnCommitCancelRefund:
      values['require-signature-all'] === true ||
      s.config.requireSignatureAll === true ||
      s.variant === 'alt',
    ...(s.config.maxBodyBytes !== undefined ? { maxBodyBytes: s.config.maxBodyBytes } : {}),
    log: quiet ? () => {} : (line) => io.stdout(`${new Date().toISOString()} ${line}\n`),
    ...(values['no-portal'] === true
      ? {}
      : { extensions: [await portalExtension(values['portal-any-host'] === true)] }),
    ...(s.redisUrl !== undefined ? { redisUrl: s.redisUrl } : {}),
  };
}

/** Starts the service; what the user can fix (port taken, bad key or option, Redis down) becomes a usage error. */
async function startService(
  options: ReferenceServiceOptions,
  s: ServeSettings,
): Promise<RunningReferenceService> {
  try {
    return await startReferenceService(options);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL')
      throw new UsageError(`cannot listen on ${s.host}:${s.port}: ${code}`);
    if (
      error instanceof Error &&
      (error.name === 'KeyFormatError' ||
        error.name === 'OptionalPeerMissingError' ||
        error instanceof TypeError)
    )
      throw new UsageError(error.message);
    if (
      s.redisUrl !== undefined &&
      error instanceof Error &&
      error.message.startsWith('cannot connect to Redis')
    )
      throw new UsageError(error.message);
    throw error;
  }
}

/** Resolves once SIGINT or SIGTERM (or the caller's io.stop, in-process) has closed the service. */
function stopOnSignal(service: RunningReferenceService, io: CliIo): Promise<void> {
  return new Promise<void>((done) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      io.stop?.removeEventListener('abort', stop);
      io.stdout('\nstopping...\n');
      void service.close().then(done);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    if (io.stop?.aborted === true) stop();
    else io.stop?.addEventListener('abort', stop);
  });
}

/** The portal, loaded only when served (with the client audit's signature diagnosis). */
async function portalExtension(
  anyHost: boolean,
): Promise<NonNullable<ReferenceServiceOptions['extensions']>[number]> {
  const [{ createPortal }, { diagnoseForPortal }] = await Promise.all([
    import('../../server/portal/index.js'),
    import('../portal-diagnosis.js'),
  ]);
  return createPortal({ allowNonLoopbackHosts: anyHost, diagnose: diagnoseForPortal });
}
