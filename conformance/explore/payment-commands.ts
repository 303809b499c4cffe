// The explorer's payment commands: a settled payment made by the target's state provider (a state hook, or
// payconform's /sandbox/), or one of the config's settled payments lent from the pool (payment-pool.ts) where there is
// neither; and what the state hook did when asked. Each only acts and hands what came back to the spec model.
import fc from 'fast-check';
import { askState, stateSource, type StateResult } from '../state-hook/index.js';
import { money, observePaymentMade, refundRoom, type ModelPayment } from '../spec-model/index.js';
import { absorbWebhooks, step, take, type ExplorerModel, type Real } from './commands.js';

/** What the config's state hook did when the explorer asked it for payments: asked, made, and its last error. */
export interface HookPaymentTally {
  asked: number;
  made: number;
  lastFailure?: string;
}

const hookTallies = new WeakMap<object, HookPaymentTally>();

/**
 * The explorer's settled-payment calls of the config's hook in explorations of `ctx` (undefined: none asked, or no
 * hook): an exploration whose every call failed judged no refund, which is the hook's error, never a pass.
 */
export function hookPaymentTally(ctx: object): Readonly<HookPaymentTally> | undefined {
  return hookTallies.get(ctx);
}

function countHookPayment(real: Real, made: StateResult): void {
  if (stateSource(real.ctx) !== 'hook') return;
  let tally = hookTallies.get(real.ctx);
  if (tally === undefined) hookTallies.set(real.ctx, (tally = { asked: 0, made: 0 }));
  tally.asked++;
  if (made.kind === 'made') tally.made++;
  else tally.lastFailure = made.reason;
}

/**
 * A settled payment made for the run by the target's state provider (the config's state hook, or payconform's
 * /sandbox/: docs/state-hook.md), asked through the one contract; the spec shows no way to make one.
 */
export class CreatePayment implements fc.AsyncCommand<ExplorerModel, Real> {
  constructor(private readonly amount: string) {}
  check = (model: Readonly<ExplorerModel>): boolean => model.payments.length < 3;
  async run(model: ExplorerModel, real: Real): Promise<void> {
    const s = step(real, this.toString(), true);
    const made = await askState(real.ctx, real.env, {
      state: 'settled-payment',
      amount: this.amount,
    });
    countHookPayment(real, made);
    const before = model.payments.length;
    const answer =
      made.kind === 'made'
        ? { accepted: true, outcome: 'made', body: { ...made.answer } }
        : { accepted: false, outcome: made.reason };
    take(real, s, observePaymentMade(model, this.amount, answer));
    if (stateSource(real.ctx) === 'hook')
      for (const p of model.payments.slice(before)) hookMade.add(p);
    real.cost.payments += model.payments.length - before;
  }
  toString(): string {
    return `settledPayment(amount=${this.amount})`;
  }
}

/** A settled payment of `amount` made for the run (as CreatePayment makes it); undefined when none was made. */
export async function makePayment(
  model: ExplorerModel,
  real: Real,
  amount: string,
): Promise<ModelPayment | undefined> {
  const before = model.payments.length;
  await new CreatePayment(amount).run(model, real);
  return model.payments[before];
}

/**
 * One of the config's settled payments, lent to this sequence from the pool (no other sequence refunds it until this
 * one ends), with what the model knows of it from earlier sequences; a step that finds none free takes none.
 */
export class TakePayment implements fc.AsyncCommand<ExplorerModel, Real> {
  check = (model: Readonly<ExplorerModel>): boolean => model.payments.length < 3;
  async run(model: ExplorerModel, real: Real): Promise<void> {
    // None free (each held by another sequence, or retired): nothing is done, and no step is counted.
    const payment = real.pool?.lend(model, real.ctx.webhooks?.received() ?? []);
    if (payment === undefined) return;
    const s = step(
      real,
      `${this.toString()} → payment ${payment.paymentId} (${money(payment.amount)}, ${money(refundRoom(payment).least)} surely left)`,
      true,
    );
    model.payments.push(payment);
    absorbWebhooks(model, real, s);
  }
  toString(): string {
    return 'configuredPayment()';
  }
}

/** The payments the config's state hook made (the model's objects): a refusal of their first refund may be the hook's. */
export const hookMade = new WeakSet<ModelPayment>();
