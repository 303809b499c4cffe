// How long a server check waits for the target's own processing (a lifecycle step, a webhook, a redelivery): from
// what the runner set (embedded service), what the config states of the target, or the default wait, always bounded
// and always named in the finding (docs/verdicts.md, "Waits that fit the target").
import type { ServerAuditContext } from './context.js';

/**
 * A time the config states is waited with this tolerance added (the larger of 250 ms and a quarter of it): timers on
 * both sides fire late on a busy machine, and a stated interval is the target's promise, not a measurement.
 */
export function withTolerance(ms: number): number {
  return ms + Math.max(250, Math.ceil(ms / 4));
}

/**
 * The wait for one automatic lifecycle step (IN_PROGRESS → PROCESSED...): what the runner set, else the config's
 * `lifecycle.withinMs` (with tolerance), 0 when the config says the target moves nothing by itself
 * (`lifecycle.automatic: false`), else the webhook wait.
 */
export function lifecycleWaitMs(ctx: ServerAuditContext): number {
  if (ctx.knownTimings !== undefined) return ctx.knownTimings.lifecycleWithinMs;
  if (ctx.lifecycle?.automatic === false) return 0;
  if (ctx.lifecycle?.withinMs !== undefined) return withTolerance(ctx.lifecycle.withinMs);
  return ctx.webhookWaitMs;
}

/** Where the wait comes from, for messages. */
export function lifecycleWaitSource(ctx: ServerAuditContext): string {
  if (ctx.knownTimings !== undefined) return 'the lifecycle timer the runner set';
  if (ctx.lifecycle?.automatic === false) return 'config "lifecycle.automatic": false';
  if (ctx.lifecycle?.withinMs !== undefined)
    return `config "lifecycle.withinMs" ${ctx.lifecycle.withinMs} ms with tolerance`;
  return 'the webhook wait (no "lifecycle" in the config)';
}

/**
 * The wait for one redelivery, measured from the answer to the previous delivery: the runner's retry timer, else the
 * config's `webhookRetry.withinMs` (with tolerance) or `waitMs`, else the webhook wait.
 */
export function redeliveryWaitMs(ctx: ServerAuditContext): number {
  if (ctx.knownTimings !== undefined) return ctx.knownTimings.redeliveryWithinMs;
  if (ctx.redelivery !== undefined)
    return ctx.redelivery.stated ? withTolerance(ctx.redelivery.waitMs) : ctx.redelivery.waitMs;
  return ctx.webhookWaitMs;
}
