// What an SDK hands its caller, judged by the spec model's own judges (conformance/sdk-explore/model-judge.ts): the
// resource must be the one the rules give for what the caller asked, not only what the service sent.
import { describe, expect, it } from 'vitest';
import type { SdkStep } from '../conformance/sdk-explore/draws.js';
import { createModelSide, judgeByModel } from '../conformance/sdk-explore/model-judge.js';
import type { SdkAnswer } from '../conformance/sdk-explore/protocol.js';

const destination = {
  destinationType: 'toAccount',
  accountType: 'SCAN',
  holderName: 'CoP No Match',
  accountNumber: '12345680',
  sortCode: '040004',
  iban: null,
};
const create: SdkStep = {
  op: 'createPayout',
  pence: 1250,
  reference: 'INV 1',
  cop: 'NO_MATCH',
  hold: true,
};
const input = { amount: 12.5, reference: 'INV 1', destination, doNotCommitOnCoPMismatch: true };
const held = {
  payoutId: '6f1c2a52-3b0e-4b8e-9a59-0c1d2e3f4a5b',
  status: 'AWAITING_COMMIT',
  copStatus: 'NO_MATCH',
  amount: '12.50',
  reference: 'INV 1',
  destination: { name: 'CoP No Match', accountNumber: '12345680', sortCode: '040004' },
};
const resource = (r: Record<string, unknown>): SdkAnswer => ({ kind: 'resource', resource: r });
const rules = (v: ReturnType<typeof judgeByModel>) => v.judgements.map((j) => j.requirement);

describe('the SDK role judged by the spec model, seen from the other side', () => {
  it('a held payout handed on as the rules give it passes, whatever the permitted form', () => {
    for (const r of [
      held,
      { ...held, amount: 12.5 },
      { unknownMember: true, ...held, destination: { ...held.destination, extra: 1 } },
    ]) {
      const v = judgeByModel(create, input, resource(r), createModelSide());
      expect(v.judgements, JSON.stringify(r)).toEqual([]);
      expect(v.judged).toEqual(['PAYOUT-RESPONSE-RESOURCE', 'COP-HOLD-ON-MISMATCH']);
    }
  });

  it('another amount, another account or a status the table does not give fails, citing the rule', () => {
    const judge = (r: Record<string, unknown>) =>
      rules(judgeByModel(create, input, resource(r), createModelSide()));
    expect(judge({ ...held, amount: '125.00' })).toEqual(['PAYOUT-RESPONSE-RESOURCE']);
    expect(
      judge({ ...held, destination: { ...held.destination, accountNumber: '99999999' } }),
    ).toEqual(['PAYOUT-RESPONSE-RESOURCE']);
    expect(judge({ ...held, status: 'IN_PROGRESS' })).toEqual(['COP-HOLD-ON-MISMATCH']);
  });

  it('a commit of a payout the SDK reported held: the status the table gives, copStatus kept', () => {
    const commit: SdkStep = { op: 'commitPayout', which: 0 };
    const judgeCommit = (r: Record<string, unknown>) => {
      const side = createModelSide();
      judgeByModel(create, input, resource(held), side);
      return judgeByModel(commit, { payoutId: held.payoutId }, resource(r), side);
    };
    expect(judgeCommit({ ...held, status: 'IN_PROGRESS' })).toEqual({
      judged: ['COP-COMMIT'],
      judgements: [],
    });
    expect(rules(judgeCommit({ ...held, status: 'IN_PROGRESS', copStatus: 'FULL_MATCH' }))).toEqual(
      ['COP-COMMIT'],
    );
    expect(rules(judgeCommit({ ...held, status: 'CANCELLED' }))).toEqual(['COP-COMMIT']);
    // A payout never reported held is not the commit rule's.
    expect(
      judgeByModel(commit, { payoutId: 'x' }, resource(held), createModelSide()).judged,
    ).toEqual([]);
  });

  it('a refund: created IN_PROGRESS, of the payment and amount asked', () => {
    const refund: SdkStep = { op: 'createRefund', share: 'part', pence: 500 };
    const asked = { paymentId: 'p-1', amount: '5.00' };
    const ok = {
      refundId: 'r-1',
      status: 'IN_PROGRESS',
      refundedPaymentId: 'p-1',
      refundRequestDetails: { amount: '5.00' },
    };
    const judge = (r: Record<string, unknown>) =>
      rules(judgeByModel(refund, asked, resource(r), createModelSide()));
    expect(judge(ok)).toEqual([]);
    expect(judge({ ...ok, status: 'PENDING' })).toEqual(['REFUND-CREATED-IN-PROGRESS']);
    expect(judge({ ...ok, refundRequestDetails: { amount: '2.50' } })).toEqual([
      'REFUND-RESPONSE-RESOURCE',
    ]);
  });

  it('an error or a webhook verdict is not the model judges’', () => {
    const error: SdkAnswer = { kind: 'error', error: { status: 422 } } as unknown as SdkAnswer;
    expect(judgeByModel(create, input, error, createModelSide())).toEqual({
      judged: [],
      judgements: [],
    });
  });
});
