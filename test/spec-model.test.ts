// The spec model without a server (conformance/spec-model): each judge passes a conforming answer, fails a broken
// one, and passes every alternative the spec leaves open (NOT_SHOWN); the state follows what the answers and
// webhooks say (spec: States and transitions; Events; Limits).
import { describe, expect, it } from 'vitest';
import { toDecimal } from '../src/rules/money.js';
import { DEFAULT_PAYEE } from '../conformance/checks/server/requests.js';
import { loadCatalogue } from '../conformance/requirements.js';
import {
  createSpecState,
  finishedRefundStatuses,
  judgeActionAnswer,
  judgeCreateStatus,
  judgeHeldPayoutWebhook,
  judgePayoutResource,
  judgePayoutWebhook,
  judgeRefundAnswer,
  judgeRefundResource,
  judgeRefundWebhook,
  judgeUncausedPayoutWebhook,
  judgeUnsettledRefund,
  maybeUncountedRefundStatuses,
  NOT_SHOWN,
  observeCreatePayout,
  observePaymentMade,
  observePayoutAction,
  observeRefund,
  observeRefundsAtOnce,
  observeRefundStatusRead,
  observeWebhooks,
  openPayoutStatuses,
  overdue,
  payoutWebhookStatuses,
  pendingUntil,
  ruleText,
  SPEC_RULE_IDS,
  type Answer,
  type AskedPayout,
  type ModelPayment,
  type ModelPayout,
  type SpecState,
} from '../conformance/spec-model/index.js';

const destination = { ...DEFAULT_PAYEE, holderName: 'Jane Doe' };
const asked = (extra: Partial<AskedPayout> = {}): AskedPayout => ({
  amount: '12.5',
  reference: 'INV 1',
  copKey: 'NO_MATCH',
  destination,
  ...extra,
});
const resource = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  payoutId: 'p1',
  amount: 12.5,
  reference: 'INV 1',
  status: 'IN_PROGRESS',
  copStatus: 'NO_MATCH',
  statusReason: null,
  destination: { name: 'Jane Doe', accountNumber: '12345678', sortCode: '040004' },
  ...extra,
});
const ok = (body: Record<string, unknown>): Answer => ({ accepted: true, body, outcome: '200' });
const refused = (status = 422, body?: Record<string, unknown>): Answer => ({
  accepted: false,
  ...(body !== undefined ? { body } : {}),
  outcome: String(status),
});
const payout = (state: ModelPayout['state'], copStatus: unknown = 'NO_MATCH'): ModelPayout => ({
  asked: asked({ doNotCommitOnCoPMismatch: true }),
  payoutId: 'p1',
  state,
  copStatus,
  createdAt: 0,
});
const fresh = (): SpecState => createSpecState({ webhookWaitMs: 1000 });
const payoutHook = (payoutStatus: string) => ({
  kind: 'payout' as const,
  body: {
    payoutId: 'p1',
    payoutAmount: 12.5,
    payoutReference: 'INV 1',
    payoutStatus,
    destination: { name: 'Jane Doe', accountNumber: '12345678', sortCode: '040004' },
  },
});

describe('spec model: rules are the catalogue', () => {
  it('every rule id is a shown requirement, and its text is the catalogue text', () => {
    const catalogue = loadCatalogue();
    for (const id of SPEC_RULE_IDS) {
      expect(catalogue.byId.get(id)?.shown, id).toBe(true);
      expect(ruleText(id)).toBe(catalogue.byId.get(id)!.text);
    }
  });
  it('partitions come from the status lists: finished refunds, open payout moves', () => {
    expect([...finishedRefundStatuses].sort()).toEqual([
      'CANCELLED',
      'FAILED',
      'PROCESSED',
      'RETURNED',
    ]);
    expect([...maybeUncountedRefundStatuses].sort()).toEqual(['CANCELLED', 'FAILED', 'RETURNED']);
    for (const s of openPayoutStatuses) expect(payoutWebhookStatuses).toContain(s);
  });
});

