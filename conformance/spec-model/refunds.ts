// Refunds in the spec model (spec: Refund resource; Refund statuses; Limits): what a payment has left to refund, one
// active refund per payment (at once and over time), the total cap, and the judges of each refund answer.
import {
  addDecimals,
  compareDecimals,
  subtractDecimals,
  toDecimal,
  type Decimal,
} from '../../src/rules/money.js';
import {
  decimalOf,
  emptyVerdict,
  judge,
  money,
  record,
  sameAmount,
  show,
  type Judgement,
  type Verdict,
  utcMillis,
} from './judgement.js';
import type { Answer } from './payouts.js';
import {
  expectWebhook,
  type ActiveOverlap,
  type ModelPayment,
  type ModelRefund,
  type SpecState,
} from './state.js';
import { finishedRefundStatuses, isIn, maybeUncountedRefundStatuses } from './statuses.js';

/** Refund statuses: "A refund is created with status IN_PROGRESS". */
export const REFUND_CREATED_STATUS = 'IN_PROGRESS';

/** What the spec lets a payment take next: the bounds of what is left, and whether every earlier refund finished. */
export function refundRoom(payment: ModelPayment): {
  /** Left when every accepted refund counts. */
  readonly least: Decimal;
  /** Left when only refunds not known to have failed, been cancelled or returned count. */
  readonly most: Decimal;
  readonly allFinished: boolean;
} {
  const zero = toDecimal('0');
  const all = payment.refunds.reduce((s, r) => addDecimals(s, r.amount), zero);
  const surely = payment.refunds
    .filter((r) => !isIn(maybeUncountedRefundStatuses, r.status))
    .reduce((s, r) => addDecimals(s, r.amount), zero);
  return {
    least: subtractDecimals(payment.amount, all),
    most: subtractDecimals(payment.amount, surely),
    allFinished: payment.refunds.every((r) => isIn(finishedRefundStatuses, r.status)),
  };
}

/** Whether a refund of `amount` must be accepted as far as the model knows: every earlier refund finished, and it fits. */
export function refundFits(payment: ModelPayment, amount: Decimal): boolean {
  const room = refundRoom(payment);
  return room.allFinished && compareDecimals(amount, room.least) <= 0;
}

/**
 * A refund answer (accepted or refused) against the limits: accepted only within what is left (REFUND-TOTAL-CAP);
 * refused only when something stated forbids it (REFUND-PARTIAL-ALLOWED when every earlier refund has finished and
 * the amount fits what is surely left).
 */
export function judgeRefundAnswer(
  payment: ModelPayment,
  amount: Decimal,
  accepted: boolean,
  answer: string,
): Judgement | undefined {
  const room = refundRoom(payment);
  const ask = money(amount);
  if (accepted && compareDecimals(amount, room.most) > 0)
    return {
      requirement: 'REFUND-TOTAL-CAP',
      message: `a refund of ${ask} of payment ${payment.paymentId} (amount ${money(payment.amount)}) was accepted with at most ${money(room.most)} left`,
      expected: `refused (at most ${money(room.most)} left after refunds of ${payment.refunds.map((r) => money(r.amount)).join(', ') || 'nothing'})`,
      received: answer,
    };
  if (!accepted && payment.earlierUnknown !== true && refundFits(payment, amount))
    return {
      requirement: 'REFUND-PARTIAL-ALLOWED',
      message: `a refund of ${ask} of payment ${payment.paymentId} (amount ${money(payment.amount)}) was refused although every earlier refund had finished and ${money(room.least)} was left`,
      expected: 'accepted (a Refund resource)',
      received: answer,
    };
  return undefined;
}

/** The Refund resource of an accepted refund. */
export function judgeRefundResource(
  payment: ModelPayment,
  amount: Decimal,
  body: unknown,
): Judgement | undefined {
  const r = record(body);
  const details = record(r['refundRequestDetails']);
  if (r['status'] !== REFUND_CREATED_STATUS)
    return {
      requirement: 'REFUND-CREATED-IN-PROGRESS',
      message: `a new refund of payment ${payment.paymentId} is answered with status ${show(r['status'])}`,
      expected: `status ${REFUND_CREATED_STATUS}`,
      received: `status ${show(r['status'])}`,
    };
  if (r['refundedPaymentId'] !== payment.paymentId)
    return {
      requirement: 'REFUND-RESPONSE-RESOURCE',
      message: `a refund of payment ${payment.paymentId} names another refundedPaymentId`,
      expected: `refundedPaymentId ${payment.paymentId}`,
      received: `refundedPaymentId ${show(r['refundedPaymentId'])}`,
    };
  if (!sameAmount(details['amount'], amount))
    return {
      requirement: 'REFUND-RESPONSE-RESOURCE',
      message: `a refund of ${money(amount)} is answered with another refundRequestDetails.amount`,
      expected: `amount ${money(amount)}`,
      received: `amount ${show(details['amount'])}`,
    };
  return undefined;
}

