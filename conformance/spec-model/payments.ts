// Payments in the spec model: a settled payment made for the run (by a state hook or /sandbox/) joins the state, and
// refunds (refunds.ts) are judged against it.
import { decimalOf, emptyVerdict, type Verdict } from './judgement.js';
import type { Answer } from './payouts.js';
import type { SpecState } from './state.js';

/** A settled payment made for the run (by a state hook or /sandbox/: the spec shows no way to make one): joins the state. */
export function observePaymentMade(state: SpecState, requested: string, answer: Answer): Verdict {
  const v = emptyVerdict();
  const paymentId = answer.body?.['paymentId'];
  const amount = decimalOf(answer.body?.['amount']);
  if (!answer.accepted || typeof paymentId !== 'string' || amount === undefined)
    v.observations.push(`settled payment of ${requested} not made: ${answer.outcome}`);
  else state.payments.push({ paymentId, amount, refunds: [] });
  return v;
}
