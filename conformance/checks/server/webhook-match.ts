// Finding the webhooks that belong to what a check did (by the unique payout reference, payout id or refund id in
// the exact bytes), and the "no webhook follows a rejected request" finding every rejection check ends with.
import type { WebhookKind } from '../../../src/webhooks/kinds.js';
import type { CheckRunEnv, Evidence, Finding } from '../../run/check.js';
import { notApplicable, pass, violation } from '../../run/check.js';
import type { ReceivedWebhook, WebhookListener } from '../../http/webhook-listener.js';
import type { ServerAuditContext } from './context.js';
import { heldPayouts } from './held-payouts.js';

export type { WebhookKind };

const utf8 = new TextDecoder('utf-8');

export function bodyText(w: ReceivedWebhook): string {
  return utf8.decode(w.body);
}

/** The kind of a received webhook: from its payload members, else from the listener path it was sent to. */
export function webhookKind(w: ReceivedWebhook): WebhookKind | undefined {
  const j = w.json;
  if (typeof j === 'object' && j !== null && !Array.isArray(j)) {
    if ('payoutId' in j) return 'payout';
    if ('refundId' in j) return 'refund';
    if ('paymentId' in j) return 'payment';
  }
  const m = /\/webhooks\/(payment|payout|refund)(?:[/?]|$)/.exec(w.path);
  return m?.[1] as WebhookKind | undefined;
}

/** A member of the parsed payload, when it is a string. */
export function member(w: ReceivedWebhook, name: string): string | undefined {
  const j = w.json as Record<string, unknown> | undefined;
  const v = typeof j === 'object' && j !== null ? j[name] : undefined;
  return typeof v === 'string' ? v : undefined;
}

/** Webhooks whose exact bytes mention any of `tokens` (unique references and ids). */
export function mentioning(
  received: readonly ReceivedWebhook[],
  ...tokens: readonly string[]
): ReceivedWebhook[] {
  return received.filter((w) => {
    const text = bodyText(w);
    return tokens.some((t) => t !== '' && text.includes(t));
  });
}

/** Waits until `count` webhooks mention a token and satisfy `also`; returns those seen (maybe fewer). */
export async function waitForMentions(
  listener: WebhookListener,
  env: CheckRunEnv,
  timeoutMs: number,
  tokens: readonly string[],
  count = 1,
  also: (w: ReceivedWebhook) => boolean = () => true,
): Promise<ReceivedWebhook[]> {
  const pick = (all: readonly ReceivedWebhook[]): ReceivedWebhook[] =>
    mentioning(all, ...tokens).filter(also);
  const budget = Math.max(0, Math.min(timeoutMs, env.deadline - Date.now() - 250));
  await listener.waitFor((all) => pick(all).length >= count, {
    timeoutMs: budget,
    signal: env.signal,
  });
  return pick(listener.received());
}

/** Evidence of a received webhook: the call as it arrived (shown as the "request" the service sent). */
export function webhookEvidence(w: ReceivedWebhook, notes?: string): Evidence {
  return {
    request: { method: w.method, url: w.path, headers: w.headers, body: w.body },
    notes: `webhook #${w.seq} received by the runner, answered ${w.answeredStatus}${notes ? `; ${notes}` : ''}`,
  };
}

/**
 * After a rejected create-payout request: no payout webhook mentioning its reference(s) arrives within the quiet
 * wait. Without a listener this part is not checked, and the finding says so.
 */
export async function noPayoutFollows(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  references: readonly string[],
  what: string,
): Promise<Finding> {
  // Where the state provider lists the target's payouts (a state hook, or /sandbox/), its state answers at once,
  // whatever the load; the webhook wait below stays for every target.
  const held = await heldPayouts(ctx, env, references);
  if (held !== undefined && held.payouts.length > 0) {
    return violation(
      `the rejected ${what} still created a payout: the target lists a payout with its reference`,
      {
        requirement: 'SIG-PAYOUT-CREATE-SIGNED',
        expected: `no payout with reference ${references.join(' or ')}`,
        received: `payout(s) ${held.payouts.map((p) => p.payoutId).join(', ')}`,
        evidence: held.evidence,
      },
    );
  }
  if (ctx.webhooks === undefined) {
    return notApplicable(
      `not checked that the rejected ${what} created no payout: no webhook listener is configured (set "webhookListen")`,
      { requirement: 'SIG-PAYOUT-CREATE-SIGNED' },
    );
  }
  const seen = await waitForMentions(ctx.webhooks, env, ctx.quietWaitMs, references);
  const first = seen[0];
  if (first !== undefined) {
    return violation(
      `the rejected ${what} still created a payout: a payout webhook for its reference arrived`,
      {
        requirement: 'SIG-PAYOUT-CREATE-SIGNED',
        expected: `no payout webhook for reference ${references.join(' or ')}`,
        received: `${seen.length} webhook(s), first with status ${member(first, 'payoutStatus') ?? '(none)'}`,
        evidence: webhookEvidence(first),
      },
    );
  }
  return pass(`no payout webhook followed the rejected ${what} within ${ctx.quietWaitMs} ms`, {
    requirement: 'SIG-PAYOUT-CREATE-SIGNED',
  });
}
