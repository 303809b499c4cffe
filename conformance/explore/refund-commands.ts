// The explorer's refund commands: a refund of a share of what is left, all of it or more; two refunds at once; a
// payment's refunds moved on until they have finished (the state provider's refund-status, or the target's own
// lifecycle), alone or between two refunds; a small payment refunded in parts, each finished before the next, then
// exactly what is left; a patient lane's two refunds apart; a refund of an unsettled payment. The payments they refund
// are made by payment-commands.ts. Each only acts and hands what came back to the spec model, as commands.ts says.
import fc from 'fast-check';
import { toDecimal, type Decimal } from '../../src/rules/money.js';
import { isSuccess, refundRequest } from '../checks/server/requests.js';
import { member, webhookKind } from '../checks/server/webhook-match.js';
import type { ReceivedWebhook } from '../http/webhook-listener.js';
import { askState, refusalOfHookPayment, stateSource } from '../state-hook/index.js';
import {
  finishedRefundStatuses,
  isIn,
  money,
  observeRefund,
  observeRefundsAtOnce,
  observeUnsettledRefund,
  refundFinished,
  refundFits,
  refundRoom,
  statusesSeen,
  type ModelPayment,
  type ModelRefund,
} from '../spec-model/index.js';
import {
  absorbWebhooks,
  answerOf,
  NoAnswer,
  pause,
  sendApp,
  step,
  take,
  type ExplorerModel,
  type Real,
  type StepRecord,
} from './commands.js';
import { penceText } from './values.js';
import { CreatePayment, makePayment, TakePayment, hookMade } from './payment-commands.js';

/** How a refund's amount is drawn: a share of what is left, all of it, more than is left, or an exact amount. */
export type RefundSize =
  | { readonly kind: 'part'; readonly percent: number }
  | { readonly kind: 'rest' }
  | { readonly kind: 'over'; readonly pence: number }
  | { readonly kind: 'exact'; readonly pence: number };

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
        : size.kind === 'exact'
          ? BigInt(size.pence)
          : (least * BigInt(size.percent)) / 100n;
  return toDecimal(penceText(pence < 1n ? 1n : pence));
}

function sizeText(size: RefundSize): string {
  switch (size.kind) {
    case 'part':
      return `${size.percent}% of what is left`;
    case 'rest':
      return 'all that is left';
    case 'over':
      return `${size.pence} pence more than is left`;
    case 'exact':
      return penceText(size.pence);
  }
}

