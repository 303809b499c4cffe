// Status changes of payouts, refunds and payments: each one emits its webhook; IN_PROGRESS moves on by timer or /sandbox/ call.
import { isOneOf } from '../src/schemas/statuses.js';
import { HttpError } from './error-body.js';
import { lateFaultTimings, type FaultName, type FaultSet } from './faults.js';
import {
  paymentWebhookPayload,
  payoutWebhookPayload,
  refundWebhookPayload,
} from './representations.js';
import type {
  Payment,
  PaymentStatus,
  Payout,
  PayoutStatus,
  Refund,
  RefundStatus,
  ServiceState,
} from './state.js';
import type { StateStore } from './state-store.js';
import type { SharedTimers } from './redis-timers.js';
import type { WebhookQueue } from './webhook-delivery.js';

export type Outcome = 'PROCESSED' | 'FAILED' | 'HELD' | 'RETURNED';

/**
 * Documented lifecycle triggers: the pence of the amount select where an IN_PROGRESS payout or refund ends up.
 * x.91 → FAILED, x.92 → HELD, x.93 → RETURNED (through PROCESSED), anything else → PROCESSED.
 */
export function plannedOutcome(amount: string): Outcome {
  const pence = amount.split('.')[1] ?? '00';
  if (pence === '91') return 'FAILED';
  if (pence === '92') return 'HELD';
  if (pence === '93') return 'RETURNED';
  return 'PROCESSED';
}

/** Moves this service allows for payouts and refunds after creation (commit and cancel are the API's own moves). */
const allowedMoves: Readonly<Record<PayoutStatus, readonly RefundStatus[]>> = {
  AWAITING_COMMIT: [],
  IN_PROGRESS: ['PROCESSED', 'FAILED', 'HELD'],
  HELD: ['IN_PROGRESS', 'PROCESSED', 'FAILED', 'CANCELLED'],
  PROCESSED: ['RETURNED'],
  FAILED: [],
  CANCELLED: [],
  RETURNED: [],
};

const statusDescriptions: Readonly<Record<PayoutStatus, string>> = {
  IN_PROGRESS: 'Payment is in progress',
  PROCESSED: 'Payment was processed',
  CANCELLED: 'Payment was cancelled',
  FAILED: 'Payment failed',
  HELD: 'Payment is held; contact the service provider',
  RETURNED: 'Payment was delivered to the destination account and returned',
  AWAITING_COMMIT: '',
};

/**
 * Fault webhook-other-application: the id a payout's webhooks carry when the service holds no other application (a
 * fixed UUID that is not the payout's).
 */
const OTHER_APPLICATION_ID = 'a0a0a0a0-0b0b-4c0c-8d0d-0e0e0e0e0e0e';

/** Fault webhook-other-application: another application the service holds than `own`, else the fixed id. */
function otherApplicationId(state: ServiceState, own: string): string {
  for (const id of state.applications.keys()) if (id !== own) return id;
  return OTHER_APPLICATION_ID;
}

/** Fault refund-concurrent: how long a refund stays IN_PROGRESS (the embedded audit waits 2 s for a webhook). */
const REFUND_CONCURRENT_IN_PROGRESS_MS = 3_500;

/**
 * Explorer-only faults that act on their own a while after a payout reached a status (faults.ts, `lateFaultTimings`):
 * each runs as a step of its own, keyed `payout:<id>:<status>` (no automatic step moves on from these statuses), on
 * the lifecycle's timers (shared ones on Redis), so closing the service clears them.
 */
const lateFaultSteps: Partial<
  Record<PayoutStatus, { readonly fault: FaultName; readonly afterMs: number }>
> = {
  AWAITING_COMMIT: { fault: 'hold-lapses', afterMs: lateFaultTimings.holdLapsesMs },
  CANCELLED: { fault: 'webhook-without-change', afterMs: lateFaultTimings.webhookWithoutChangeMs },
};

/** The status an automatic step moves to from `status`, given the planned outcome; undefined when nothing is left to do. */
function nextStep(status: PayoutStatus, outcome: Outcome): Outcome | undefined {
  if (status === 'IN_PROGRESS') return outcome === 'RETURNED' ? 'PROCESSED' : outcome;
  if (status === 'PROCESSED' && outcome === 'RETURNED') return 'RETURNED';
  return undefined;
}

