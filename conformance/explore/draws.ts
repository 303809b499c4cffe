// What the explorer draws: the command arbitraries for a target (what its config and sandbox make possible), at a
// lane's pace, with the amounts, references and refund sizes they draw from.
import fc from 'fast-check';
import type { PayoutDestinationConfig } from '../config/config.js';
import type { ServerAuditContext } from '../checks/server/context.js';
import { DEFAULT_PAYEE } from '../checks/server/requests.js';
import { holdingCopStatuses, isIn } from '../spec-model/index.js';
import { stateSource } from '../state-hook/index.js';
import {
  CreatePayout,
  HeldPayout,
  PayoutAction,
  Wait,
  type ExplorerModel,
  type Pace,
  type Real,
} from './commands.js';
import {
  FinishRefunds,
  Refund,
  RefundAfterFinish,
  RefundInParts,
  RefundPair,
  RefundTwice,
  RefundUnsettled,
  type RefundFamily,
  type RefundSize,
} from './refund-commands.js';
import { CreatePayment, TakePayment } from './payment-commands.js';
import { EXPLORE_DEFAULTS } from './explore-defaults.js';
import { amountPenceArb, amountText, penceText, referenceArb } from './values.js';

/** Amounts across the whole range (values.ts: 0.01 to 10,000,000,000.00), written with zero, one or two decimals. */
export const amountArb: fc.Arbitrary<string> = fc
  .tuple(amountPenceArb, fc.integer({ min: 0, max: 2 }))
  .map(([pence, decimals]) => amountText(pence, decimals));

/** Amounts from 10,000.00 to 1,000,000.00. */
const largeAmountArb: fc.Arbitrary<string> = fc
  .integer({ min: 1_000_000, max: 100_000_000 })
  .map((pence) => penceText(pence));

/**
 * Whether binary floating point misjudges a refund of exactly what is left after `parts` of a payment of `payment`
 * pence: with pounds as JavaScript numbers (the nearest double to each decimal, as `Number("0.10")` gives it), the
 * parts and the rest added up are over the payment (0.1 + 0.2 > 0.3), or the rest is over the payment less the parts.
 * The explorer's own amounts are exact (decimal text, BigInt); this float arithmetic only picks the edges it draws.
 */
export function floatMisjudgesRest(payment: number, parts: readonly number[]): boolean {
  const pounds = (pence: number): number => pence / 100;
  const rest = payment - parts.reduce((a, b) => a + b, 0);
  if (rest < 1) return false;
  const refunded = parts.reduce((sum, p) => sum + pounds(p), 0);
  return refunded + pounds(rest) > pounds(payment) || pounds(rest) > pounds(payment) - refunded;
}

/**
 * A payment and one or two partial refunds of it (each a share of what is left before it, at least 0.01, leaving at
 * least 0.01), kept where binary floating point misjudges the refund of the exact rest (`floatMisjudgesRest`):
 * mostly payments of 0.02 to 20.00, some up to 1,000,000.00.
 */
export const refundFamilyArb: fc.Arbitrary<RefundFamily> = fc
  .tuple(
    fc.oneof(
      { weight: 3, arbitrary: fc.integer({ min: 2, max: 2_000 }) },
      { weight: 1, arbitrary: fc.integer({ min: 2, max: 100_000_000 }) },
    ),
    fc.array(fc.integer({ min: 1, max: 999 }), { minLength: 1, maxLength: 2 }),
  )
  .map(([paymentPence, perMille]) => {
    const partsPence: number[] = [];
    let left = paymentPence;
    for (const share of perMille) {
      if (left < 2) break;
      const part = Math.min(left - 1, Math.max(1, Math.floor((left * share) / 1000)));
      partsPence.push(part);
      left -= part;
    }
    return { paymentPence, partsPence };
  })
  .filter((f) => f.partsPence.length > 0 && floatMisjudgesRest(f.paymentPence, f.partsPence));

/** A share of what is left, 1 to `most` percent. */
const partArb = (most: number): fc.Arbitrary<RefundSize> =>
  fc.integer({ min: 1, max: most }).map((percent) => ({ kind: 'part' as const, percent }));

const overArb: fc.Arbitrary<RefundSize> = fc
  .integer({ min: 1, max: 120 })
  .map((pence) => ({ kind: 'over' as const, pence }));

/** Refund sizes of a payment made for the run: a share of what is left, all of it, or more. */
const refundSizeArb: fc.Arbitrary<RefundSize> = fc.oneof(
  { weight: 2, arbitrary: partArb(100) },
  { weight: 1, arbitrary: fc.constant({ kind: 'rest' as const }) },
  { weight: 2, arbitrary: overArb },
);

