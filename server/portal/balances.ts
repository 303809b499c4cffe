// An application's virtual-account balance as the portal's Balances view shows it (the spec does not define the
// figure; this is payconform's choice, stated in the README): settled payments in, processed payouts and refunds out.
import { formatDecimal, subtractDecimals, sumDecimals, toDecimal } from '../../src/rules/index.js';
import type { PortalState } from './snapshot.js';

export interface AccountBalance {
  /** Sum of the application's SETTLED payments. */
  readonly settledIn: string;
  /** Payouts and refunds that finished (PROCESSED): the money that left. */
  readonly paidOut: string;
  /** settledIn - paidOut: changes when a payout or refund finishes. */
  readonly balance: string;
  /** Payouts and refunds under way (IN_PROGRESS, AWAITING_COMMIT, HELD): held from the balance until they finish. */
  readonly pending: string;
  /** balance - pending. */
  readonly available: string;
}

const PENDING = new Set(['IN_PROGRESS', 'AWAITING_COMMIT', 'HELD']);

export function accountBalance(
  state: Pick<PortalState, 'payments' | 'payouts' | 'refunds'>,
  applicationId: string,
): AccountBalance {
  const mine = <T extends { readonly applicationId: string }>(items: Iterable<T>): T[] =>
    [...items].filter((i) => i.applicationId === applicationId);
  const payments = mine(state.payments.values());
  const outgoing = [...mine(state.payouts.values()), ...mine(state.refunds.values())];
  const sum = (amounts: string[]) => sumDecimals(amounts.map((a) => toDecimal(a)));
  const settledIn = sum(payments.filter((p) => p.status === 'SETTLED').map((p) => p.amount));
  const paidOut = sum(outgoing.filter((o) => o.status === 'PROCESSED').map((o) => o.amount));
  const pending = sum(outgoing.filter((o) => PENDING.has(o.status)).map((o) => o.amount));
  const balance = subtractDecimals(settledIn, paidOut);
  const money = (d: ReturnType<typeof toDecimal>) => formatDecimal(d, { minScale: 2 });
  return {
    settledIn: money(settledIn),
    paidOut: money(paidOut),
    balance: money(balance),
    pending: money(pending),
    available: money(subtractDecimals(balance, pending)),
  };
}
