// The reference service (`payconform serve`): the spec's endpoints over the signing core, with a /sandbox/ for payments,
// lifecycles and webhook deliveries, and deliberate faults for proving conformance checks. Public API of server/.
import {
  exportRsaPublicKeyPem,
  exportTrimmedPublicKeyPem,
  generateWebhookKeyPair,
  parseRsaPrivateKey,
  signWebhook,
  type ParsedRsaPrivateKey,
} from '../src/webhooks/index.js';
import { createRequestListener } from './app.js';
import { RequestAuthenticator } from './authentication.js';
import type { ServiceContext, ServiceExtension } from './context.js';
import { openBackend } from './backend.js';
import { connectionLimits, guardConnections, serverTimeoutOptions } from './connections.js';
import { DEFAULT_LOG_RATE_LIMIT, RateLimitedLog } from './log-limiter.js';
import { copDestinations } from './cop-triggers.js';
import { FaultSet } from './faults.js';
import { Lifecycle } from './lifecycle.js';
import { listen } from '../net/listen.js';
import { createHttpServer } from '../net/tls.js';
import type {
  ReferenceServiceOptions,
  RunningReferenceService,
  SeededPayments,
} from './options.js';
import { generateDevelopmentApplication, registerApplication, seedPayments } from './seed.js';
import { createSignatureVerifier } from './signature-verifier.js';
import { ServiceState } from './state.js';
import type { StateStore } from './state-store.js';
import { defaultRetryPolicy, WebhookQueue } from './webhook-delivery.js';

export {
  explorerFaults,
  faultCatalogue,
  isFaultName,
  listFaults,
  serviceVariants,
  variantChoices,
  type FaultDescription,
  type FaultName,
  type ExplorerFaultName,
  type MethodFaultName,
  type ServiceVariant,
} from './faults.js';
export {
  copTriggers,
  confirmPayee,
  type CopDestinationKey,
  type PayoutDestination,
} from './cop-triggers.js';
export { STATUS_NAMES, type ErrorBody } from './error-body.js';
export { DEFAULT_CONNECTION_LIMITS, type ConnectionLimits } from './connections.js';
export {
  generateLoopbackTls,
  LOOPBACK_NAMES,
  type GeneratedLoopbackTls,
  type ServerTls,
} from '../net/tls.js';
export { plannedOutcome } from './lifecycle.js';
export { CANCEL_REASON } from './routes/payouts.js';
export type {
  ApplicationConfig,
  ReferenceServiceOptions,
  RunningReferenceService,
  SeededPayments,
} from './options.js';
export type {
  AnsweredRequest,
  RouteHandler,
  RouteRequest,
  RouteResponse,
  ServiceContext,
  ServiceExtension,
} from './context.js';
export type {
  ApplicationCredentials,
  CopStatus,
  PaymentStatus,
  PayoutStatus,
  RefundStatus,
} from './state.js';
export type {
  DeliveryAttempt,
  DeliveryRecord,
  RetryPolicy,
  WebhookKind,
} from './webhook-delivery.js';
/** The retry policy when none is given (first redelivery after 1 s, doubling up to 60 s, 8 attempts). */
export { defaultRetryPolicy } from './webhook-delivery.js';

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/** Body cap of a request without a valid application id and secret (default 64 KiB, at most maxBodyBytes). */
export const DEFAULT_MAX_UNAUTHENTICATED_BODY_BYTES = 64 * 1024;

