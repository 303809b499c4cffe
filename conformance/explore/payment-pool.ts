// The config's settled payments as the explorer's refunds use them on a target without payconform's /sandbox/
// (docs/explorer.md, "Refunds on the config's payments"): one pool for the whole exploration, all lanes. A payment is
// lent to one sequence at a time and keeps what the model knows of it (its refunds, and the statuses their webhooks
// gave) from one sequence to the next, so its room is the model's; a payment with nothing surely left, one whose
// refund request went unanswered, or one that refused a refund fitting what this run knows is left, is no longer lent.
import { toDecimal } from '../../src/rules/money.js';
import type { ServerAuditContext } from '../checks/server/context.js';
import type { AuditRunState } from '../checks/server/run-state.js';
import { member, webhookKind } from '../checks/server/webhook-match.js';
import type { ReceivedWebhook } from '../http/webhook-listener.js';
import { stateSource } from '../state-hook/index.js';
import {
  money,
  noteRefundStatus,
  refundRoom,
  type ModelPayment,
  type SpecState,
} from '../spec-model/index.js';

interface Entry {
  readonly payment: ModelPayment;
  /** The refunds it had when the exploration began (this run's fixed checks made them). */
  readonly before: number;
  /** The sequence's model that holds it now. */
  lentTo?: SpecState;
  /** No longer lent: when (ms since the exploration began) and why. */
  retired?: { readonly atMs: number; readonly why: string };
}

export class PaymentPool {
  private readonly started = Date.now();
  private stoppedAtMs: number | undefined;

  private constructor(private readonly entries: readonly Entry[]) {}

  /**
   * The config's settled payments, each with the refunds this run's checks already made of it (their statuses come
   * from the webhooks at lending time); undefined when the target has a state provider (a state hook, or /sandbox/:
   * the explorer makes its own payments) or the config lists none.
   */
  static of(ctx: ServerAuditContext & { readonly run?: AuditRunState }): PaymentPool | undefined {
    if (stateSource(ctx) !== undefined || ctx.payments.settled.length === 0) return undefined;
    const entries = ctx.payments.settled.map((p): Entry => {
      const noted = ctx.run?.refunds.get(p.paymentId) ?? [];
      const refunds = noted.map((r) => ({
        refundId: r.id,
        amount: toDecimal(r.amount),
        createdAt: 0,
      }));
      const entry: Entry = {
        payment: {
          paymentId: p.paymentId,
          amount: toDecimal(p.amount),
          refunds,
          earlierUnknown: true,
        },
        before: refunds.length,
      };
      if (ctx.run?.tainted.has(p.paymentId) === true)
        entry.retired = { atMs: 0, why: 'a refund request of an earlier check got no answer' };
      return entry;
    });
    return new PaymentPool(entries);
  }

  /** How many payments the pool holds. */
  get size(): number {
    return this.entries.length;
  }

  /**
   * Lends a payment no other sequence holds (with the statuses of its refunds brought up to date from every webhook
   * received: some came between sequences) to the sequence of `model`; undefined when none is free.
   */
  lend(model: SpecState, received: readonly ReceivedWebhook[]): ModelPayment | undefined {
    const free = this.entries.find(
      (e) =>
        e.lentTo === undefined && e.retired === undefined && !model.payments.includes(e.payment),
    );
    if (free === undefined) return undefined;
    updateStatuses(free.payment, received);
    free.lentTo = model;
    return free.payment;
  }

  /** The sequence of `model` ended: its payments go back, and those with nothing surely left are retired. */
  release(model: SpecState): void {
    for (const e of this.entries) {
      if (e.lentTo !== model) continue;
      e.lentTo = undefined;
      if (e.retired === undefined && refundRoom(e.payment).least.units <= 0n)
        this.retire(e, 'nothing surely left to refund');
    }
  }

  /** A refund of `paymentId` got no answer: it may still be acted on, so the payment is not lent again. */
  taint(paymentId: string): void {
    this.retireId(paymentId, 'a refund request got no answer (it may still be acted on)');
  }

  /** The target refused a refund that fits what this run knows is left: an earlier run may have used the payment. */
  refusedFitting(paymentId: string): void {
    this.retireId(paymentId, 'refused a refund that fits what this run knows is left');
  }

  /** The refunds the explorer made of the pool's payments. */
  refundsMade(): number {
    return this.entries.reduce((n, e) => n + e.payment.refunds.length - e.before, 0);
  }

  /** For the run's summary: the refunds made of the config's payments, and when and why it stopped lending them. */
  summary(): string {
    const retired = this.entries.filter((e) => e.retired !== undefined);
    const why = retired.map(
      (e) =>
        `${e.payment.paymentId} (${money(e.payment.amount)}) at ${seconds(e.retired!.atMs)}: ${e.retired!.why}`,
    );
    const stopped =
      this.stoppedAtMs !== undefined
        ? `; stopped drawing refunds at ${seconds(this.stoppedAtMs)}, every configured settled payment retired`
        : '';
    return `${this.refundsMade()} refunds of the config's ${this.entries.length} settled payments${retired.length > 0 ? `; retired ${why.join('; ')}` : ''}${stopped}`;
  }

  private retireId(paymentId: string, why: string): void {
    const e = this.entries.find((x) => x.payment.paymentId === paymentId);
    if (e !== undefined && e.retired === undefined) this.retire(e, why);
  }

  private retire(e: Entry, why: string): void {
    const atMs = Date.now() - this.started;
    e.retired = { atMs, why };
    if (this.entries.every((x) => x.retired !== undefined)) this.stoppedAtMs = atMs;
  }
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** Each refund's statuses, as every refund webhook for it gave them, in any order (the model's noteRefundStatus). */
function updateStatuses(payment: ModelPayment, received: readonly ReceivedWebhook[]): void {
  for (const r of payment.refunds) {
    for (const w of received) {
      const status = member(w, 'refundStatus');
      if (
        webhookKind(w) === 'refund' &&
        member(w, 'refundId') === r.refundId &&
        status !== undefined
      )
        noteRefundStatus(r, status);
    }
  }
}
