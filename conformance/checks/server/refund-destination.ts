// Refunds go back where the money came from (spec: Endpoint 4, "the refund is sent to the account the payment came
// from"): the Refund resource's destination and the refund webhook's are the payer's account, read from the config
// (payments.settled[].payer) or from payconform's /sandbox/ payment view.
import type { CheckRunEnv, Evidence, Finding } from '../../check.js';
import { notApplicable, pass, skip, violation } from '../../check.js';
import {
  accountDifferences,
  refundDestinationFromPayer,
} from '../../../src/rules/refund-destination.js';
import type { PaymentRefundData } from '../../../src/schemas/types.js';
import { NEED, serverCheck, type ServerRunContext } from './context.js';
import { NO_PAYMENT_API, sandboxProblem, show, waitBudget } from './payment-actions.js';
import {
  freeSettledPayment,
  noteRefund,
  PARTIAL_REFUND_AMOUNT,
  sendRefund,
  type SettledPayment,
} from './refund-actions.js';
import { describeOutcome, evidenceOf, isSuccess, jsonObject, sandboxCall } from './requests.js';
import { waitForMentions, webhookEvidence, webhookKind } from './webhook-match.js';

/** The payer's account as the config or the /sandbox/ payment view names it. */
interface AccountDetails {
  readonly name: string;
  readonly accountNumber: string;
  readonly sortCode: string;
}

/** The payer from a `paymentRefundData` object (payment webhook form), by the rule the reference service refunds to. */
function payerOf(data: unknown): AccountDetails | undefined {
  const found = refundDestinationFromPayer(data as PaymentRefundData | null | undefined);
  return found.ok ? found.destination : undefined;
}

/** The parts in which a destination object is not the payer's account (the one rule: src/rules). */
function destinationDiff(destination: unknown, payer: AccountDetails): string[] {
  if (typeof destination !== 'object' || destination === null)
    return [`destination is ${show(destination)}`];
  const d = destination as Record<string, unknown>;
  return accountDifferences(d, payer).map(
    (part) => `${part} ${show(d[part])} (payer ${payer[part]})`,
  );
}

function judgeDestination(
  what: string,
  destination: unknown,
  payer: AccountDetails,
  evidence: Evidence,
): Finding {
  const diff = destinationDiff(destination, payer);
  if (diff.length === 0)
    return pass(
      `${what} is the payer's account (${payer.name}, ${payer.accountNumber}, ${payer.sortCode})`,
      { requirement: 'REFUND-ORIGINAL-ACCOUNT' },
    );
  return violation(`${what} is not the account the payment came from: ${diff.join(', ')}`, {
    requirement: 'REFUND-ORIGINAL-ACCOUNT',
    expected: `name ${payer.name}, accountNumber ${payer.accountNumber}, sortCode ${payer.sortCode}`,
    received: show(destination),
    evidence,
  });
}

const refundToOriginalAccount = serverCheck({
  id: 'refund-to-original-account',
  title:
    'a refund goes to the account the payment came from (refund resource and refund webhook destination)',
  area: 'refunds',
  requirements: ['REFUND-ORIGINAL-ACCOUNT', 'SIG-OTHER-ENDPOINTS-SIGNED'],
  level: 'MUST',
  needs: [...NEED.refunds, 'payments.settled'],
  mutating: true,
  group: 'refunds',
  async run(ctx, env) {
    const chosen = await paymentWithPayer(ctx, env);
    if ('problem' in chosen) return [chosen.problem];
    const { payment, payer } = chosen;
    const { ex, notes } = await sendRefund(ctx, env, payment.paymentId, PARTIAL_REFUND_AMOUNT);
    if (isSuccess(ex)) noteRefund(ctx, payment.paymentId, jsonObject(ex));
    const refund = isSuccess(ex) ? jsonObject(ex) : undefined;
    const refundId = refund?.['refundPaymentId'];
    if (refund === undefined || typeof refundId !== 'string') {
      return [
        ...notes,
        skip(
          `a partial refund of ${PARTIAL_REFUND_AMOUNT} of payment ${payment.paymentId} was not created (${describeOutcome(ex)}); see refund-partial-accepted`,
          { evidence: evidenceOf(ctx, ex) },
        ),
      ];
    }
    const details = refund['refundRequestDetails'] as Record<string, unknown> | undefined;
    return [
      ...notes,
      judgeDestination(
        'refundRequestDetails.destination',
        details?.['destination'],
        payer,
        evidenceOf(ctx, ex),
      ),
      await judgeWebhookDestination(ctx, env, refundId, payer),
    ];
  },
});

/**
 * A free settled payment and its payer: from the config (payments.settled[].payer) on any target, else from the
 * /sandbox/ payment view; or the skip that says why there is none.
 */
async function paymentWithPayer(
  ctx: ServerRunContext,
  env: CheckRunEnv,
): Promise<{ payment: SettledPayment; payer: AccountDetails } | { problem: Finding }> {
  const withPayer = ctx.payments.settled.filter((p) => p.payer !== undefined);
  if (withPayer.length === 0 && ctx.sandbox !== true) {
    return {
      problem: skip(
        `${NO_PAYMENT_API} (nor to read a payment's payer): name the payer's account as "payer" ({ "name", "accountNumber", "sortCode" }) beside paymentId and amount in payments.settled, or set "sandbox": true for a target with payconform's /sandbox/ endpoints`,
      ),
    };
  }
  const payment = await freeSettledPayment(
    ctx,
    env,
    withPayer.length > 0 ? withPayer : ctx.payments.settled,
  );
  if ('problem' in payment) return { problem: skip(payment.problem) };
  if (payment.payer !== undefined) return { payment, payer: payment.payer };
  const view = await sandboxCall(
    ctx,
    env,
    'GET',
    `/payments/${encodeURIComponent(payment.paymentId)}`,
  );
  if (view.value === undefined)
    return { problem: sandboxProblem(ctx, `show payment ${payment.paymentId}`, view) };
  const payer = payerOf(view.value['paymentRefundData']);
  if (payer === undefined)
    return {
      problem: skip(
        `the /sandbox/ endpoint reports no payer details for payment ${payment.paymentId} (paymentRefundData with accountHolderName, ACCOUNT_NUMBER and SORT_CODE)`,
        { evidence: evidenceOf(ctx, view.ex) },
      ),
    };
  return { payment, payer };
}

/** The destination of the refund's first refund webhook is the payer's account (not applicable without one). */
async function judgeWebhookDestination(
  ctx: ServerRunContext,
  env: CheckRunEnv,
  refundId: string,
  payer: AccountDetails,
): Promise<Finding> {
  if (ctx.webhooks === undefined)
    return notApplicable(
      'the refund webhook destination was not checked: no webhook listener is configured (set "webhookListen")',
      { requirement: 'REFUND-ORIGINAL-ACCOUNT' },
    );
  const hooks = await waitForMentions(
    ctx.webhooks,
    env,
    waitBudget(ctx, env),
    [refundId],
    1,
    (w) => webhookKind(w) === 'refund',
  );
  const hook = hooks[0];
  return hook === undefined
    ? notApplicable(
        `no refund webhook arrived within ${ctx.webhookWaitMs} ms, so its destination was not checked (see webhook-refund-status-changes)`,
        { requirement: 'REFUND-ORIGINAL-ACCOUNT' },
      )
    : judgeDestination(
        `the refund webhook's destination (#${hook.seq})`,
        (hook.json as Record<string, unknown> | undefined)?.['destination'],
        payer,
        webhookEvidence(hook),
      );
}

export const refundDestinationChecks = [refundToOriginalAccount] as const;
