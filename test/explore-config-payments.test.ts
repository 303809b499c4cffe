// Refunds explored on the config's settled payments, for a target without payconform's /sandbox/:
// the model's rule for a payment the run did not make, the pool that lends each payment to one sequence at a time,
// and explorations of the embedded service told it has no /sandbox/: refunds made and no failure on the clean and
// `alt` services, and the refund faults only the explorer finds, found through the config's payments.
// Budget: the correct services run 4 seeds each, 10 sequences per lane within 4 s (60 sequences, 4 to 8 refunds of
// the config's payments: what a 4 s exploration of them refunds, and the test asserts there are some; a quiet machine
// stops at the count, and the bound stays 4 s: past the exploring time the patient lanes' waits are cut, within it
// they would be waited out), 20 seeds each with PAYCONFORM_LONG_TESTS=1; each fault search runs the default 15 s
// budget, up to three seeds, as test/explore.test.ts does. The explorations wait on the service far more than they
// compute, so the seeds of a service run four at a time and the four explorations below run side by side
// (describe.concurrent): about the longest fault search in all.
import { describe, expect, it } from 'vitest';
import { startEmbeddedTarget } from '../cli/commands/audit-server.js';
import type { ServerAuditContext } from '../conformance/checks/server/context.js';
import { createRunState } from '../conformance/checks/server/run-state.js';
import { explore, exploreSummary } from '../conformance/explore/explorer.js';
import { PaymentPool } from '../conformance/explore/payment-pool.js';
import type { ReceivedWebhook } from '../conformance/http/webhook-listener.js';
import {
  createSpecState,
  observeRefund,
  type Answer,
  type ModelPayment,
} from '../conformance/spec-model/index.js';
import { toDecimal } from '../src/rules/money.js';
import type { FaultName, ServiceVariant } from '../server/index.js';
import { exploreEnv as env, searchFresh } from './fixtures/explore-targets.js';

const LONG = process.env['PAYCONFORM_LONG_TESTS'] === '1';
const CLEAN_SEEDS = LONG ? 20 : 4;

const refused: Answer = { accepted: false, outcome: '422' };
const accepted = (paymentId: string, amount: string): Answer => ({
  accepted: true,
  outcome: '201',
  body: {
    refundPaymentId: `r-${amount}`,
    refundedPaymentId: paymentId,
    status: 'IN_PROGRESS',
    refundRequestDetails: { amount },
  },
});
const payment = (earlierUnknown: boolean): ModelPayment => ({
  paymentId: 'p1',
  amount: toDecimal('10.00'),
  refunds: [],
  ...(earlierUnknown ? { earlierUnknown } : {}),
});

describe('the model: a payment the run did not make', () => {
  it('a refused refund that fits is a failure on a payment the run made, an observation on a configured one', () => {
    const own = observeRefund(
      createSpecState({ webhookWaitMs: 1 }),
      payment(false),
      toDecimal('1.00'),
      refused,
      0,
    );
    expect(own.judgements.map((j) => j.requirement)).toEqual(['REFUND-PARTIAL-ALLOWED']);
    const config = observeRefund(
      createSpecState({ webhookWaitMs: 1 }),
      payment(true),
      toDecimal('1.00'),
      refused,
      0,
    );
    expect(config.judgements).toEqual([]);
    expect(config.observations.join()).toMatch(/configured payment p1 was refused .* undecided/);
  });

  it('a refund accepted beyond what the run knows is left fails REFUND-TOTAL-CAP on a configured payment too', () => {
    const v = observeRefund(
      createSpecState({ webhookWaitMs: 1 }),
      payment(true),
      toDecimal('10.01'),
      accepted('p1', '10.01'),
      0,
    );
    expect(v.judgements.map((j) => j.requirement)).toContain('REFUND-TOTAL-CAP');
  });
});

const refundWebhook = (seq: number, refundId: string, refundStatus: string): ReceivedWebhook => ({
  seq,
  method: 'PUT',
  path: '/webhooks/refund',
  headers: [],
  body: new Uint8Array(0),
  json: { refundId, refundStatus },
  receivedAt: 0,
  answeredStatus: 200,
});

