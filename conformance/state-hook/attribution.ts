// What the state hook answers for (docs/state-hook.md, "A hook's failure is the hook's"): a state it failed to make,
// and the refusal of the first refund of a payment it made, which says the target does not know that payment. Either
// is the hook's error, in its own words, never a finding against the target.
import type { RecordedExchange } from '../http/http-client.js';
import { describeOutcome, isSuccess, jsonObject } from '../checks/server/requests.js';
import { unanswered } from '../checks/no-answer.js';

/** Payment statuses the spec names (Payment: "AWAITING_AUTHORIZATION (named in a refund error message), ..."). */
const PAYMENT_STATUS = /\b(AWAITING_AUTHORIZATION|COMPLETED|SETTLED|FAILED)\b/;

/** Where the docs say how a hook's failure is reported. */
const SEE = 'docs/state-hook.md, "A hook\'s failure is the hook\'s"';

/** True for a text `hookFailure` or `refusalOfHookPayment` wrote: the hook's error, not an open reading of the spec. */
export const isHookError = (text: string): boolean => text.includes(SEE);

/** A state the hook failed to make, as a check reports it: the hook's words, and whose failure it is. */
export function hookFailure(reason: string): string {
  return `${reason} (an error of the state hook, not a finding against the target: ${SEE})`;
}

/**
 * Errors: "refunding a payment whose status is not SETTLED gives 422 ... and a message that names the current payment
 * status": the one refusal the spec states, from a target that knows the payment.
 */
export function namesPaymentStatus(ex: RecordedExchange): boolean {
  if (ex.response?.status !== 422) return false;
  const message = jsonObject(ex)?.['errorMessage'];
  return PAYMENT_STATUS.test(typeof message === 'string' ? message : (ex.response.bodyText ?? ''));
}

/**
 * Why a refusal of a refund of `paymentId`, a payment the state hook made and of which the target has accepted no
 * refund yet, is the hook's: any refusal but the spec's 422 naming a payment status (a 404, another 4xx, a 5xx) is
 * what a target answers for a payment it does not know, and a refusal of a genuinely settled payment cannot be told
 * apart from it. Undefined where the answer stays the target's: accepted, unanswered (the no-answer rule's),
 * 401 or 403 (about the caller, not the payment), or that 422.
 */
export function refusalOfHookPayment(ex: RecordedExchange, paymentId: string): string | undefined {
  if (isSuccess(ex) || unanswered(ex)) return undefined;
  const status = ex.response?.status;
  if (status === 401 || status === 403 || namesPaymentStatus(ex)) return undefined;
  const message = jsonObject(ex)?.['errorMessage'];
  const said = typeof message === 'string' ? `: "${message.slice(0, 200)}"` : '';
  return `the target refused the first refund of payment ${paymentId}, which the state hook made as SETTLED, with ${describeOutcome(ex)}${said}, not the spec's 422 naming the payment's status: the target does not know the payment the hook named, which is the hook's error, not a finding against the target (${SEE})`;
}
