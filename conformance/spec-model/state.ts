// The spec model's state: what it knows of the payouts, payments and refunds a run made, the webhooks the spec says
// must still come, and the refunds accepted while an earlier one of the payment was still active (judged once the
// webhooks had time to say otherwise). Plain data; the judges update it.
import type { Decimal } from '../../src/rules/money.js';
import type { PayoutDestinationConfig } from '../config.js';
import type { RuleId } from './rules.js';

export interface AskedPayout {
  /** The amount as written in the request body (0 to 2 decimals). */
  readonly amount: string;
  readonly reference: string;
  /** The config's CoP key whose destination was used (`null` as the string 'null'). */
  readonly copKey: string;
  readonly destination: PayoutDestinationConfig;
  /** `undefined`: the member was left out. */
  readonly doNotCommitOnCoPMismatch?: boolean;
}

/**
 * What the model knows of a payout: held, executed (IN_PROGRESS, by create or commit), cancelled, or UNKNOWN (moved
 * where the spec leaves it open: into or out of PROCESSED, FAILED, HELD, RETURNED, or a commit or cancel from another
 * state): from UNKNOWN every webhook status is allowed.
 */
export type PayoutKnown = 'AWAITING_COMMIT' | 'EXECUTED' | 'CANCELLED' | 'UNKNOWN';

export interface ModelPayout {
  readonly asked: AskedPayout;
  readonly payoutId: string;
  state: PayoutKnown;
  readonly copStatus: unknown;
  /** When the create answer arrived (ms). */
  readonly createdAt: number;
  /** When the answer of the call that last moved it (commit or cancel) arrived (ms). */
  movedAt?: number;
}

export interface ModelRefund {
  readonly refundId: string;
  readonly amount: Decimal;
  readonly reference?: unknown;
  readonly destination?: unknown;
  /** When the create answer arrived (ms). */
  readonly createdAt: number;
  /** The latest status its webhooks reported (none yet: created IN_PROGRESS, active). */
  status?: string;
}

export interface ModelPayment {
  readonly paymentId: string;
  readonly amount: Decimal;
  readonly refunds: ModelRefund[];
  /**
   * A payment this run did not make (the config's): an earlier run may have refunded some of it, or left a refund
   * active, which the spec shows no way to see; so a refusal of a refund of it decides nothing (docs/verdicts.md, "A
   * check owns what it judges"). What the model knows is still an upper bound: an acceptance beyond it is judged.
   */
  readonly earlierUnknown?: boolean;
}

/** A webhook the spec says must come, and by when the model stops waiting for it. */
export interface Expectation {
  readonly kind: 'payout' | 'refund';
  readonly id: string;
  readonly status: string;
  readonly requirement: Extract<
    RuleId,
    'PAYOUT-STATUS-CHANGE-WEBHOOK' | 'REFUND-STATUS-CHANGE-WEBHOOK'
  >;
  readonly because: string;
  readonly by: number;
  met: boolean;
}

/**
 * A refund accepted while an earlier refund of its payment had shown no status but IN_PROGRESS: a violation of
 * REFUND-ONE-ACTIVE unless a webhook shows the earlier one finished before the later one was created (its webhook may
 * still have been on its way when the later refund was accepted).
 */
export interface ActiveOverlap {
  readonly payment: ModelPayment;
  readonly earlier: ModelRefund;
  readonly later: ModelRefund;
  /** The answer that accepted the later refund (for the report). */
  readonly answer: string;
  /** The later refund's createdAtUtc (the target's clock), as its Refund resource gave it. */
  readonly laterCreatedAtUtc?: unknown;
  /** When the model stops waiting for a webhook showing the earlier refund finished (ms). */
  readonly by: number;
  /** A webhook showed the earlier refund leave IN_PROGRESS before the later one was created, or cannot say when. */
  settled: boolean;
  /** The earlier refund's next status, announced with an eventTimeUtc after the later one's createdAtUtc. */
  finishedAfter?: { readonly status: string; readonly eventTimeUtc: string };
}

export interface SpecState {
  readonly payouts: ModelPayout[];
  readonly payments: ModelPayment[];
  readonly expectations: Expectation[];
  readonly overlaps: ActiveOverlap[];
  /** How long a webhook the spec says must come may take (the target's webhook wait), ms. */
  readonly webhookWaitMs: number;
}

export function createSpecState(options: { readonly webhookWaitMs: number }): SpecState {
  return {
    payouts: [],
    payments: [],
    expectations: [],
    overlaps: [],
    webhookWaitMs: options.webhookWaitMs,
  };
}

/** Expects a webhook for a status change the model saw happen (Events: each status change produces a webhook). */
export function expectWebhook(
  state: SpecState,
  kind: 'payout' | 'refund',
  id: string,
  status: string,
  because: string,
  now: number,
): void {
  state.expectations.push({
    kind,
    id,
    status,
    requirement:
      kind === 'payout' ? 'PAYOUT-STATUS-CHANGE-WEBHOOK' : 'REFUND-STATUS-CHANGE-WEBHOOK',
    because,
    by: now + state.webhookWaitMs,
    met: false,
  });
}

/** The latest moment something of the state is still owed (a webhook, an overlap's grace); undefined when none. */
export function pendingUntil(state: SpecState): number | undefined {
  const times = [
    ...state.expectations.filter((e) => !e.met).map((e) => e.by),
    ...state.overlaps.filter((o) => !o.settled && o.finishedAfter === undefined).map((o) => o.by),
  ];
  return times.length > 0 ? Math.max(...times) : undefined;
}