describe('the pool of configured payments', () => {
  const ctxWith = (settled: Array<{ paymentId: string; amount: string }>) =>
    ({ sandbox: false, payments: { settled, unsettled: [] } }) as unknown as ServerAuditContext;

  it('lends each payment to one sequence at a time; a used-up payment is retired, and the summary says when and why', () => {
    const pool = PaymentPool.of(ctxWith([{ paymentId: 'a', amount: '1.00' }]))!;
    const one = createSpecState({ webhookWaitMs: 1 });
    const two = createSpecState({ webhookWaitMs: 1 });
    const lent = pool.lend(one, [])!;
    expect(lent.paymentId).toBe('a');
    expect(pool.lend(two, [])).toBeUndefined(); // held by the first sequence
    lent.refunds.push({ refundId: 'r1', amount: toDecimal('1.00'), createdAt: 0 });
    pool.release(one);
    expect(pool.lend(two, [])).toBeUndefined(); // nothing left: retired
    expect(pool.refundsMade()).toBe(1);
    expect(pool.summary()).toMatch(
      /^1 refunds of the config's 1 settled payments; retired a \(1\.00\) at \d+\.\d s: nothing surely left to refund; stopped drawing refunds at \d+\.\d s/,
    );
  });

  it("starts from this run's refunds of each payment, their statuses from the webhooks; skips a tainted one", () => {
    const run = createRunState();
    run.refunds.set('a', [{ id: 'r0', amount: '0.40' }]);
    run.tainted.add('b');
    const ctx = {
      ...ctxWith([
        { paymentId: 'a', amount: '1.00' },
        { paymentId: 'b', amount: '5.00' },
      ]),
      run,
    };
    const pool = PaymentPool.of(ctx)!;
    const model = createSpecState({ webhookWaitMs: 1 });
    const lent = pool.lend(model, [
      refundWebhook(1, 'r0', 'IN_PROGRESS'),
      refundWebhook(2, 'r0', 'PROCESSED'),
    ])!;
    expect(lent.paymentId).toBe('a');
    expect(lent.refunds.map((r) => r.status)).toEqual(['PROCESSED']);
    expect(lent.earlierUnknown).toBe(true);
    pool.release(model);
    pool.taint('a');
    expect(pool.lend(model, [])).toBeUndefined();
    expect(pool.summary()).toMatch(
      /retired a \(1\.00\) .*no answer.*; b \(5\.00\) at 0\.0 s: a refund request of an earlier check got no answer/,
    );
  });

  it('is not used where the target has /sandbox/ or the config lists no settled payment', () => {
    expect(
      PaymentPool.of({ ...ctxWith([{ paymentId: 'a', amount: '1.00' }]), sandbox: true }),
    ).toBeUndefined();
    expect(PaymentPool.of(ctxWith([]))).toBeUndefined();
  });
});

/** The embedded service as a target without /sandbox/: settled payments of `amounts` made for it, listed in the config. */
async function withoutSandbox(
  amounts: readonly string[],
  options: { faults?: FaultName[]; variant?: ServiceVariant } = {},
) {
  const t = await startEmbeddedTarget(options);
  const settled: Array<{ paymentId: string; amount: string }> = [];
  for (const amount of amounts) {
    // What a user does in their own test environment before the audit (here through the service's own /sandbox/).
    const res = await fetch(`${t.context.baseUrl}/sandbox/payments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ amount, status: 'SETTLED' }),
    });
    const made = (await res.json()) as { paymentId: string; amount: number };
    settled.push({ paymentId: made.paymentId, amount });
  }
  const context: ServerAuditContext = {
    ...t.context,
    sandbox: false,
    payments: { ...t.context.payments, settled },
  };
  return { context, close: () => t.close() };
}

describe.concurrent("explorations without /sandbox/, on the config's two settled payments", () => {
  it.each(['clean', 'alt'] as const)(
    `%s: ${CLEAN_SEEDS} seeds make refunds of them and find nothing`,
    { timeout: 240_000 },
    async (variant: ServiceVariant) => {
      const bad: string[] = [];
      const summaries: string[] = [];
      for (let batch = 0; batch < CLEAN_SEEDS / 4; batch++) {
        const outcomes = await Promise.all(
          [0, 1, 2, 3].map(async (i) => {
            const t = await withoutSandbox(['100.00', '25000.00'], { variant });
            try {
              const seed = 2000 + batch * 4 + i;
              return await explore(t.context, env(60_000), { runs: 10, seconds: 4, seed });
            } finally {
              await t.close();
            }
          }),
        );
        for (const o of outcomes) {
          summaries.push(exploreSummary(o));
          if (o.failure !== undefined || o.error !== undefined)
            bad.push(`seed ${o.seed}: ${o.error ?? o.failure!.violation.message}`);
          expect(o.cost.payments).toBe(0); // none made: there is no /sandbox/
          expect(o.cost.refunds, exploreSummary(o)).toBeGreaterThan(0);
          expect(o.configPayments).toMatch(/^\d+ refunds of the config's 2 settled payments/);
        }
      }
      expect(bad, bad.join('\n')).toEqual([]);
    },
  );
});

describe.concurrent(
  "the refund faults only the explorer finds, found through the config's payments",
  () => {
    it.each([
      ['refund-cap-large-payment', 'REFUND-TOTAL-CAP'],
      ['refund-active-lapses', 'REFUND-ONE-ACTIVE'],
    ] as const)('%s: %s', { timeout: 240_000 }, async (fault, requirement) => {
      // What is found is the test, not how short: a config payment used up cannot be lent to the shrink's replays,
      // so shrinking it would spend its whole 30 s.
      const o = await searchFresh(
        () => withoutSandbox(['100.00', '25000.00'], { faults: [fault] }),
        { shrinkSeconds: 5 },
      );
      expect(o.error).toBeUndefined();
      expect(o.failure?.violation.judgement.requirement, exploreSummary(o)).toBe(requirement);
      expect(o.cost.payments).toBe(0);
    });
  },
);
