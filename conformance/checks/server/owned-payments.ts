// A check owns what it judges (docs/verdicts.md, "A check owns what it judges, so runs repeat"): the settled payments a
// run makes for itself through payconform's /sandbox/, and the rule for a configured payment it did not make, on which
// an earlier run may have left a refund active.
import type { CheckRunEnv, Finding } from '../../run/check.js';
import { inconclusive, skip } from '../../run/check.js';
import type { RecordedExchange } from '../../http/http-client.js';
import type { ServerAuditContext, ServerRunContext } from './context.js';
import { askState, hookFailed, refusalOfHookPayment, stateSource } from '../../state-hook/index.js';

type SettledPayment = ServerAuditContext['payments']['settled'][number];

/** The amount of a settled payment a refund check makes for itself through /sandbox/ (room for several refunds). */
export const OWN_PAYMENT_AMOUNT = '100.00';

/**
 * A SETTLED payment made for this check by the target's state provider (the config's state hook, or /sandbox/:
 * docs/state-hook.md); undefined when it does not make one (the config's payments are used instead); the problem,
 * the hook's error in its words, when the config's hook failed (a broken hook is said, not quietly replaced).
 */
export async function ownSettledPayment(
  ctx: ServerRunContext,
  env: CheckRunEnv,
): Promise<SettledPayment | { problem: string } | undefined> {
  const made = await askState(ctx, env, { state: 'settled-payment', amount: OWN_PAYMENT_AMOUNT });
  const failed = hookFailed(ctx, made);
  if (failed !== undefined) return { problem: `no settled payment of its own: ${failed}` };
  if (made.kind !== 'made') return undefined;
  const id = made.answer['paymentId'] as string;
  ctx.run.owned.add(id);
  return { paymentId: id, amount: OWN_PAYMENT_AMOUNT };
}

/**
 * Why the refusal `ex` of a refund of `paymentId` is the state hook's error (attribution.ts): the config's hook made the
 * payment and the target has accepted no refund of it yet; undefined where the answer stays the target's.
 */
export function hookAnswersFor(
  ctx: ServerRunContext,
  paymentId: string,
  ex: RecordedExchange,
): string | undefined {
  const made = stateSource(ctx) === 'hook' && ctx.run.owned.has(paymentId);
  const first = (ctx.run.refunds.get(paymentId) ?? []).length === 0;
  return made && first ? refusalOfHookPayment(ex, paymentId) : undefined;
}

/**
 * A refusal of a refund of a payment the run made: where the config's state hook made it and the target accepted no
 * refund of it yet, a refusal other than the spec's 422 naming a payment status is the hook's error (the target does
 * not know the payment: attribution.ts), a skip in the hook's words, never a violation; else the target's, as
 * `undecidedOnForeignPayment` leaves it.
 */
export function judgeRefusal(
  ctx: ServerRunContext,
  paymentId: string,
  ex: RecordedExchange,
  findings: readonly Finding[],
): Finding[] {
  const hooks = hookAnswersFor(ctx, paymentId, ex);
  if (hooks === undefined) return undecidedOnForeignPayment(ctx, paymentId, findings);
  const evidence = findings.find((f) => f.outcome === 'violation')?.evidence;
  return [
    ...findings.filter((f) => f.outcome !== 'violation'),
    skip(hooks, evidence !== undefined ? { evidence } : {}),
  ];
}

/**
 * A configured payment was not made by this run: an earlier run (against a long-lived target) may have left a refund
 * active on it, which the spec shows no way to see, so its refusal of a refund is undecided, never a failure.
 */
export function undecidedOnForeignPayment(
  ctx: ServerRunContext,
  paymentId: string,
  findings: readonly Finding[],
): Finding[] {
  if (ctx.run.owned.has(paymentId)) return [...findings];
  return findings.map((f) =>
    f.outcome !== 'violation'
      ? f
      : inconclusive(
          `${f.message} (undecided: payment ${paymentId} comes from the config, not from this run, and may hold an active refund an earlier run left, which the spec allows only one of and shows no way to see; give the config a payment with no active refund, or a target with payconform's /sandbox/)`,
          {
            ...(f.requirement !== undefined ? { requirement: f.requirement } : {}),
            ...(f.expected !== undefined ? { expected: f.expected } : {}),
            ...(f.received !== undefined ? { received: f.received } : {}),
            ...(f.evidence !== undefined ? { evidence: f.evidence } : {}),
          },
        ),
  );
}
