// The steps of startReferenceService (server/index.ts): the log and options checked, the stores opened (memory or
// Redis) and seeded, the webhook queue, lifecycle and request context built, the HTTP(S) server listening, the handle.
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
import { openBackend, type SharedBackend } from './backend.js';
import { connectionLimits, guardConnections, serverTimeoutOptions } from './connections.js';
import { DEFAULT_LOG_RATE_LIMIT, RateLimitedLog } from './log-limiter.js';
import { copDestinations } from './cop-triggers.js';
import type { FaultSet } from './faults.js';
import { Lifecycle } from './lifecycle.js';
import { DEFAULT_MAX_BODY_BYTES } from '../net/incoming-request.js';
import { listen, type ListeningAddress } from '../net/listen.js';
import { SANDBOX_BASE_PATH } from '../net/sandbox-protocol.js';
import { createHttpServer } from '../net/tls.js';
import type {
  ReferenceServiceOptions,
  RunningReferenceService,
  SeededPayments,
} from './options.js';
import { generateDevelopmentApplication, registerApplication, seedPayments } from './seed.js';
import { createSignatureVerifier } from './signature-verifier.js';
import type { ApplicationCredentials, ServiceState } from './state.js';
import type { StateStore } from './state-store.js';
import { defaultRetryPolicy, WebhookQueue, type RetryPolicy } from './webhook-delivery.js';

/** Body cap of a request without a valid application id and secret (default 64 KiB, at most maxBodyBytes). */
export const DEFAULT_MAX_UNAUTHENTICATED_BODY_BYTES = 64 * 1024;
/** How often an instance on a shared store rereads the applications' webhook URL settings (set by any instance). */
export const WEBHOOK_URLS_REFRESH_MS = 500;

type Log = (line: string) => void;

/** What every step after the options shares. */
export interface ServiceCore {
  readonly options: ReferenceServiceOptions;
  readonly now: () => number;
  readonly log: Log;
  readonly faults: FaultSet;
  readonly state: ServiceState;
}

/** The stores, open: the backend (memory or Redis), the state store over it, what was seeded, the settings' refresh. */
export interface OpenStores {
  readonly backend: SharedBackend;
  readonly store: StateStore;
  readonly seeded: SeededPayments;
  readonly webhookUrlsRefresh: NodeJS.Timeout | undefined;
}

/** The parts behind the routes: the webhook queue, the lifecycle, the request context and the extensions on it. */
export interface ServiceParts {
  readonly queue: WebhookQueue;
  readonly lifecycle: Lifecycle;
  readonly ctx: ServiceContext;
  readonly extensions: readonly ServiceExtension[];
  readonly trimmedPem: string;
}

/** The service's log, rate-limited unless logRateLimit is false (the limiter is closed with the service). */
export function serviceLog(options: ReferenceServiceOptions): {
  readonly log: Log;
  readonly limitedLog: RateLimitedLog | undefined;
} {
  const limitedLog =
    options.log === undefined || options.logRateLimit === false
      ? undefined
      : new RateLimitedLog(options.log, options.logRateLimit ?? DEFAULT_LOG_RATE_LIMIT);
  return { log: limitedLog?.log ?? options.log ?? (() => {}), limitedLog };
}

/** Registers the configured applications (one generated development application when none is). */
export function registerApplications(
  state: ServiceState,
  options: ReferenceServiceOptions,
): ApplicationCredentials[] {
  const configs =
    options.applications !== undefined && options.applications.length > 0
      ? options.applications
      : [generateDevelopmentApplication()];
  return configs.map((config, i) => registerApplication(state, config, i));
}

/** The webhook retry policy over the defaults; a TypeError for an unusable one. */
export function retryPolicy(options: ReferenceServiceOptions): RetryPolicy {
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
  return retry;
}

/** Opens the backend and seeds every application's payments; on a shared store, reads and refreshes the settings. */
export async function openStores(
  core: ServiceCore,
  firstApplicationId: string,
): Promise<OpenStores> {
  const { options, state, now, log } = core;
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
      seeded = await seedPayments(store, firstApplicationId, now());
      for (const app of state.applications.values())
        if (app.applicationId !== firstApplicationId)
          await seedPayments(store, app.applicationId, now());
    }
    // Shared settings: what other instances' portals set is read now and then every WEBHOOK_URLS_REFRESH_MS.
    if (store.shared) await store.loadWebhookUrls();
  } catch (error) {
    await backend.close();
    throw error;
  }
  const webhookUrlsRefresh = store.shared ? startWebhookUrlsRefresh(store, log) : undefined;
  return { backend, store, seeded, webhookUrlsRefresh };
}

/**
 * The key a service started without one signs its webhooks with: generated once per process and shared by every
 * such service it starts (an RSA key takes about 0.17 s of CPU to make, and a test process starts hundreds of
 * services; the audit's embedded service is one per process anyway). A test key, never written anywhere: a service
 * that must not share it is given its own (`webhookSigningKey`), as `payconform serve --signing-key` does.
 */
let generatedKey: ParsedRsaPrivateKey | undefined;

