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
  type CapOverrun,
  type SpecState,
} from './state.js';
import { finishedRefundStatuses, isIn, maybeUncountedRefundStatuses } from './statuses.js';

/** Refund statuses: "A refund is created with status IN_PROGRESS". */
export const REFUND_CREATED_STATUS = 'IN_PROGRESS';

/** Every status a refund's webhooks reported, in any order (delivery order is not stated). */
export function statusesSeen(r: ModelRefund): readonly string[] {
  return r.seen ?? (r.status !== undefined ? [r.status] : []);
}

/**
 * Whether a refund has finished as far as its webhooks show: seen in a finished status and never HELD (whether HELD
 * has finished is not shown). Any order: an IN_PROGRESS seen after it may be a re-delivery of its first webhook.
 */
export function refundFinished(r: ModelRefund): boolean {
  const seen = statusesSeen(r);
  return seen.some((s) => isIn(finishedRefundStatuses, s)) && seen.every((s) => s !== 'HELD');
}

/** A status a webhook reported for the refund: kept beside every other it reported (any order counts). */
export function noteRefundStatus(r: ModelRefund, status: string): void {
  r.seen = [...statusesSeen(r).filter((s) => s !== status), status];
  r.status = status;
}

/** Whether a webhook ever showed the refund out of IN_PROGRESS (it may have finished: no overlap can rest on it). */
export function refundLeftCreated(r: ModelRefund): boolean {
  return statusesSeen(r).some((s) => s !== REFUND_CREATED_STATUS);
}

/**
 * Whether a refund surely still counts towards the payment's total: a webhook showed it finished in a counted status
 * (PROCESSED) and none in a status that may not count. One seen only IN_PROGRESS (or HELD) may have failed or been
 * cancelled since, its webhook not yet here (no delivery time is stated): the target may then accept more.
 */
function surelyCounted(r: ModelRefund): boolean {
  const seen = statusesSeen(r);
  // Finished and never in a status that may not count: PROCESSED, whatever else it was seen in before.
  return (
    seen.some((st) => isIn(finishedRefundStatuses, st)) &&
    !seen.some((st) => isIn(maybeUncountedRefundStatuses, st))
  );
}

/** What the spec lets a payment take next: the bounds of what is left, and whether every earlier refund finished. */
export function refundRoom(payment: ModelPayment): {
  /** Left when every accepted refund counts. */
  readonly least: Decimal;
  /** Left when only refunds surely counted count (finished PROCESSED, and never seen in a status that may not). */
  readonly most: Decimal;
  readonly allFinished: boolean;
} {
  const zero = toDecimal('0');
  const all = payment.refunds.reduce((s, r) => addDecimals(s, r.amount), zero);
  const surely = payment.refunds
    .filter(surelyCounted)
    .reduce((s, r) => addDecimals(s, r.amount), zero);
  return {
    least: subtractDecimals(payment.amount, all),
    most: subtractDecimals(payment.amount, surely),
    allFinished: payment.refunds.every(refundFinished),
  };
}

/**
 * An accepted refund over what the earlier refunds surely leave but within the payment's amount: deferred to the end
 * of the wait for webhooks (a CapOverrun), since an earlier refund may have stopped counting before it was accepted.
 * Returns whether it was deferred; beyond the payment's amount nothing can make room, so that is judged at once.
 */
function deferCap(
  state: SpecState,
  payment: ModelPayment,
  amount: Decimal,
  answer: Answer,
  limit: Judgement,
  now: number,
): boolean {
  if (!answer.accepted || limit.requirement !== 'REFUND-TOTAL-CAP') return false;
  if (compareDecimals(amount, payment.amount) > 0 || payment.refunds.length === 0) return false;
  state.capOverruns.push({
    payment,
    earlier: [...payment.refunds],
    amount,
    answer: answer.outcome,
    by: now + state.webhookWaitMs,
    settled: false,
  });
  return true;
}

