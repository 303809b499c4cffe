// One active refund per payment, judged over time (spec: Limits, "the next cannot start until the previous one has
// finished"): when a second refund of a payment was accepted, the spec model's overlap judge decides from the first
// refund's webhooks whether it was still active then.
import { toDecimal } from '../../../src/rules/money.js';
import type { CheckRunEnv } from '../../check.js';
import type { RecordedExchange } from '../../http-client.js';
import {
  judgeActiveOverlap,
  REFUND_CREATED_STATUS,
  settleOverlap,
  show,
  type ActiveOverlap,
  type Judgement,
} from '../../spec-model/index.js';
import type { ReceivedWebhook } from '../../webhook-listener.js';
import type { ServerAuditContext } from './context.js';
import { PARTIAL_REFUND_AMOUNT } from './refund-actions.js';
import { describeOutcome, jsonObject } from './requests.js';
import { member, waitForMentions } from './webhook-match.js';

/**
 * A second refund was accepted: the spec model's judge of one active refund over time (judgeActiveOverlap), fed the
 * first refund's webhooks that show it left IN_PROGRESS. The target's own clock decides: the eventTimeUtc of that
 * webhook against the second refund's createdAtUtc. `finished` says how the first had finished before the second was
 * created (the pair shows nothing); undefined both ways: the first refund has no id to follow. `at`: when each
 * refund's answer arrived.
 */
export async function judgeOverlap(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  paymentId: string,
  first: { readonly refund: Record<string, unknown>; readonly at: number },
  ex: RecordedExchange,
  secondAt: number,
): Promise<{ judgement?: Judgement; finished?: string }> {
  const id = first.refund['refundPaymentId'];
  if (typeof id !== 'string') return {};
  const second = jsonObject(ex);
  const amount = toDecimal(PARTIAL_REFUND_AMOUNT);
  // When each answer arrived (the model's message says how long before the second the first was accepted).
  const earlier = { refundId: id, amount, createdAt: first.at };
  const later = { refundId: String(second?.['refundPaymentId']), amount, createdAt: secondAt };
  const o: ActiveOverlap = {
    payment: { paymentId, amount, refunds: [earlier, later] },
    earlier,
    later,
    answer: describeOutcome(ex),
    laterCreatedAtUtc: second?.['createdAtUtc'],
    by: Date.now() + ctx.webhookWaitMs,
    settled: false,
  };
  const left = (w: ReceivedWebhook): boolean =>
    (member(w, 'refundStatus') ?? REFUND_CREATED_STATUS) !== REFUND_CREATED_STATUS;
  // A first refund that finished must send the webhook of that change (each status change produces one): waited
  // for as a webhook that must come, not a quiet wait, so a delivery slowed by load is not read as "still active".
  // The timestamps decide, so a longer wait cannot hide a second refund accepted while the first was active.
  const hooks =
    ctx.webhooks === undefined
      ? []
      : await waitForMentions(ctx.webhooks, env, ctx.webhookWaitMs, [id], 1, left);
  for (const w of hooks.filter(left)) {
    settleOverlap(o, member(w, 'refundStatus')!, member(w, 'eventTimeUtc'));
    if (o.settled)
      return {
        finished: `${member(w, 'refundStatus')} at ${member(w, 'eventTimeUtc')}, second refund created at ${show(o.laterCreatedAtUtc)}`,
      };
    if (o.finishedAfter !== undefined) break;
  }
  // The wait is over: no webhook shows the first refund finished before the second was created.
  const judgement = judgeActiveOverlap(o, Math.max(Date.now(), o.by));
  return judgement !== undefined ? { judgement } : {};
}
