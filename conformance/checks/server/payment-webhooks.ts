// Payment webhooks (spec: What the service does 7, Payment statuses, Events, Payment webhook payload): a payment that
// reaches COMPLETED, SETTLED and FAILED produces a payment webhook for each, signed over the exact bytes with the
// served key and schema-valid, and every payment status reported is from the spec's list. Payments are made and moved
// by the target's state provider, through the state hook contract (payment-actions.ts, docs/state-hook.md).
import { validatePayload } from '../../../src/schemas/index.js';
import { isOneOf, paymentStatuses, paymentWebhookStatuses } from '../../../src/schemas/statuses.js';
import type { CheckRunEnv, Finding } from '../../run/check.js';
import { notApplicable, observation, pass, violation } from '../../run/check.js';
import type { ReceivedWebhook } from '../../http/webhook-listener.js';
import { NEED, serverCheck, type ServerAuditContext } from './context.js';
import {
  paymentHooks,
  paymentWithWebhook,
  sandboxAbsent,
  show,
  waitBudget,
} from './payment-actions.js';
import { fetchPublicKey } from './served-key.js';
import { unverifiedWebhooks } from './webhook-actions.js';
import { member, webhookEvidence } from './webhook-match.js';

/** Spec, States and transitions / Payment statuses (the one list, src/schemas/statuses.ts). */
const PAYMENT_STATUSES: readonly string[] = paymentStatuses;

interface DrivenPayment {
  readonly paymentId: string;
  /** The status the state provider reports the payment in after its moves. */
  readonly reported: unknown;
  /** The statuses the payment went through, in order (each should send a payment webhook). */
  readonly moves: readonly string[];
}

/** A payment made and moved to `status` through the state provider (SETTLED: through COMPLETED, a webhook for each). */
async function drivePayment(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  status: 'SETTLED' | 'FAILED',
): Promise<DrivenPayment | { problem: Finding }> {
  const made = await paymentWithWebhook(ctx, env, { state: 'payment-webhook', status });
  if ('problem' in made) return made;
  const moves = status === 'SETTLED' ? ['COMPLETED', 'SETTLED'] : [status];
  return { paymentId: made.paymentId, reported: made.answer['status'], moves };
}

/** The payment webhooks the check waits for: the settled payment's COMPLETED and SETTLED, the failed one's FAILED. */
type Expected = ReadonlyArray<{ readonly payment: DrivenPayment; readonly status: string }>;

const paymentStatusChanges = serverCheck({
  id: 'webhook-payment-status-changes',
  title:
    'a payment webhook arrives when a payment reaches COMPLETED, SETTLED and FAILED, verified and schema-valid',
  area: 'webhooks',
  requirements: [
    'WEBHOOK-PAYMENT-EMITTED',
    'PAYMENT-STATUS-VALUES',
    'WEBHOOK-AUTHORIZATION',
    'WEBHOOK-PAYMENT-PAYLOAD',
  ],
  level: 'MUST',
  needs: NEED.webhooks,
  mutating: true,
  notApplicableTo: sandboxAbsent,
  async run(ctx, env) {
    const listener = ctx.webhooks;
    if (listener === undefined)
      throw new TypeError('this check needs the webhook listener (declare webhookListen in needs)');
    const [key, settled, failed] = await Promise.all([
      fetchPublicKey(ctx, env),
      drivePayment(ctx, env, 'SETTLED'),
      drivePayment(ctx, env, 'FAILED'),
    ]);
    if ('problem' in settled) return [settled.problem];
    if ('problem' in failed) return [failed.problem];
    // Spec, Payment webhook payload: a payment webhook is sent for each status of paymentWebhookStatuses reached.
    const expected: Expected = [settled, failed].flatMap((payment) =>
      payment.moves
        .filter((status) => isOneOf(paymentWebhookStatuses, status))
        .map((status) => ({ payment, status })),
    );
    const wait = waitBudget(ctx, env);
    await listener.waitFor(
      (all) => expected.every((e) => paymentHooks(all, e.payment.paymentId, e.status).length > 0),
      { timeoutMs: wait, signal: env.signal },
    );
    const all = listener.received();
    const ours = [...paymentHooks(all, settled.paymentId), ...paymentHooks(all, failed.paymentId)];
    const emitted = judgeEmitted(expected, all, wait);
    return [
      judgeStatusValues([settled, failed], ours),
      ...emitted.findings,
      ...(emitted.arrived.length > 0 ? judgeArrived(ctx, emitted.arrived, key) : []),
      noteAwaitingWebhook(ours),
    ];
  },
});

/** Statuses the service reported (the state provider's answers and the webhooks) are from the spec's list. */
function judgeStatusValues(
  payments: readonly DrivenPayment[],
  ours: readonly ReceivedWebhook[],
): Finding {
  const offList = [
    ...payments
      .filter((p) => !PAYMENT_STATUSES.includes(String(p.reported)))
      .map((p) => ({
        what: `payment ${p.paymentId} reported by the state provider as ${show(p.reported)}`,
        evidence: undefined,
      })),
    ...ours
      .filter((w) => !PAYMENT_STATUSES.includes(member(w, 'paymentStatus') ?? ''))
      .map((w) => ({
        what: `webhook #${w.seq} with paymentStatus ${show((w.json as Record<string, unknown> | undefined)?.['paymentStatus'])}`,
        evidence: webhookEvidence(w),
      })),
  ];
  if (offList.length > 0) {
    const evidence = offList.find((o) => o.evidence !== undefined)?.evidence;
    return violation(
      `a payment status outside the spec's list: ${offList.map((o) => o.what).join('; ')}`,
      {
        requirement: 'PAYMENT-STATUS-VALUES',
        expected: PAYMENT_STATUSES.join(', '),
        ...(evidence !== undefined ? { evidence } : {}),
      },
    );
  }
  const seen = new Set([
    ...payments.map((p) => String(p.reported)),
    ...ours.map((w) => member(w, 'paymentStatus') ?? ''),
  ]);
  return pass(`every payment status reported is from the list (${[...seen].join(', ')})`, {
    requirement: 'PAYMENT-STATUS-VALUES',
  });
}