/** Starts the service and resolves once it listens. Throws TypeError for bad options, KeyFormatError for bad keys. */
export async function startReferenceService(
  options: ReferenceServiceOptions = {},
): Promise<RunningReferenceService> {
  const host = options.host ?? '127.0.0.1';
  const now = options.now ?? Date.now;
  const limitedLog =
    options.log === undefined || options.logRateLimit === false
      ? undefined
      : new RateLimitedLog(options.log, options.logRateLimit ?? DEFAULT_LOG_RATE_LIMIT);
  const log = limitedLog?.log ?? options.log ?? (() => {});
  const faults = new FaultSet(options.faults ?? [], options.variant);
  const state = new ServiceState(options.stateLimits);

  const configs =
    options.applications !== undefined && options.applications.length > 0
      ? options.applications
      : [generateDevelopmentApplication()];
  const applications = configs.map((config, i) => registerApplication(state, config, i));
  const first = applications[0]!;
  const retry = { ...defaultRetryPolicy, ...options.retry };
  if (
    !(retry.maxAttempts >= 1) ||
    !(retry.initialDelayMs >= 0) ||
    !(retry.maxDelayMs >= 0) ||
    !(retry.requestTimeoutMs > 0)
  ) {
    throw new TypeError(
      'retry: maxAttempts >= 1, delays >= 0 and requestTimeoutMs > 0 are required',
    );
  }
  const backend = await openBackend({
    log,
    noncesPerApplication: state.limits.noncesPerApplication,
    ...(options.redisUrl !== undefined ? { redisUrl: options.redisUrl } : {}),
    ...(options.redisKeyPrefix !== undefined ? { redisKeyPrefix: options.redisKeyPrefix } : {}),
  });
  const store = backend.createStateStore(state);
  let seeded: SeededPayments = { settled: [], unsettled: [] };
  try {
    if (options.seedPayments !== false) {
      seeded = await seedPayments(store, first.applicationId, now());
      for (const app of state.applications.values())
        if (app.applicationId !== first.applicationId)
          await seedPayments(store, app.applicationId, now());
    }
    // Shared settings: what other instances' portals set is read now and then every WEBHOOK_URLS_REFRESH_MS.
    if (store.shared) await store.loadWebhookUrls();
  } catch (error) {
    await backend.close();
    throw error;
  }
  const webhookUrlsRefresh = store.shared ? startWebhookUrlsRefresh(store, log) : undefined;

  const signingKey: ParsedRsaPrivateKey =
    options.webhookSigningKey === undefined
      ? generateWebhookKeyPair().privateKey
      : typeof options.webhookSigningKey === 'string'
        ? parseRsaPrivateKey(options.webhookSigningKey)
        : options.webhookSigningKey;
  const trimmedPem = exportTrimmedPublicKeyPem(signingKey);

  const defaultWebhookUrls = options.webhookUrls ?? {};
  const extensions: ServiceExtension[] = [];
  const changed = (): void => {
    for (const e of extensions) e.changed?.();
  };
  const queue = new WebhookQueue({
    urlFor: (kind, applicationId) =>
      state.webhookUrls.get(applicationId)?.[kind] ?? defaultWebhookUrls[kind],
    onChange: changed,
    retry,
    sign: (bytes) => signWebhook(bytes, signingKey),
    faults,
    log,
    ...(backend.createSharedDeliveries !== undefined
      ? { shared: backend.createSharedDeliveries(retry.requestTimeoutMs + 2_000, log) }
      : {}),
  });
  const lifecycle = new Lifecycle({
    state,
    store,
    queue,
    faults,
    now,
    delayMs: options.lifecycleDelayMs ?? 0,
    log,
    ...(backend.createSharedTimers !== undefined
      ? { shared: backend.createSharedTimers(log) }
      : {}),
  });
  const auth = new RequestAuthenticator(
    state,
    faults,
    createSignatureVerifier(state, faults, now, backend.nonceStore),
  );
  const ctx: ServiceContext = {
    state,
    store,
    lifecycle,
    queue,
    faults,
    auth,
    now,
    requireSignatureOnCommitCancelRefund:
      options.requireSignatureOnCommitCancelRefund ?? faults.alt,
    webhookPublicKey: { trimmed: trimmedPem, full: exportRsaPublicKeyPem(signingKey) },
    defaultWebhookUrls,
    log,
  };
  for (const build of options.extensions ?? []) extensions.push(build(ctx));

  const limits = connectionLimits(options.connections);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const bodyLimits = {
    authenticated: maxBodyBytes,
    unauthenticated: Math.min(
      maxBodyBytes,
      options.maxUnauthenticatedBodyBytes ?? DEFAULT_MAX_UNAUTHENTICATED_BODY_BYTES,
    ),
  };
  const server = createHttpServer(
    serverTimeoutOptions(limits),
    createRequestListener(ctx, bodyLimits, extensions),
    options.tls,
  );
  guardConnections(server, limits, log);

  let address: Awaited<ReturnType<typeof listen>>;
  try {
    address = await listen(server, host, options.port ?? 0);
  } catch (error) {
    clearInterval(webhookUrlsRefresh);
    lifecycle.close();
    queue.close();
    await backend.close();
    throw error;
  }
  let closing: Promise<void> | undefined;

  return {
    baseUrl: address.origin,
    host: address.host,
    port: address.port,
    credentials: first,
    applications,
    seededPayments: seeded,
    copDestinations: copDestinations(),
    webhookPublicKeyTrimmedPem: trimmedPem,
    faults: faults.list(),
    variant: faults.variant,
    deliveries: () => queue.deliveries(),
    backend: backend.description,
    openConnections: () =>
      new Promise<number>((resolve, reject) =>
        server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
      ),
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        clearInterval(webhookUrlsRefresh);
        lifecycle.close();
        queue.close();
        for (const e of extensions) e.close?.();
        server.close(() => resolve());
        server.closeAllConnections();
      })
        .then(() => backend.close())
        .finally(() => limitedLog?.close());
      return closing;
    },
  };
}

/** How often an instance on a shared store rereads the applications' webhook URL settings (set by any instance). */
export const WEBHOOK_URLS_REFRESH_MS = 500;

/** Rereads the webhook URL settings every WEBHOOK_URLS_REFRESH_MS; a failed read keeps the last ones and is logged once per outage. */
function startWebhookUrlsRefresh(store: StateStore, log: (line: string) => void): NodeJS.Timeout {
  let failing = false;
  let reading = false;
  const timer = setInterval(() => {
    if (reading) return;
    reading = true;
    store.loadWebhookUrls().then(
      () => {
        if (failing) log('webhook URL settings: read again from the shared store');
        failing = false;
        reading = false;
      },
      (error: unknown) => {
        if (!failing)
          log(
            `webhook URL settings: cannot read them from the shared store (keeping the last ones): ${error instanceof Error ? error.message : String(error)}`,
          );
        failing = true;
        reading = false;
      },
    );
  }, WEBHOOK_URLS_REFRESH_MS);
  timer.unref();
  return timer;
}