/** The refund after an earlier one finished, of a payment made for the run: all that is left two times in five. */
const nextRefundSizeArb: fc.Arbitrary<RefundSize> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ kind: 'rest' as const }) },
  { weight: 2, arbitrary: partArb(100) },
  { weight: 1, arbitrary: overArb },
);

/**
 * Refund sizes of one of the config's payments, which the user made and the run cannot replace: mostly small shares
 * (1 to 10 percent of what is left) and more than is left (refused, so nothing is used), all of it rarely, so that a
 * payment lasts many refunds (docs/explorer.md, "Refunds on the config's payments").
 */
const configRefundSizeArb: fc.Arbitrary<RefundSize> = fc.oneof(
  { weight: 12, arbitrary: partArb(10) },
  { weight: 1, arbitrary: fc.constant({ kind: 'rest' as const }) },
  { weight: 7, arbitrary: overArb },
);

export interface CommandSource {
  /** The config's CoP keys and their destinations (at least one; DEFAULT_PAYEE when the config has none). */
  readonly destinations: ReadonlyArray<readonly [string, PayoutDestinationConfig]>;
  /**
   * Where the refunds' payments come from: made by the target's state provider (the config's state hook, or
   * payconform's /sandbox/), lent from the config's settled payments (payment-pool.ts) where there is neither, or
   * none (no refunds of settled payments are drawn).
   */
  readonly payments: 'made' | 'config' | 'none';
  readonly unsettledPayments: number;
}

export function commandSource(ctx: ServerAuditContext): CommandSource {
  const configured = Object.entries(ctx.copDestinations).filter(
    (e): e is [string, PayoutDestinationConfig] => e[1] !== undefined,
  );
  return {
    destinations: configured.length > 0 ? configured : [['FULL_MATCH', DEFAULT_PAYEE]],
    payments:
      stateSource(ctx) !== undefined ? 'made' : ctx.payments.settled.length > 0 ? 'config' : 'none',
    unsettledPayments: ctx.payments.unsettled.length,
  };
}

/** The command arbitraries for a target: what its config and sandbox make possible. */
export function commandArbitraries(
  source: CommandSource,
  pace: Pace = 'quick',
): Array<fc.Arbitrary<fc.AsyncCommand<ExplorerModel, Real>>> {
  return pace === 'quick' ? quickArbitraries(source) : patientArbitraries(source);
}

/** The refund sizes drawn for a source's payments. */
const sizesOf = (source: CommandSource): fc.Arbitrary<RefundSize> =>
  source.payments === 'config' ? configRefundSizeArb : refundSizeArb;

const index = fc.nat({ max: 7 });
/** Commit or cancel, of a held payout (mostly) or any, right away or `after` ms later. */
const payoutActionArb = (
  after: fc.Arbitrary<number>,
  actions: ReadonlyArray<'commit' | 'cancel'> = ['commit', 'cancel'],
) =>
  fc
    .tuple(fc.constantFrom(...actions), index, fc.constantFrom(true, true, false), after)
    .map(([a, i, held, ms]) => new PayoutAction(a, i, held, ms));
/** Later: a commit or cancel 550 to 700 ms after the step before. */
const laterArb = fc.integer({ min: 11, max: 14 }).map((n) => n * 50);
/** A patient lane's long waits (`EXPLORE_DEFAULTS.patientWaitMs`, in steps of 200 ms). */
const longArb = fc
  .integer({
    min: EXPLORE_DEFAULTS.patientWaitMs.min / 200,
    max: EXPLORE_DEFAULTS.patientWaitMs.max / 200,
  })
  .map((n) => n * 200);

