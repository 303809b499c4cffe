// The spec model's state: what it knows of the payouts, payments and refunds a run made, the webhooks the spec says
// must still come, and the refunds accepted while an earlier one of the payment was still active (judged once the
// webhooks had time to say otherwise). Plain data; the judges update it.
import type { Decimal } from '../../src/rules/money.js';
import type { PayoutDestinationConfig } from '../config/config.js';
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
  /**
   * The Payout resource of the create answer: its webhooks repeat what it shows of members the request does not set
   * (applicationId, currency, destination.type). Absent: those are not compared.
   */
  readonly resource?: Readonly<Record<string, unknown>>;
  /** When the create answer arrived (ms). */
  readonly createdAt: number;
  /** When the answer of the call that last moved it (commit or cancel) arrived (ms). */
  movedAt?: number;
}

export interface ModelRefund {
  readonly refundId: string;
  readonly amount: Decimal;
  /** refundRequestDetails' reference, currency and destination, as the Refund resource gave them. */
  readonly reference?: unknown;
  readonly currency?: unknown;
  readonly destination?: unknown;
  /**
   * The application the refund was made under (the refund endpoint's {applicationId}), where the caller knows it, or
   * the Refund resource's applicationId where it carries one (the spec's Refund resource shows none).
   */
  readonly applicationId?: unknown;
  /** When the create answer arrived (ms). */
  readonly createdAt: number;
  /** The status of the webhook that arrived last (none yet: created IN_PROGRESS). For reports only: delivery order is not stated. */
  status?: string;
  /**
   * Every status its webhooks reported, in any order (Events: "the same webhook can arrive more than once", and no
   * delivery order is stated, so the last to arrive is not the latest status). Absent: `status` alone, or none.
   */
  seen?: string[];
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
 * A refund accepted while an earlier refund of its payment had shown no status but IN_PROGRESS (or two refunds of one
 * payment accepted at once). Limits, "the next cannot start until the previous one has finished", is broken only on
 * what the spec states (docs/verdicts.md, "Readings the spec does not state"): the earlier refund was created
 * IN_PROGRESS and each status change produces a webhook, so it fails when no webhook shows the earlier refund leave
 * IN_PROGRESS within the wait for webhooks after the later was accepted, or when the target itself says (a status read)
 * the earlier refund was still IN_PROGRESS after the later was accepted. A webhook showing it left settles the
 * overlap, whenever it arrives and whatever its eventTimeUtc says: the spec gives neither a delivery time nor
 * eventTimeUtc the meaning of the moment of the change (that reading is recorded, never judged).
 */
export interface ActiveOverlap {
  readonly payment: ModelPayment;
  readonly earlier: ModelRefund;
  readonly later: ModelRefund;
  /**
   * Sent at once: which was accepted first is not known, so each is "the earlier" of the other; the overlap settles
   * when either is shown leaving IN_PROGRESS, and a status read must show both still IN_PROGRESS.
   */
  readonly atOnce?: boolean;
  /** The answer that accepted the later refund (for the report). */
  readonly answer: string;
  /** The later refund's createdAtUtc, as its Refund resource gave it (recorded beside eventTimeUtc, never judged). */
  readonly laterCreatedAtUtc?: unknown;
  /** When the model stops waiting for a webhook showing the earlier refund left IN_PROGRESS (ms). */
  readonly by: number;
  /** A webhook or a status read showed the earlier refund (at once: either) out of IN_PROGRESS: the pair decides nothing. */
  settled: boolean;
  /** The target's own word that a refund was still IN_PROGRESS after the later one was accepted, by refund id. */
  stillActive?: Map<string, string>;
}

/**
 * A refund accepted beyond what the earlier refunds surely leave, though within the payment's amount: an earlier one
 * may have stopped counting (failed, cancelled, returned) before it was accepted, its webhook not here yet (no delivery
 * time is stated). Judged once the wait for webhooks after it is over, on what the webhooks then show.
 */
export interface CapOverrun {
  readonly payment: ModelPayment;
  /** The payment's refunds before this one (their statuses go on being updated by webhooks). */
  readonly earlier: readonly ModelRefund[];
  readonly amount: Decimal;
  readonly answer: string;
  readonly by: number;
  settled: boolean;
}

export interface SpecState {
  readonly payouts: ModelPayout[];
  readonly payments: ModelPayment[];
  readonly expectations: Expectation[];
  readonly overlaps: ActiveOverlap[];
  readonly capOverruns: CapOverrun[];
  /** How long a webhook the spec says must come may take (the target's webhook wait), ms. */
  readonly webhookWaitMs: number;
}

export function createSpecState(options: { readonly webhookWaitMs: number }): SpecState {
  return {
    payouts: [],
    payments: [],
    expectations: [],
    overlaps: [],
    capOverruns: [],
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
    ...state.overlaps.filter((o) => !o.settled).map((o) => o.by),
    ...state.capOverruns.filter((o) => !o.settled).map((o) => o.by),
  ];
  return times.length > 0 ? Math.max(...times) : undefined;
}
