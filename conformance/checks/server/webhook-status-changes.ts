// Webhooks for status changes (spec: Events, "emitted when: any payout status change" and the refund's): a payout's
// webhook when it is created, committed, cancelled and moved on by its lifecycle; a refund's when it is created and
// moved on, its payload naming the refund and the original payment (judged by the spec model).
import { toDecimal } from '../../../src/rules/money.js';
import type { CheckRunEnv, Finding } from '../../run/check.js';
import { notApplicable, observation, pass, skip } from '../../run/check.js';
import {
  decimalOf,
  expectedCreateStatus,
  HELD_STATUS,
  judgeRefundWebhook,
  modelRefundOf,
  PAYOUT_ACTIONS,
  REFUND_CREATED_STATUS,
  type PayoutAction,
} from '../../spec-model/index.js';
import { askedPayout, createHeldPayout } from './cop-cases.js';
import { NEED, serverCheck, type ServerAuditContext } from './context.js';
import { violationOf } from './judgements.js';
import {
  createPartialRefund,
  PARTIAL_REFUND_AMOUNT,
  refundNotCreated,
  type SettledPayment,
} from './refund-actions.js';
import {
  applicationIdOf,
  createSignedPayout,
  defaultDestination,
  describeOutcome,
  evidenceOf,
  isSuccess,
  jsonObject,
  payoutActionRequest,
  sendAppCall,
} from './requests.js';
import {
  expectStatusWebhook,
  laterStatus,
  listenerOf,
  offenders,
  statusOf,
  WEBHOOK_NEEDS,
} from './webhook-actions.js';
import { mentioning, webhookEvidence, webhookKind } from './webhook-match.js';

const payoutStatusChanges = serverCheck({
  id: 'webhook-payout-status-changes',
  title:
    'a payout webhook arrives for each payout status change (create, commit, cancel, lifecycle)',
  area: 'webhooks',
  requirements: [
    'PAYOUT-STATUS-CHANGE-WEBHOOK',
    'WEBHOOK-AWAITING-COMMIT',
    'SIG-OTHER-ENDPOINTS-SIGNED',
  ],
  level: 'MUST',
  needs: WEBHOOK_NEEDS,
  mutating: true,
  async run(ctx, env) {
    return (
      await Promise.all([
        createdPayoutWebhooks(ctx, env),
        heldPayoutWebhooks(ctx, env, 'commit'),
        heldPayoutWebhooks(ctx, env, 'cancel'),
      ])
    ).flat();
  },
});

/**
 * An auto-committed payout: the webhook of the status it must be created in (the spec model's transitions table) must
 * come, then a later status's (see `laterStatus`).
 */
async function createdPayoutWebhooks(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
): Promise<Finding[]> {
  const spec = { destination: defaultDestination(ctx) };
  const { ex, reference } = await createSignedPayout(ctx, env, spec);
  const body = jsonObject(ex);
  const id = body?.['payoutId'];
  const want = expectedCreateStatus(askedPayout('default', spec, reference), body?.['copStatus']);
  if (!isSuccess(ex) || typeof id !== 'string' || want === undefined)
    return [
      skip(`could not create a payout (${describeOutcome(ex)})`, {
        evidence: evidenceOf(ctx, ex),
      }),
    ];
  const trigger = evidenceOf(ctx, ex);
  const created = await expectStatusWebhook(
    ctx,
    env,
    'payout',
    id,
    want.status,
    ctx.webhookWaitMs,
    'PAYOUT-STATUS-CHANGE-WEBHOOK',
    'for a created payout',
    trigger,
  );
  return [
    created,
    await laterStatus(ctx, env, 'payout', id, want.status, 'PAYOUT-STATUS-CHANGE-WEBHOOK', trigger),
  ];
}

