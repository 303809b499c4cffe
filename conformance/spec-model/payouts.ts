// Payouts in the spec model (spec: Payout resource; States and transitions, Payout transitions): the status a created
// payout must have, commit and cancel of a held payout, and the judges of each answer. Each observe* function takes
// what the target answered, updates the state and returns the verdict.
import { toDecimal } from '../../src/rules/money.js';
import {
  emptyVerdict,
  firstWrong,
  judge,
  record,
  sameAmount,
  show,
  type FieldCheck,
  type Judgement,
  type Verdict,
} from './judgement.js';
import { NOT_SHOWN } from './not-shown.js';
import type { RuleId } from './rules.js';
import {
  expectWebhook,
  type AskedPayout,
  type ModelPayout,
  type PayoutKnown,
  type SpecState,
} from './state.js';
import { autoCommitCopStatuses, holdingCopStatuses, isIn, payoutStatuses } from './statuses.js';

/** What the target answered to one request: accepted (2xx), its JSON object body, and the answer in words. */
export interface Answer {
  readonly accepted: boolean;
  readonly body?: Record<string, unknown>;
  readonly outcome: string;
}

/** The held payout's status (Payout statuses: "held after creation until the merchant commits or cancels it"). */
export const HELD_STATUS = 'AWAITING_COMMIT' satisfies (typeof payoutStatuses)[number];

/** Payout transitions, the rows from AWAITING_COMMIT: the status each call gives, and the rule that states it. */
export const PAYOUT_ACTIONS = {
  commit: { to: 'IN_PROGRESS', rule: 'COP-COMMIT', known: 'EXECUTED' },
  cancel: { to: 'CANCELLED', rule: 'COP-CANCEL', known: 'CANCELLED' },
} as const satisfies Record<string, { to: string; rule: RuleId; known: PayoutKnown }>;

export type PayoutAction = keyof typeof PAYOUT_ACTIONS;

/** Payout transitions, the rows from "(none)": the status a created payout must have, from the flag and copStatus. */
export function expectedCreateStatus(
  asked: AskedPayout,
  copStatus: unknown,
): { status: string; requirement: RuleId } | undefined {
  if (asked.doNotCommitOnCoPMismatch !== true)
    return { status: 'IN_PROGRESS', requirement: 'COP-AUTO-COMMIT-DEFAULT' };
  if ((autoCommitCopStatuses as readonly unknown[]).includes(copStatus))
    return { status: 'IN_PROGRESS', requirement: 'COP-AUTO-COMMIT-MATCH' };
  if (isIn(holdingCopStatuses, copStatus))
    return { status: HELD_STATUS, requirement: 'COP-HOLD-ON-MISMATCH' };
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
  const d = asked.destination;
  const checks: FieldCheck[] = [
    ['amount', sameAmount(r['amount'], toDecimal(asked.amount)), asked.amount, r['amount']],
    ['reference', r['reference'] === asked.reference, asked.reference, r['reference']],
    ['destination.name', dest['name'] === d.holderName, d.holderName, dest['name']],
    [
      'destination.accountNumber',
      dest['accountNumber'] === d.accountNumber,
      d.accountNumber,
      dest['accountNumber'],
    ],
    ['destination.sortCode', dest['sortCode'] === d.sortCode, d.sortCode, dest['sortCode']],
  ];
  return firstWrong(
    checks,
    'PAYOUT-RESPONSE-RESOURCE',
    (field) => `${context}: the Payout resource's ${field} is not the one asked`,
  );
}

/** The status of a created payout, against the transitions table. */
export function judgeCreateStatus(asked: AskedPayout, body: unknown): Judgement | undefined {
  const r = record(body);
  const want = expectedCreateStatus(asked, r['copStatus']);
  if (want === undefined || r['status'] === want.status) return undefined;
  return {
    requirement: want.requirement,
    message: `a payout with doNotCommitOnCoPMismatch ${show(asked.doNotCommitOnCoPMismatch ?? 'omitted')} and copStatus ${show(r['copStatus'])} is ${show(r['status'])}`,
    expected: `status ${want.status}`,
    received: `status ${show(r['status'])}`,
  };
}

/**
 * A create payout answer: a refusal is recorded (not shown); an accepted payout is judged (resource, status), joins
 * the state, and, created IN_PROGRESS, is owed its payout webhook.
 */