/** A deferred cap overrun, once its wait is over: judged on the earlier refunds' statuses as the webhooks now show. */
export function judgeCapOverrun(o: CapOverrun, now: number): Judgement | undefined {
  if (o.settled || now < o.by) return undefined;
  o.settled = true;
  const j = judgeRefundAnswer({ ...o.payment, refunds: [...o.earlier] }, o.amount, true, o.answer);
  return j === undefined
    ? undefined
    : {
        ...j,
        message: `${j.message}, and no webhook within the wait for webhooks showed an earlier refund stop counting`,
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
 * The earlier refund of the payment that no webhook has shown out of IN_PROGRESS ("A refund is created with status
 * IN_PROGRESS"): active as far as the webhooks show. One seen in any other status, HELD included, may have finished.
 */
export function stillActiveRefund(payment: ModelPayment): ModelRefund | undefined {
  return payment.refunds.find((r) => !refundLeftCreated(r));
}

/** The refunds an overlap needs shown still active: the earlier one, or (sent at once) both. */
function overlapRefunds(o: ActiveOverlap): readonly ModelRefund[] {
  return o.atOnce === true ? [o.earlier, o.later] : [o.earlier];
}

/**
 * Limits, "Only one active refund per payment; the next cannot start until the previous one has finished", judged
 * over time on what the spec states. The earlier refund was created IN_PROGRESS ("A refund is created with status
 * IN_PROGRESS") and each status change produces a refund webhook; so when, by the end of the wait for webhooks after
 * the later refund was accepted, no webhook showed it leave IN_PROGRESS, it had not finished when the later one was
 * accepted, or it had and that change produced no webhook within the wait: either breaks a stated sentence. The
 * target's own word (a status read after the later refund was accepted) that it was still IN_PROGRESS decides at
 * once. A webhook showing it left settles the overlap whenever it arrives (no delivery time is stated, and
 * eventTimeUtc is not stated to be the moment of the change). Sent at once, both refunds must be shown still active.
 */
export function judgeActiveOverlap(o: ActiveOverlap, now: number): Judgement | undefined {
  if (o.settled) return undefined;
  const refunds = overlapRefunds(o);
  const read = refunds.map((r) => o.stillActive?.get(r.refundId));
  const proven = read.every((x) => x !== undefined);
  if (!proven && now < o.by) return undefined;
  const ago = o.later.createdAt - o.earlier.createdAt;
  const which =
    o.atOnce === true
      ? `refunds ${o.earlier.refundId} and ${o.later.refundId}`
      : `refund ${o.earlier.refundId}`;
  const why = proven
    ? `the target said ${read.join('; ')}`
    : `no webhook showed ${which} leave ${REFUND_CREATED_STATUS} within the wait for webhooks (created ${REFUND_CREATED_STATUS}; had ${o.atOnce === true ? 'one' : 'it'} finished, the webhook of that change never came)`;
  return {
    requirement: 'REFUND-ONE-ACTIVE',
    message:
      o.atOnce === true
        ? `refunds ${o.earlier.refundId} and ${o.later.refundId} of payment ${o.payment.paymentId}, sent at once, were both accepted: ${why}`
        : `refund ${o.later.refundId} of payment ${o.payment.paymentId} was accepted while refund ${o.earlier.refundId} (accepted ${ago} ms before) was still ${REFUND_CREATED_STATUS}: ${why}`,
    expected:
      o.atOnce === true
        ? 'at most one accepted (one active refund per payment)'
        : `refused until refund ${o.earlier.refundId} has finished (one active refund per payment)`,
    received: `${o.answer}; ${which}: ${proven ? `${REFUND_CREATED_STATUS} after the later was accepted` : `${REFUND_CREATED_STATUS}, no webhook since`}`,
  };
}

/**
 * A webhook showed an overlap's refund `refund` leave IN_PROGRESS (status `status`): the overlap is settled, since it
 * may have finished before the later one was accepted. Returns what its eventTimeUtc would say if it were the moment
 * of the change, recorded and never judged (the spec: "eventTimeUtc | string, ISO 8601 UTC timestamp", no more).
 */
export function settleOverlap(
  o: ActiveOverlap,
  refund: ModelRefund,
  status: string,
  eventTimeUtc: unknown,
): string | undefined {
  if (o.settled || !overlapRefunds(o).includes(refund)) return undefined;
  o.settled = true;
  const event = utcMillis(eventTimeUtc);
  const created = utcMillis(o.laterCreatedAtUtc);
  if (o.atOnce === true || event === undefined || created === undefined || event <= created)
    return undefined;
  return `refund ${refund.refundId} was announced ${status} with eventTimeUtc ${show(eventTimeUtc)}, after refund ${o.later.refundId}'s createdAtUtc ${show(o.laterCreatedAtUtc)}: recorded, not judged (the spec does not say eventTimeUtc is the moment of the change, nor when a webhook is delivered)`;
}

/**
 * The target's own word on a refund's status, read after the answers that accepted the overlaps' later refunds (a
 * state provider's read: payconform's /sandbox/ or a state hook; the spec shows no way to read a refund). IN_PROGRESS
 * then: it had not finished when the later one was accepted; any other status: it may have, and the overlap settles.
 */
export function observeRefundStatusRead(
  state: SpecState,
  refundId: string,
  status: unknown,
  readAt: number,
): Verdict {
  const v = emptyVerdict();
  for (const o of state.overlaps) {
    const r = overlapRefunds(o).find((x) => x.refundId === refundId);
    if (r === undefined || o.settled || o.later.createdAt > readAt) continue;
    if (status === REFUND_CREATED_STATUS) {
      o.stillActive ??= new Map();
      o.stillActive.set(
        refundId,
        `refund ${refundId} was ${REFUND_CREATED_STATUS} when read ${readAt - o.later.createdAt} ms after refund ${o.later.refundId} was accepted`,
      );
    } else if (typeof status === 'string') {
      o.settled = true;
      v.observations.push(
        `refund ${refundId} read ${status} after refund ${o.later.refundId} was accepted: it may have finished before, so the pair decides nothing`,
      );
    }
  }
  return v;
}

/**
 * A refund as the model keeps it, from its Refund resource: its id (refundPaymentId), the amount accepted, and what
 * its webhooks must repeat (refundRequestDetails' reference, currency and destination; an applicationId where the
 * resource carries one). Undefined when the resource names no refund.
 */
export function modelRefundOf(
  resource: unknown,
  amount: Decimal,
  createdAt: number,
): ModelRefund | undefined {
  const r = record(resource);
  const details = record(r['refundRequestDetails']);
  const refundId = r['refundPaymentId'];
  if (typeof refundId !== 'string') return undefined;
  return {
    refundId,
    amount,
    reference: details['reference'],
    currency: details['currency'],
    destination: details['destination'],
    ...(typeof r['applicationId'] === 'string' ? { applicationId: r['applicationId'] } : {}),
    createdAt,
  };
}

/** Adds an accepted refund to the state: judged (resource), owed its webhook, and any overlap with an active one. */
function acceptRefund(
  state: SpecState,
  v: Verdict,
  payment: ModelPayment,
  amount: Decimal,
  answer: Answer,
  now: number,
  earlier: ModelRefund | undefined,
  index?: number,
): ModelRefund | undefined {
  const wrong = judgeRefundResource(payment, amount, answer.body);
  judge(
    v,
    'REFUND-RESPONSE-RESOURCE',
    wrong && index !== undefined ? { ...wrong, answer: index } : wrong,
  );
  v.judged.push('REFUND-CREATED-IN-PROGRESS');
  const refund = modelRefundOf(answer.body, amount, now);
  if (refund === undefined) return undefined;
  const refundId = refund.refundId;
  payment.refunds.push(refund);
  expectWebhook(state, 'refund', refundId, REFUND_CREATED_STATUS, 'created IN_PROGRESS', now);
  if (earlier !== undefined) {
    v.judged.push('REFUND-ONE-ACTIVE');
    state.overlaps.push({
      payment,
      earlier,
      later: refund,
      answer: answer.outcome,
      laterCreatedAtUtc: answer.body?.['createdAtUtc'],
      by: now + state.webhookWaitMs,
      settled: false,
    });
  }
  return refund;
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
  if (limit !== undefined && !deferCap(state, payment, amount, answer, limit, now))
    v.judgements.push(limit);
  if (answer.accepted)
    acceptRefund(state, v, payment, amount, answer, now, stillActiveRefund(payment));
  else if (payment.earlierUnknown === true && refundFits(payment, amount))
    v.observations.push(
      `a refund of ${money(amount)} of configured payment ${payment.paymentId} was refused (${answer.outcome}) although it fits what this run knows is left: undecided, since an earlier run may have refunded the payment or left a refund active`,
    );
  return v;
}

/**
 * Refunds of one payment sent at once: each accepted one as `observeRefund` takes it; two accepted are an overlap
 * whose order is unknown (REFUND-ONE-ACTIVE fails only when neither is shown leaving IN_PROGRESS within the wait, or
 * both are read still IN_PROGRESS: how soon a refund may finish is not stated, so "at once" alone proves nothing).
 */
export function observeRefundsAtOnce(
  state: SpecState,
  payment: ModelPayment,
  amounts: readonly Decimal[],
  answers: readonly Answer[],
  now: number,
): Verdict {
  const v = emptyVerdict();
  const accepted: Array<{ readonly refund: ModelRefund; readonly i: number }> = [];
  const earlier = stillActiveRefund(payment);
  answers.forEach((answer, i) => {
    if (!answer.accepted) return;
    const limit = judgeRefundAnswer(payment, amounts[i]!, true, answer.outcome);
    if (limit !== undefined && !deferCap(state, payment, amounts[i]!, answer, limit, now))
      v.judgements.push({ ...limit, answer: i });
    const refund = acceptRefund(state, v, payment, amounts[i]!, answer, now, earlier, i);
    if (refund !== undefined) accepted.push({ refund, i });
  });
  // Each accepted after the first was accepted beside it (the earlier ones of the payment have their own overlaps).
  for (const { refund, i } of accepted.slice(1)) {
    v.judged.push('REFUND-ONE-ACTIVE');
    state.overlaps.push({
      payment,
      earlier: accepted[0]!.refund,
      later: refund,
      atOnce: true,
      answer: answers.map((a) => a.outcome).join(' and '),
      laterCreatedAtUtc: answers[i]!.body?.['createdAtUtc'],
      by: now + state.webhookWaitMs,
      settled: false,
    });
  }
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
