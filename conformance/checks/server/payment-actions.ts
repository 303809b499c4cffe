// What the payment checks share (spec: What the service does 5 and 7, Payment statuses): the spec shows no API to create
// or move payments, so they drive payconform's /sandbox/ helper endpoints and run only against a target that has them;
// the payment webhooks of a payment; and the wait for a webhook, cut to the check's deadline.
import type { CheckRunEnv, Finding } from '../../check.js';
import { notApplicable, skip } from '../../check.js';
import type { ReceivedWebhook } from '../../webhook-listener.js';
import type { ServerAuditContext } from './context.js';
import { describeOutcome, evidenceOf, type SandboxCall } from './requests.js';
import { member, webhookKind } from './webhook-match.js';

/** Why these checks cannot run without the sandbox endpoints. */
export const NO_PAYMENT_API = 'the spec shows no API to create or move payments';

/** Not applicable: the config states the target has no /sandbox/ (checked by the engine before the check runs). */
export function sandboxAbsent(ctx: ServerAuditContext): string | undefined {
  return ctx.sandbox !== true && ctx.sandboxAbsent === true
    ? `not applicable to this target: ${NO_PAYMENT_API}, and the config states the target has no payconform /sandbox/ endpoints ("sandbox": false)`
    : undefined;
}

/**
 * What every check here gives for a target without payconform's /sandbox/ endpoints: not applicable where the config
 * states the target has none (the spec defines no such API, so nothing is missing from the run), else a skip.
 */
export function withoutSandbox(ctx: ServerAuditContext): Finding | undefined {
  if (ctx.sandbox === true) return undefined;
  const absent = sandboxAbsent(ctx);
  if (absent !== undefined) return notApplicable(absent);
  return skip(
    `${NO_PAYMENT_API} (set "sandbox": true in the config when the target implements payconform's /sandbox/ helper endpoints)`,
  );
}

/** A failing helper endpoint is payconform's extension misbehaving, not a spec violation: the check is skipped. */
export function sandboxProblem(ctx: ServerAuditContext, what: string, call: SandboxCall): Finding {
  return skip(`the /sandbox/ endpoint could not ${what} (${describeOutcome(call.ex)})`, {
    evidence: evidenceOf(ctx, call.ex),
  });
}

export const show = (v: unknown): string =>
  v === undefined ? '(absent)' : typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));

/** Payment webhooks (by payload members) for `paymentId`, optionally with `status`. */
export function paymentHooks(
  all: readonly ReceivedWebhook[],
  paymentId: string,
  status?: string,
): ReceivedWebhook[] {
  return all.filter(
    (w) =>
      webhookKind(w) === 'payment' &&
      member(w, 'paymentId') === paymentId &&
      (status === undefined || member(w, 'paymentStatus') === status),
  );
}

/** The time left for one wait: the context's webhook wait, cut to the check's deadline. */
export const waitBudget = (ctx: ServerAuditContext, env: CheckRunEnv): number =>
  Math.max(0, Math.min(ctx.webhookWaitMs, env.deadline - Date.now() - 250));