export function observeCreatePayout(
  state: SpecState,
  asked: AskedPayout,
  answer: Answer,
  now: number,
): Verdict {
  const v = emptyVerdict();
  const body = answer.body;
  if (!answer.accepted || body === undefined || typeof body['payoutId'] !== 'string') {
    if (NOT_SHOWN.payoutCreateRefusal === 'recorded')
      v.observations.push(`payout of ${asked.amount} refused: ${answer.outcome}`);
    return v;
  }
  judge(v, 'PAYOUT-RESPONSE-RESOURCE', judgePayoutResource(asked, body, 'create payout'));
  const want = expectedCreateStatus(asked, body['copStatus']);
  if (want !== undefined) judge(v, want.requirement, judgeCreateStatus(asked, body));
  const held = body['status'] === HELD_STATUS;
  state.payouts.push({
    asked,
    payoutId: body['payoutId'],
    state: held ? 'AWAITING_COMMIT' : 'EXECUTED',
    copStatus: body['copStatus'],
    resource: body,
    createdAt: now,
  });
  if (!held)
    expectWebhook(state, 'payout', body['payoutId'], 'IN_PROGRESS', 'created IN_PROGRESS', now);
  return v;
}

/** What judging a commit or cancel answer needs of the held payout: its id and the copStatus it was held with. */
export type HeldPayout = Pick<ModelPayout, 'payoutId' | 'copStatus'>;

/** A commit or cancel answer for a payout held in AWAITING_COMMIT: the Payout resource in the status the row gives. */
export function judgeActionAnswer(
  p: HeldPayout,
  action: PayoutAction,
  answer: Answer,
): Judgement | undefined {
  const { to, rule } = PAYOUT_ACTIONS[action];
  const b = answer.body;
  const status = b?.['status'];
  if (!answer.accepted && isIn(payoutStatuses, status) && status !== HELD_STATUS)
    // The answer shows the payout had moved on its own: the hold did not last until commit or cancel.
    return {
      requirement: 'COP-HOLD-ON-MISMATCH',
      message: `${action} of payout ${p.payoutId}, held in AWAITING_COMMIT and not committed or cancelled since, was refused with status ${show(status)}`,
      expected: `still ${HELD_STATUS} (held until commit or cancel), so ${action} gives ${to}`,
      received: answer.outcome,
    };
  if (!answer.accepted || b === undefined)
    return {
      requirement: rule,
      message: `${action} of a payout held in AWAITING_COMMIT was not answered with the Payout resource`,
      expected: `a Payout resource with status ${to}`,
      received: answer.outcome,
    };
  if (status !== to)
    return {
      requirement: rule,
      message: `${action} of a held payout answered status ${show(status)}`,
      expected: `status ${to}`,
      received: `status ${show(status)}`,
    };
  return action === 'commit' ? judgeCommitted(p, b) : judgeCancelled(b);
}

function judgeCommitted(p: HeldPayout, b: Record<string, unknown>): Judgement | undefined {
  if (b['copStatus'] === p.copStatus) return undefined;
  return {
    requirement: 'COP-COMMIT',
    message: `commit of a held payout changed copStatus (it keeps its earlier value)`,
    expected: `copStatus ${show(p.copStatus)}`,
    received: `copStatus ${show(b['copStatus'])}`,
  };
}

function judgeCancelled(b: Record<string, unknown>): Judgement | undefined {
  if (typeof b['statusReason'] === 'string' && b['statusReason'] !== '') return undefined;
  return {
    requirement: 'COP-CANCEL',
    message: 'cancel of a held payout gave no statusReason saying the amount was released',
    expected: 'statusReason: a text',
    received: `statusReason ${show(b['statusReason'])}`,
  };
}

/**
 * A commit or cancel answer. From AWAITING_COMMIT it is judged and moves the payout (owing its webhook); from any
 * other state the answer is not shown: an accepted one is recorded and the payout's state becomes UNKNOWN.
 */
export function observePayoutAction(
  state: SpecState,
  p: ModelPayout,
  action: PayoutAction,
  answer: Answer,
  now: number,
): Verdict {
  const v = emptyVerdict();
  if (p.state !== 'AWAITING_COMMIT') {
    if (answer.accepted) {
      v.observations.push(
        `${action} of a ${p.state} payout answered ${answer.outcome} (status ${show(answer.body?.['status'])})`,
      );
      p.state = 'UNKNOWN';
    }
    return v;
  }
  const row = PAYOUT_ACTIONS[action];
  // The resource first where there is one (a wrong amount says more than the status that follows from it).
  if (answer.accepted && answer.body !== undefined)
    judge(v, 'PAYOUT-RESPONSE-RESOURCE', judgePayoutResource(p.asked, answer.body, action));
  const wrong = judgeActionAnswer(p, action, answer);
  judge(v, wrong?.requirement ?? row.rule, wrong);
  p.state = row.known;
  p.movedAt = now;
  expectWebhook(state, 'payout', p.payoutId, row.to, `${action} of a held payout`, now);
  return v;
}