/** Two refunds of one payment sent at once: at most one may be accepted (REFUND-ONE-ACTIVE). */
export function judgeRefundsAtOnce(
  payment: ModelPayment,
  answers: readonly Answer[],
): Judgement | undefined {
  const accepted = answers.flatMap((a, i) => (a.accepted ? [i] : []));
  if (accepted.length <= 1) return undefined;
  return {
    requirement: 'REFUND-ONE-ACTIVE',
    message: `${answers.length} refunds of payment ${payment.paymentId} sent at once were all accepted`,
    expected: 'at most one accepted (one active refund per payment)',
    received: answers.map((a) => a.outcome).join(' and '),
    answer: accepted[1]!,
  };
}

/** A refund of a payment that is not SETTLED: refused (REFUND-SETTLED-ONLY). */
export function judgeUnsettledRefund(
  payment: { readonly paymentId: string; readonly status: string },
  answer: Answer,
): Judgement | undefined {
  if (!answer.accepted) return undefined;
  return {
    requirement: 'REFUND-SETTLED-ONLY',
    message: `a refund of payment ${payment.paymentId} in status ${payment.status} was accepted`,
    expected: 'refused (422: a refund can start only when the payment is SETTLED)',
    received: answer.outcome,
  };
}

/**
 * The earlier refund of the payment that is surely still active: created IN_PROGRESS and no webhook since showed
 * another status. (A HELD refund is not counted: the spec does not say whether HELD has finished.)
 */
export function stillActiveRefund(payment: ModelPayment): ModelRefund | undefined {
  return payment.refunds.find((r) => r.status === undefined || r.status === REFUND_CREATED_STATUS);
}

/**
 * Limits, "Only one active refund per payment; the next cannot start until the previous one has finished", judged
 * over time: a refund accepted while an earlier one was still IN_PROGRESS breaks it, however long ago the earlier one
 * was created. It was, when the earlier one's next status is announced with an eventTimeUtc after the later one's
 * createdAtUtc (the target's own clock), or when no webhook shows it leaving IN_PROGRESS by the overlap's deadline
 * (had it finished, the webhook of that change never came).
 */
export function judgeActiveOverlap(o: ActiveOverlap, now: number): Judgement | undefined {
  const after = o.finishedAfter;
  if (after === undefined && (o.settled || now < o.by)) return undefined;
  const ago = o.later.createdAt - o.earlier.createdAt;
  return {
    requirement: 'REFUND-ONE-ACTIVE',
    message: `refund ${o.later.refundId} of payment ${o.payment.paymentId} was accepted while refund ${o.earlier.refundId} (accepted ${ago} ms before) was still ${REFUND_CREATED_STATUS}${after !== undefined ? `: its ${after.status} webhook says it moved at ${after.eventTimeUtc}, after the later refund's createdAtUtc ${show(o.laterCreatedAtUtc)}` : ': no webhook showed it finished (had it finished, the webhook of that change never came)'}`,
    expected: `refused until refund ${o.earlier.refundId} has finished (one active refund per payment)`,
    received: `${o.answer}; refund ${o.earlier.refundId}: ${after !== undefined ? `${REFUND_CREATED_STATUS} until ${after.eventTimeUtc}` : `${REFUND_CREATED_STATUS}, no webhook since`}`,
  };
}

/**
 * A webhook showed an overlap's earlier refund leave IN_PROGRESS (status `status`, eventTimeUtc `eventTimeUtc`): it
 * finished after the later refund was created when both timestamps say so; otherwise (before, or a timestamp the
 * model cannot read) the overlap is settled in the target's favour.
 */