describe('spec model: Payout transitions, create', () => {
  it('the flag and copStatus decide the status (each row)', () => {
    expect(judgeCreateStatus(asked(), resource())).toBeUndefined();
    expect(judgeCreateStatus(asked(), resource({ status: 'AWAITING_COMMIT' }))?.requirement).toBe(
      'COP-AUTO-COMMIT-DEFAULT',
    );
    const hold = asked({ doNotCommitOnCoPMismatch: true });
    expect(judgeCreateStatus(hold, resource({ status: 'AWAITING_COMMIT' }))).toBeUndefined();
    expect(judgeCreateStatus(hold, resource())?.requirement).toBe('COP-HOLD-ON-MISMATCH');
    expect(judgeCreateStatus(hold, resource({ copStatus: null }))).toBeUndefined();
    expect(
      judgeCreateStatus(hold, resource({ copStatus: 'FULL_MATCH', status: 'AWAITING_COMMIT' }))
        ?.requirement,
    ).toBe('COP-AUTO-COMMIT-MATCH');
  });
  it('the Payout resource carries what was asked', () => {
    expect(judgePayoutResource(asked(), resource(), 'create')).toBeUndefined();
    expect(judgePayoutResource(asked(), resource({ amount: 12.05 }), 'create')?.requirement).toBe(
      'PAYOUT-RESPONSE-RESOURCE',
    );
  });
  it('a refused create is recorded, never failed (amount bounds and success code: not shown)', () => {
    const state = fresh();
    const v = observeCreatePayout(state, asked(), refused(400), 0);
    expect(NOT_SHOWN.payoutCreateRefusal).toBe('recorded');
    expect(v.judgements).toEqual([]);
    expect(v.observations).toHaveLength(1);
    expect(state.payouts).toEqual([]);
  });
  it('an auto-committed payout is owed its IN_PROGRESS webhook, by the webhook wait', () => {
    const state = fresh();
    const v = observeCreatePayout(state, asked(), ok(resource()), 100);
    expect(v.judgements).toEqual([]);
    expect(pendingUntil(state)).toBe(1100);
    expect(overdue(state, 1099)).toBeUndefined();
    expect(overdue(state, 1100)?.requirement).toBe('PAYOUT-STATUS-CHANGE-WEBHOOK');
    observeWebhooks(state, [payoutHook('IN_PROGRESS')]);
    expect(overdue(state, 5000)).toBeUndefined();
  });
});

describe('spec model: Payout transitions, commit and cancel of a held payout', () => {
  it('commit gives IN_PROGRESS, copStatus kept; cancel gives CANCELLED with a statusReason', () => {
    const p = payout('AWAITING_COMMIT');
    expect(judgeActionAnswer(p, 'commit', ok(resource()))).toBeUndefined();
    expect(
      judgeActionAnswer(
        p,
        'cancel',
        ok(resource({ status: 'CANCELLED', statusReason: 'released' })),
      ),
    ).toBeUndefined();
  });
  it('fails a wrong status, a changed copStatus, a missing statusReason, a refusal', () => {
    const p = payout('AWAITING_COMMIT');
    expect(judgeActionAnswer(p, 'commit', ok(resource({ status: 'CANCELLED' })))?.requirement).toBe(
      'COP-COMMIT',
    );
    expect(
      judgeActionAnswer(p, 'commit', ok(resource({ copStatus: 'FULL_MATCH' })))?.requirement,
    ).toBe('COP-COMMIT');
    expect(judgeActionAnswer(p, 'cancel', ok(resource({ status: 'CANCELLED' })))?.requirement).toBe(
      'COP-CANCEL',
    );
    expect(judgeActionAnswer(p, 'cancel', refused(409))?.requirement).toBe('COP-CANCEL');
  });
  it('a refusal showing the held payout moved on its own breaks the hold', () => {
    const p = payout('AWAITING_COMMIT');
    const j = judgeActionAnswer(p, 'commit', refused(409, { status: 'IN_PROGRESS' }));
    expect(j?.requirement).toBe('COP-HOLD-ON-MISMATCH');
  });
  it('commit or cancel from any other state: every answer passes (not shown)', () => {
    expect(NOT_SHOWN.commitCancelOtherStates).toBe('any answer');
    for (const from of ['EXECUTED', 'CANCELLED', 'UNKNOWN'] as const)
      for (const answer of [ok(resource({ status: 'CANCELLED' })), refused(409), refused(200)]) {
        const state = fresh();
        const p = payout(from);
        state.payouts.push(p);
        const v = observePayoutAction(state, p, 'cancel', answer, 0);
        expect(v.judgements, `${from}: ${answer.outcome}`).toEqual([]);
        expect(state.expectations).toEqual([]);
      }
  });
  it('a committed payout is owed its IN_PROGRESS webhook, a cancelled one CANCELLED', () => {
    for (const [action, status] of [
      ['commit', 'IN_PROGRESS'],
      ['cancel', 'CANCELLED'],
    ] as const) {
      const state = fresh();
      const p = payout('AWAITING_COMMIT');
      state.payouts.push(p);
      const body = resource({ status, statusReason: 'released' });
      expect(observePayoutAction(state, p, action, ok(body), 0).judgements).toEqual([]);
      expect(state.expectations.map((e) => e.status)).toEqual([status]);
    }
  });
});

