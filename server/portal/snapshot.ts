// What the portal's views read: the applications of this process, and the payments, payouts, refunds and webhook URL
// settings as the state store holds them (the same in memory, or across instances on Redis).
import type { ServiceContext } from '../context.js';
import type { Application, Payment, Payout, Refund } from '../state.js';
import type { WebhookKind } from '../webhook-delivery.js';

export interface PortalState {
  readonly applications: ReadonlyMap<string, Application>;
  readonly payments: ReadonlyMap<string, Payment>;
  readonly payouts: ReadonlyMap<string, Payout>;
  readonly refunds: ReadonlyMap<string, Refund>;
  readonly webhookUrls: ReadonlyMap<string, Partial<Record<WebhookKind, string>>>;
  refundsOf(paymentId: string): Refund[];
}

/** Reads the store once per page (one listing each), so a page never mixes two moments. */
export async function loadPortalState(ctx: ServiceContext): Promise<PortalState> {
  const [payments, payouts, refunds, webhookUrls] = await Promise.all([
    ctx.store.listPayments(),
    ctx.store.listPayouts(),
    ctx.store.listRefunds(),
    ctx.store.loadWebhookUrls(),
  ]);
  const byId = <T>(items: readonly T[], id: (item: T) => string) =>
    new Map(items.map((i) => [id(i), i]));
  return {
    applications: ctx.state.applications,
    payments: byId(payments, (p) => p.paymentId),
    payouts: byId(payouts, (p) => p.payoutId),
    refunds: byId(refunds, (r) => r.refundId),
    webhookUrls,
    refundsOf: (paymentId) => refunds.filter((r) => r.paymentId === paymentId),
  };
}