export function settleOverlap(o: ActiveOverlap, status: string, eventTimeUtc: unknown): void {
  if (o.settled || o.finishedAfter !== undefined) return;
  const finished = utcMillis(eventTimeUtc);
  const created = utcMillis(o.laterCreatedAtUtc);
  if (finished !== undefined && created !== undefined && finished > created)
    o.finishedAfter = { status, eventTimeUtc: eventTimeUtc as string };
  else o.settled = true;
}

/** Adds an accepted refund to the state: judged (resource), owed its webhook, and any overlap with an active one. */
function acceptRefund(
  state: SpecState,
  v: Verdict,
  payment: ModelPayment,
  amount: Decimal,
  answer: Answer,
  now: number,
  index?: number,
): void {
  const wrong = judgeRefundResource(payment, amount, answer.body);
  judge(
    v,
    'REFUND-RESPONSE-RESOURCE',
    wrong && index !== undefined ? { ...wrong, answer: index } : wrong,
  );
  v.judged.push('REFUND-CREATED-IN-PROGRESS');
  const details = record(answer.body?.['refundRequestDetails']);
  const refundId = answer.body?.['refundPaymentId'];
  if (typeof refundId !== 'string') return;
  const earlier = stillActiveRefund(payment);
  const refund: ModelRefund = {
    refundId,
    amount,
    reference: details['reference'],
    destination: details['destination'],
    createdAt: now,
  };
  payment.refunds.push(refund);
  expectWebhook(state, 'refund', refundId, REFUND_CREATED_STATUS, 'created IN_PROGRESS', now);
  if (earlier !== undefined) {
    v.judged.push('REFUND-ONE-ACTIVE');
    const by = now + state.webhookWaitMs;
    state.overlaps.push({
      payment,
      earlier,
      later: refund,
      answer: answer.outcome,
      laterCreatedAtUtc: answer.body?.['createdAtUtc'],
      by,
      settled: false,
    });
  }
}

/** One refund's answer: the limits, then (accepted) the resource and the state. */
export function observeRefund(
  state: SpecState,
  payment: ModelPayment,
  amount: Decimal,
  answer: Answer,
  now: number,
): Verdict {
  const v = emptyVerdict();
  const limit = judgeRefundAnswer(payment, amount, answer.accepted, answer.outcome);
  v.judged.push('REFUND-TOTAL-CAP', 'REFUND-PARTIAL-ALLOWED');
  if (limit !== undefined) v.judgements.push(limit);
  if (answer.accepted) acceptRefund(state, v, payment, amount, answer, now);
  else if (payment.earlierUnknown === true && refundFits(payment, amount))
    v.observations.push(
      `a refund of ${money(amount)} of configured payment ${payment.paymentId} was refused (${answer.outcome}) although it fits what this run knows is left: undecided, since an earlier run may have refunded the payment or left a refund active`,
    );
  return v;
}

/** Refunds of one payment sent at once: at most one accepted, then each accepted one as `observeRefund` takes it. */
export function observeRefundsAtOnce(
  state: SpecState,
  payment: ModelPayment,
  amounts: readonly Decimal[],
  answers: readonly Answer[],
  now: number,
): Verdict {
  const v = emptyVerdict();
  judge(v, 'REFUND-ONE-ACTIVE', judgeRefundsAtOnce(payment, answers));
  answers.forEach((answer, i) => {
    if (!answer.accepted) return;
    const limit = judgeRefundAnswer(payment, amounts[i]!, true, answer.outcome);
    if (limit !== undefined) v.judgements.push({ ...limit, answer: i });
    acceptRefund(state, v, payment, amounts[i]!, answer, now, i);
  });
  return v;
}

/** A refund of a configured payment that is not SETTLED. */
export function observeUnsettledRefund(
  payment: { readonly paymentId: string; readonly status: string },
  answer: Answer,
): Verdict {
  const v = emptyVerdict();
  judge(v, 'REFUND-SETTLED-ONLY', judgeUnsettledRefund(payment, answer));
  return v;
}

/** A settled payment made for the run (by a state hook or /sandbox/: the spec shows no way to make one): joins the state. */
export function observePaymentMade(state: SpecState, requested: string, answer: Answer): Verdict {
  const v = emptyVerdict();
  const paymentId = answer.body?.['paymentId'];
  const amount = decimalOf(answer.body?.['amount']);
  if (!answer.accepted || typeof paymentId !== 'string' || amount === undefined)
    v.observations.push(`settled payment of ${requested} not made: ${answer.outcome}`);
  else state.payments.push({ paymentId, amount, refunds: [] });
  return v;
}