describe('spec model: Events, what a payout webhook carries and when one may come', () => {
  it('the payload is the payout', () => {
    expect(judgePayoutWebhook(payout('EXECUTED'), payoutHook('IN_PROGRESS').body)).toBeUndefined();
    const wrong = { ...payoutHook('IN_PROGRESS').body, payoutReference: 'INV1' };
    expect(judgePayoutWebhook(payout('EXECUTED'), wrong)?.requirement).toBe(
      'WEBHOOK-PAYOUT-PAYLOAD',
    );
  });
  it('a held payout announced in another status before commit or cancel breaks the hold', () => {
    const p = payout('AWAITING_COMMIT');
    for (const s of payoutWebhookStatuses)
      expect(judgeHeldPayoutWebhook(p, s)?.requirement, s).toBe('COP-HOLD-ON-MISMATCH');
    // Whether a webhook is sent for AWAITING_COMMIT: not shown.
    expect(NOT_SHOWN.awaitingCommitWebhook).toBe('sent or not');
    expect(judgeHeldPayoutWebhook(p, 'AWAITING_COMMIT')).toBeUndefined();
    expect(judgeHeldPayoutWebhook(payout('EXECUTED'), 'IN_PROGRESS')).toBeUndefined();
  });
  it('a cancelled payout announced IN_PROGRESS with no call since: a change nothing caused', () => {
    expect(judgeUncausedPayoutWebhook(payout('CANCELLED'), 'IN_PROGRESS')?.requirement).toBe(
      'PAYOUT-STATUS-CHANGE-WEBHOOK',
    );
    // Re-delivery, and the open moves, pass.
    expect(judgeUncausedPayoutWebhook(payout('CANCELLED'), 'CANCELLED')).toBeUndefined();
    for (const s of NOT_SHOWN.payoutOpenMoves)
      expect(judgeUncausedPayoutWebhook(payout('CANCELLED'), s), s).toBeUndefined();
    expect(judgeUncausedPayoutWebhook(payout('UNKNOWN'), 'IN_PROGRESS')).toBeUndefined();
  });
  it('re-deliveries and every open move pass; from an open status anything may follow', () => {
    expect(NOT_SHOWN.webhookRedelivery).toBe('allowed');
    for (const open of NOT_SHOWN.payoutOpenMoves) {
      const state = fresh();
      state.payouts.push(payout('EXECUTED'));
      const hooks = ['IN_PROGRESS', 'IN_PROGRESS', open, 'IN_PROGRESS', 'CANCELLED', open];
      const v = observeWebhooks(state, hooks.map(payoutHook));
      expect(v.judgements, open).toEqual([]);
      expect(v.observations, open).toEqual([]);
      expect(state.payouts[0]!.state).toBe('UNKNOWN');
    }
  });
  it('a held payout that moved by itself is failed from its webhook; a webhook the model cannot place is recorded', () => {
    const held = fresh();
    held.payouts.push(payout('AWAITING_COMMIT'));
    expect(observeWebhooks(held, [payoutHook('IN_PROGRESS')]).judgements[0]?.requirement).toBe(
      'COP-HOLD-ON-MISMATCH',
    );
    const executed = fresh();
    executed.payouts.push(payout('EXECUTED'));
    const v = observeWebhooks(executed, [payoutHook('CANCELLED')]);
    expect(v.judgements).toEqual([]);
    expect(v.observations).toHaveLength(1);
  });
});

