// Payments into the merchant's virtual account (spec: What the service does 5): the service ignores the reference a
// payment is made with and assigns its own, unique one, which the payment webhook reports. The spec shows no API to
// create payments, so this check drives payconform's /sandbox/ (payment-actions.ts).
import type { CheckRunEnv, Finding } from '../../run/check.js';
import { notApplicable, pass, skip, violation } from '../../run/check.js';
import { serverCheck, type ServerAuditContext } from './context.js';
import {
  paymentHooks,
  paymentWithWebhook,
  sandboxAbsent,
  show,
  waitBudget,
} from './payment-actions.js';
import { uniqueReference } from './requests.js';
import type { ReceivedWebhook, WebhookListener } from '../../http/webhook-listener.js';
import { webhookEvidence } from './webhook-match.js';

/** A payment the check made with the reference it passed, the reference the service reported, and the provider's answer. */
interface MadePayment {
  readonly id: string;
  readonly reference: string;
  readonly answer: Readonly<Record<string, unknown>>;
}

const referenceAssigned = serverCheck({
  id: 'payment-reference-assigned',
  title:
    'for payments into a virtual account the service ignores the reference passed and assigns its own, unique one',
  area: 'payments',
  requirements: ['PAYMENT-REFERENCE-ASSIGNED'],
  level: 'MUST',
  mutating: true,
  notApplicableTo: sandboxAbsent,
  async run(ctx, env) {
    const passed = `${uniqueReference()}-custom`;
    const made = await makeTwoPayments(ctx, env, passed);
    if ('problem' in made) return [made.problem];
    return [
      ...judgeAssigned(passed, made.payments),
      uniqueAmongAll(made.payments),
      ...(await judgeWebhookReferences(ctx, env, passed, made.payments)),
    ];
  },
});

/** Two payments made by the state provider with the reference `passed`, COMPLETED (so their webhooks are sent). */
async function makeTwoPayments(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  passed: string,
): Promise<{ payments: readonly [MadePayment, MadePayment] } | { problem: Finding }> {
  const payments: MadePayment[] = [];
  for (let i = 0; i < 2; i++) {
    const made = await paymentWithWebhook(ctx, env, {
      state: 'payment-webhook',
      status: 'COMPLETED',
      reference: passed,
    });
    if ('problem' in made) return made;
    const reference = made.answer['reference'];
    if (typeof reference !== 'string')
      return {
        problem: skip(
          `the state provider's answer names no "reference" for payment ${made.paymentId} (asked with one: docs/state-hook.md)`,
          { received: JSON.stringify(made.answer) },
        ),
      };
    payments.push({ id: made.paymentId, reference, answer: made.answer });
  }
  return { payments: payments as [MadePayment, MadePayment] };
}

/** The references the service reported: not the one passed, and different from each other. */
function judgeAssigned(passed: string, payments: readonly [MadePayment, MadePayment]): Finding[] {
  const [a, b] = payments;
  const kept = payments.filter((p) => p.reference === passed);
  return [
    kept.length > 0
      ? violation(
          `the reference passed (${passed}) was kept instead of one assigned by the service`,
          {
            requirement: 'PAYMENT-REFERENCE-ASSIGNED',
            expected: `a reference assigned by the service, not ${passed}`,
            received: `${a.reference}, ${b.reference} (the state provider's answer: ${JSON.stringify(kept[0]!.answer)})`,
          },
        )
      : pass(
          `the reference passed (${passed}) was ignored: the service assigned ${a.reference} and ${b.reference}`,
          { requirement: 'PAYMENT-REFERENCE-ASSIGNED' },
        ),
    a.reference === b.reference
      ? violation(`two payments carry the same reference ${a.reference}`, {
          requirement: 'PAYMENT-REFERENCE-ASSIGNED',
          expected: 'a unique reference per payment',
          received: `${a.reference} for payments ${a.id} and ${b.id}`,
        })
      : pass('the two payments carry different references', {
          requirement: 'PAYMENT-REFERENCE-ASSIGNED',
        }),
  ];
}

