// The explorer's payment and refund commands: a settled payment made by the target's state provider (a state hook,
// or payconform's /sandbox/), or one of the config's settled payments lent from the pool (payment-pool.ts) where
// there is neither; a refund of a share of what
// is left, all of it or more; two refunds at once; a patient lane's two refunds apart; a refund of an unsettled
// payment. Each only acts and hands what came back to the spec model, as commands.ts says.
import fc from 'fast-check';
import { toDecimal, type Decimal } from '../../src/rules/money.js';
import { isSuccess, refundRequest } from '../checks/server/requests.js';
import {
  askState,
  refusalOfHookPayment,
  stateSource,
  type StateResult,
} from '../state-hook/index.js';
import {
  money,
  observePaymentMade,
  observeRefund,
  observeRefundsAtOnce,
  observeUnsettledRefund,
  refundFits,
  refundRoom,
  type ModelPayment,
} from '../spec-model/index.js';
import {
  absorbWebhooks,
  answerOf,
  NoAnswer,
  pause,
  send,
  sendApp,
  step,
  take,
  type ExplorerModel,
  type Real,
  type StepRecord,
} from './commands.js';

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

/** How a refund's amount is drawn: a share of what is left, all of it, or more than is left. */
export type RefundSize =
  | { readonly kind: 'part'; readonly percent: number }
  | { readonly kind: 'rest' }
  | { readonly kind: 'over'; readonly pence: number };

function refundAmount(payment: ModelPayment, size: RefundSize): Decimal {
  const room = refundRoom(payment);
  const cents = (d: Decimal): bigint => {
    const [whole, frac = ''] = money(d).split('.');
    return BigInt(whole!) * 100n + BigInt(frac.padEnd(2, '0').slice(0, 2));
  };
  const least = cents(room.least);
  const most = cents(room.most);
  const pence =
    size.kind === 'rest'
      ? least
      : size.kind === 'over'
        ? most + BigInt(size.pence)
        : (least * BigInt(size.percent)) / 100n;
  const p = pence < 1n ? 1n : pence;
  return toDecimal(`${p / 100n}.${String(p % 100n).padStart(2, '0')}`);
}

function sizeText(size: RefundSize): string {
  return size.kind === 'part'
    ? `${size.percent}% of what is left`
    : size.kind === 'rest'
      ? 'all that is left'
      : `${size.pence} pence more than is left`;
}

/** Sends a refund; one without an answer may still be acted on, so a lent payment is not lent again. */
async function sendRefund(real: Real, s: StepRecord, payment: ModelPayment, amount: Decimal) {
  try {
    return await sendApp(real, s, refundRequest(real.ctx, payment.paymentId, money(amount)));
  } catch (error) {
    if (error instanceof NoAnswer) real.pool?.taint(payment.paymentId);
    throw error;
  }
}

/** A configured payment refused a refund fitting what this run knows is left: the pool lends it no more. */
function noteRefusal(real: Real, payment: ModelPayment, amount: Decimal, accepted: boolean): void {
  if (!accepted && payment.earlierUnknown === true && refundFits(payment, amount))
    real.pool?.refusedFitting(payment.paymentId);
}

/** The payments the config's state hook made (the model's objects): a refusal of their first refund may be the hook's. */
const hookMade = new WeakSet<ModelPayment>();

/**
 * A refusal the state hook answers for (attribution.ts): a fitting refund of a payment it made, of which the target
 * has accepted none, refused with anything but the spec's 422 naming a payment status. The target does not know the
 * payment: the hook's error is recorded in its words and the payment leaves the sequence, never judged against the
 * target. Returns whether it was the hook's.
 */
function hookAnswers(
  model: ExplorerModel,
  real: Real,
  payment: ModelPayment,
  amount: Decimal,
  ex: Parameters<typeof answerOf>[0],
): boolean {
  if (!hookMade.has(payment) || payment.refunds.length > 0 || !refundFits(payment, amount))
    return false;
  const why = refusalOfHookPayment(ex, payment.paymentId);
  if (why === undefined) return false;
  real.observations.push(why);
  model.payments.splice(model.payments.indexOf(payment), 1);
  return true;
}

/** One refund of the `index`-th payment (modulo), of `size`: looks at the webhooks first (what finished counts). */
async function refundStep(
  model: ExplorerModel,
  real: Real,
  index: number,
  size: RefundSize,
  label: string,
): Promise<void> {
  // None left (the state hook's payment the target did not know left the sequence): nothing to refund.
  if (model.payments.length === 0) return;
  const payment = model.payments[index % model.payments.length]!;
  const amount = refundAmount(payment, size);
  const s = step(real, `${label} → ${money(amount)} of payment ${payment.paymentId}`, true);
  absorbWebhooks(model, real, s);
  const ex = await sendRefund(real, s, payment, amount);
  if (isSuccess(ex)) real.cost.refunds++;
  noteRefusal(real, payment, amount, isSuccess(ex));
  if (!hookAnswers(model, real, payment, amount, ex))
    take(real, s, observeRefund(model, payment, amount, answerOf(ex), Date.now()), [ex]);
  absorbWebhooks(model, real, s);
}

