// One active refund per payment, judged over time (spec: Limits, "the next cannot start until the previous one has
// finished"): when a second refund of a payment was accepted, the spec model's overlap judge decides, on what the
// spec states (the first refund's webhooks, or their absence within the wait), whether it was still active then.
import { toDecimal } from '../../../src/rules/money.js';
import type { CheckRunEnv } from '../../run/check.js';
import type { RecordedExchange } from '../../http/http-client.js';
import {
  judgeActiveOverlap,
  REFUND_CREATED_STATUS,
  settleOverlap,
  type ActiveOverlap,
  type Judgement,
} from '../../spec-model/index.js';
import type { ReceivedWebhook } from '../../http/webhook-listener.js';
import type { ServerAuditContext } from './context.js';
import { PARTIAL_REFUND_AMOUNT } from './refund-actions.js';
import { describeOutcome, jsonObject } from './requests.js';
import { member, waitForMentions } from './webhook-match.js';

/**
 * A second refund was accepted: the spec model's judge of one active refund over time (judgeActiveOverlap), fed the
 * first refund's webhooks. Only what the spec states decides: the first was created IN_PROGRESS and each status
 * change produces a webhook, so no webhook showing it leave IN_PROGRESS within the webhook wait after the second was
 * accepted fails REFUND-ONE-ACTIVE. A webhook showing it left, whenever it arrives and whatever its eventTimeUtc,
 * decides nothing (`finished` says what it showed: the caller tries another pair): the spec states no delivery time
 * and does not make eventTimeUtc the moment of the change (docs/verdicts.md, "Readings the spec does not state").
 * Undefined both ways: the first refund has no id to follow. `at`: when each refund's answer arrived.
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
    by: secondAt + ctx.webhookWaitMs,
    settled: false,
  };
  const left = (w: ReceivedWebhook): boolean =>
    (member(w, 'refundStatus') ?? REFUND_CREATED_STATUS) !== REFUND_CREATED_STATUS;
  // A first refund that finished must send the webhook of that change (each status change produces one): waited
  // for as a webhook that must come, not a quiet wait, so a delivery slowed by load is not read as "still active".
  const hooks =
    ctx.webhooks === undefined
      ? []
      : await waitForMentions(ctx.webhooks, env, Math.max(0, o.by - Date.now()), [id], 1, left);
  const out = hooks.find(left);
  if (out !== undefined) {
    const status = member(out, 'refundStatus')!;
    const note = settleOverlap(o, earlier, status, member(out, 'eventTimeUtc'));
    const after = out.receivedAt - secondAt;
    return {
      finished: `a webhook announced it ${status} ${after >= 0 ? `${after} ms after` : `${-after} ms before`} the second refund's answer arrived; the spec states no delivery time, so it may have finished before the second was accepted${note !== undefined ? `; ${note}` : ''}`,
    };
  }
  // The wait is over: no webhook shows the first refund left IN_PROGRESS.
  const judgement = judgeActiveOverlap(o, Math.max(Date.now(), o.by));
  return judgement !== undefined ? { judgement } : {};
}
