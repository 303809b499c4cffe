// Refunds go back where the money came from (spec: Endpoint 4, "the refund is sent to the account the payment came
// from"): the Refund resource's destination and the refund webhook's are the payer's account, read from the config
// (payments.settled[].payer) or from the state provider that made the payment (a state hook, or /sandbox/).
import type { CheckRunEnv, Evidence, Finding } from '../../run/check.js';
import { notApplicable, pass, skip, violation } from '../../run/check.js';
import { accountDifferences } from '../../../src/rules/refund-destination.js';
import { NEED, serverCheck, type ServerRunContext } from './context.js';
import { NO_PAYMENT_API, show, waitBudget } from './payment-actions.js';
import { hookAnswersFor, OWN_PAYMENT_AMOUNT } from './owned-payments.js';
import {
  freeSettledPayment,
  noteRefund,
  PARTIAL_REFUND_AMOUNT,
  sendRefund,
  type SettledPayment,
} from './refund-actions.js';
import { describeOutcome, evidenceOf, isSuccess, jsonObject } from './requests.js';
import { askState, hookFailed, stateSource } from '../../state-hook/index.js';
import { waitForMentions, webhookEvidence, webhookKind } from './webhook-match.js';

/** The payer's account as the config or the state provider names it. */
interface AccountDetails {
  readonly name: string;
  readonly accountNumber: string;
  readonly sortCode: string;
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
      const hooks = isSuccess(ex) ? undefined : hookAnswersFor(ctx, payment.paymentId, ex);
      return [
        ...notes,
        skip(
          `a partial refund of ${PARTIAL_REFUND_AMOUNT} of payment ${payment.paymentId} was not created (${describeOutcome(ex)}); ${hooks ?? 'see refund-partial-accepted'}`,
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
 * A free settled payment and its payer: from the config (payments.settled[].payer) on any target, else made with its
 * payer by the target's state provider (a state hook, or /sandbox/: docs/state-hook.md); or the skip that says why
 * there is none.
 */
async function paymentWithPayer(
  ctx: ServerRunContext,
  env: CheckRunEnv,
): Promise<{ payment: SettledPayment; payer: AccountDetails } | { problem: Finding }> {
  const withPayer = ctx.payments.settled.filter((p) => p.payer !== undefined);
  // A payment of its own first (no refund an earlier run left can be in its way); the config's where none is made.
  // A named hook that failed is said in its words, never quietly replaced by the config's payments.
  if (stateSource(ctx) !== undefined) {
    const own = await ownPaymentWithPayer(ctx, env);
    if (!('problem' in own) || withPayer.length === 0 || 'hookFailed' in own) return own;
  }
  if (withPayer.length === 0)
    return {
      problem: skip(
        `${NO_PAYMENT_API} (nor to read a payment's payer): name the payer's account as "payer" ({ "name", "accountNumber", "sortCode" }) beside paymentId and amount in payments.settled, name a state hook ("stateHook", docs/state-hook.md), or set "sandbox": true for a target with payconform's /sandbox/ endpoints`,
      ),
    };
  const payment = await freeSettledPayment(ctx, env, withPayer);
  if ('problem' in payment) return { problem: skip(payment.problem) };
  if (payment.payer === undefined)
    return { problem: skip(`payment ${payment.paymentId} has no payer named in the config`) };
  return { payment, payer: payment.payer };
}

/** A settled payment made for this check, with its payer, through the state hook contract. */
async function ownPaymentWithPayer(
  ctx: ServerRunContext,
  env: CheckRunEnv,
): Promise<
  { payment: SettledPayment; payer: AccountDetails } | { problem: Finding; hookFailed?: true }
> {
  const made = await askState(ctx, env, {
    state: 'settled-payment',
    amount: OWN_PAYMENT_AMOUNT,
    payer: true,
  });
  const failed = hookFailed(ctx, made);
  if (failed !== undefined) return { problem: skip(failed), hookFailed: true };
  if (made.kind !== 'made') return { problem: skip(made.reason) };
  const payer = made.answer['payer'] as AccountDetails | undefined;
  if (payer === undefined)
    return {
      problem: skip(
        `the state provider made payment ${String(made.answer['paymentId'])} but named no payer, though asked to`,
      ),
    };
  const paymentId = made.answer['paymentId'] as string;
  ctx.run.owned.add(paymentId);
  const { name, accountNumber, sortCode } = payer;
  return {
    payment: { paymentId, amount: OWN_PAYMENT_AMOUNT },
    payer: { name, accountNumber, sortCode },
  };
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
