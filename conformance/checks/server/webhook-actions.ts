// What the webhook checks share (spec: Events): the runner's listener, a payout created to trigger webhooks, the
// webhooks to judge, a status webhook that must arrive (or, where no time is stated, is only recorded), and the
// signature of a webhook verified with the served key over its exact bytes.
import { getFieldValues } from '../../../src/http/message.js';
import { verifyWebhook, type ParsedRsaPublicKey } from '../../../src/webhooks/index.js';
import type { CheckRunEnv, Evidence, Finding } from '../../run/check.js';
import { observation, pass, skip, violation } from '../../run/check.js';
import type { ReceivedWebhook } from '../../http/webhook-listener.js';
import { NEED, type ServerAuditContext } from './context.js';
import {
  createSignedPayout,
  defaultDestination,
  describeOutcome,
  evidenceOf,
  isSuccess,
} from './requests.js';
import { lifecycleWaitMs, lifecycleWaitSource } from './waits.js';
import { member, mentioning, waitForMentions, webhookEvidence } from './webhook-match.js';

export const WEBHOOK_NEEDS = [...NEED.signing, ...NEED.webhooks] as const;
export const listenerOf = (ctx: ServerAuditContext) => {
  if (ctx.webhooks === undefined)
    throw new TypeError('this check needs the webhook listener (declare webhookListen in needs)');
  return ctx.webhooks;
};
export const statusOf = (w: ReceivedWebhook, kind: 'payout' | 'refund'): string | undefined =>
  member(w, kind === 'payout' ? 'payoutStatus' : 'refundStatus');

/** Creates an auto-committed payout and waits for its first webhook; a problem is a skip (other checks judge creation). */
export async function triggerPayoutWebhook(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
): Promise<{ hooks: ReceivedWebhook[] } | { problem: Finding }> {
  const { ex, reference } = await createSignedPayout(ctx, env, {
    destination: defaultDestination(ctx),
  });
  if (!isSuccess(ex))
    return {
      problem: skip(`could not create a payout to trigger a webhook (${describeOutcome(ex)})`, {
        evidence: evidenceOf(ctx, ex),
      }),
    };
  const hooks = await waitForMentions(listenerOf(ctx), env, ctx.webhookWaitMs, [reference]);
  if (hooks.length === 0)
    return {
      problem: skip(
        `no webhook arrived for the payout within ${ctx.webhookWaitMs} ms (see webhook-payout-status-changes)`,
      ),
    };
  return { hooks };
}

/** Webhooks to judge: those this check triggered, and every other one received so far in this run. */
export function judged(
  ctx: ServerAuditContext,
  own: readonly ReceivedWebhook[],
): ReceivedWebhook[] {
  const seen = new Set(own.map((w) => w.seq));
  return [
    ...own,
    ...listenerOf(ctx)
      .received()
      .filter((w) => !seen.has(w.seq)),
  ];
}

/** A status webhook for `token` (payout or refund id) with `status` arrives within `timeoutMs`. */
export async function expectStatusWebhook(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  kind: 'payout' | 'refund',
  token: string,
  status: string,
  timeoutMs: number,
  requirement: string,
  why: string,
  trigger?: Evidence,
): Promise<Finding> {
  const hooks = await waitForMentions(
    listenerOf(ctx),
    env,
    timeoutMs,
    [token],
    1,
    (w) => statusOf(w, kind) === status,
  );
  if (hooks.length > 0)
    return pass(`a ${kind} webhook with status ${status} arrived ${why}`, { requirement });
  const others = mentioning(listenerOf(ctx).received(), token);
  return violation(
    `no ${kind} webhook with status ${status} arrived within ${timeoutMs} ms ${why}`,
    {
      requirement,
      expected: `a ${kind} webhook with ${kind}Status ${status}`,
      received:
        others.length === 0
          ? 'no webhook for it'
          : `webhooks with status ${others.map((w) => statusOf(w, kind) ?? '(none)').join(', ')}`,
      ...(others[0]
        ? { evidence: webhookEvidence(others[0]) }
        : trigger
          ? { evidence: trigger }
          : {}),
    },
  );
}

/**
 * After creation in status `from`: a later status webhook must come when the runner knows the target's timers; else
 * it is recorded.
 */
export async function laterStatus(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  kind: 'payout' | 'refund',
  token: string,
  from: string,
  requirement: string,
  trigger?: Evidence,
): Promise<Finding> {
  const later = (w: ReceivedWebhook): boolean => (statusOf(w, kind) ?? from) !== from;
  // Only a stated lifecycle (the runner's timer, or config "lifecycle.withinMs") says the status must move on.
  const stated = ctx.knownTimings !== undefined || ctx.lifecycle?.withinMs !== undefined;
  // The stated time bounds the move; its webhook then gets the webhook wait (the spec states no delivery time, and a
  // long-lived or loaded target delivers a moment after it moves).
  const wait = stated ? lifecycleWaitMs(ctx) + ctx.webhookWaitMs : 0;
  const hooks = await waitForMentions(listenerOf(ctx), env, wait, [token], 1, later);
  if (hooks.length > 0)
    return pass(`a later ${kind} status webhook arrived (${statusOf(hooks[0]!, kind) ?? '?'})`, {
      requirement,
    });
  if (stated) {
    const seen = mentioning(listenerOf(ctx).received(), token);
    return violation(
      `the ${kind} moved on from ${from} (${lifecycleWaitSource(ctx)}) but no webhook for the new status arrived within ${wait} ms (that wait and the webhook wait, ${ctx.webhookWaitMs} ms)`,
      {
        requirement,
        expected: 'a webhook for each status change',
        received: `webhooks with status ${seen.map((w) => statusOf(w, kind) ?? '(none)').join(', ') || '(none)'}`,
        ...(trigger ? { evidence: trigger } : {}),
      },
    );
  }
  return observation(
    `no later ${kind} status webhook seen yet (when the ${kind} moves on from ${from} is not shown)`,
    { requirement },
  );
}

/** Lists at most three offenders and the count, for one finding about many webhooks. */
export function offenders(list: ReadonlyArray<{ w: ReceivedWebhook; why: string }>): string {
  return `${list.length} webhook(s): ${list
    .slice(0, 3)
    .map((o) => `#${o.w.seq} ${o.why}`)
    .join('; ')}${list.length > 3 ? '; …' : ''}`;
}

/** The webhooks among `hooks` whose Authorization does not verify with the served key over their exact bytes, and why. */
export function unverifiedWebhooks(
  hooks: readonly ReceivedWebhook[],
  key: ParsedRsaPublicKey,
): Array<{ w: ReceivedWebhook; why: string }> {
  return hooks.flatMap((w) => {
    const auth = getFieldValues(w.headers, 'authorization');
    const result = verifyWebhook(w.body, auth.length === 1 ? auth[0] : undefined, key);
    return result.ok ? [] : [{ w, why: `${result.code}: ${result.message}` }];
  });
}
