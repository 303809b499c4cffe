// Webhooks the service sends (spec: Events, Webhook authentication): one per status change, PUT with
// application/json, signed SHA256withRSA over the exact bytes with the key the public-key endpoint serves, and
// schema-valid. Redelivery after a non-200 answer: webhook-redelivery.ts.
import { getFieldValues } from '../../../src/http/message.js';
import { toDecimal } from '../../../src/rules/money.js';
import type { CheckRunEnv, Finding } from '../../check.js';
import { notApplicable, observation, pass, skip, violation } from '../../check.js';
import { mediaTypeOf } from '../../client-audit/endpoints.js';
import type { ReceivedWebhook } from '../../webhook-listener.js';
import {
  decimalOf,
  expectedCreateStatus,
  HELD_STATUS,
  judgeRefundWebhook,
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
  createSignedPayout,
  defaultDestination,
  describeOutcome,
  evidenceOf,
  isSuccess,
  jsonObject,
  payoutActionRequest,
  sendAppCall,
} from './requests.js';
import { schemaProblems } from './resources.js';
import { fetchPublicKey } from './served-key.js';
import {
  expectStatusWebhook,
  judged,
  laterStatus,
  listenerOf,
  offenders,
  statusOf,
  triggerPayoutWebhook,
  unverifiedWebhooks,
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
 * The refund webhooks received for the refund carry the refund's and its original payment's fields (the spec model's
 * judgeRefundWebhook: refundedPaymentId, refundedPaymentAmount "amount of the original payment", refundAmount, and
 * the reference and destination the Refund resource gave); nothing to judge before one arrived.
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
  if (hooks.length === 0) return [];
  const details = (refund['refundRequestDetails'] ?? {}) as Record<string, unknown>;
  const modelRefund = {
    refundId,
    amount: decimalOf(details['amount']) ?? toDecimal(PARTIAL_REFUND_AMOUNT),
    reference: details['reference'],
    destination: details['destination'],
    createdAt: 0,
  };
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
      pass(`refund webhooks name the original payment and its amount ${payment.amount}`, {
        requirement: 'WEBHOOK-REFUND-PAYLOAD',
      }),
    ];
  return [violationOf({ ...first.j, received: offenders(wrong) }, webhookEvidence(first.w))];
}

const signatureVerified = serverCheck({
  id: 'webhook-signature-verified',
  title: 'every webhook verifies with the served public key over the exact bytes received',
  area: 'webhooks',
  requirements: ['WEBHOOK-AUTHORIZATION', 'WEBHOOK-SAME-MECHANISM', 'KEY-ENDPOINT'],
  level: 'MUST',
  needs: WEBHOOK_NEEDS,
  mutating: true,
  async run(ctx, env) {
    const key = await fetchPublicKey(ctx, env);
    if (!key.ok)
      return [
        violation(`cannot verify webhooks: ${key.message}`, {
          requirement: 'KEY-ENDPOINT',
          evidence: evidenceOf(ctx, key.ex),
        }),
      ];
    const trigger = await triggerPayoutWebhook(ctx, env);
    if ('problem' in trigger) return [trigger.problem];
    const all = judged(ctx, trigger.hooks);
    const bad = unverifiedWebhooks(all, key.key);
    if (bad.length > 0) {
      return [
        violation('webhook signatures do not verify with the served key over the exact bytes', {
          requirement: 'WEBHOOK-AUTHORIZATION',
          expected: 'Authorization: SHA256withRSA <base64> over the body as sent',
          received: offenders(bad),
          evidence: webhookEvidence(bad[0]!.w),
        }),
      ];
    }
    const kinds = [...new Set(all.map((w) => webhookKind(w) ?? 'unknown'))].join(', ');
    return [
      pass(`${all.length} webhook(s) (${kinds}) verified with the served key`, {
        requirement: 'WEBHOOK-AUTHORIZATION',
      }),
      pass('payout and refund webhooks use the same mechanism', {
        requirement: 'WEBHOOK-SAME-MECHANISM',
      }),
    ];
  },
});

const SCHEMA_OF = {
  payout: 'payout-webhook',
  refund: 'refund-webhook',
  payment: 'payment-webhook',
} as const;
const REQUIREMENT_OF = {
  payout: 'WEBHOOK-PAYOUT-PAYLOAD',
  refund: 'WEBHOOK-REFUND-PAYLOAD',
  payment: 'WEBHOOK-PAYMENT-PAYLOAD',
} as const;

const payloadSchema = serverCheck({
  id: 'webhook-payload-schema',
  title: 'every webhook payload matches its schema (payout, refund, payment)',
  area: 'webhooks',
  requirements: [
    'WEBHOOK-PAYOUT-PAYLOAD',
    'WEBHOOK-REFUND-PAYLOAD',
    'WEBHOOK-PAYMENT-PAYLOAD',
    'WEBHOOK-PAYOUT-STATUS-VALUES',
  ],
  level: 'MUST',
  needs: WEBHOOK_NEEDS,
  mutating: true,
  async run(ctx, env) {
    const trigger = await triggerPayoutWebhook(ctx, env);
    if ('problem' in trigger) return [trigger.problem];
    const findings: Finding[] = [];
    for (const kind of ['payout', 'refund', 'payment'] as const) {
      const hooks = judged(ctx, trigger.hooks).filter((w) => webhookKind(w) === kind);
      if (hooks.length === 0) {
        findings.push(notApplicable(`no ${kind} webhook was received in this run`));
        continue;
      }
      const bad = hooks.flatMap((w) => {
        if (w.json === undefined) return [{ w, why: 'the body is not JSON' }];
        const problems = schemaProblems(SCHEMA_OF[kind], w.json);
        return problems.length === 0 ? [] : [{ w, why: problems.slice(0, 3).join(', ') }];
      });
      findings.push(
        bad.length > 0
          ? violation(
              `${kind} webhook payloads do not match schemas/${SCHEMA_OF[kind]}.schema.json`,
              {
                requirement: REQUIREMENT_OF[kind],
                received: offenders(bad),
                evidence: webhookEvidence(bad[0]!.w),
              },
            )
          : pass(`${hooks.length} ${kind} webhook payload(s) match the schema`, {
              requirement: REQUIREMENT_OF[kind],
            }),
      );
    }
    return findings;
  },
});

