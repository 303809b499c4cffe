// The explorer's model of the spec: what it remembers of the payouts, payments and refunds it made, and one judge per
// rule, written from the spec's sentences (Payout transitions, Payout and Refund resources, Limits, Events). A judge
// returns a Judgement (a sentence the spec states was broken, with its requirement id) or nothing; where the spec
// leaves a choice open, the allowed answers are the named data in NOT_SHOWN and every one of them passes.
import {
  addDecimals,
  compareDecimals,
  decimalsEqual,
  formatDecimal,
  parseDecimal,
  subtractDecimals,
  toDecimal,
  type Decimal,
} from '../../src/rules/money.js';
import type { PayoutDestinationConfig } from '../config.js';
import { showValue as show } from '../checks/server/requests.js';

/** The points the spec leaves open that the explorer meets, and what it accepts at each (every permitted answer). */
export const NOT_SHOWN = {
  /** Payouts, Create payout: "amount bounds and the success status code: not shown". Any 2xx creates; a refusal is recorded. */
  payoutCreateRefusal: 'recorded',
  /** Payout transitions: commit or cancel from any state other than AWAITING_COMMIT: any answer. */
  commitCancelOtherStates: 'any answer',
  /** Events: "Whether a webhook is sent for the AWAITING_COMMIT payout status: not shown". */
  awaitingCommitWebhook: 'sent or not',
  /** Refund statuses: transitions not shown; whether a FAILED, CANCELLED or RETURNED refund counts towards the total. */
  finishedRefundCounts: 'either',
  /** Errors: status codes for exceeding the refund total or a second concurrent refund: any 4xx. */
  refundRefusalCode: 'any 4xx',
  /** Events: retry interval, attempt numbering beyond "a counter, 0 in the shown payload". */
  attemptCounter: 'any integer of 0 or more',
} as const;

/** The spec's words for each requirement the explorer can fail a target on (conformance/requirements.json ids). */
export const RULES = {
  'PAYOUT-RESPONSE-RESOURCE':
    'Payout resource: amount, reference and destination are those of the payout (response of create, commit and cancel)',
  'COP-AUTO-COMMIT-DEFAULT':
    'doNotCommitOnCoPMismatch omitted or false: IN_PROGRESS, executed automatically whatever the CoP result',
  'COP-AUTO-COMMIT-MATCH':
    'doNotCommitOnCoPMismatch true and copStatus FULL_MATCH, NOT_CHECKED or null: IN_PROGRESS, executed automatically',
  'COP-HOLD-ON-MISMATCH':
    'doNotCommitOnCoPMismatch true and copStatus PARTIAL_MATCH, NO_MATCH, UNABLE_TO_MATCH or UNKNOWN: AWAITING_COMMIT',
  'COP-COMMIT': 'AWAITING_COMMIT, commit: IN_PROGRESS; copStatus keeps its earlier value',
  'COP-CANCEL': 'AWAITING_COMMIT, cancel: CANCELLED; statusReason states the amount was released',
  'PAYOUT-STATUS-CHANGE-WEBHOOK': 'Each status change produces a payout webhook',
  'WEBHOOK-PAYOUT-PAYLOAD':
    'Payout webhook payload: payoutId, payoutAmount, payoutReference, destination of the payout',
  'REFUND-CREATED-IN-PROGRESS': 'A refund is created with status IN_PROGRESS',
  'REFUND-RESPONSE-RESOURCE':
    'Refund resource: refundedPaymentId is the original payment; refundRequestDetails.amount is the refunded amount',
  'REFUND-SETTLED-ONLY': 'A refund can be started only when the payment is SETTLED',
  'REFUND-PARTIAL-ALLOWED':
    'A refund may be full or partial; several partial refunds per payment are allowed',
  'REFUND-ONE-ACTIVE':
    'Only one active refund per payment; the next cannot start until the previous one has finished',
  'REFUND-TOTAL-CAP': 'The sum of all refunds of a payment cannot exceed the payment amount',
  'REFUND-STATUS-CHANGE-WEBHOOK': 'Each refund status change produces a refund webhook',
  'WEBHOOK-REFUND-PAYLOAD':
    'Refund webhook payload: refundedPaymentId, refundedPaymentAmount (amount of the original payment), refundId, refundAmount, refundReference, destination',
} as const;

export type RuleId = keyof typeof RULES;

/** A sentence of the spec the target's answer broke. */
export interface Judgement {
  readonly requirement: RuleId;
  readonly message: string;
  readonly expected: string;
  readonly received: string;
}

