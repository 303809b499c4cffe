// What `payconform serve` tells once its service listens: the TLS line, the audit config file (--write-audit-config),
// the credentials file (--credentials-out, mode 0600) and the banner. Secrets go only to the credentials file.
import { writeFileAtomic } from '../../net/file-write.js';
import { isIP } from 'node:net';
import { isLoopbackHost } from '../../net/loopback.js';
import type { CliIo } from '../io.js';
import { UsageError } from '../io.js';
import { exportEd25519PublicKeyBase64, exportEd25519SeedBase64 } from '../../src/keys/index.js';
import { SANDBOX_BASE_PATH, SANDBOX_ENDPOINTS } from '../../net/sandbox-protocol.js';
import { WEBHOOK_KINDS } from '../../src/webhooks/kinds.js';
import {
  copTriggers,
  type RetryPolicy,
  type RunningReferenceService,
  type ServiceVariant,
} from '../../server/index.js';
import { reportWorkerReady } from '../serve-workers.js';
import { describeListenTls, type ListenTls } from '../tls-options.js';

/** The webhook URLs the service was started with, by kind (undefined: none). */
export type ServeWebhookUrls = {
  readonly payment: string | undefined;
  readonly payout: string | undefined;
  readonly refund: string | undefined;
};

/** What the announcement needs besides the running service. */
export interface Announcement {
  readonly listenTls: ListenTls | undefined;
  /** True in a `--workers` worker: the primary prints the TLS line and the banner. */
  readonly worker: boolean;
  readonly auditConfigPath: string | undefined;
  readonly credentialsOut: string | undefined;
  /** The application was generated here or by the primary (not configured). */
  readonly generated: boolean;
  readonly webhookUrls: ServeWebhookUrls;
  readonly lifecycleMs: number;
  /** The service's webhook retry policy, for the audit config's `webhookRetry`. */
  readonly retry: RetryPolicy;
  readonly portal: boolean;
}

/** Tells what runs: the TLS line, the files asked for, then the banner (a worker hands it to the primary). */
export async function announce(
  service: RunningReferenceService,
  a: Announcement,
  io: CliIo,
): Promise<void> {
  if (a.listenTls !== undefined && !a.worker) io.stdout(`${describeListenTls(a.listenTls)}\n`);
  if (a.auditConfigPath !== undefined)
    await writeAuditConfig(service, a.auditConfigPath, a.webhookUrls, a, io);
  const note = await credentialsNote(service, a.generated, a.credentialsOut);
  const banner = describe(service, a.generated, a.webhookUrls, a.lifecycleMs, a.portal, note);
  if (a.worker) reportWorkerReady(banner);
  else io.stdout(banner);
}

/** --write-audit-config FILE: the audit config for this service; the service is closed if FILE cannot be written. */
async function writeAuditConfig(
  service: RunningReferenceService,
  path: string,
  webhookUrls: ServeWebhookUrls,
  timers: { readonly lifecycleMs: number; readonly retry: RetryPolicy },
  io: CliIo,
): Promise<void> {
  const written = auditConfigFor(service, webhookUrls, timers);
  try {
    writeFileAtomic(path, `${JSON.stringify(written.config, null, 2)}\n`);
  } catch (error) {
    await service.close();
    throw new UsageError(
      `cannot write --write-audit-config ${JSON.stringify(path)}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  io.stdout(
    `audit config written to ${path}${written.note !== undefined ? ` (${written.note})` : ''}; run: payconform audit server --config ${path} (secrets from the environment)\n`,
  );
}

/**
 * Writes --credentials-out FILE when the credentials were generated, and returns the banner's line about them ('' for
 * none); the service is closed if FILE cannot be written.
 */
async function credentialsNote(
  service: RunningReferenceService,
  generated: boolean,
  credentialsOut: string | undefined,
): Promise<string> {
  if (!generated || service.credentials.privateKey === undefined) {
    return credentialsOut !== undefined
      ? `--credentials-out: nothing written (the credentials come from the environment or --config)`
      : '';
  }
  if (credentialsOut === undefined)
    return '  secret and private key not printed: start with --credentials-out FILE to have them written there (mode 0600)';
  try {
    await writeCredentialsFile(credentialsOut, service);
  } catch (error) {
    await service.close();
    throw new UsageError(
      `cannot write --credentials-out ${JSON.stringify(credentialsOut)}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return `  secret and private key written to ${credentialsOut} (mode 0600); load them with: . ${sourceable(credentialsOut)}`;
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

/** What the startup banner says of each personality. */
const VARIANT_NOTE: Readonly<Record<ServiceVariant, string>> = {
  clean: '',
  alt: ' (variant alt: the other permitted choice wherever the spec is silent)',
  lenient:
    ' (variant lenient: signed requests parsed as RFC 8941 reads them; everything the spec permits is accepted)',
};

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
  const listens = new Set(WEBHOOK_KINDS.map((k) => loopbackHostPort(urls[k])));
  const webhookListen = listens.size === 1 ? [...listens][0] : undefined;
  return {
    config: {
      target: s.baseUrl,
      applicationId: c.applicationId,
      keyId: c.keyId,
      merchantId: c.merchantId,
      payInAccountSelector: c.payInAccountSelector,
      // The audit sees payconform's /sandbox/ only where it is served at its usual path.
      sandbox: s.sandboxPath === SANDBOX_BASE_PATH,
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

/** A path as `.` takes it: one without a slash would be looked up on PATH. */
function sourceable(path: string): string {
  return path.includes('/') ? path : `./${path}`;
}

/** A value as a shell word: bare when it needs no quoting (ids, base64), else single-quoted. */
function shellWord(value: string): string {
  return /^[A-Za-z0-9+/=._:@-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * Writes the generated development credentials as `export NAME=value` lines (`. FILE` loads them), mode 0600 through
 * the one atomic writer: a temporary file of its own created 0600 and renamed over FILE, so an existing file's wider
 * mode never applies and workers writing the same content at once cannot interleave.
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
  writeFileAtomic(path, lines.join('\n'), { mode: 0o600 });
}

/** The banner's application lines: the generated one (no secret) or each configured one. */
function describeApplications(
  s: RunningReferenceService,
  generated: boolean,
  credentialsNote: string,
): string[] {
  const out: string[] = [];
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
  return out;
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
  out.push(`payconform reference service listening on ${s.baseUrl}${VARIANT_NOTE[s.variant]}`, '');
  out.push(...describeApplications(s, generated, credentialsNote));
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
    `lifecycle: ${lifecycleMs > 0 ? `every ${lifecycleMs} ms` : `only through POST ${SANDBOX_BASE_PATH}${SANDBOX_ENDPOINTS.advancePayout.path} and ${SANDBOX_BASE_PATH}${SANDBOX_ENDPOINTS.advanceRefund.path}`}; amount pence .91 → FAILED, .92 → HELD, .93 → RETURNED, else PROCESSED`,
  );
  out.push(
    `webhooks: payment ${urls.payment ?? '(none)'}, payout ${urls.payout ?? '(none)'}, refund ${urls.refund ?? '(none)'}`,
  );
  out.push(`shared state: ${s.backend}`);
  out.push(
    `webhook public key: ${s.baseUrl}/.well-known/signature/pem   sandbox: ${s.sandboxPath === false ? 'off' : `${s.baseUrl}${s.sandboxPath}/`}`,
  );
  if (portal)
    out.push(
      `portal: ${s.baseUrl}/portal   (Balances, Payments, Settings, Requests, Webhooks, Sandbox)`,
    );
  out.push('Ctrl-C stops.', '');
  return out.join('\n') + '\n';
}