/** A held payout committed or cancelled: the webhook of its new status must come; one for AWAITING_COMMIT is recorded. */
async function heldPayoutWebhooks(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  action: PayoutAction,
): Promise<Finding[]> {
  const held = await createHeldPayout(ctx, env);
  if ('problem' in held) return [notApplicable(`${action}: ${held.problem.message}`)];
  const { ex } = await sendAppCall(ctx, env, payoutActionRequest(ctx, held.payoutId, action));
  if (!isSuccess(ex))
    return [
      skip(`${action} of a held payout failed (${describeOutcome(ex)}); see cop-${action}`, {
        evidence: evidenceOf(ctx, ex),
      }),
    ];
  const status = PAYOUT_ACTIONS[action].to;
  const found = await expectStatusWebhook(
    ctx,
    env,
    'payout',
    held.payoutId,
    status,
    ctx.webhookWaitMs,
    'PAYOUT-STATUS-CHANGE-WEBHOOK',
    `after ${action}`,
    evidenceOf(ctx, ex),
  );
  const awaiting = mentioning(listenerOf(ctx).received(), held.payoutId).some(
    (w) => statusOf(w, 'payout') === HELD_STATUS,
  );
  return [
    found,
    observation(
      `a webhook for the AWAITING_COMMIT status was ${awaiting ? '' : 'not '}sent (not shown by the spec)`,
      { requirement: 'WEBHOOK-AWAITING-COMMIT' },
    ),
  ];
}

const refundStatusChanges = serverCheck({
  id: 'webhook-refund-status-changes',
  title: 'a refund webhook arrives for each refund status change (create, lifecycle)',
  area: 'webhooks',
  requirements: [
    'REFUND-STATUS-CHANGE-WEBHOOK',
    'WEBHOOK-REFUND-PAYLOAD',
    'SIG-OTHER-ENDPOINTS-SIGNED',
    'REFUND-PARTIAL-ALLOWED',
    'REFUND-RESPONSE-RESOURCE',
  ],
  level: 'MUST',
  needs: [...NEED.refunds, 'payments.settled', ...NEED.webhooks],
  mutating: true,
  group: 'refunds',
  async run(ctx, env) {
    const made = await createPartialRefund(ctx, env);
    const id = made.refund?.['refundPaymentId'];
    const trigger = made.ex ? evidenceOf(ctx, made.ex) : undefined;
    if (typeof id !== 'string')
      return refundNotCreated(
        made,
        () => `could not create a refund to trigger webhooks; see refund-partial-accepted`,
      );
    return [
      ...made.findings,
      await expectStatusWebhook(
        ctx,
        env,
        'refund',
        id,
        REFUND_CREATED_STATUS,
        ctx.webhookWaitMs,
        'REFUND-STATUS-CHANGE-WEBHOOK',
        'for a created refund',
        trigger,
      ),
      await laterStatus(
        ctx,
        env,
        'refund',
        id,
        REFUND_CREATED_STATUS,
        'REFUND-STATUS-CHANGE-WEBHOOK',
        trigger,
      ),
      ...(made.payment !== undefined && made.refund !== undefined
        ? judgeRefundPayloads(ctx, made.refund, made.payment)
        : []),
    ];
  },
});

/**
 * The refund webhooks received for the refund carry the refund's and its original payment's members (the spec model's
 * refundWebhookMembers: the application the refund was made under, refundedPaymentId, refundedPaymentAmount "amount
 * of the original payment", refundId, refundAmount, and the currency, reference and destination the Refund resource
 * gave); nothing to judge before one arrived.
 */
function judgeRefundPayloads(
  ctx: ServerAuditContext,
  refund: Record<string, unknown>,
  payment: SettledPayment,
): Finding[] {
  const refundId = String(refund['refundPaymentId']);
  const hooks = mentioning(listenerOf(ctx).received(), refundId).filter(
    (w) => webhookKind(w) === 'refund',
  );
  const details = (refund['refundRequestDetails'] ?? {}) as Record<string, unknown>;
  const amount = decimalOf(details['amount']) ?? toDecimal(PARTIAL_REFUND_AMOUNT);
  const made = modelRefundOf(refund, amount, 0);
  if (hooks.length === 0 || made === undefined) return [];
  const modelRefund = { ...made, applicationId: applicationIdOf(ctx) };
  const modelPayment = {
    paymentId: payment.paymentId,
    amount: toDecimal(payment.amount),
    refunds: [modelRefund],
  };
  const wrong = hooks.flatMap((w) => {
    const j = judgeRefundWebhook(modelPayment, modelRefund, w.json);
    return j === undefined ? [] : [{ w, j, why: j.received }];
  });
  const first = wrong[0];
  if (first === undefined)
    return [
      pass(
        `${hooks.length} refund webhook(s) carry the refund's members, the original payment and its amount ${payment.amount}`,
        { requirement: 'WEBHOOK-REFUND-PAYLOAD' },
      ),
    ];
  return [violationOf({ ...first.j, received: offenders(wrong) }, webhookEvidence(first.w))];
}

export const statusWebhookChecks = [payoutStatusChanges, refundStatusChanges] as const;