/** One webhook per expected status: the ones that arrived, and a failure for each that did not within `wait`. */
function judgeEmitted(
  expected: Expected,
  all: readonly ReceivedWebhook[],
  wait: number,
): { findings: Finding[]; arrived: ReceivedWebhook[] } {
  const findings: Finding[] = [];
  const arrived: ReceivedWebhook[] = [];
  for (const e of expected) {
    const hook = paymentHooks(all, e.payment.paymentId, e.status)[0];
    if (hook !== undefined) {
      arrived.push(hook);
      continue;
    }
    const seen = paymentHooks(all, e.payment.paymentId).map(
      (w) => member(w, 'paymentStatus') ?? '(none)',
    );
    findings.push(
      violation(
        `no payment webhook with paymentStatus ${e.status} arrived within ${wait} ms after the state provider moved payment ${e.payment.paymentId} to ${e.status}`,
        {
          requirement: 'WEBHOOK-PAYMENT-EMITTED',
          expected: `a payment webhook with paymentStatus ${e.status}`,
          received:
            seen.length === 0
              ? 'no payment webhook for this payment'
              : `payment webhooks with paymentStatus ${seen.join(', ')}`,
        },
      ),
    );
  }
  if (arrived.length === expected.length)
    findings.push(
      pass('payment webhooks arrived for COMPLETED, SETTLED and FAILED', {
        requirement: 'WEBHOOK-PAYMENT-EMITTED',
      }),
    );
  return { findings, arrived };
}

/** Spec: a webhook is sent for COMPLETED, SETTLED and FAILED; it does not say none is sent for AWAITING_AUTHORIZATION. */
function noteAwaitingWebhook(ours: readonly ReceivedWebhook[]): Finding {
  const awaiting = ours.filter((w) => member(w, 'paymentStatus') === 'AWAITING_AUTHORIZATION');
  return observation(
    awaiting.length > 0
      ? `a payment webhook was sent for AWAITING_AUTHORIZATION (#${awaiting[0]!.seq}); the spec names webhooks for COMPLETED, SETTLED and FAILED without forbidding others, though its payload lists only those three statuses`
      : 'no payment webhook was sent for AWAITING_AUTHORIZATION (the spec names webhooks only for COMPLETED, SETTLED and FAILED)',
    {
      requirement: 'WEBHOOK-PAYMENT-EMITTED',
      ...(awaiting[0] ? { evidence: webhookEvidence(awaiting[0]) } : {}),
    },
  );
}

/** Signature (served key, exact bytes) and schema of the payment webhooks that arrived. */
function judgeArrived(
  ctx: ServerAuditContext,
  arrived: readonly ReceivedWebhook[],
  key: Awaited<ReturnType<typeof fetchPublicKey>>,
): Finding[] {
  const findings: Finding[] = [];
  if (!key.ok) {
    findings.push(
      notApplicable(
        `payment webhook signatures not verified: ${key.message} (see public-key-form)`,
        { requirement: 'WEBHOOK-AUTHORIZATION' },
      ),
    );
  } else {
    const bad = unverifiedWebhooks(arrived, key.key);
    findings.push(
      bad.length > 0
        ? violation(
            `payment webhook signatures do not verify with the served key over the exact bytes: ${bad.map((b) => `#${b.w.seq} ${b.why}`).join('; ')}`,
            {
              requirement: 'WEBHOOK-AUTHORIZATION',
              expected: 'Authorization: SHA256withRSA <base64> over the body as sent',
              evidence: webhookEvidence(bad[0]!.w),
            },
          )
        : pass(`${arrived.length} payment webhook(s) verified with the served key`, {
            requirement: 'WEBHOOK-AUTHORIZATION',
          }),
    );
  }
  const invalid = arrived.flatMap((w) => {
    if (w.json === undefined) return [{ w, why: 'the body is not JSON' }];
    const result = validatePayload('payment-webhook', w.json);
    return result.valid
      ? []
      : [
          {
            w,
            why: result.errors
              .slice(0, 3)
              .map((e) => `${e.pointer || '(root)'}: ${e.message}`)
              .join(', '),
          },
        ];
  });
  findings.push(
    invalid.length > 0
      ? violation(
          `payment webhook payloads do not match schemas/payment-webhook.schema.json: ${invalid.map((b) => `#${b.w.seq} ${b.why}`).join('; ')}`,
          { requirement: 'WEBHOOK-PAYMENT-PAYLOAD', evidence: webhookEvidence(invalid[0]!.w) },
        )
      : pass(`${arrived.length} payment webhook payload(s) match the schema`, {
          requirement: 'WEBHOOK-PAYMENT-PAYLOAD',
        }),
  );
  return findings;
}

export const paymentWebhookChecks = [paymentStatusChanges] as const;