/** A /sandbox/ move of a payout or refund: `target`, or the next automatic step; 409 when neither is possible. */
function sandboxMove(
  kind: 'payout' | 'refund',
  item: Payout | Refund,
  target: PayoutStatus | undefined,
): RefundStatus {
  const to = target ?? nextStep(item.status, item.plannedOutcome);
  if (to === undefined)
    throw new HttpError(
      409,
      'no_next_status',
      `${kind} is ${item.status}: no automatic move is left; name a target status`,
    );
  if (!isOneOf(allowedMoves[item.status], to))
    throw new HttpError(
      409,
      'invalid_transition',
      `${kind} cannot move from ${item.status} to ${to}`,
    );
  return to;
}

export interface LifecycleOptions {
  readonly state: ServiceState;
  /** Where each move is made (atomically, so a step happens once even when several instances share the store). */
  readonly store: StateStore;
  readonly queue: WebhookQueue;
  readonly faults: FaultSet;
  readonly now: () => number;
  /** Delay of each automatic step; 0 = moves only through /sandbox/. */
  readonly delayMs: number;
  readonly log?: (line: string) => void;
  /** Timers shared by the instances on one store (Redis): a step is run by whichever instance claims it. */
  readonly shared?: SharedTimers;
}

export class Lifecycle {
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Fault webhook-amount-of-previous-payout: the amount each payout's webhooks carry, and the last one created. */
  private readonly leakedAmounts = new Map<string, string>();
  private previousAmount: string | undefined;
  private closed = false;
  constructor(private readonly o: LifecycleOptions) {
    o.shared?.start((key) => this.step(key));
  }

