// What an SDK hands its caller, judged by the spec model (conformance/spec-model) with the judges the server explorer
// applies to a target's answers: the same rules, seen from the other side. The caller asked for a payout, a commit,
// a cancel or a refund; the resource the SDK gave back must be the one those rules give for that ask: the amount,
// reference and destination asked, the status the transitions table gives for the CoP result it carries, a commit or
// cancel of a held payout moving it as the table says (a commit keeping its copStatus), a refund created IN_PROGRESS
// of the payment and amount asked. Where the SDK passes on what the service sent (judge.ts), this judges it against
// what was asked, so an SDK cannot hand on a wrong answer as if it were right. Pure: the step and its answer in,
// judgements out; `side` remembers the payouts the SDK reported held.
import type { PayoutDestinationConfig } from '../config/config.js';
import { copStatuses } from '../../src/schemas/statuses.js';
import {
  decimalOf,
  expectedCreateStatus,
  HELD_STATUS,
  PAYOUT_ACTIONS,
  judgeActionAnswer,
  judgeCreateStatus,
  judgePayoutResource,
  judgeRefundResource,
  type AskedPayout,
  type HeldPayout,
  type Judgement as ModelJudgement,
} from '../spec-model/index.js';
import type { SdkStep } from './draws.js';
import { RESOURCE_REQUIREMENT, type Judgement } from './judge.js';
import type { SdkAnswer } from './protocol.js';

/** What the model keeps over a sequence: the payouts the SDK reported held and not yet committed or cancelled. */
export interface ModelSide {
  readonly held: Map<string, HeldPayout>;
}

export const createModelSide = (): ModelSide => ({ held: new Map() });

const asSdk = (j: ModelJudgement | undefined): Judgement[] =>
  j === undefined ? [] : [{ outcome: 'violation', ...j }];

const RESULT = "the SDK's result";

/** The resource rules of a payout and of a refund, as the model's judges cite them. */
const PAYOUT_RESOURCE = RESOURCE_REQUIREMENT.createPayout;
const REFUND_RULES = ['REFUND-CREATED-IN-PROGRESS', RESOURCE_REQUIREMENT.createRefund];

/** Every requirement the model's judges may cite here: the SDK check names each one. */
export const MODEL_REQUIREMENTS: readonly string[] = [
  ...new Set([
    PAYOUT_RESOURCE,
    // The transitions table's rows from "(none)", for every CoP result with the flag true, false and left out.
    ...[true, false, undefined].flatMap((flag) =>
      [...copStatuses, null].flatMap(
        (cop) =>
          expectedCreateStatus({ doNotCommitOnCoPMismatch: flag } as unknown as AskedPayout, cop)
            ?.requirement ?? [],
      ),
    ),
    ...Object.values(PAYOUT_ACTIONS).map((a) => a.rule),
    ...REFUND_RULES,
  ]),
];

/** What the model made of one step: the rules it judged, and those the SDK's resource broke. */
export interface ModelVerdict {
  readonly judged: readonly string[];
  readonly judgements: readonly Judgement[];
}

/** Every rule of the spec model the SDK's resource for `step` breaks (none for an error or a webhook verdict). */
export function judgeByModel(
  step: SdkStep,
  input: Record<string, unknown>,
  answer: SdkAnswer,
  side: ModelSide,
): ModelVerdict {
  const none: ModelVerdict = { judged: [], judgements: [] };
  if (answer.kind !== 'resource') return none;
  const r = answer.resource;
  switch (step.op) {
    case 'createPayout': {
      const asked: AskedPayout = {
        amount: String(input['amount']),
        reference: step.reference,
        copKey: step.cop,
        destination: input['destination'] as PayoutDestinationConfig,
        ...(step.hold !== undefined ? { doNotCommitOnCoPMismatch: step.hold } : {}),
      };
      if (r['status'] === HELD_STATUS && typeof r['payoutId'] === 'string')
        side.held.set(r['payoutId'], { payoutId: r['payoutId'], copStatus: r['copStatus'] });
      const row = expectedCreateStatus(asked, r['copStatus']);
      return {
        judged: [PAYOUT_RESOURCE, ...(row !== undefined ? [row.requirement] : [])],
        judgements: [
          ...asSdk(judgePayoutResource(asked, r, `${RESULT} for createPayout`)),
          ...asSdk(judgeCreateStatus(asked, r)),
        ],
      };
    }
    case 'commitPayout':
    case 'cancelPayout': {
      const held = side.held.get(String(input['payoutId']));
      if (held === undefined) return none;
      side.held.delete(held.payoutId);
      const action = step.op === 'commitPayout' ? 'commit' : 'cancel';
      return {
        judged: [PAYOUT_ACTIONS[action].rule],
        judgements: asSdk(
          judgeActionAnswer(held, action, { accepted: true, body: r, outcome: RESULT }),
        ),
      };
    }
    case 'createRefund': {
      const amount = decimalOf(input['amount']);
      if (amount === undefined) return none;
      const payment = { paymentId: String(input['paymentId']), amount, refunds: [] };
      return { judged: REFUND_RULES, judgements: asSdk(judgeRefundResource(payment, amount, r)) };
    }
    case 'verifyWebhook':
      return none;
  }
}
