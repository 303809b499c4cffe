// Webhooks in the spec model (spec: Events; Payout and Refund webhook payloads; Payout transitions): what each
// webhook of a payout or refund the run made must carry, which status changes must be announced (and by when), and
// what must not happen: a held payout moving before commit or cancel, a payout announced in a status no call and no
// open move led to. Moves the spec leaves open (NOT_SHOWN) and repeated webhooks always pass.
import { toDecimal } from '../../src/rules/money.js';
import type { FieldCheck, Judgement, Verdict } from './judgement.js';
import {
  emptyVerdict,
  firstWrong,
  judge,
  record,
  sameAmountMember,
  sameId,
  sameMember,
  show,
} from './judgement.js';
import { NOT_SHOWN } from './not-shown.js';
import { HELD_STATUS, PAYOUT_ACTIONS } from './payouts.js';
import {
  judgeActiveOverlap,
  judgeCapOverrun,
  REFUND_CREATED_STATUS,
  settleOverlap,
  noteRefundStatus,
} from './refunds.js';
import type { ModelPayment, ModelPayout, ModelRefund, PayoutKnown, SpecState } from './state.js';
import { isIn } from './statuses.js';

/** A webhook as the model takes it: its kind (from the listener's path or payload) and its JSON object body. */
export interface WebhookSeen {
  readonly kind: 'payment' | 'payout' | 'refund' | undefined;
  readonly body: Record<string, unknown>;
}

