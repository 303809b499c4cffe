// `payconform audit server` without a target: the reference service started in-process on loopback (short timers,
// webhooks to the runner's own listener) and the audit context over it.
import { generateKeyPair } from 'node:crypto';
import { EMBEDDED_REQUEST_TIMEOUT_MS } from '../command-defaults.js';
import { validatePayload } from '../../src/schemas/index.js';
import { exportEd25519SeedBase64 } from '../../src/keys/index.js';
import { createRedactor } from '../../conformance/report/redact.js';
import {
  startWebhookListener,
  type WebhookListener,
} from '../../conformance/http/webhook-listener.js';
import type { ServerAuditContext } from '../../conformance/checks/server/index.js';
import { SANDBOX_BASE_PATH } from '../../net/sandbox-protocol.js';
import {
  startReferenceService,
  type FaultName,
  type ReferenceServiceOptions,
  type RunningReferenceService,
  type ServerTls,
  type ServiceVariant,
} from '../../server/index.js';
import type { AuditTarget } from './audit-server-target.js';

/** Timers of the embedded reference service: short, so lifecycles and redeliveries happen within the audit. */
export const EMBEDDED_TIMERS = {
  lifecycleDelayMs: 250,
  retry: { initialDelayMs: 40, maxDelayMs: 200, maxAttempts: 6, requestTimeoutMs: 2_000 },
} as const;

/** How a report names the embedded service after its URL (a report of it has no target to reach afterwards). */
export const EMBEDDED_LABEL = ' (embedded reference service)';

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
