// Status changes of payouts, refunds and payments: each one emits its webhook; IN_PROGRESS moves on by timer or /sandbox/ call.
import { HttpError } from './error-body.js';
import type { FaultSet } from './faults.js';
import { paymentWebhookPayload, payoutWebhookPayload, refundWebhookPayload } from './representations.js';
import type { Payment, PaymentStatus, Payout, PayoutStatus, Refund, RefundStatus, ServiceState } from './state.js';
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
const allowedMoves: Readonly<Record<PayoutStatus, readonly PayoutStatus[]>> = {
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

/** The status an automatic step moves to from `status`, given the planned outcome; undefined when nothing is left to do. */
function nextStep(status: PayoutStatus, outcome: Outcome): PayoutStatus | undefined {
  if (status === 'IN_PROGRESS') return outcome === 'RETURNED' ? 'PROCESSED' : outcome;
  if (status === 'PROCESSED' && outcome === 'RETURNED') return 'RETURNED';
  return undefined;
}

export interface LifecycleOptions {
  readonly state: ServiceState;
  readonly queue: WebhookQueue;
  readonly faults: FaultSet;
  readonly now: () => number;
  /** Delay of each automatic step; 0 = moves only through /sandbox/. */
  readonly delayMs: number;
}

export class Lifecycle {
  private readonly timers = new Set<NodeJS.Timeout>();
  constructor(private readonly o: LifecycleOptions) {}

  close(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  // --- payouts ---

  /** Records a payout status change: webhook (none for AWAITING_COMMIT, which the webhook status list excludes), then timer. */
  payoutChanged(payout: Payout, initial: boolean): void {
    const { faults, queue, now } = this.o;
    if (payout.status !== 'AWAITING_COMMIT' && !(faults.has('webhook-missing-event') && !initial)) {
      const eventTime = now();
      const snapshot: Payout = { ...payout };
      const description = payout.statusReason ?? statusDescriptions[payout.status];
      queue.enqueue({
        kind: 'payout',
        resourceId: payout.payoutId,
        eventStatus: payout.status,
        payload: (attempt) => payoutWebhookPayload(snapshot, eventTime, description, attempt, faults),
      });
    }
    this.scheduleStep(() => this.stepPayout(payout));
  }

  /** /sandbox/ move: to `target`, or one automatic step when no target is given. */
  advancePayout(payout: Payout, target?: PayoutStatus): void {
    const to = target ?? nextStep(payout.status, payout.plannedOutcome);
    if (to === undefined) throw new HttpError(409, 'no_next_status', `payout is ${payout.status}: no automatic move is left; name a target status`);
    if (!allowedMoves[payout.status].includes(to)) {
      throw new HttpError(409, 'invalid_transition', `payout cannot move from ${payout.status} to ${to}`);
    }
    payout.status = to;
    this.payoutChanged(payout, false);
  }

  private stepPayout(payout: Payout): boolean {
    const to = nextStep(payout.status, payout.plannedOutcome);
    if (to === undefined) return false;
    payout.status = to;
    this.payoutChanged(payout, false);
    return true;
  }

  // --- refunds ---

  refundChanged(refund: Refund, initial: boolean): void {
    const { faults, queue, now, state } = this.o;
    const payment = state.payments.get(refund.paymentId);
    if (payment !== undefined && !(faults.has('webhook-missing-event') && !initial)) {
      const eventTime = now();
      const snapshot: Refund = { ...refund };
      const description = statusDescriptions[refund.status];
      queue.enqueue({
        kind: 'refund',
        resourceId: refund.refundId,
        eventStatus: refund.status,
        payload: (attempt) => refundWebhookPayload(snapshot, payment, eventTime, description, attempt, faults),
      });
    }
    this.scheduleStep(() => this.stepRefund(refund));
  }

  advanceRefund(refund: Refund, target?: RefundStatus): void {
    const to = target ?? nextStep(refund.status, refund.plannedOutcome);
    if (to === undefined || to === 'AWAITING_COMMIT') {
      throw new HttpError(409, 'no_next_status', `refund is ${refund.status}: no automatic move is left; name a target status`);
    }
    if (!allowedMoves[refund.status].includes(to)) {
      throw new HttpError(409, 'invalid_transition', `refund cannot move from ${refund.status} to ${to}`);
    }
    refund.status = to;
    this.refundChanged(refund, false);
  }

  private stepRefund(refund: Refund): boolean {
    const to = nextStep(refund.status, refund.plannedOutcome);
    if (to === undefined || to === 'AWAITING_COMMIT') return false;
    refund.status = to;
    this.refundChanged(refund, false);
    return true;
  }

  // --- payments ---

  /**
   * Moves a payment (sandbox only). AWAITING_AUTHORIZATION → COMPLETED | FAILED; COMPLETED → SETTLED | FAILED.
   * A move to SETTLED from AWAITING_AUTHORIZATION passes through COMPLETED. Webhooks for COMPLETED, SETTLED, FAILED.
   */
  movePayment(payment: Payment, target: PaymentStatus, errorDescription?: string): void {
    const path: PaymentStatus[] = [];
    if (payment.status === 'AWAITING_AUTHORIZATION') {
      if (target === 'COMPLETED' || target === 'FAILED') path.push(target);
      else if (target === 'SETTLED') path.push('COMPLETED', 'SETTLED');
    } else if (payment.status === 'COMPLETED') {
      if (target === 'SETTLED' || target === 'FAILED') path.push(target);
    }
    if (path.length === 0) throw new HttpError(409, 'invalid_transition', `payment cannot move from ${payment.status} to ${target}`);
    for (const status of path) {
      payment.status = status;
      if (status === 'FAILED') payment.errorDescription = errorDescription ?? 'payment failed';
      this.paymentChanged(payment);
    }
  }

  paymentChanged(payment: Payment): void {
    if (payment.status === 'AWAITING_AUTHORIZATION') return;
    // Fault payment-webhook-missing: the SETTLED event is dropped.
    if (payment.status === 'SETTLED' && this.o.faults.has('payment-webhook-missing')) return;
    const snapshot: Payment = { ...payment };
    this.o.queue.enqueue({
      kind: 'payment',
      resourceId: payment.paymentId,
      eventStatus: payment.status,
      payload: () => paymentWebhookPayload(snapshot),
    });
  }

  private scheduleStep(step: () => boolean): void {
    if (this.o.delayMs <= 0) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      step();
    }, this.o.delayMs);
    this.timers.add(timer);
  }
}
