// The service's in-memory state: applications, payments, payouts and refunds. No persistence: a restart starts over.
import { randomBytes } from 'node:crypto';
import type { Ed25519PrivateKey, Ed25519PublicKey } from '../src/ed25519/backend.js';
import type {
  CopStatus,
  PaymentStatus,
  PayoutStatus,
  RefundStatus,
} from '../src/schemas/statuses.js';
import { HttpError } from './error-body.js';
import type { WebhookKind } from './webhook-delivery.js';

// The spec's status vocabularies are the schemas' (one definition, checked against the schema enums).
export type { CopStatus, PaymentStatus, PayoutStatus, RefundStatus };

/** An account as the spec's Account object shows it. */
export interface Account {
  readonly name: string;
  readonly accountNumber: string;
  readonly sortCode: string;
  readonly iban: string | null;
}

/** The merchant application as the service knows it (credentials plus its virtual account). */
export interface Application {
  readonly applicationId: string;
  readonly applicationSecret: string;
  readonly merchantId: string;
  /** keyid → public key. */
  readonly publicKeys: ReadonlyMap<string, Ed25519PublicKey>;
  /** Confirmation of Payee active for this application (false: copStatus is always null). */
  readonly cop: boolean;
  /** The virtual account payouts are paid from; `payInAccountSelector` must name its id or alias. */
  readonly virtualAccount: Account & { readonly id: string; readonly alias: string };
}

/** The credentials a client needs; the private key only when the service generated them (development only). */
export interface ApplicationCredentials {
  readonly applicationId: string;
  readonly applicationSecret: string;
  readonly keyId: string;
  readonly publicKey: Ed25519PublicKey;
  readonly privateKey?: Ed25519PrivateKey;
  readonly merchantId: string;
  readonly cop: boolean;
  readonly payInAccountSelector: string;
}

export interface Payment {
  readonly paymentId: string;
  readonly applicationId: string;
  readonly merchantPaymentId?: string;
  status: PaymentStatus;
  errorDescription: string | null;
  /** Canonical decimal text, two places ("100.50"). */
  readonly amount: string;
  readonly currency: string;
  readonly reference: string;
  /** The paying account: refunds go here and nowhere else. */
  readonly payer: Account;
  readonly metadata?: Readonly<Record<string, string>>;
  readonly isExternal: boolean;
  readonly createdAt: number;
}

export interface Payout {
  readonly payoutId: string;
  readonly applicationId: string;
  readonly createdAt: number;
  status: PayoutStatus;
  readonly amount: string;
  readonly reference: string;
  readonly currency: string;
  readonly source: Account;
  readonly destination: Account;
  copStatus: CopStatus | null;
  statusReason: string | null;
  /** Status the automatic lifecycle moves an IN_PROGRESS payout to (from the amount trigger). */
  readonly plannedOutcome: 'PROCESSED' | 'FAILED' | 'HELD' | 'RETURNED';
}

export interface Refund {
  readonly refundId: string;
  readonly paymentId: string;
  readonly applicationId: string;
  readonly createdAt: number;
  status: RefundStatus;
  readonly amount: string;
  readonly currency: string;
  readonly reference: string;
  readonly destination: Account;
  readonly plannedOutcome: 'PROCESSED' | 'FAILED' | 'HELD' | 'RETURNED';
}

/**
 * How many of each object the service holds at most (memory is bounded whatever clients do), in all and per
 * application, so one application at its limit leaves the others untouched. With Redis the counts are kept in Redis
 * and hold across every instance.
 */
export interface StateLimits {
  readonly payments: number;
  readonly payouts: number;
  readonly refunds: number;
  readonly paymentsPerApplication: number;
  readonly payoutsPerApplication: number;
  readonly refundsPerApplication: number;
  /**
   * Nonces one application may have remembered at once (in memory), or record per two validity windows (Redis);
   * beyond it its signed requests get 503 NONCE_STORE_UNAVAILABLE, other applications' do not.
   */
  readonly noncesPerApplication: number;
}

export type StateKind = 'payments' | 'payouts' | 'refunds';

export const DEFAULT_STATE_LIMITS: StateLimits = Object.freeze({
  payments: 40_000,
  payouts: 40_000,
  refunds: 40_000,
  paymentsPerApplication: 10_000,
  payoutsPerApplication: 10_000,
  refundsPerApplication: 10_000,
  noncesPerApplication: 100_000,
});

export class ServiceState {
  readonly limits: StateLimits;
  readonly applications = new Map<string, Application>();
  readonly payments = new Map<string, Payment>();
  readonly payouts = new Map<string, Payout>();
  readonly refunds = new Map<string, Refund>();
  /** Webhook URLs an application set for itself (portal, Settings, 'Webhooks And Callbacks'); the flags are the defaults. */
  readonly webhookUrls = new Map<string, Partial<Record<WebhookKind, string>>>();

  constructor(limits: Partial<StateLimits> = {}) {
    const merged = { ...DEFAULT_STATE_LIMITS, ...limits };
    for (const [name, value] of Object.entries(merged)) {
      if (!Number.isInteger(value) || value < 1)
        throw new TypeError(`stateLimits.${name} must be a positive integer`);
    }
    this.limits = merged;
  }

  /**
   * The 507 `state_full` for `kind`: `scope` says whether the application's share or the whole service is full, and
   * `where` where the state is kept (never "in memory" when it is in Redis).
   */
  fullError(
    kind: StateKind,
    scope: 'application' | 'service',
    applicationId: string,
    where: 'memory' | 'redis',
  ): HttpError {
    const max = scope === 'application' ? this.limits[`${kind}PerApplication`] : this.limits[kind];
    const what =
      scope === 'application'
        ? `application ${JSON.stringify(applicationId)} already holds its maximum of ${max} ${kind} (stateLimits.${kind}PerApplication); other applications are not affected`
        : `the service already holds its maximum of ${max} ${kind} for all applications (stateLimits.${kind})`;
    const where_ =
      where === 'memory'
        ? 'state is in memory: restart the service to start over'
        : 'counted in Redis across every instance: clear the Redis key prefix to start over';
    return new HttpError(507, 'state_full', `${what}; ${where_}`);
  }

  /**
   * A payment reference no payment of any application (any merchant) carries yet (spec, What the service does 7:
   * for virtual accounts the service assigns the reference, unique across all merchants).
   */
  assignPaymentReference(): string {
    const taken = new Set<string>();
    for (const p of this.payments.values()) taken.add(p.reference);
    // 48 random bits: a repeat is already unlikely; the bounded retry makes it impossible in practice.
    for (let i = 0; i < 16; i += 1) {
      const reference = newPaymentReference();
      if (!taken.has(reference)) return reference;
    }
    throw new Error('could not assign a unique payment reference');
  }

  refundsOf(paymentId: string): Refund[] {
    const out: Refund[] = [];
    for (const r of this.refunds.values()) if (r.paymentId === paymentId) out.push(r);
    return out;
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** A payment reference assigned by the service (spec: for virtual accounts the caller's reference is ignored). */
export function newPaymentReference(): string {
  return `PC${randomBytes(6).toString('hex').toUpperCase()}`;
}

/** A refund reference assigned by the service. */
export function newRefundReference(): string {
  return `RF${randomBytes(6).toString('hex').toUpperCase()}`;
}
