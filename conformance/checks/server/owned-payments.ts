// A check owns what it judges (docs/verdicts.md, "A check owns what it judges, so runs repeat"): the settled payments a
// run makes for itself through payconform's /sandbox/, and the rule for a configured payment it did not make, on which
// an earlier run may have left a refund active.
import type { CheckRunEnv, Finding } from '../../check.js';
import { inconclusive } from '../../check.js';
import type { ServerAuditContext, ServerRunContext } from './context.js';
import { askState } from '../../state-hook/index.js';

type SettledPayment = ServerAuditContext['payments']['settled'][number];

/** The amount of a settled payment a refund check makes for itself through /sandbox/ (room for several refunds). */
export const OWN_PAYMENT_AMOUNT = '100.00';

/**
 * A SETTLED payment made for this check by the target's state provider (the config's state hook, or /sandbox/:
 * docs/state-hook.md); undefined when it does not make one.
 */
export async function ownSettledPayment(
  ctx: ServerRunContext,
  env: CheckRunEnv,
): Promise<SettledPayment | undefined> {
  const made = await askState(ctx, env, { state: 'settled-payment', amount: OWN_PAYMENT_AMOUNT });
  if (made.kind !== 'made') return undefined;
  const id = made.answer['paymentId'] as string;
  ctx.run.owned.add(id);
  return { paymentId: id, amount: OWN_PAYMENT_AMOUNT };
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