/** What a webhook lacks of Accept and Authorization, and a payout or refund webhook's Accept other than JSON. */
function headerProblems(w: ReceivedWebhook): string | undefined {
  const kind = webhookKind(w);
  const missing = ['accept', 'authorization'].filter(
    (h) => getFieldValues(w.headers, h).length === 0,
  );
  const acceptWrong =
    (kind === 'payout' || kind === 'refund') &&
    getFieldValues(w.headers, 'accept').length > 0 &&
    mediaTypeOf(getFieldValues(w.headers, 'accept')[0] ?? '') !== 'application/json';
  if (missing.length === 0 && !acceptWrong) return undefined;
  return [
    missing.length > 0 ? `missing ${missing.join(', ')}` : '',
    acceptWrong ? `Accept ${getFieldValues(w.headers, 'accept')[0] ?? ''}` : '',
  ]
    .filter(Boolean)
    .join(', ');
}

const putJson = serverCheck({
  id: 'webhook-put-json',
  title: 'webhooks are PUT calls with Content-Type application/json (and Accept, Authorization)',
  area: 'webhooks',
  requirements: [
    'WEBHOOK-PUT',
    'VERSION-WEBHOOK-MEDIA-TYPE',
    'WEBHOOK-PAYOUT-REFUND-HEADERS',
    'WEBHOOK-PAYMENT-HEADERS',
  ],
  level: 'MUST',
  needs: WEBHOOK_NEEDS,
  mutating: true,
  async run(ctx, env) {
    const trigger = await triggerPayoutWebhook(ctx, env);
    if ('problem' in trigger) return [trigger.problem];
    const all = judged(ctx, trigger.hooks);
    const notPut = all
      .filter((w) => w.method !== 'PUT')
      .map((w) => ({ w, why: `method ${w.method}` }));
    const notJson = all
      .filter(
        (w) =>
          mediaTypeOf(getFieldValues(w.headers, 'content-type')[0] ?? '') !== 'application/json',
      )
      .map((w) => ({
        w,
        why: `Content-Type ${getFieldValues(w.headers, 'content-type').join(', ') || '(none)'}`,
      }));
    const findings: Finding[] = [
      notPut.length > 0
        ? violation('webhooks are not sent with PUT', {
            requirement: 'WEBHOOK-PUT',
            expected: 'PUT',
            received: offenders(notPut),
            evidence: webhookEvidence(notPut[0]!.w),
          })
        : pass(`${all.length} webhook(s) sent with PUT`, { requirement: 'WEBHOOK-PUT' }),
      notJson.length > 0
        ? violation('webhooks are not sent with Content-Type application/json', {
            requirement: 'VERSION-WEBHOOK-MEDIA-TYPE',
            expected: 'application/json',
            received: offenders(notJson),
            evidence: webhookEvidence(notJson[0]!.w),
          })
        : pass('every webhook has Content-Type application/json', {
            requirement: 'VERSION-WEBHOOK-MEDIA-TYPE',
          }),
    ];
    return [...findings, ...judgeHeaders(all)];
  },
});

/** Payout and refund webhooks carry Accept: application/json and Authorization; payment webhooks Accept and Authorization. */
function judgeHeaders(all: readonly ReceivedWebhook[]): Finding[] {
  const headers = all.flatMap((w) => {
    const why = headerProblems(w);
    return why === undefined ? [] : [{ w, why }];
  });
  const payoutRefund = headers.filter((o) => webhookKind(o.w) !== 'payment');
  const payment = headers.filter((o) => webhookKind(o.w) === 'payment');
  return [
    payoutRefund.length > 0
      ? violation('payout or refund webhooks lack Accept: application/json or Authorization', {
          requirement: 'WEBHOOK-PAYOUT-REFUND-HEADERS',
          received: offenders(payoutRefund),
          evidence: webhookEvidence(payoutRefund[0]!.w),
        })
      : pass('payout and refund webhooks carry Accept: application/json and Authorization', {
          requirement: 'WEBHOOK-PAYOUT-REFUND-HEADERS',
        }),
    ...(payment.length > 0
      ? [
          violation('payment webhooks lack Accept or Authorization', {
            requirement: 'WEBHOOK-PAYMENT-HEADERS',
            received: offenders(payment),
            evidence: webhookEvidence(payment[0]!.w),
          }),
        ]
      : []),
  ];
}

export const webhookChecks = [
  payoutStatusChanges,
  refundStatusChanges,
  signatureVerified,
  payloadSchema,
  putJson,
] as const;