/** The payment webhooks report the assigned references as paymentRequest.reference (when they carry one). */
async function judgeWebhookReferences(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  passed: string,
  payments: readonly MadePayment[],
): Promise<Finding[]> {
  if (ctx.webhooks === undefined)
    return [
      notApplicable(
        'the references in the payment webhooks were not checked: no webhook listener is configured (set "webhookListen")',
        { requirement: 'PAYMENT-REFERENCE-ASSIGNED' },
      ),
    ];
  const seen = await webhookReferences(ctx, env, ctx.webhooks, payments);
  if ('problem' in seen) return [seen.problem];
  const { hooks, refs } = seen;
  const keptInHook = hooks.findIndex((_, i) => refs[i] === passed);
  if (keptInHook >= 0)
    return [
      violation(
        `the payment webhook reports the reference passed (${passed}) as paymentRequest.reference`,
        {
          requirement: 'PAYMENT-REFERENCE-ASSIGNED',
          expected: 'the reference the service assigned',
          received: show(refs[keptInHook]),
          evidence: webhookEvidence(hooks[keptInHook]!),
        },
      ),
    ];
  return [
    refs[0] === refs[1]
      ? violation(
          `the two payment webhooks report the same paymentRequest.reference ${show(refs[0])}`,
          {
            requirement: 'PAYMENT-REFERENCE-ASSIGNED',
            expected: 'a unique reference per payment',
            evidence: webhookEvidence(hooks[1]!),
          },
        )
      : pass(`the payment webhooks report the assigned references (${refs.map(show).join(', ')})`, {
          requirement: 'PAYMENT-REFERENCE-ASSIGNED',
        }),
  ];
}

/** The payment webhook of each payment and the paymentRequest.reference it carries, or why there is nothing to judge. */
async function webhookReferences(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  listener: WebhookListener,
  payments: readonly MadePayment[],
): Promise<{ hooks: ReceivedWebhook[]; refs: unknown[] } | { problem: Finding }> {
  await listener.waitFor((all) => payments.every((p) => paymentHooks(all, p.id).length > 0), {
    timeoutMs: waitBudget(ctx, env),
    signal: env.signal,
  });
  const found = payments.map((p) => paymentHooks(listener.received(), p.id)[0]);
  if (found.some((h) => h === undefined))
    return {
      problem: notApplicable(
        `a payment webhook for a COMPLETED payment did not arrive within ${ctx.webhookWaitMs} ms, so its reference was not checked (see webhook-payment-status-changes)`,
        { requirement: 'PAYMENT-REFERENCE-ASSIGNED' },
      ),
    };
  const hooks = found as ReceivedWebhook[];
  const refs = hooks.map(
    (h) =>
      (h.json as { paymentRequest?: { reference?: unknown } } | undefined)?.paymentRequest
        ?.reference,
  );
  if (refs.some((r) => r === undefined))
    return {
      problem: notApplicable(
        'the payment webhooks carry no paymentRequest.reference (optional in the payload)',
        { requirement: 'PAYMENT-REFERENCE-ASSIGNED' },
      ),
    };
  return { hooks, refs };
}

/** No other payment the target holds (any application) carries one of these references, as the provider names them. */
function uniqueAmongAll(ours: readonly MadePayment[]): Finding {
  const others = ours.map((o) => o.answer['otherPaymentsWithReference']);
  if (!others.every((l): l is string[] => Array.isArray(l)))
    return notApplicable(
      'uniqueness among all payments not checked: the state provider\'s answer does not list the other payments with the reference ("otherPaymentsWithReference", docs/state-hook.md)',
      { requirement: 'PAYMENT-REFERENCE-ASSIGNED' },
    );
  const clashes = ours.flatMap((o, i) =>
    others[i]!.map((id) => `${o.reference} also on payment ${show(id)}`),
  );
  return clashes.length > 0
    ? violation(
        `an assigned reference is not unique among the target's payments: ${clashes.slice(0, 3).join('; ')}`,
        {
          requirement: 'PAYMENT-REFERENCE-ASSIGNED',
          expected: 'a reference no other payment carries',
          received: clashes.join('; '),
        },
      )
    : pass(
        'the state provider names no other payment the target holds (every application) with either reference',
        { requirement: 'PAYMENT-REFERENCE-ASSIGNED' },
      );
}

export const paymentReferenceChecks = [referenceAssigned] as const;