const payment = (): ModelPayment => ({
  paymentId: 'pay1',
  amount: toDecimal('100.00'),
  refunds: [],
});
const refundBody = (id: string, amount: string): Record<string, unknown> => ({
  refundPaymentId: id,
  refundedPaymentId: 'pay1',
  status: 'IN_PROGRESS',
  refundRequestDetails: { amount, reference: 'R' },
});
const refundHook = (
  refundId: string,
  refundStatus: string,
  refundAmount: number,
  eventTimeUtc?: string,
) => ({
  kind: 'refund' as const,
  body: {
    ...(eventTimeUtc !== undefined ? { eventTimeUtc } : {}),
    refundId,
    refundStatus,
    refundAmount,
    refundedPaymentId: 'pay1',
    refundedPaymentAmount: 100,
    refundReference: 'R',
  },
});
const withPayment = (): SpecState => {
  const state = fresh();
  observePaymentMade(state, '100.00', ok({ paymentId: 'pay1', amount: '100.00' }));
  return state;
};

describe('spec model: Limits, refunds', () => {
  it('the total cap: accepted beyond what is left fails; a refusal within it after all finished fails', () => {
    const p = payment();
    p.refunds.push({ refundId: 'r1', amount: toDecimal('60'), createdAt: 0, status: 'PROCESSED' });
    expect(judgeRefundAnswer(p, toDecimal('40'), true, '200')).toBeUndefined();
    expect(judgeRefundAnswer(p, toDecimal('40.01'), true, '200')?.requirement).toBe(
      'REFUND-TOTAL-CAP',
    );
    expect(judgeRefundAnswer(p, toDecimal('40'), false, '422')?.requirement).toBe(
      'REFUND-PARTIAL-ALLOWED',
    );
    expect(judgeRefundAnswer(p, toDecimal('40.01'), false, '422')).toBeUndefined();
  });
  it('a finished refund that moved no money may count or not (not shown): both answers pass', () => {
    expect(NOT_SHOWN.finishedRefundCounts).toBe('either');
    for (const status of maybeUncountedRefundStatuses) {
      const p = payment();
      p.refunds.push({ refundId: 'r1', amount: toDecimal('60'), createdAt: 0, status });
      for (const accepted of [true, false])
        expect(judgeRefundAnswer(p, toDecimal('70'), accepted, 'x'), status).toBeUndefined();
    }
  });
  it('a refund last seen IN_PROGRESS or HELD may have failed since (its webhook not here yet): accepting more is no cap failure', () => {
    for (const status of [undefined, 'IN_PROGRESS', 'HELD']) {
      const p = payment();
      p.refunds.push({
        refundId: 'r1',
        amount: toDecimal('60'),
        createdAt: 0,
        ...(status !== undefined ? { status } : {}),
      });
      expect(judgeRefundAnswer(p, toDecimal('70'), true, '201'), String(status)).toBeUndefined();
      // Beyond the whole amount it fails whatever the earlier one became.
      expect(judgeRefundAnswer(p, toDecimal('100.01'), true, '201')?.requirement).toBe(
        'REFUND-TOTAL-CAP',
      );
    }
    // Seen PROCESSED in any order (an IN_PROGRESS re-delivered after it), it surely counts.
    const p = payment();
    p.refunds.push({
      refundId: 'r1',
      amount: toDecimal('60'),
      createdAt: 0,
      status: 'IN_PROGRESS',
      seen: ['PROCESSED', 'IN_PROGRESS'],
    });
    expect(judgeRefundAnswer(p, toDecimal('40.01'), true, '201')?.requirement).toBe(
      'REFUND-TOTAL-CAP',
    );
  });
  it('accepted over what the earlier refunds surely leave (within the amount): judged after the wait, settled by a webhook showing one stopped counting', () => {
    for (const [late, fails] of [
      [undefined, true],
      ['FAILED', false],
      ['RETURNED', false],
    ] as const) {
      const state = withPayment();
      const pay = state.payments[0]!;
      observeRefund(state, pay, toDecimal('60'), ok(refundBody('r1', '60.00')), 0);
      observeWebhooks(state, [
        refundHook('r1', 'IN_PROGRESS', 60),
        refundHook('r1', 'PROCESSED', 60),
      ]);
      // 60 surely counted: 50 more is over what is left, but r1 may have been returned before it was accepted.
      const now = observeRefund(state, pay, toDecimal('50'), ok(refundBody('r2', '50.00')), 10);
      expect(
        now.judgements.map((j) => j.requirement),
        String(late),
      ).not.toContain('REFUND-TOTAL-CAP');
      observeWebhooks(state, [refundHook('r2', 'IN_PROGRESS', 50)]);
      if (late !== undefined) observeWebhooks(state, [refundHook('r1', late, 60)]);
      expect(overdue(state, 500)?.requirement).not.toBe('REFUND-TOTAL-CAP'); // still within the wait
      expect(overdue(state, 10 + 1000)?.requirement, String(late)).toBe(
        fails ? 'REFUND-TOTAL-CAP' : undefined,
      );
    }
    // Beyond the payment's amount nothing can make room: judged at once.
    const state = withPayment();
    const pay = state.payments[0]!;
    observeRefund(state, pay, toDecimal('60'), ok(refundBody('r1', '60.00')), 0);
    expect(
      observeRefund(
        state,
        pay,
        toDecimal('100.01'),
        ok(refundBody('r2', '100.01')),
        10,
      ).judgements.map((j) => j.requirement),
    ).toContain('REFUND-TOTAL-CAP');
  });
  it('the Refund resource: IN_PROGRESS, the payment, the amount', () => {
    const p = payment();
    expect(judgeRefundResource(p, toDecimal('5'), refundBody('r1', '5.00'))).toBeUndefined();
    expect(
      judgeRefundResource(p, toDecimal('5'), { ...refundBody('r1', '5.00'), status: 'PROCESSED' })
        ?.requirement,
    ).toBe('REFUND-CREATED-IN-PROGRESS');
    expect(judgeRefundResource(p, toDecimal('5'), refundBody('r1', '5.01'))?.requirement).toBe(
      'REFUND-RESPONSE-RESOURCE',
    );
  });
  it('two refunds at once: one accepted passes (any 4xx for the other); both accepted fail only on what the spec states', () => {
    expect(NOT_SHOWN.refundRefusalCode).toBe('any 4xx');
    const both = (): SpecState => {
      const state = withPayment();
      const v = observeRefundsAtOnce(
        state,
        state.payments[0]!,
        [toDecimal('1'), toDecimal('2')],
        [ok(refundBody('r1', '1.00')), ok(refundBody('r2', '2.00'))],
        0,
      );
      // How soon a refund may finish is not stated: "at once" alone proves nothing.
      expect(v.judgements).toEqual([]);
      expect(v.judged).toContain('REFUND-ONE-ACTIVE');
      observeWebhooks(state, [
        refundHook('r1', 'IN_PROGRESS', 1),
        refundHook('r2', 'IN_PROGRESS', 2),
      ]);
      return state;
    };
    const one = withPayment();
    observeRefundsAtOnce(
      one,
      one.payments[0]!,
      [toDecimal('1'), toDecimal('2')],
      [ok(refundBody('r1', '1.00')), refused(409)],
      0,
    );
    observeWebhooks(one, [refundHook('r1', 'IN_PROGRESS', 1)]);
    expect(overdue(one, 99_999)).toBeUndefined();
    // Neither shown leaving IN_PROGRESS within the wait: whichever was first was still active (or its change sent
    // no webhook): a stated sentence broken either way.
    const silent = both();
    expect(overdue(silent, 999)).toBeUndefined();
    expect(overdue(silent, 1_000)?.requirement).toBe('REFUND-ONE-ACTIVE');
    // Either shown leaving, however late: it may have been the first and finished before the other was accepted.
    for (const id of ['r1', 'r2']) {
      const state = both();
      observeWebhooks(state, [refundHook(id, 'PROCESSED', id === 'r1' ? 1 : 2)]);
      expect(overdue(state, 99_999), id).toBeUndefined();
    }
    // Both read IN_PROGRESS after both were accepted: the target's own word, failed at once.
    const read = both();
    observeRefundStatusRead(read, 'r1', 'IN_PROGRESS', 5);
    expect(overdue(read, 6)).toBeUndefined();
    observeRefundStatusRead(read, 'r2', 'IN_PROGRESS', 6);
    expect(overdue(read, 7)?.message).toContain('sent at once');
  });
  it('a payment not SETTLED: a refusal passes, an acceptance fails', () => {
    const unsettled = { paymentId: 'u1', status: 'COMPLETED' };
    expect(judgeUnsettledRefund(unsettled, refused(422))).toBeUndefined();
    expect(judgeUnsettledRefund(unsettled, ok({}))?.requirement).toBe('REFUND-SETTLED-ONLY');
  });
  it('the refund webhook carries the refund and its payment', () => {
    const p = payment();
    const r = { refundId: 'r1', amount: toDecimal('5'), reference: 'R', createdAt: 0 };
    expect(judgeRefundWebhook(p, r, refundHook('r1', 'PROCESSED', 5).body)).toBeUndefined();
    expect(judgeRefundWebhook(p, r, refundHook('r1', 'PROCESSED', 6).body)?.requirement).toBe(
      'WEBHOOK-REFUND-PAYLOAD',
    );
  });
});

