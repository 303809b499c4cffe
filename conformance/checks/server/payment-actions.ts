// What the payment checks share (spec: What the service does 5 and 7, Payment statuses): the spec shows no API to create
// or move payments, so they ask the target's state provider for them (the state hook contract: a hook, or /sandbox/);
// the payment webhooks of a payment; and the wait for a webhook, cut to the check's deadline.
import type { CheckRunEnv, Finding } from '../../run/check.js';
import { notApplicable, skip } from '../../run/check.js';
import type { ReceivedWebhook } from '../../http/webhook-listener.js';
import { askState, hookFailed, type StateRequest } from '../../state-hook/index.js';
import type { ServerAuditContext } from './context.js';
import { member, webhookKind } from './webhook-match.js';

/** Why these checks cannot run without the sandbox endpoints. */
export const NO_PAYMENT_API = 'the spec shows no API to create or move payments';

/** Not applicable: no state hook is named and the config states the target has no /sandbox/ (checked before the run). */
export function sandboxAbsent(ctx: ServerAuditContext): string | undefined {
  return ctx.sandbox !== true && ctx.stateHook === undefined && ctx.sandboxAbsent === true
    ? `not applicable to this target: ${NO_PAYMENT_API}, no state hook is named ("stateHook", docs/state-hook.md), and the config states the target has no payconform /sandbox/ endpoints ("sandbox": false)`
    : undefined;
}

/**
 * A payment made and moved through the target's state provider (a state hook, or /sandbox/: docs/state-hook.md),
 * with its payment webhooks sent; or the finding that says why there is none: not applicable where nothing could
 * provide it (sandboxAbsent), else a skip with the provider's reason (a hook that does not offer the state: 501).
 */
export async function paymentWithWebhook(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  request: Extract<StateRequest, { state: 'payment-webhook' }>,
): Promise<
  { paymentId: string; answer: Readonly<Record<string, unknown>> } | { problem: Finding }
> {
  const absent = sandboxAbsent(ctx);
  if (absent !== undefined) return { problem: notApplicable(absent) };
  const made = await askState(ctx, env, request);
  if (made.kind !== 'made') return { problem: skip(hookFailed(ctx, made) ?? made.reason) };
  return { paymentId: String(made.answer['paymentId']), answer: made.answer };
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
