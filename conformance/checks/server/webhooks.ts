// Webhooks the service sends (spec: Events, Webhook authentication): PUT with application/json, signed SHA256withRSA
// over the exact bytes with the key the public-key endpoint serves, and schema-valid. One per status change:
// webhook-status-changes.ts; redelivery after a non-200 answer: webhook-redelivery.ts.
import { getFieldValues } from '../../../src/http/message.js';
import type { WebhookKind } from '../../../src/webhooks/kinds.js';
import type { Finding } from '../../run/check.js';
import { notApplicable, pass, violation } from '../../run/check.js';
import { mediaTypeOf } from '../../client-audit/endpoints.js';
import type { ReceivedWebhook } from '../../http/webhook-listener.js';
import { serverCheck } from './context.js';
import { evidenceOf } from './requests.js';
import { schemaProblems } from './resources.js';
import { fetchPublicKey } from './served-key.js';
import {
  judged,
  offenders,
  triggerPayoutWebhook,
  unverifiedWebhooks,
  WEBHOOK_NEEDS,
} from './webhook-actions.js';
import { webhookEvidence, webhookKind } from './webhook-match.js';

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

/** Each kind's schema, in the order the check reports them: the payout webhook it triggered first. */
const SCHEMA_OF = {
  payout: 'payout-webhook',
  refund: 'refund-webhook',
  payment: 'payment-webhook',
} as const satisfies Record<WebhookKind, string>;
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
    for (const kind of Object.keys(SCHEMA_OF) as WebhookKind[]) {
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

export const webhookChecks = [signatureVerified, payloadSchema, putJson] as const;
