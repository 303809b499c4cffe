// `payconform serve`: runs the reference service until Ctrl-C; prints its base URL, application ids, seeded payments and
// triggers. Generated development secrets go only to --credentials-out FILE (mode 0600), never to standard output.
import { readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { isIP } from 'node:net';
import { isLoopbackHost } from '../../net/loopback.js';
import { parseArgs } from 'node:util';
import type { CliIo } from '../io.js';
import { applicationSecretFromEnv, EXIT, UsageError, wantsHelp } from '../io.js';
import { exportEd25519PublicKeyBase64, exportEd25519SeedBase64 } from '../../src/keys/index.js';
import {
  copTriggers,
  defaultRetryPolicy,
  isFaultName,
  listFaults,
  startReferenceService,
  type ApplicationConfig,
  serviceVariants,
  type FaultName,
  type ReferenceServiceOptions,
  type RetryPolicy,
  type ServiceVariant,
  type RunningReferenceService,
} from '../../server/index.js';
import {
  parseServiceConfig,
  ServiceConfigError,
  type ServiceConfigFile,
} from '../../server/config.js';
import { isServeWorker, readWorkerSetup, reportWorkerReady, runPrimary } from '../serve-workers.js';
import { describeListenTls, resolveListenTls } from '../tls-options.js';
import { commandSpec, formatHelp, parseArgsOptions, usageLine } from '../command-table.js';

const SPEC = commandSpec('serve');
const USAGE = usageLine(SPEC);

const ENV_CREDENTIALS = [
  'PAYCONFORM_APPLICATION_ID',
  'PAYCONFORM_APPLICATION_SECRET',
  'PAYCONFORM_KEY_ID',
  'PAYCONFORM_PUBLIC_KEY',
  'PAYCONFORM_MERCHANT_ID',
] as const;

function integer(text: string | undefined, flag: string, max: number): number | undefined {
  if (text === undefined) return undefined;
  if (!/^[0-9]{1,10}$/.test(text) || Number(text) > max)
    throw new UsageError(`${flag} must be an integer from 0 to ${max}`);
  return Number(text);
}

/** The Redis URL from the flag or PAYCONFORM_REDIS_URL; a password is accepted only from the environment. */
function redisUrlOption(flag: string | undefined, env: string | undefined): string | undefined {
  const text = flag ?? (env?.trim() === '' ? undefined : env?.trim());
  if (text === undefined) return undefined;
  const name = flag !== undefined ? '--redis-url' : 'PAYCONFORM_REDIS_URL';
  // A Redis Cluster: redis+cluster://host:port,host:port (some of its nodes; the rest are discovered).
  const cluster = /^rediss?\+cluster:\/\/(?:([^@/]*)@)?([^/?#@]+)\/?$/i.exec(text);
  if (cluster !== null) {
    if (!cluster[2]!.split(',').every((node) => /^[^\s:,]+:[0-9]{1,5}$/.test(node)))
      throw new UsageError(`${name}: redis+cluster:// takes host:port,host:port`);
    if (flag !== undefined && (cluster[1] ?? '').includes(':'))
      throw new UsageError(
        '--redis-url must not carry a password (command lines are visible to other users); set PAYCONFORM_REDIS_URL instead',
      );
    return text;
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(
      `${name}: not a URL (redis://host:port, rediss://host:port or unix:///path/redis.sock)`,
    );
  }
  if (!['redis:', 'rediss:', 'unix:'].includes(url.protocol))
    throw new UsageError(
      `${name}: only redis://, rediss://, unix:// and redis+cluster://host:port,host:port URLs`,
    );
  if (flag !== undefined && url.password !== '') {
    throw new UsageError(
      '--redis-url must not carry a password (command lines are visible to other users); set PAYCONFORM_REDIS_URL instead',
    );
  }
  return text;
}

function httpUrl(text: string | undefined, flag: string): string | undefined {
  if (text === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`${flag}: not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`${flag}: only http and https URLs`);
  return text;
}

/** The application from PAYCONFORM_* variables: all five, or none (then undefined). */
function applicationFromEnv(io: CliIo): ApplicationConfig | undefined {
  const set = ENV_CREDENTIALS.filter((n) => (io.env[n] ?? '').trim() !== '');
  if (set.length === 0) return undefined;
  if (set.length < ENV_CREDENTIALS.length) {
    throw new UsageError(
      `incomplete credentials in the environment: set ${ENV_CREDENTIALS.filter((n) => !set.includes(n)).join(', ')} too (or none of them)`,
    );
  }
  const env = (n: (typeof ENV_CREDENTIALS)[number]) => io.env[n]!.trim();
  return {
    applicationId: env('PAYCONFORM_APPLICATION_ID'),
    // Never trimmed: a secret with surrounding whitespace is refused by the one rule instead.
    applicationSecret: applicationSecretFromEnv(io, true)!,
    keyId: env('PAYCONFORM_KEY_ID'),
    publicKey: env('PAYCONFORM_PUBLIC_KEY'),
    merchantId: env('PAYCONFORM_MERCHANT_ID'),
  };
}

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  if (wantsHelp(args)) {
    io.stdout(formatHelp(SPEC));
    return EXIT.ok;
  }
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: parseArgsOptions(SPEC.options),
      strict: true,
      allowPositionals: false,
    }) as { values: typeof values });
  } catch (error) {
    throw new UsageError(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
  }
  if (values.help === true) {
    io.stdout(formatHelp(SPEC));
    return EXIT.ok;
  }
  const auditConfigPath = values['write-audit-config'];
  if (auditConfigPath === '') throw new UsageError('--write-audit-config needs a FILE');
  const credentialsOut = values['credentials-out'];
  if (credentialsOut === '') throw new UsageError('--credentials-out needs a FILE');
  if (values['list-faults'] === true) {
    io.stdout(listFaults());
    return EXIT.ok;
  }
  applicationSecretFromEnv(io, false); // the one secret rule, before anything runs

  // Config file first; flags override it.
  let config: ServiceConfigFile = {};
  let configApps: readonly ApplicationConfig[] = [];
  let configDir = process.cwd();
  if (typeof values.config === 'string') {
    let text: string;
    try {
      text = await readFile(values.config, 'utf8');
    } catch (error) {
      throw new UsageError(
        `cannot read --config ${JSON.stringify(values.config)}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    try {
      ({ config, applications: configApps } = parseServiceConfig(text, io.env));
    } catch (error) {
      if (error instanceof ServiceConfigError)
        throw new UsageError(`--config ${values.config}: ${error.message}`);
      throw error;
    }
    configDir = dirname(resolve(values.config));
  }

  const faults = (values.fault as string[] | undefined) ?? [];
  const unknown = faults.filter((f) => !isFaultName(f));
  if (unknown.length > 0)
    throw new UsageError(
      `unknown fault ${unknown.map((f) => JSON.stringify(f)).join(', ')}; see payconform serve --list-faults`,
    );
  const variant = (values.variant as string | undefined) ?? 'clean';
  if (!(serviceVariants as readonly string[]).includes(variant))
    throw new UsageError(`--variant must be one of ${serviceVariants.join(', ')}`);
  const host = (values.host as string | undefined) ?? config.host ?? '127.0.0.1';
  if (faults.length > 0 && !isLoopbackHost(host)) {
    throw new UsageError(
      `refusing to start with --fault on ${host}: a deliberately faulty service binds only to loopback (127.0.0.1, ::1, localhost)`,
    );
  }
  const port = integer(values.port as string | undefined, '--port', 65535) ?? config.port ?? 8080;
  const lifecycleDelayMs =
    integer(values['lifecycle-ms'] as string | undefined, '--lifecycle-ms', 86_400_000) ??
    config.lifecycleMs;

  const all = httpUrl(
    (values['webhook-url'] as string | undefined) ?? io.env.PAYCONFORM_WEBHOOK_URL,
    '--webhook-url',
  );
  const pick = (flag: string, envName: string, kind: 'payment' | 'payout' | 'refund') =>
    httpUrl((values[flag] as string | undefined) ?? io.env[envName], `--${flag}`) ??
    all ??
    config.webhookUrls?.[kind];
  const webhookUrls = {
    payment: pick('payment-webhook-url', 'PAYCONFORM_PAYMENT_WEBHOOK_URL', 'payment'),
    payout: pick('payout-webhook-url', 'PAYCONFORM_PAYOUT_WEBHOOK_URL', 'payout'),
    refund: pick('refund-webhook-url', 'PAYCONFORM_REFUND_WEBHOOK_URL', 'refund'),
  };

  const keyFile =
    (values['signing-key'] as string | undefined) ??
    (config.signingKeyFile !== undefined ? resolve(configDir, config.signingKeyFile) : undefined);
  let webhookSigningKey: string | undefined;
  if (keyFile !== undefined) {
    try {
      webhookSigningKey = await readFile(keyFile, 'utf8');
    } catch (error) {
      throw new UsageError(
        `cannot read the signing key ${JSON.stringify(keyFile)}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  const redisUrl = redisUrlOption(
    values['redis-url'] as string | undefined,
    io.env.PAYCONFORM_REDIS_URL,
  );

  const workers = integer(values.workers as string | undefined, '--workers', 64) ?? 1;
  if (workers < 1) throw new UsageError('--workers must be at least 1');
  if (workers > 1 && redisUrl === undefined) {
    throw new UsageError(
      '--workers N > 1 requires --redis-url (or PAYCONFORM_REDIS_URL): each worker is its own process, and only Redis lets them share nonces and state',
    );
  }

  const envApp = applicationFromEnv(io);
  const worker = isServeWorker() ? readWorkerSetup() : undefined;
  // Resolved once: by the primary for all its workers (each worker takes the primary's), or here for one process.
  const listenTls = worker !== undefined ? worker.listenTls : await resolveListenTls(values);
  const applications = [...(envApp ? [envApp] : []), ...configApps];
  if (workers > 1 && worker === undefined) {
    return runPrimary(
      {
        workers,
        args,
        generateApplication: applications.length === 0,
        generateWebhookKey: webhookSigningKey === undefined,
        ...(listenTls !== undefined ? { listenTls } : {}),
      },
      io,
    );
  }
  // A worker: the primary's generated application and webhook key, so that every worker is the same service.
  if (worker?.application !== undefined && applications.length === 0)
    applications.push(worker.application);
  if (worker?.webhookSigningKeyPem !== undefined && webhookSigningKey === undefined)
    webhookSigningKey = worker.webhookSigningKeyPem;
  const quiet = values.quiet === true;
  const options: ReferenceServiceOptions = {
    host,
    port,
    ...(listenTls !== undefined ? { tls: listenTls.tls } : {}),
    applications,
    faults: faults as FaultName[],
    variant: variant as ServiceVariant,
    webhookUrls: Object.fromEntries(Object.entries(webhookUrls).filter(([, v]) => v !== undefined)),
    ...(webhookSigningKey !== undefined ? { webhookSigningKey } : {}),
    ...(lifecycleDelayMs !== undefined ? { lifecycleDelayMs } : {}),
    ...(config.retry !== undefined ? { retry: config.retry } : {}),
    requireSignatureOnCommitCancelRefund:
      values['require-signature-all'] === true ||
      config.requireSignatureAll === true ||
      variant === 'alt',
    ...(config.maxBodyBytes !== undefined ? { maxBodyBytes: config.maxBodyBytes } : {}),
    log: quiet ? () => {} : (line) => io.stdout(`${new Date().toISOString()} ${line}\n`),
    ...(values['no-portal'] === true
      ? {}
      : { extensions: [await portalExtension(values['portal-any-host'] === true)] }),
    ...(redisUrl !== undefined ? { redisUrl } : {}),
  };

  let service: RunningReferenceService;
  try {
    service = await startReferenceService(options);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL')
      throw new UsageError(`cannot listen on ${host}:${port}: ${code}`);
    if (error instanceof Error && (error.name === 'KeyFormatError' || error instanceof TypeError))
      throw new UsageError(error.message);
    if (
      redisUrl !== undefined &&
      error instanceof Error &&
      error.message.startsWith('cannot connect to Redis')
    )
      throw new UsageError(error.message);
    throw error;
  }
  // Handlers first, then the banner: whoever reads "Ctrl-C stops." may signal at once.
  const stopped = new Promise<void>((done) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      io.stdout('\nstopping...\n');
      void service.close().then(done);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  if (listenTls !== undefined && worker === undefined)
    io.stdout(`${describeListenTls(listenTls)}\n`);
  if (typeof auditConfigPath === 'string') {
    const written = auditConfigFor(service, webhookUrls, {
      lifecycleMs: lifecycleDelayMs ?? 0,
      retry: { ...defaultRetryPolicy, ...config.retry },
    });
    try {
      await writeFile(auditConfigPath, `${JSON.stringify(written.config, null, 2)}\n`, 'utf8');
    } catch (error) {
      await service.close();
      throw new UsageError(
        `cannot write --write-audit-config ${JSON.stringify(auditConfigPath)}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    io.stdout(
      `audit config written to ${auditConfigPath}${written.note !== undefined ? ` (${written.note})` : ''}; run: payconform audit server --config ${auditConfigPath} (secrets from the environment)\n`,
    );
  }
  const generated = applications.length === 0 || worker?.application !== undefined;
  let credentialsNote: string;
  if (!generated || service.credentials.privateKey === undefined) {
    credentialsNote =
      typeof credentialsOut === 'string'
        ? `--credentials-out: nothing written (the credentials come from the environment or --config)`
        : '';
  } else if (typeof credentialsOut === 'string') {
    try {
      await writeCredentialsFile(credentialsOut, service);
    } catch (error) {
      await service.close();
      throw new UsageError(
        `cannot write --credentials-out ${JSON.stringify(credentialsOut)}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    credentialsNote = `  secret and private key written to ${credentialsOut} (mode 0600); load them with: . ${sourceable(credentialsOut)}`;
  } else {
    credentialsNote =
      '  secret and private key not printed: start with --credentials-out FILE to have them written there (mode 0600)';
  }
  const banner = describe(
    service,
    generated,
    webhookUrls,
    lifecycleDelayMs ?? 0,
    values['no-portal'] !== true,
    credentialsNote,
  );
  if (worker !== undefined) reportWorkerReady(banner);
  else io.stdout(banner);
  await stopped;
  return EXIT.ok;
}

/** Loopback IP literals only: the audit's listener must bind where the service sends. */
function loopbackHostPort(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  const u = new URL(url);
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (u.protocol !== 'http:' || isIP(host) === 0 || !isLoopbackHost(host)) return undefined;
  const port = u.port !== '' ? u.port : '80';
  return `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}

/**
 * The audit config (schemas/conformance-config.schema.json) for this running service: what the audit would
 * otherwise be given by hand from the banner. No secrets: those stay in the environment.
 */
export function auditConfigFor(
  s: RunningReferenceService,
  urls: Readonly<Record<string, string | undefined>>,
  timers?: { readonly lifecycleMs: number; readonly retry: RetryPolicy },
): { readonly config: Record<string, unknown>; readonly note?: string } {
  const c = s.credentials;
  const listens = new Set(['payment', 'payout', 'refund'].map((k) => loopbackHostPort(urls[k])));
  const webhookListen = listens.size === 1 ? [...listens][0] : undefined;
  return {
    config: {
      target: s.baseUrl,
      applicationId: c.applicationId,
      keyId: c.keyId,
      merchantId: c.merchantId,
      payInAccountSelector: c.payInAccountSelector,
      sandbox: true,
      ...(webhookListen !== undefined ? { webhookListen } : {}),
      ...(timers !== undefined ? auditTimings(timers) : {}),
      copDestinations: s.copDestinations,
      payments: {
        settled: s.seededPayments.settled.map((p) => ({
          paymentId: p.paymentId,
          amount: p.amount,
        })),
        unsettled: s.seededPayments.unsettled.map((p) => ({
          paymentId: p.paymentId,
          status: p.status,
        })),
      },
    },
    ...(webhookListen === undefined
      ? {
          note: 'no "webhookListen": start with --webhook-url http://127.0.0.1:PORT/... so the audit can receive webhooks',
        }
      : {}),
  };
}

/**
 * What the audit should know of this service's timers (docs/cli.md): its lifecycle step (`--lifecycle-ms`; 0 moves
 * nothing by itself, so the audit moves things through /sandbox/) and its retry interval: the longest of the first
 * three redelivery delays (the checks ask for at most two redeliveries; each waits from the answer before it).
 */
function auditTimings(timers: {
  readonly lifecycleMs: number;
  readonly retry: RetryPolicy;
}): Record<string, unknown> {
  const r = timers.retry;
  const interval = Math.min(r.maxDelayMs, r.initialDelayMs * 4);
  return {
    lifecycle: timers.lifecycleMs > 0 ? { withinMs: timers.lifecycleMs } : { automatic: false },
    ...(r.maxAttempts >= 3 ? { webhookRetry: { withinMs: Math.max(100, interval) } } : {}),
  };
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

/** A path as `.` takes it: one without a slash would be looked up on PATH. */
function sourceable(path: string): string {
  return path.includes('/') ? path : `./${path}`;
}

/** A value as a shell word: bare when it needs no quoting (ids, base64), else single-quoted. */
function shellWord(value: string): string {
  return /^[A-Za-z0-9+/=._:@-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * Writes the generated development credentials as `export NAME=value` lines (`. FILE` loads them), mode 0600: a
 * temporary file created 0600 and renamed over FILE, so an existing file's wider mode never applies and workers
 * writing the same content at once cannot interleave.
 */
async function writeCredentialsFile(path: string, s: RunningReferenceService): Promise<void> {
  const c = s.credentials;
  const lines = [
    '# payconform serve: DEVELOPMENT ONLY credentials, generated at start; never use them for anything real.',
    `# Load them with: . ${sourceable(path)}`,
    ...(
      [
        ['PAYCONFORM_APPLICATION_ID', c.applicationId],
        ['PAYCONFORM_APPLICATION_SECRET', c.applicationSecret],
        ['PAYCONFORM_KEY_ID', c.keyId],
        ['PAYCONFORM_MERCHANT_ID', c.merchantId],
        ['PAYCONFORM_PRIVATE_KEY', exportEd25519SeedBase64(c.privateKey!)],
        ['PAYCONFORM_PUBLIC_KEY', exportEd25519PublicKeyBase64(c.publicKey)],
      ] as const
    ).map(([name, value]) => `export ${name}=${shellWord(value)}`),
    '',
  ];
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, lines.join('\n'), { mode: 0o600, flag: 'wx' });
  await rename(temporary, path);
}

function describe(
  s: RunningReferenceService,
  generated: boolean,
  urls: Record<string, string | undefined>,
  lifecycleMs: number,
  portal: boolean,
  credentialsNote: string,
): string {
  const out: string[] = [];
  if (s.faults.length > 0) {
    const bar = '!'.repeat(78);
    out.push(
      bar,
      `!!! FAULTY SERVICE: deliberately broken for conformance self-tests; do not use as a reference`,
      `!!! faults: ${s.faults.join(', ')}`,
      bar,
      '',
    );
  }
  out.push(
    `payconform reference service listening on ${s.baseUrl}${s.variant === 'alt' ? ' (variant alt: the other permitted choice wherever the spec is silent)' : ''}`,
    '',
  );
  const c = s.credentials;
  if (generated && c.privateKey !== undefined) {
    // The secret and the private key never go to standard output (a CI log): only to --credentials-out's file.
    out.push(
      'DEVELOPMENT ONLY credentials (generated at start; never use them for anything real):',
      `  application ${c.applicationId}: keyId ${c.keyId}, merchantId ${c.merchantId}`,
      `  public key (base64): ${exportEd25519PublicKeyBase64(c.publicKey)}`,
      credentialsNote,
    );
  } else {
    for (const a of s.applications) {
      out.push(
        `application ${a.applicationId}: keyId ${a.keyId}, merchantId ${a.merchantId}, CoP ${a.cop ? 'on' : 'off'}, secret not printed`,
      );
    }
  }
  if (!generated && credentialsNote !== '') out.push(credentialsNote);
  out.push(`  payInAccountSelector: ${c.payInAccountSelector} (or "main")`, '');
  out.push('seeded payments (refundable when SETTLED):');
  for (const p of s.seededPayments.settled) out.push(`  ${p.paymentId}  SETTLED  ${p.amount} GBP`);
  for (const p of s.seededPayments.unsettled) out.push(`  ${p.paymentId}  ${p.status}`);
  out.push(
    '',
    'Confirmation of Payee triggers (destination holderName, case-insensitive; anything else → FULL_MATCH):',
  );
  for (const t of copTriggers)
    out.push(`  ${JSON.stringify(t.holderName).padEnd(24)} → ${String(t.copStatus)}`);
  out.push(
    '',
    `lifecycle: ${lifecycleMs > 0 ? `every ${lifecycleMs} ms` : 'only through POST /sandbox/payouts/{id}/advance and /sandbox/refunds/{id}/advance'}; amount pence .91 → FAILED, .92 → HELD, .93 → RETURNED, else PROCESSED`,
  );
  out.push(
    `webhooks: payment ${urls.payment ?? '(none)'}, payout ${urls.payout ?? '(none)'}, refund ${urls.refund ?? '(none)'}`,
  );
  out.push(`shared state: ${s.backend}`);
  out.push(
    `webhook public key: ${s.baseUrl}/.well-known/signature/pem   sandbox: ${s.baseUrl}/sandbox/`,
  );
  if (portal)
    out.push(
      `portal: ${s.baseUrl}/portal   (Balances, Payments, Settings, Requests, Webhooks, Sandbox)`,
    );
  out.push('Ctrl-C stops.', '');
  return out.join('\n') + '\n';
}