const MISMATCH = ['PARTIAL_MATCH', 'NO_MATCH', 'UNABLE_TO_MATCH', 'UNKNOWN'];
const MATCH: readonly unknown[] = ['FULL_MATCH', 'NOT_CHECKED', null];
/** Refund statuses after which a refund has finished (REFUND-ONE-ACTIVE); IN_PROGRESS and HELD have not. */
const FINISHED = ['PROCESSED', 'CANCELLED', 'FAILED', 'RETURNED'];

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

export interface ModelPayout {
  readonly asked: AskedPayout;
  readonly payoutId: string;
  /** What the model knows: held, executed (IN_PROGRESS and on), cancelled, or moved by a call the spec leaves open. */
  state: 'AWAITING_COMMIT' | 'EXECUTED' | 'CANCELLED' | 'UNKNOWN';
  readonly copStatus: unknown;
  /** When the create answer arrived (ms). */
  readonly createdAt: number;
}

export interface ModelRefund {
  readonly refundId: string;
  readonly amount: Decimal;
  readonly reference?: unknown;
  readonly destination?: unknown;
  /** The latest status its webhooks reported. */
  status?: string;
}

export interface ModelPayment {
  readonly paymentId: string;
  readonly amount: Decimal;
  readonly refunds: ModelRefund[];
}

/** A webhook the spec says must come, and by when the explorer stops waiting for it. */
export interface Expectation {
  readonly kind: 'payout' | 'refund';
  readonly id: string;
  readonly status: string;
  readonly requirement: 'PAYOUT-STATUS-CHANGE-WEBHOOK' | 'REFUND-STATUS-CHANGE-WEBHOOK';
  readonly because: string;
  readonly by: number;
  met: boolean;
}

export interface ExplorerModel {
  readonly payouts: ModelPayout[];
  readonly payments: ModelPayment[];
  readonly expectations: Expectation[];
}

export const emptyModel = (): ExplorerModel => ({ payouts: [], payments: [], expectations: [] });

/** A JSON number or string as a decimal, or undefined. */
export function decimalOf(v: unknown): Decimal | undefined {
  if (typeof v !== 'number' && typeof v !== 'string') return undefined;
  const parsed = parseDecimal(typeof v === 'number' ? String(v) : v);
  return parsed.ok ? parsed.value : undefined;
}

/** A decimal as money: at least two decimals. */
export const money = (d: Decimal): string => formatDecimal(d, { minScale: 2 });

function sameAmount(received: unknown, asked: Decimal): boolean {
  const d = decimalOf(received);
  return d !== undefined && decimalsEqual(d, asked);
}

function record(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : {};
}

type FieldCheck = readonly [field: string, ok: boolean, expected: unknown, received: unknown];

/** The first field that differs, as a Judgement of `requirement` (message from the field's name). */
function firstWrong(
  checks: readonly FieldCheck[],
  requirement: RuleId,
  message: (field: string) => string,
): Judgement | undefined {
  const wrong = checks.find(([, ok]) => !ok);
  if (wrong === undefined) return undefined;
  const [field, , expected, received] = wrong;
  return {
    requirement,
    message: message(field),
    expected: `${field} ${show(expected)}`,
    received: `${field} ${show(received)}`,
  };
}

/** The status a created payout must have, from the flag and the copStatus the target reported. */
export function expectedCreateStatus(
  asked: AskedPayout,
  copStatus: unknown,
): { status: string; requirement: RuleId } | undefined {
  if (asked.doNotCommitOnCoPMismatch !== true)
    return { status: 'IN_PROGRESS', requirement: 'COP-AUTO-COMMIT-DEFAULT' };
  if (MATCH.includes(copStatus))
    return { status: 'IN_PROGRESS', requirement: 'COP-AUTO-COMMIT-MATCH' };
  if (MISMATCH.includes(copStatus as string))
    return { status: 'AWAITING_COMMIT', requirement: 'COP-HOLD-ON-MISMATCH' };
  return undefined; // a copStatus outside the list: the fixed checks judge that (PAYOUT-COPSTATUS-VALUES)
}

/** The Payout resource of a create, commit or cancel answer, against what was asked. */
export function judgePayoutResource(
  asked: AskedPayout,
  body: unknown,
  context: string,
): Judgement | undefined {
  const r = record(body);
  const dest = record(r['destination']);
  const checks: FieldCheck[] = [
    ['amount', sameAmount(r['amount'], toDecimal(asked.amount)), asked.amount, r['amount']],
    ['reference', r['reference'] === asked.reference, asked.reference, r['reference']],
    [
      'destination.name',
      dest['name'] === asked.destination.holderName,
      asked.destination.holderName,
      dest['name'],
    ],
    [
      'destination.accountNumber',
      dest['accountNumber'] === asked.destination.accountNumber,
      asked.destination.accountNumber,
      dest['accountNumber'],
    ],
    [
      'destination.sortCode',
      dest['sortCode'] === asked.destination.sortCode,
      asked.destination.sortCode,
      dest['sortCode'],
    ],
  ];
  return firstWrong(
    checks,
    'PAYOUT-RESPONSE-RESOURCE',
    (field) => `${context}: the Payout resource's ${field} is not the one asked`,
  );
}