describe('spec model: Limits, one active refund, judged over time', () => {
  const twoRefunds = (secondAt: number, createdAtUtc?: string): SpecState => {
    const state = withPayment();
    const pay = state.payments[0]!;
    expect(
      observeRefund(state, pay, toDecimal('1'), ok(refundBody('r1', '1.00')), 0).judgements,
    ).toEqual([]);
    observeWebhooks(state, [refundHook('r1', 'IN_PROGRESS', 1)]);
    expect(
      observeRefund(
        state,
        pay,
        toDecimal('2'),
        ok({ ...refundBody('r2', '2.00'), ...(createdAtUtc ? { createdAtUtc } : {}) }),
        secondAt,
      ).judgements,
    ).toEqual([]);
    observeWebhooks(state, [refundHook('r2', 'IN_PROGRESS', 2)]);
    return state;
  };
  it('a refund accepted while the earlier one showed no finish, however long ago, fails once the wait is over', () => {
    const state = twoRefunds(60_000);
    expect(overdue(state, 60_999)).toBeUndefined();
    const j = overdue(state, 61_000);
    expect(j?.requirement).toBe('REFUND-ONE-ACTIVE');
    expect(j?.message).toContain('60000 ms before');
  });
  it('the earlier refund shown finished before the later was created (its webhook on its way) passes, whatever status', () => {
    for (const status of [...finishedRefundStatuses, 'HELD']) {
      const state = twoRefunds(10, '2026-01-01T10:00:01.500');
      observeWebhooks(state, [refundHook('r1', status, 1, '2026-01-01T10:00:01.400Z')]);
      expect(overdue(state, 99_999), status).toBeUndefined();
    }
  });
  it("a timestamp the model cannot read settles in the target's favour (unsure: no failure)", () => {
    for (const [created, event] of [
      [undefined, '2026-01-01T10:00:09.000Z'],
      ['2026-01-01T10:00:01.500', 'yesterday'],
    ] as const) {
      const state = twoRefunds(10, created);
      observeWebhooks(state, [refundHook('r1', 'PROCESSED', 1, event)]);
      expect(overdue(state, 99_999)).toBeUndefined();
    }
  });
  it('the earlier refund announced leaving IN_PROGRESS with an eventTimeUtc after the later was created passes, recorded', () => {
    // A server that stamps eventTimeUtc when it delivers (2.5 s after the change): the spec gives eventTimeUtc no
    // meaning as the moment of the change ("eventTimeUtc | string, ISO 8601 UTC timestamp"), nor a delivery time.
    expect(NOT_SHOWN.eventTimeUtc).toBe('recorded');
    expect(NOT_SHOWN.webhookDelivery).toBe('any time, any order');
    const state = twoRefunds(1_600, '2026-01-01T10:00:01.600');
    const v = observeWebhooks(state, [
      refundHook('r1', 'PROCESSED', 1, '2026-01-01T10:00:02.500Z'),
    ]);
    expect(overdue(state, 1_700)).toBeUndefined();
    expect(overdue(state, 99_999)).toBeUndefined();
    expect(pendingUntil(state)).toBeUndefined();
    expect(v.judgements).toEqual([]);
    expect(v.observations.join(' ')).toContain('2026-01-01T10:00:02.500Z');
    expect(v.observations.join(' ')).toContain('not judged');
  });
  it('a webhook arriving late (after the later refund was accepted) settles the overlap: no delivery time is stated', () => {
    expect(NOT_SHOWN.refundInProgressFor).toBe('any duration');
    const state = twoRefunds(10);
    expect(overdue(state, 900)).toBeUndefined();
    observeWebhooks(state, [refundHook('r1', 'PROCESSED', 1)]);
    expect(overdue(state, 99_999)).toBeUndefined();
  });
  it('an IN_PROGRESS webhook arriving after the finish (a re-delivery, any order) does not make the refund active again', () => {
    const state = withPayment();
    const pay = state.payments[0]!;
    observeRefund(state, pay, toDecimal('1'), ok(refundBody('r1', '1.00')), 0);
    observeWebhooks(state, [refundHook('r1', 'PROCESSED', 1), refundHook('r1', 'IN_PROGRESS', 1)]);
    // Finished as far as the webhooks show, whatever arrived last: a refusal that fits fails, no overlap follows.
    expect(judgeRefundAnswer(pay, toDecimal('2'), false, '409')?.requirement).toBe(
      'REFUND-PARTIAL-ALLOWED',
    );
    observeRefund(state, pay, toDecimal('2'), ok(refundBody('r2', '2.00')), 10);
    expect(state.overlaps).toEqual([]);
    expect(overdue(state, 99_999)?.requirement).not.toBe('REFUND-ONE-ACTIVE');
  });
  it("the target's own word: read IN_PROGRESS after the later was accepted fails at once; read otherwise settles", () => {
    const active = twoRefunds(10);
    observeRefundStatusRead(active, 'r1', 'IN_PROGRESS', 20);
    const j = overdue(active, 21);
    expect(j?.requirement).toBe('REFUND-ONE-ACTIVE');
    expect(j?.message).toContain('was IN_PROGRESS when read 10 ms after');
    const done = twoRefunds(10);
    expect(observeRefundStatusRead(done, 'r1', 'PROCESSED', 20).observations).toHaveLength(1);
    expect(overdue(done, 99_999)).toBeUndefined();
    // A read before the later refund was accepted says nothing of the moment it was.
    const early = twoRefunds(10);
    observeRefundStatusRead(early, 'r1', 'IN_PROGRESS', 5);
    expect(overdue(early, 11)).toBeUndefined();
  });
  it('no overlap once the earlier refund is known finished, or HELD (whether HELD has finished is not shown)', () => {
    for (const status of [...finishedRefundStatuses, 'HELD']) {
      const state = withPayment();
      const pay = state.payments[0]!;
      observeRefund(state, pay, toDecimal('1'), ok(refundBody('r1', '1.00')), 0);
      observeWebhooks(state, [refundHook('r1', 'IN_PROGRESS', 1), refundHook('r1', status, 1)]);
      observeRefund(state, pay, toDecimal('2'), ok(refundBody('r2', '2.00')), 10);
      observeWebhooks(state, [refundHook('r2', 'IN_PROGRESS', 2)]);
      expect(state.overlaps, status).toEqual([]);
      expect(overdue(state, 99_999), status).toBeUndefined();
    }
  });
});