export class Refund implements fc.AsyncCommand<ExplorerModel, Real> {
  constructor(
    private readonly index: number,
    private readonly size: RefundSize,
  ) {}
  check = (model: Readonly<ExplorerModel>): boolean => model.payments.length > 0;
  run(model: ExplorerModel, real: Real): Promise<void> {
    return refundStep(model, real, this.index, this.size, this.toString());
  }
  toString(): string {
    return `refund(payment #${this.index}, ${sizeText(this.size)})`;
  }
}

/** Two refunds of one payment sent at once: at most one may be accepted (one active refund per payment). */
export class RefundPair implements fc.AsyncCommand<ExplorerModel, Real> {
  constructor(
    private readonly index: number,
    private readonly a: RefundSize,
    private readonly b: RefundSize,
  ) {}
  check = (model: Readonly<ExplorerModel>): boolean => model.payments.length > 0;
  async run(model: ExplorerModel, real: Real): Promise<void> {
    const payment = model.payments[this.index % model.payments.length]!;
    const amounts = [refundAmount(payment, this.a), refundAmount(payment, this.b)] as const;
    const s = step(
      real,
      `${this.toString()} → ${amounts.map(money).join(' and ')} of payment ${payment.paymentId}`,
      true,
    );
    absorbWebhooks(model, real, s);
    const exs = await Promise.all(amounts.map((a) => sendRefund(real, s, payment, a)));
    real.cost.refunds += exs.filter(isSuccess).length;
    // Both refused: neither was refused for the other, so each that fits counts as a refusal.
    if (!exs.some(isSuccess)) for (const a of amounts) noteRefusal(real, payment, a, false);
    take(
      real,
      s,
      observeRefundsAtOnce(model, payment, amounts, exs.map(answerOf), Date.now()),
      exs,
    );
    absorbWebhooks(model, real, s);
  }
  toString(): string {
    return `refundPairAtOnce(payment #${this.index}, ${sizeText(this.a)} and ${sizeText(this.b)})`;
  }
}

/** The payment a patient lane's two refunds apart are made of, when it has none yet (with a state provider). */
const PATIENT_PAYMENT = '1000.00';

/**
 * Two refunds of one payment, the second `gapMs` after the first was answered (a patient lane's command): one active
 * refund per payment holds however long ago the first was created.
 */
export class RefundTwice implements fc.AsyncCommand<ExplorerModel, Real> {
  constructor(
    private readonly index: number,
    private readonly a: RefundSize,
    private readonly b: RefundSize,
    private readonly gapMs: number,
  ) {}
  check = (): boolean => true;
  async run(model: ExplorerModel, real: Real): Promise<void> {
    // Its own payment when there is none yet: made by the state provider, or lent from the config's.
    if (model.payments.length === 0)
      await (real.pool !== undefined ? new TakePayment() : new CreatePayment(PATIENT_PAYMENT)).run(
        model,
        real,
      );
    if (model.payments.length === 0) return;
    await refundStep(model, real, this.index, this.a, `${this} (first)`);
    await pause(real, this.gapMs);
    await refundStep(model, real, this.index, this.b, `${this} (second)`);
  }
  toString(): string {
    return `refundTwice(payment #${this.index}, ${sizeText(this.a)}, then ${sizeText(this.b)} ${this.gapMs} ms later)`;
  }
}

/** A refund of a configured payment that is not SETTLED: refused (REFUND-SETTLED-ONLY). */
export class RefundUnsettled implements fc.AsyncCommand<ExplorerModel, Real> {
  constructor(private readonly index: number) {}
  check = (): boolean => true;
  async run(model: ExplorerModel, real: Real): Promise<void> {
    const list = real.ctx.payments.unsettled;
    const payment = list[this.index % list.length]!;
    const s = step(
      real,
      `${this.toString()} → payment ${payment.paymentId} (${payment.status})`,
      true,
    );
    const ex = await sendApp(real, s, refundRequest(real.ctx, payment.paymentId, '0.01'));
    if (isSuccess(ex)) real.cost.refunds++;
    take(real, s, observeUnsettledRefund(payment, answerOf(ex)), [ex]);
    absorbWebhooks(model, real, s);
  }
  toString(): string {
    return `refundUnsettled(payment #${this.index})`;
  }
}