/** One payout webhook for a payout of the model: its fields are the payout's. */
export function judgePayoutWebhook(p: ModelPayout, payload: unknown): Judgement | undefined {
  const w = record(payload);
  const dest = record(w['destination']);
  const checks: FieldCheck[] = [
    [
      'payoutAmount',
      sameAmount(w['payoutAmount'], toDecimal(p.asked.amount)),
      p.asked.amount,
      w['payoutAmount'],
    ],
    [
      'payoutReference',
      w['payoutReference'] === p.asked.reference,
      p.asked.reference,
      w['payoutReference'],
    ],
    [
      'destination.name',
      dest['name'] === p.asked.destination.holderName,
      p.asked.destination.holderName,
      dest['name'],
    ],
    [
      'destination.accountNumber',
      dest['accountNumber'] === p.asked.destination.accountNumber,
      p.asked.destination.accountNumber,
      dest['accountNumber'],
    ],
  ];
  return firstWrong(
    checks,
    'WEBHOOK-PAYOUT-PAYLOAD',
    (field) =>
      `a payout webhook of payout ${p.payoutId} (payoutStatus ${show(w['payoutStatus'])}) carries another ${field} than the payout`,
  );
}

/** One refund webhook for a refund of the model: its fields are the refund's and the original payment's. */
export function judgeRefundWebhook(
  payment: ModelPayment,
  refund: ModelRefund,
  payload: unknown,
): Judgement | undefined {
  const w = record(payload);
  const dest = record(w['destination']);
  const refundDest = record(refund.destination);
  const checks: FieldCheck[] = [
    [
      'refundedPaymentId',
      w['refundedPaymentId'] === payment.paymentId,
      payment.paymentId,
      w['refundedPaymentId'],
    ],
    [
      'refundedPaymentAmount',
      sameAmount(w['refundedPaymentAmount'], payment.amount),
      money(payment.amount),
      w['refundedPaymentAmount'],
    ],
    [
      'refundAmount',
      sameAmount(w['refundAmount'], refund.amount),
      money(refund.amount),
      w['refundAmount'],
    ],
  ];
  if (refund.reference !== undefined)
    checks.push([
      'refundReference',
      w['refundReference'] === refund.reference,
      refund.reference,
      w['refundReference'],
    ]);
  if (typeof refundDest['accountNumber'] === 'string')
    checks.push([
      'destination.accountNumber',
      dest['accountNumber'] === refundDest['accountNumber'],
      refundDest['accountNumber'],
      dest['accountNumber'],
    ]);
  return firstWrong(
    checks,
    'WEBHOOK-REFUND-PAYLOAD',
    (field) =>
      `a refund webhook of refund ${refund.refundId} carries another ${field} than the refund and its payment`,
  );
}

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
    .filter(
      (r) => r.status === undefined || !['CANCELLED', 'FAILED', 'RETURNED'].includes(r.status),
    )
    .reduce((s, r) => addDecimals(s, r.amount), zero);
  return {
    least: subtractDecimals(payment.amount, all),
    most: subtractDecimals(payment.amount, surely),
    allFinished: payment.refunds.every(
      (r) => r.status !== undefined && FINISHED.includes(r.status),
    ),
  };
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
  if (!accepted && room.allFinished && compareDecimals(amount, room.least) <= 0)
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
  if (r['status'] !== 'IN_PROGRESS')
    return {
      requirement: 'REFUND-CREATED-IN-PROGRESS',
      message: `a new refund of payment ${payment.paymentId} is answered with status ${show(r['status'])}`,
      expected: 'status IN_PROGRESS',
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

/** Webhooks that must have come by now and did not. */
export function overdue(model: ExplorerModel, now: number): Judgement | undefined {
  const late = model.expectations.find((e) => !e.met && e.by <= now);
  if (late === undefined) return undefined;
  return {
    requirement: late.requirement,
    message: `no ${late.kind} webhook with status ${late.status} for ${late.kind} ${late.id} (${late.because})`,
    expected: `a ${late.kind} webhook with ${late.kind}Status ${late.status}`,
    received: 'none within the wait for webhooks',
  };
}