/** What the step says of the payment's earlier refunds: whether each has finished as far as its webhooks show. */
function earlierText(payment: ModelPayment): string {
  const n = payment.refunds.length;
  if (n === 0) return '';
  return payment.refunds.every(refundFinished)
    ? `, after ${n} earlier refund(s), every one finished`
    : `, after ${n} earlier refund(s), not every one shown finished`;
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

/** The `index`-th payment (modulo); undefined when there is none (the state hook's payments may leave the sequence). */
const paymentAt = (model: ExplorerModel, index: number): ModelPayment | undefined =>
  model.payments.length === 0 ? undefined : model.payments[index % model.payments.length];

/** One refund of the `index`-th payment (modulo), of `size`. */
async function refundStep(
  model: ExplorerModel,
  real: Real,
  index: number,
  size: RefundSize,
  label: string,
): Promise<void> {
  const payment = paymentAt(model, index);
  // None left (the state hook's payment the target did not know left the sequence): nothing to refund.
  if (payment !== undefined) await refundOf(model, real, payment, size, label);
}

/** One refund of `payment`, of `size`: looks at the webhooks first (what finished counts). Returns its step. */
async function refundOf(
  model: ExplorerModel,
  real: Real,
  payment: ModelPayment,
  size: RefundSize,
  label: string,
): Promise<StepRecord | undefined> {
  // It left the sequence (the state hook's, unknown to the target): nothing to refund.
  if (!model.payments.includes(payment)) return undefined;
  const amount = refundAmount(payment, size);
  const s = step(
    real,
    `${label} → ${money(amount)}${size.kind === 'rest' ? ' (all that is left)' : ''} of payment ${payment.paymentId}${earlierText(payment)}`,
    true,
  );
  absorbWebhooks(model, real, s);
  const ex = await sendRefund(real, s, payment, amount);
  if (isSuccess(ex)) real.cost.refunds++;
  noteRefusal(real, payment, amount, isSuccess(ex));
  if (!hookAnswers(model, real, payment, amount, ex))
    take(real, s, observeRefund(model, payment, amount, answerOf(ex), Date.now()), [ex]);
  absorbWebhooks(model, real, s);
  return s;
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

// ---- refunds moved on until they have finished ----

/**
 * Per target, the waits in a row after which no refund had finished: from `FRUITLESS_WAITS` on, the explorer no longer
 * waits for a target's refunds to finish (one that moves none on by itself and has no state provider that does would
 * cost each wait the whole webhook wait, for nothing), until one finishes again.
 */
const fruitlessWaits = new WeakMap<object, number>();
const FRUITLESS_WAITS = 3;

/** The targets whose state provider does not offer refund-status (asked once): their own lifecycle moves refunds on. */
const refundStatusNotOffered = new WeakSet<object>();

/** Whether a refund webhook received shows the refund finished, or HELD (whether HELD has finished is not shown). */
function settledBy(received: readonly ReceivedWebhook[], refundId: string): boolean {
  return received.some((w) => {
    if (webhookKind(w) !== 'refund' || member(w, 'refundId') !== refundId) return false;
    const status = member(w, 'refundStatus');
    return status === 'HELD' || isIn(finishedRefundStatuses, status);
  });
}

/** Waits (up to the webhook wait, within the exploring time) until a webhook shows each of `open` finished or HELD. */
async function untilSettled(real: Real, open: readonly ModelRefund[]): Promise<void> {
  const listener = real.ctx.webhooks;
  if (listener === undefined) return;
  const fruitless = fruitlessWaits.get(real.ctx) ?? 0;
  const left = real.until === undefined ? real.ctx.webhookWaitMs : real.until - Date.now();
  const timeoutMs = fruitless >= FRUITLESS_WAITS ? 0 : Math.min(real.ctx.webhookWaitMs, left);
  await listener.waitFor((all) => open.every((r) => settledBy(all, r.refundId)), {
    timeoutMs: Math.max(0, timeoutMs),
    signal: real.env.signal,
  });
  const moved = open.some((r) => settledBy(listener.received(), r.refundId));
  fruitlessWaits.set(real.ctx, moved ? 0 : fruitless + 1);
}

/** A refund no webhook has shown finished, nor HELD (a held refund is not moved on: whether HELD has finished is not shown). */
const unfinished = (r: ModelRefund): boolean =>
  !refundFinished(r) && !statusesSeen(r).includes('HELD');

/**
 * Moves the payment's refunds that no webhook has shown finished on, and waits (up to the webhook wait) for the
 * webhooks that show them finished. The state provider is asked for each (`refund-status` with no status: its next
 * status, a final one; docs/state-hook.md); where it refuses (the refund moved on by itself already) or there is none,
 * the target's own lifecycle moves it. The spec model learns that a refund finished from its webhook alone, the
 * target's signed word, as it learns every status; a provider's answer is not taken for it. Part of step `within`
 * (the refund it follows) when given, else a step of its own labelled `label`.
 */
async function finishRefunds(
  model: ExplorerModel,
  real: Real,
  payment: ModelPayment,
  label: string,
  within?: StepRecord,
): Promise<void> {
  if (!model.payments.includes(payment)) return;
  const open = payment.refunds.filter(unfinished);
  if (open.length === 0) return;
  const ids = open.map((r) => r.refundId).join(', ');
  const s =
    within ??
    step(real, `${label} → refund(s) ${ids} of payment ${payment.paymentId} moved on`, true);
  absorbWebhooks(model, real, s);
  if (stateSource(real.ctx) !== undefined && !refundStatusNotOffered.has(real.ctx))
    for (const r of open.filter(unfinished)) {
      const moved = await askState(real.ctx, real.env, {
        state: 'refund-status',
        refundId: r.refundId,
      });
      if (moved.kind !== 'not-offered') continue;
      refundStatusNotOffered.add(real.ctx);
      break;
    }
  await untilSettled(real, open);
  absorbWebhooks(model, real, s);
}

/** The refunds of a payment moved on until they have finished (`finishRefunds`): of the `index`-th that has some open. */
export class FinishRefunds implements fc.AsyncCommand<ExplorerModel, Real> {
  constructor(private readonly index: number) {}
  check = (model: Readonly<ExplorerModel>): boolean =>
    model.payments.some((p) => p.refunds.some(unfinished));
  async run(model: ExplorerModel, real: Real): Promise<void> {
    const open = model.payments.filter((p) => p.refunds.some(unfinished));
    if (open.length === 0) return;
    await finishRefunds(model, real, open[this.index % open.length]!, this.toString());
  }
  toString(): string {
    return `finishRefunds(payment #${this.index})`;
  }
}

/**
 * A refund of the `index`-th payment, then, once it has finished (`finishRefunds`), another: the second is judged
 * with every earlier refund finished, so a refusal of one that fits fails REFUND-PARTIAL-ALLOWED.
 */
export class RefundAfterFinish implements fc.AsyncCommand<ExplorerModel, Real> {
  constructor(
    private readonly index: number,
    private readonly first: RefundSize,
    private readonly next: RefundSize,
  ) {}
  check = (model: Readonly<ExplorerModel>): boolean => model.payments.length > 0;
  async run(model: ExplorerModel, real: Real): Promise<void> {
    const payment = paymentAt(model, this.index);
    if (payment === undefined) return;
    const first = await refundOf(model, real, payment, this.first, `${this} (first, moved on)`);
    if (first === undefined) return;
    await finishRefunds(model, real, payment, '', first);
    await refundOf(model, real, payment, this.next, `${this} (next)`);
  }
  toString(): string {
    return `refundAfterFinish(payment #${this.index}, ${sizeText(this.first)}, then once it finished ${sizeText(this.next)})`;
  }
}

/** A payment and its partial refunds, in pence (draws.ts draws those whose sum a binary float misjudges). */
export interface RefundFamily {
  readonly paymentPence: number;
  readonly partsPence: readonly number[];
}

/**
 * A settled payment made for the run of the family's amount, refunded in its parts, each moved on until it has
 * finished before the next, then a refund of exactly what is left: "A refund may be full or partial; several partial
 * refunds per payment are allowed" with the sum within the payment amount (REFUND-PARTIAL-ALLOWED).
 */
export class RefundInParts implements fc.AsyncCommand<ExplorerModel, Real> {
  constructor(private readonly family: RefundFamily) {}
  check = (): boolean => true;
  async run(model: ExplorerModel, real: Real): Promise<void> {
    const payment = await makePayment(model, real, penceText(this.family.paymentPence));
    if (payment === undefined) return;
    for (const pence of this.family.partsPence) {
      const label = `${this} (a part, moved on)`;
      const part = await refundOf(model, real, payment, { kind: 'exact', pence }, label);
      if (part === undefined) return;
      await finishRefunds(model, real, payment, '', part);
    }
    await refundOf(model, real, payment, { kind: 'rest' }, `${this} (the rest)`);
  }
  toString(): string {
    const parts = this.family.partsPence.map(penceText).join(', then ');
    return `refundInParts(payment ${penceText(this.family.paymentPence)}: ${parts}, each finished, then all that is left)`;
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