/** The webhook signing key given (PEM or parsed), or the process's generated one. Throws KeyFormatError for a bad PEM. */
export function webhookSigningKey(options: ReferenceServiceOptions): ParsedRsaPrivateKey {
  return options.webhookSigningKey === undefined
    ? (generatedKey ??= generateWebhookKeyPair().privateKey)
    : typeof options.webhookSigningKey === 'string'
      ? parseRsaPrivateKey(options.webhookSigningKey)
      : options.webhookSigningKey;
}

/** The queue, the lifecycle, the authenticator, the request context, then each extension built on that context. */
export function buildServiceParts(
  core: ServiceCore,
  stores: OpenStores,
  retry: RetryPolicy,
  signingKey: ParsedRsaPrivateKey,
): ServiceParts {
  const { options, state, faults, now, log } = core;
  const { backend, store } = stores;
  const trimmedPem = exportTrimmedPublicKeyPem(signingKey);
  const defaultWebhookUrls = options.webhookUrls ?? {};
  const extensions: ServiceExtension[] = [];
  const queue = webhookQueue(core, backend, retry, signingKey, extensions);
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
  return { queue, lifecycle, ctx, extensions, trimmedPem };
}

/** The webhook queue: per-application URL settings over the defaults; a change tells every extension. */
function webhookQueue(
  core: ServiceCore,
  backend: SharedBackend,
  retry: RetryPolicy,
  signingKey: ParsedRsaPrivateKey,
  extensions: readonly ServiceExtension[],
): WebhookQueue {
  const { options, state, faults, log } = core;
  const defaultWebhookUrls = options.webhookUrls ?? {};
  return new WebhookQueue({
    urlFor: (kind, applicationId) =>
      state.webhookUrls.get(applicationId)?.[kind] ?? defaultWebhookUrls[kind],
    onChange: () => {
      for (const e of extensions) e.changed?.();
    },
    retry,
    ...(options.webhookDelivery !== undefined ? { delivery: options.webhookDelivery } : {}),
    sign: (bytes) => signWebhook(bytes, signingKey),
    faults,
    log,
    ...(backend.createSharedDeliveries !== undefined
      ? { shared: backend.createSharedDeliveries(retry.requestTimeoutMs + 2_000, log) }
      : {}),
  });
}

/** The HTTP server (HTTPS with options.tls) over the routes and extensions, with its connection and body limits. */
export function createServiceServer(
  core: ServiceCore,
  parts: ServiceParts,
): ReturnType<typeof createHttpServer> {
  const { options, log } = core;
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
    createRequestListener(parts.ctx, bodyLimits, parts.extensions, options.sandboxPath),
    options.tls,
  );
  guardConnections(server, limits, log);
  return server;
}

/** Listens; when the address cannot be bound, stops what already runs (timers, queue, backend) and rethrows. */
export async function listenOrStop(
  server: ReturnType<typeof createHttpServer>,
  host: string,
  port: number,
  stores: OpenStores,
  parts: ServiceParts,
): Promise<ListeningAddress> {
  try {
    return await listen(server, host, port);
  } catch (error) {
    clearInterval(stores.webhookUrlsRefresh);
    parts.lifecycle.close();
    parts.queue.close();
    await stores.backend.close();
    throw error;
  }
}

/** The running service's handle; close() stops everything once, however often it is called. */
export function runningService(
  core: ServiceCore,
  started: {
    readonly applications: readonly ApplicationCredentials[];
    readonly stores: OpenStores;
    readonly parts: ServiceParts;
    readonly server: ReturnType<typeof createHttpServer>;
    readonly address: ListeningAddress;
    readonly limitedLog: RateLimitedLog | undefined;
  },
): RunningReferenceService {
  const { applications, stores, parts, server, address, limitedLog } = started;
  const { queue, lifecycle, extensions } = parts;
  let closing: Promise<void> | undefined;
  return {
    baseUrl: address.origin,
    host: address.host,
    port: address.port,
    credentials: applications[0]!,
    applications,
    seededPayments: stores.seeded,
    sandboxPath: core.options.sandboxPath ?? SANDBOX_BASE_PATH,
    copDestinations: copDestinations(),
    webhookPublicKeyTrimmedPem: parts.trimmedPem,
    faults: core.faults.list(),
    variant: core.faults.variant,
    deliveries: () => queue.deliveries(),
    backend: stores.backend.description,
    openConnections: () =>
      new Promise<number>((resolve, reject) =>
        server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
      ),
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        clearInterval(stores.webhookUrlsRefresh);
        lifecycle.close();
        queue.close();
        for (const e of extensions) e.close?.();
        server.close(() => resolve());
        server.closeAllConnections();
      })
        .then(() => stores.backend.close())
        .finally(() => limitedLog?.close());
      return closing;
    },
  };
}

/** Rereads the webhook URL settings every WEBHOOK_URLS_REFRESH_MS; a failed read keeps the last ones and is logged once per outage. */
function startWebhookUrlsRefresh(store: StateStore, log: Log): NodeJS.Timeout {
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
