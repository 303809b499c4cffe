// The reference service's options and the handle it returns (public API: the conformance runner starts the service with these).
import type { Ed25519PrivateKey, Ed25519PublicKey } from '../src/ed25519/backend.js';
import type { ParsedRsaPrivateKey } from '../src/webhooks/index.js';
import type { CopDestination, CopDestinationKey } from './cop-triggers.js';
import type { ServiceContext, ServiceExtension } from './context.js';
import type { FaultName, ServiceVariant } from './faults.js';
import type { ConnectionLimits } from './connections.js';
import type { LogRateLimit } from './log-limiter.js';
import type { ServerTls } from '../net/tls.js';
import type { ApplicationCredentials, PaymentStatus, StateLimits } from './state.js';
import type {
  DeliveryRecord,
  RetryPolicy,
  WebhookDeliveryOptions,
  WebhookKind,
} from './webhook-delivery.js';

/** One registered merchant application. */
export interface ApplicationConfig {
  readonly applicationId: string;
  readonly applicationSecret: string;
  readonly keyId: string;
  /** The client's Ed25519 public key: parsed, or base64 raw / base64 SPKI / PEM text. */
  readonly publicKey: Ed25519PublicKey | string;
  /** Only for in-process use (tests, the embedded runner): handed back in `credentials`, never used by the service. */
  readonly privateKey?: Ed25519PrivateKey;
  readonly merchantId: string;
  /** Confirmation of Payee active (default true); false gives copStatus null on every payout. */
  readonly cop?: boolean;
  /** The identifier of the application's virtual account (default: generated). Its alias is always "main". */
  readonly payInAccountSelector?: string;
}

/**
 * How to start the reference service: where it listens, its applications and keys, faults,
 * personality, state store and webhook URLs.
 */
export interface ReferenceServiceOptions {
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** Default 0 (a free port). */
  readonly port?: number;
  /** Serve HTTPS with this certificate and key (PEM) instead of plain HTTP; `baseUrl` is then `https://`. */
  readonly tls?: ServerTls;
  /** Registered applications; none → one generated development application (private key included in `credentials`). */
  readonly applications?: readonly ApplicationConfig[];
  readonly faults?: readonly FaultName[];
  /**
   * `alt`: the other permitted choice wherever the spec is silent; `lenient`: signed requests verified on a path of its
   * own, as RFC 8941 reads them (server/lenient-verifier.ts). See `variantChoices` in faults.ts; default `clean`.
   */
  readonly variant?: ServiceVariant;
  readonly webhookUrls?: Readonly<Partial<Record<WebhookKind, string>>>;
  /** RSA private key for webhook signatures (PEM text or parsed); default generated at start. */
  readonly webhookSigningKey?: string | ParsedRsaPrivateKey;
  /** Delay of each automatic lifecycle step of payouts and refunds; 0 or undefined = only through /sandbox/. */
  readonly lifecycleDelayMs?: number;
  readonly retry?: Partial<RetryPolicy>;
  /**
   * How webhooks are delivered beyond the retry policy (default: at once, eventTimeUtc the moment of the change): a
   * server written elsewhere may queue each webhook and stamp eventTimeUtc when it sends it; the spec states neither a
   * delivery time nor what moment eventTimeUtc is (docs/verdicts.md, "Readings the spec does not state").
   */
  readonly webhookDelivery?: WebhookDeliveryOptions;
  /** Commit, cancel and refund must be signed too (default false: a signature is verified when present). */
  readonly requireSignatureOnCommitCancelRefund?: boolean;
  /** Request body cap (default 1 MiB): beyond it, 413. */
  readonly maxBodyBytes?: number;
  /**
   * Body cap of a request whose x-application-id and x-application-secret do not name a registered application
   * (default 64 KiB, never above maxBodyBytes): the service buffers no more than this for an unauthenticated client.
   */
  readonly maxUnauthenticatedBodyBytes?: number;
  /** Timeouts and the open-connection cap (defaults in DEFAULT_CONNECTION_LIMITS). */
  /**
   * Repeated error lines in `log` (default 20 of each kind per 10 s, then one line with the count held back; see
   * server/log-limiter.ts); false: every line.
   */
  readonly logRateLimit?: LogRateLimit | false;
  readonly connections?: Partial<ConnectionLimits>;
  /** Caps on the objects the service holds (defaults in DEFAULT_STATE_LIMITS); beyond them, 507. */
  readonly stateLimits?: Partial<StateLimits>;
  /** Injectable clock, milliseconds since the epoch (signature freshness, timestamps). */
  readonly now?: () => number;
  /** One line per request, webhook attempt and state change (default: silent). */
  readonly log?: (line: string) => void;
  /**
   * Where payconform's /sandbox/ helper routes are served (default `/sandbox`): another path (`/private-x`: a
   * target that, to the audit, has no /sandbox/, whose state hook still makes payments there), or `false`: none.
   */
  readonly sandboxPath?: string | false;
  /** Seed payments at start (default true). */
  readonly seedPayments?: boolean;
  /** Served beside the API from the same state (the portal); each built once the service's parts exist. */
  readonly extensions?: ReadonlyArray<(ctx: ServiceContext) => ServiceExtension>;
  /**
   * Redis URL (`redis://…`, `rediss://…`, `unix:///path`): nonces live there, shared by every instance on the same
   * Redis. Default: none, everything in memory (no Redis client is loaded).
   */
  readonly redisUrl?: string;
  /** Prefix of every key this service writes to Redis (default `payconform:`). */
  readonly redisKeyPrefix?: string;
}

/** The payments the service seeds at start, settled and unsettled, for refunds. */
export interface SeededPayments {
  readonly settled: ReadonlyArray<{ readonly paymentId: string; readonly amount: string }>;
  readonly unsettled: ReadonlyArray<{ readonly paymentId: string; readonly status: PaymentStatus }>;
}

/**
 * A started reference service: its address, applications, seeded payments, CoP destinations,
 * faults and personality, deliveries, and `close`.
 */
export interface RunningReferenceService {
  /** e.g. `http://127.0.0.1:43121` (no trailing slash). */
  readonly baseUrl: string;
  readonly host: string;
  readonly port: number;
  /** The first application's credentials (the generated development one when none were given). */
  readonly credentials: ApplicationCredentials;
  readonly applications: readonly ApplicationCredentials[];
  /** Payments seeded for the first application. */
  readonly seededPayments: SeededPayments;
  /** Where the /sandbox/ helper routes are served (`sandboxPath` of the options), or false: nowhere. */
  readonly sandboxPath: string | false;
  /** A destination producing each CoP result ('null': CoP not active). */
  readonly copDestinations: Readonly<Record<CopDestinationKey, CopDestination>>;
  /** What GET /.well-known/signature/pem serves (the PEM body without BEGIN/END lines). */
  readonly webhookPublicKeyTrimmedPem: string;
  readonly faults: readonly FaultName[];
  readonly variant: ServiceVariant;
  deliveries(): readonly DeliveryRecord[];
  /** Where shared state lives: in memory, or the Redis URL (password hidden). */
  readonly backend: string;
  /** Connections the service holds open (each a file descriptor). */
  openConnections(): Promise<number>;
  close(): Promise<void>;
}