/** A value the resource showed as a string, else undefined (not compared: the model compares only what it saw). */
const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Refund webhook payload, destination: "type, accountNumber, sortCode, name" (the Refund resource's has them too). */
const REFUND_DESTINATION_MEMBERS = ['type', 'accountNumber', 'sortCode', 'name'] as const;

/**
 * Payout webhook payload (Events), row by row, against the payout it announces: applicationId, payoutId,
 * payoutAmount, payoutCurrency, payoutReference and destination (type, name, accountNumber, sortCode) are the payout's
 * (as asked, and where the request does not say, as its create answer's Payout resource gave them). Not compared:
 * eventTimeUtc and the attempt counter (NOT_SHOWN), payoutStatus (the model's status judges below),
 * payoutStatusDescription ("may be empty"), and members the spec does not show ("Receivers must ignore unknown
 * properties"). Order and notation are free: members are read from the parsed object, amounts as decimals.
 */
export function payoutWebhookMembers(p: ModelPayout, payload: unknown): FieldCheck[] {
  const w = record(payload);
  const dest = record(w['destination']);
  const shown = record(p.resource);
  const d = p.asked.destination;
  return [
    ...sameMember('applicationId', text(shown['applicationId']), w['applicationId'], sameId),
    ...sameMember('payoutId', p.payoutId, w['payoutId'], sameId),
    sameAmountMember('payoutAmount', toDecimal(p.asked.amount), w['payoutAmount']),
    ...sameMember('payoutCurrency', text(shown['currency']), w['payoutCurrency']),
    ...sameMember('payoutReference', p.asked.reference, w['payoutReference']),
    ...sameMember('destination.type', text(record(shown['destination'])['type']), dest['type']),
    ...sameMember('destination.name', d.holderName, dest['name']),
    ...sameMember('destination.accountNumber', d.accountNumber, dest['accountNumber']),
    ...sameMember('destination.sortCode', d.sortCode, dest['sortCode']),
  ];
}

/** One payout webhook for a payout of the model: each member the spec shows is the payout's (the first that is not). */
export function judgePayoutWebhook(p: ModelPayout, payload: unknown): Judgement | undefined {
  return firstWrong(
    payoutWebhookMembers(p, payload),
    'WEBHOOK-PAYOUT-PAYLOAD',
    (field) =>
      `a payout webhook of payout ${p.payoutId} (payoutStatus ${show(record(payload)['payoutStatus'])}) carries another ${field} than the payout`,
  );
}

/**
 * Refund webhook payload (Events), row by row, against the refund it announces and the payment it refunds:
 * applicationId (where the model knows the refund's application), refundedPaymentId, refundedPaymentAmount ("amount of
 * the original payment"), refundId, refundAmount, and refundCurrency, refundReference and destination (type,
 * accountNumber, sortCode, name) as the Refund resource's refundRequestDetails gave them. Not compared:
 * refundedMerchantPaymentId (the model does not know the payment's), eventTimeUtc, refundStatus (transitions not
 * shown), refundStatusDescription ("may be empty"), the attempt counter, and members the spec does not show.
 */
export function refundWebhookMembers(
  payment: ModelPayment,
  refund: ModelRefund,
  payload: unknown,
): FieldCheck[] {
  const w = record(payload);
  const dest = record(w['destination']);
  const shown = record(refund.destination);
  return [
    ...sameMember('applicationId', text(refund.applicationId), w['applicationId'], sameId),
    ...sameMember('refundedPaymentId', payment.paymentId, w['refundedPaymentId'], sameId),
    sameAmountMember('refundedPaymentAmount', payment.amount, w['refundedPaymentAmount']),
    ...sameMember('refundId', refund.refundId, w['refundId'], sameId),
    sameAmountMember('refundAmount', refund.amount, w['refundAmount']),
    ...sameMember('refundCurrency', text(refund.currency), w['refundCurrency']),
    ...sameMember('refundReference', text(refund.reference), w['refundReference']),
    ...REFUND_DESTINATION_MEMBERS.flatMap((m) =>
      sameMember(`destination.${m}`, text(shown[m]), dest[m]),
    ),
  ];
}

/** One refund webhook for a refund of the model: each member the spec shows is the refund's or its payment's. */
export function judgeRefundWebhook(
  payment: ModelPayment,
  refund: ModelRefund,
  payload: unknown,
): Judgement | undefined {
  return firstWrong(
    refundWebhookMembers(payment, refund, payload),
    'WEBHOOK-REFUND-PAYLOAD',
    (field) =>
      `a refund webhook of refund ${refund.refundId} carries another ${field} than the refund and its payment`,
  );
}

/**
 * Payout statuses, AWAITING_COMMIT: "payout is held after creation until the merchant commits or cancels it"; the
 * transitions: "the amount is held until commit or cancel". A payout webhook announcing another status for a payout
 * the model holds (no commit or cancel was sent since) breaks it. A webhook for AWAITING_COMMIT itself is not shown.
 */
export function judgeHeldPayoutWebhook(p: ModelPayout, status: unknown): Judgement | undefined {
  if (p.state !== 'AWAITING_COMMIT' || status === HELD_STATUS) return undefined;
  return {
    requirement: 'COP-HOLD-ON-MISMATCH',
    message: `a payout webhook announced payoutStatus ${show(status)} for payout ${p.payoutId}, held in AWAITING_COMMIT and neither committed nor cancelled`,
    expected: `no move before commit or cancel (held in ${HELD_STATUS} until the merchant commits or cancels it)`,
    received: `payoutStatus ${show(status)}`,
  };
}

/**
 * Events, payout webhook "emitted when: any payout status change", and Payout transitions: into IN_PROGRESS only by
 * create or commit. A webhook announcing IN_PROGRESS for a payout the model knows CANCELLED, when no call moved it
 * since, announces a change nothing caused (a move the spec neither shows nor leaves open) or no change at all.
 */
export function judgeUncausedPayoutWebhook(p: ModelPayout, status: unknown): Judgement | undefined {
  if (p.state !== 'CANCELLED' || status !== PAYOUT_ACTIONS.commit.to) return undefined;
  return {
    requirement: 'PAYOUT-STATUS-CHANGE-WEBHOOK',
    message: `a payout webhook announced payoutStatus ${show(status)} for payout ${p.payoutId}, cancelled, though no call moved it since: a payout webhook comes with a status change, and only create or commit lead into ${show(status)}`,
    expected: `no payout webhook other than ${PAYOUT_ACTIONS.cancel.to} again (a re-delivery), or a move the spec leaves open (${NOT_SHOWN.payoutOpenMoves.join(', ')})`,
    received: `payoutStatus ${show(status)}`,
  };
}

/**
 * What the model knows after a payout webhook it did not fail: a move into an open status leaves the payout UNKNOWN
 * (moves out of it are open too); the status it already has (a re-delivery) changes nothing.
 */
export function payoutAfterWebhook(p: ModelPayout, status: unknown): PayoutKnown {
  return isIn(NOT_SHOWN.payoutOpenMoves, status) ? 'UNKNOWN' : p.state;
}

/** A payout webhook the model neither expects nor can fail (e.g. CANCELLED for an executed payout): recorded. */
export function unplacedPayoutWebhook(p: ModelPayout, status: unknown): string | undefined {
  if (p.state === 'UNKNOWN' || isIn(NOT_SHOWN.payoutOpenMoves, status)) return undefined;
  if (status === HELD_STATUS) return undefined; // Events: whether one is sent: not shown
  const known = p.state === 'EXECUTED' ? PAYOUT_ACTIONS.commit.to : p.state;
  if (status === known) return undefined; // the change the model saw, or its re-delivery
  return `payout ${p.payoutId} (${known} as far as the calls show) was announced ${show(status)} by a payout webhook`;
}

function observePayoutWebhook(state: SpecState, v: Verdict, body: Record<string, unknown>): void {
  const p = state.payouts.find((x) => sameId(body['payoutId'], x.payoutId));
  if (p === undefined) return; // not a payout of this run
  const status = body['payoutStatus'];
  const before = v.judgements.length;
  judge(v, 'WEBHOOK-PAYOUT-PAYLOAD', judgePayoutWebhook(p, body));
  if (p.state === 'AWAITING_COMMIT')
    judge(v, 'COP-HOLD-ON-MISMATCH', judgeHeldPayoutWebhook(p, status));
  if (p.state === 'CANCELLED')
    judge(v, 'PAYOUT-STATUS-CHANGE-WEBHOOK', judgeUncausedPayoutWebhook(p, status));
  const note = unplacedPayoutWebhook(p, status);
  if (note !== undefined && v.judgements.length === before) v.observations.push(note);
  p.state = payoutAfterWebhook(p, status);
  for (const e of state.expectations)
    if (e.kind === 'payout' && e.id === p.payoutId && e.status === status) {
      e.met = true;
      v.judged.push(e.requirement);
    }
}

function observeRefundWebhook(state: SpecState, v: Verdict, body: Record<string, unknown>): void {
  for (const payment of state.payments) {
    const r = payment.refunds.find((x) => sameId(body['refundId'], x.refundId));
    if (r === undefined) continue;
    judge(v, 'WEBHOOK-REFUND-PAYLOAD', judgeRefundWebhook(payment, r, body));
    // Refund statuses: transitions not shown, nor the order webhooks arrive in: every status seen counts.
    const status = body['refundStatus'];
    if (typeof status === 'string') noteRefundStatus(r, status);
    for (const e of state.expectations)
      if (e.kind === 'refund' && e.id === r.refundId && e.status === status) {
        e.met = true;
        v.judged.push(e.requirement);
      }
    if (typeof status === 'string' && status !== REFUND_CREATED_STATUS)
      for (const o of state.overlaps) {
        const note = settleOverlap(o, r, status, body['eventTimeUtc']);
        if (note !== undefined) v.observations.push(note);
      }
  }
}

/**
 * Webhooks that arrived since the last look, in order: payout and refund webhooks of the run's own payouts and
 * refunds are judged (payload, and what must not happen) and update the state; the rest are not this run's.
 */
export function observeWebhooks(state: SpecState, webhooks: readonly WebhookSeen[]): Verdict {
  const v = emptyVerdict();
  for (const w of webhooks) {
    if (w.kind === 'payout') observePayoutWebhook(state, v, w.body);
    else if (w.kind === 'refund') observeRefundWebhook(state, v, w.body);
  }
  return v;
}

/**
 * What time alone decides, at `now`: a webhook the spec says must come and has not by its deadline
 * (PAYOUT-/REFUND-STATUS-CHANGE-WEBHOOK), and a refund accepted while an earlier one was active (REFUND-ONE-ACTIVE).
 */
export function overdue(state: SpecState, now: number): Judgement | undefined {
  const late = state.expectations.find((e) => !e.met && e.by <= now);
  if (late !== undefined)
    return {
      requirement: late.requirement,
      message: `no ${late.kind} webhook with status ${late.status} for ${late.kind} ${late.id} (${late.because})`,
      expected: `a ${late.kind} webhook with ${late.kind}Status ${late.status}`,
      received: 'none within the wait for webhooks',
    };
  for (const o of state.overlaps) {
    const j = judgeActiveOverlap(o, now);
    if (j !== undefined) return j;
  }
  for (const o of state.capOverruns) {
    const j = judgeCapOverrun(o, now);
    if (j !== undefined) return j;
  }
  return undefined;
}