  close(): void {
    this.closed = true;
    this.o.shared?.close();
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  // --- payouts ---

  /** Records a payout status change: webhook (none for AWAITING_COMMIT, which the webhook status list excludes), then timer. */
  payoutChanged(payout: Payout, initial: boolean, silent = false): void {
    const { faults } = this.o;
    const dropped =
      silent ||
      (faults.has('webhook-missing-event') && !initial) ||
      (faults.has('webhook-no-initial-event') && initial);
    if (initial && faults.has('webhook-amount-of-previous-payout')) {
      // Fault: the webhooks of this payout carry the amount of the payout created before it.
      this.leakedAmounts.set(payout.payoutId, this.previousAmount ?? payout.amount);
      this.previousAmount = payout.amount;
    }
    if (payout.status !== 'AWAITING_COMMIT' && !dropped) this.sendPayoutWebhook(payout);
    this.scheduleStep('payout', payout);
    const late = lateFaultSteps[payout.status];
    if (late !== undefined && faults.has(late.fault))
      this.schedule(`payout:${payout.payoutId}:${payout.status}`, late.afterMs);
  }

  /** Queues the payout webhook announcing `payout`'s status (its data as it is now). */
  private sendPayoutWebhook(payout: Payout): void {
    const { faults, queue, now } = this.o;
    const eventTime = now();
    const leaked = this.leakedAmounts.get(payout.payoutId);
    const snapshot: Payout = {
      ...payout,
      ...(leaked !== undefined ? { amount: leaked } : {}),
      // Fault webhook-other-application: the webhook names another application than the payout's.
      ...(faults.has('webhook-other-application')
        ? { applicationId: otherApplicationId(this.o.state, payout.applicationId) }
        : {}),
    };
    const description = faults.alt
      ? ''
      : (payout.statusReason ?? statusDescriptions[payout.status]);
    queue.enqueue({
      kind: 'payout',
      applicationId: payout.applicationId,
      resourceId: payout.payoutId,
      eventStatus: payout.status,
      payload: (attempt) => payoutWebhookPayload(snapshot, eventTime, description, attempt, faults),
    });
  }

  /** /sandbox/ move: to `target`, or one automatic step when no target is given; undefined when no such payout. */
  async advancePayout(payoutId: string, target?: PayoutStatus): Promise<Payout | undefined> {
    const moved = await this.o.store.changePayout(payoutId, (payout) => {
      payout.status = sandboxMove('payout', payout, target);
    });
    if (moved !== undefined) this.payoutChanged(moved.item, false);
    return moved?.item;
  }

  // --- refunds ---

  refundChanged(refund: Refund, initial: boolean): void {
    const { faults, queue, now, state } = this.o;
    const payment = state.payments.get(refund.paymentId);
    const dropped =
      (faults.has('webhook-missing-event') && !initial) ||
      (faults.has('webhook-no-initial-event') && initial) ||
      faults.has('refund-webhook-missing');
    if (payment !== undefined && !dropped) {
      const eventTime = now();
      const snapshot: Refund = { ...refund };
      const description = faults.alt ? '' : statusDescriptions[refund.status];
      queue.enqueue({
        kind: 'refund',
        applicationId: refund.applicationId,
        resourceId: refund.refundId,
        eventStatus: refund.status,
        payload: (attempt) =>
          refundWebhookPayload(snapshot, payment, eventTime, description, attempt, faults),
      });
    }
    this.scheduleStep('refund', refund);
  }

  async advanceRefund(refundId: string, target?: RefundStatus): Promise<Refund | undefined> {
    const moved = await this.o.store.changeRefund(refundId, (refund) => {
      refund.status = sandboxMove('refund', refund, target);
    });
    if (moved !== undefined) {
      await this.o.store.getPayment(moved.item.paymentId);
      this.refundChanged(moved.item, false);
    }
    return moved?.item;
  }

  // --- payments ---

  /**
   * Moves a payment (sandbox only). AWAITING_AUTHORIZATION → COMPLETED | FAILED; COMPLETED → SETTLED | FAILED.
   * A move to SETTLED from AWAITING_AUTHORIZATION passes through COMPLETED. Webhooks for COMPLETED, SETTLED, FAILED.
   */
  async movePayment(
    paymentId: string,
    target: PaymentStatus,
    errorDescription?: string,
  ): Promise<Payment | undefined> {
    const moved = await this.o.store.changePayment(paymentId, (payment) => {
      const path: PaymentStatus[] = [];
      if (payment.status === 'AWAITING_AUTHORIZATION') {
        if (target === 'COMPLETED' || target === 'FAILED') path.push(target);
        else if (target === 'SETTLED') path.push('COMPLETED', 'SETTLED');
      } else if (payment.status === 'COMPLETED') {
        if (target === 'SETTLED' || target === 'FAILED') path.push(target);
      }
      if (path.length === 0)
        throw new HttpError(
          409,
          'invalid_transition',
          `payment cannot move from ${payment.status} to ${target}`,
        );
      payment.status = target;
      if (target === 'FAILED') payment.errorDescription = errorDescription ?? 'payment failed';
      return path;
    });
    if (moved === undefined) return undefined;
    // One webhook per status passed through (the stored payment is already at the last one).
    for (const status of moved.result) {
      this.paymentChanged({ ...moved.item, status });
    }
    return moved.item;
  }

  paymentChanged(payment: Payment): void {
    if (payment.status === 'AWAITING_AUTHORIZATION') return;
    // Fault payment-webhook-missing: the SETTLED event is dropped.
    if (payment.status === 'SETTLED' && this.o.faults.has('payment-webhook-missing')) return;
    if (payment.status === 'COMPLETED' && this.o.faults.has('payment-webhook-completed-missing'))
      return;
    const snapshot: Payment = { ...payment };
    this.o.queue.enqueue({
      kind: 'payment',
      applicationId: payment.applicationId,
      resourceId: payment.paymentId,
      eventStatus: payment.status,
      payload: () => paymentWebhookPayload(snapshot, this.o.faults),
    });
  }

  /**
   * After `delayMs`, `step` (the next automatic move, made through the store: it happens once, and not at all when
   * the resource was moved meanwhile). None is scheduled when no automatic move is left from this status. The key
   * names the status the step moves on from (`payout:<id>:IN_PROGRESS`): a step run twice moves once.
   */
  private scheduleStep(kind: 'payout' | 'refund', item: Payout | Refund): void {
    if (this.o.delayMs <= 0) return;
    if (nextStep(item.status, item.plannedOutcome) === undefined) return;
    const id = kind === 'payout' ? (item as Payout).payoutId : (item as Refund).refundId;
    this.schedule(`${kind}:${id}:${item.status}`, this.stepDelayMs(kind, item.status));
  }

  /** How long an automatic step from `status` waits (lifecycle timing is not shown: a personality may choose). */
  private stepDelayMs(kind: 'payout' | 'refund', status: PayoutStatus): number {
    const { delayMs, faults } = this.o;
    // Variant alt: payouts move on at once; refunds keep the delay.
    if (kind === 'payout') return faults.alt ? 5 : delayMs;
    // Fault refund-active-lapses: a refund stays IN_PROGRESS past the lapse, so the lapse can show.
    if (status === 'IN_PROGRESS' && faults.has('refund-active-lapses'))
      return Math.max(delayMs, lateFaultTimings.refundInProgressMs);
    // Fault refund-concurrent: a refund stays IN_PROGRESS past the embedded audit's webhook wait after a second is
    // accepted, so the overlap shows on what the spec states (no webhook of the first leaving IN_PROGRESS within the
    // wait); how soon a refund finishes is not shown, so a quicker one proves nothing (docs/verdicts.md).
    if (status === 'IN_PROGRESS' && faults.has('refund-concurrent'))
      return Math.max(delayMs, REFUND_CONCURRENT_IN_PROGRESS_MS);
    return delayMs;
  }

  /** Runs `step(key)` after `delayMs`: on the shared timers (Redis) when there are some, else on one of this instance. */
  private schedule(key: string, delayMs: number): void {
    const failed = (error: unknown) =>
      this.o.log?.(
        `lifecycle step ${key} failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    if (this.o.shared !== undefined) {
      this.o.shared.schedule(key, delayMs).catch(failed);
      return;
    }
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (this.closed) return;
      this.step(key).catch(failed);
    }, delayMs);
    this.timers.add(timer);
  }

  /**
   * The next automatic step of `payout:<id>:<status>` or `refund:<id>:<status>` (made through the store: once, and
   * only while the resource still has that status), and its webhook; or the late fault of that payout status.
   */
  private async step(key: string): Promise<void> {
    const [kind, id = '', from] = key.split(':');
    if (kind === 'payout' && from !== undefined && from in lateFaultSteps)
      return this.lateFaultStep(id, from as PayoutStatus);
    const onlyFrom = (item: Payout | Refund) =>
      from === undefined || item.status === from ? automaticStep(item) : false;
    if (kind === 'payout') {
      const moved = await this.o.store.changePayout(id, onlyFrom);
      if (moved?.result === true) this.payoutChanged(moved.item, false);
    } else if (kind === 'refund') {
      const moved = await this.o.store.changeRefund(id, onlyFrom);
      if (moved?.result === true) {
        await this.o.store.getPayment(moved.item.paymentId); // into this instance's view: the webhook carries it
        this.refundChanged(moved.item, false);
      }
    }
  }

  /** The late fault of a payout still in status `from` (faults.ts, `lateFaultTimings`). */
  private async lateFaultStep(id: string, from: PayoutStatus): Promise<void> {
    if (from === 'AWAITING_COMMIT') {
      // Fault hold-lapses: the untouched hold ends by itself, as a commit would (made once, through the store).
      const moved = await this.o.store.changePayout(id, (payout) => {
        if (payout.status !== 'AWAITING_COMMIT') return false;
        payout.status = 'IN_PROGRESS';
        return true;
      });
      if (moved?.result === true) this.payoutChanged(moved.item, false);
    } else if (from === 'CANCELLED') {
      // Fault webhook-without-change: a webhook announces IN_PROGRESS; the stored payout stays CANCELLED.
      const payout = await this.o.store.getPayout(id);
      if (payout?.status === 'CANCELLED')
        this.sendPayoutWebhook({ ...payout, status: 'IN_PROGRESS', statusReason: null });
    }
  }
}

/** One automatic step on the stored item: true when it moved, false when nothing was left to do. */
function automaticStep(item: Payout | Refund): boolean {
  const to = nextStep(item.status, item.plannedOutcome);
  if (to === undefined) return false;
  item.status = to;
  return true;
}