function quickArbitraries(
  source: CommandSource,
): Array<fc.Arbitrary<fc.AsyncCommand<ExplorerModel, Real>>> {
  // fc.commands picks uniformly among the arbitraries: payouts and their follow-ups are listed more than once, so
  // that sequences reach held payouts and their commits and cancels often (weights, not a different model).
  const arbs: Array<fc.Arbitrary<fc.AsyncCommand<ExplorerModel, Real>>> = [
    createPayoutArb(source),
    payoutActionArb(fc.oneof(fc.constant(0), laterArb)),
    fc
      .oneof(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 11, max: 16 }))
      .map((n) => new Wait(n * 50)),
  ];
  arbs.push(arbs[0]!, arbs[1]!);
  if (source.payments !== 'none') {
    // Payments made lean to large amounts: limits that depend on the payment's size show there.
    const payment =
      source.payments === 'made'
        ? fc
            .oneof({ weight: 1, arbitrary: amountArb }, { weight: 2, arbitrary: largeAmountArb })
            .map((a): fc.AsyncCommand<ExplorerModel, Real> => new CreatePayment(a))
        : fc.constant(new TakePayment());
    const size = sizesOf(source);
    const one = fc.tuple(index, size).map(([i, sz]) => new Refund(i, sz));
    const pair = fc.tuple(index, size, size).map(([i, a, b]) => new RefundPair(i, a, b));
    // Refunds of a payment whose earlier refunds have finished: its refunds moved on (through the state provider, or
    // by the target's own lifecycle), alone or between two refunds, whose next one (mostly all that is left) must then
    // be accepted.
    const finish = index.map((i) => new FinishRefunds(i));
    if (source.payments === 'config') {
      // The config's payments are few and must last the run: their refunds moved on, no more refunds drawn.
      arbs.push(payment, payment, one, one, one, pair, finish);
    } else {
      const afterFinish = fc
        .tuple(index, partArb(90), nextRefundSizeArb)
        .map(([i, a, b]) => new RefundAfterFinish(i, a, b));
      // A small payment refunded in parts whose sum binary floating point misjudges, then exactly what is left. The
      // three share one entry: the first two make several refunds, and so webhooks, in a few milliseconds.
      const inParts = refundFamilyArb.map((f) => new RefundInParts(f));
      arbs.push(payment, payment, one, one, pair, fc.oneof(afterFinish, inParts, finish));
    }
  }
  if (source.unsettledPayments > 0) arbs.push(index.map((i) => new RefundUnsettled(i)));
  return arbs;
}

/**
 * A patient lane's commands: payouts, commits and cancels (right away, later, or seconds later), long waits, and
 * refunds one at a time or seconds apart: what a target does on its own seconds after a call shows there.
 */
function patientArbitraries(
  source: CommandSource,
): Array<fc.Arbitrary<fc.AsyncCommand<ExplorerModel, Real>>> {
  const create = createPayoutArb(source, true);
  const action = payoutActionArb(fc.oneof(fc.constant(0), laterArb, longArb));
  const held = fc
    .tuple(
      create,
      fc.constantFrom('commit' as const, 'cancel' as const, 'cancel' as const, 'nothing' as const),
      fc.oneof(fc.constant(0), laterArb, longArb),
    )
    .map(([c, then, gap]) => new HeldPayout(c, then, gap));
  const longWait = longArb.map((ms) => new Wait(ms));
  const arbs: Array<fc.Arbitrary<fc.AsyncCommand<ExplorerModel, Real>>> = [
    held,
    held,
    create,
    action,
    longWait,
  ];
  if (source.payments !== 'none') {
    const size = sizesOf(source);
    const one = fc.tuple(index, size).map(([i, sz]) => new Refund(i, sz));
    const share = source.payments === 'config' ? 10 : 100;
    const twice = fc
      .tuple(index, partArb(share / 2), partArb(share), longArb)
      .map(([i, a, b, gap]) => new RefundTwice(i, a, b, gap));
    arbs.push(one, twice, twice);
  }
  if (source.unsettledPayments > 0) arbs.push(index.map((i) => new RefundUnsettled(i)));
  return arbs;
}

/** Create payout: any amount and reference, any configured CoP destination, the flag true (often), false or left out. */
function createPayoutArb(source: CommandSource, holding = false): fc.Arbitrary<CreatePayout> {
  // Holding (a patient lane): mostly a destination whose CoP result holds, with the flag true, so that held and
  // cancelled payouts are there to watch.
  const holds = source.destinations.filter(([key]) => isIn(holdingCopStatuses, key));
  const cop =
    holding && holds.length > 0
      ? fc.oneof(
          { weight: 3, arbitrary: fc.constantFrom(...holds) },
          { weight: 1, arbitrary: fc.constantFrom(...source.destinations) },
        )
      : fc.constantFrom(...source.destinations);
  const flags: Array<boolean | undefined> = holding
    ? [true, true, true, undefined]
    : [true, true, false, undefined];
  return fc
    .record({ amount: amountArb, reference: referenceArb, cop, dnc: fc.constantFrom(...flags) })
    .map(
      ({ amount, reference, cop, dnc }) =>
        new CreatePayout({
          amount,
          reference,
          copKey: cop[0],
          destination: cop[1],
          ...(dnc !== undefined ? { doNotCommitOnCoPMismatch: dnc } : {}),
        }),
    );
}
