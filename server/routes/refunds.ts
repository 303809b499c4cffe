// POST /api/merchants/{merchantId}/applications/{applicationId}/refunds (spec: Endpoint 4, Limits for refunds).
import { randomUUID } from 'node:crypto';
import type { RouteHandler } from '../context.js';
import { HttpError } from '../error-body.js';
import { parseJsonBody, requireAcceptable, requireContentType } from '../http-io.js';
import { stringifyJson } from '../json-writer.js';
import { plannedOutcome } from '../lifecycle.js';
import { canonicalAmount, fromMinor, toMinor } from '../pending-rules.js';
import { REFUND_MEDIA_TYPE, refundResource } from '../representations.js';
import { validateRequestBody } from '../request-validation.js';
import { isUuid, newRefundReference, type Refund, type RefundStatus } from '../state.js';

/** Refunds that hold money back from a further refund (FAILED, CANCELLED and RETURNED ones gave it back). */
const COUNTING: readonly RefundStatus[] = ['IN_PROGRESS', 'HELD', 'PROCESSED'];
/** A refund that has not finished: the next one on the same payment waits for it. */
const ACTIVE: readonly RefundStatus[] = ['IN_PROGRESS', 'HELD'];

const handleRefund: RouteHandler = async (ctx, request) => {
  const { faults, state } = ctx;
  const app = await ctx.auth.authenticate(request.http, ctx.requireSignatureOnCommitCancelRefund);
  if (request.params.merchantId !== app.merchantId || request.params.applicationId !== app.applicationId) {
    throw new HttpError(403, 'merchant_mismatch', 'merchantId and applicationId in the path must be those of the authenticated application');
  }
  requireContentType(request.http.headers, [REFUND_MEDIA_TYPE, 'application/json']);
  requireAcceptable(request.http.headers, [REFUND_MEDIA_TYPE, 'application/json']);
  const body = validateRequestBody<{ paymentId: string; amount: string }>('refund-request', parseJsonBody(request.http.body));
  const payment = isUuid(body.paymentId) ? state.payments.get(body.paymentId.toLowerCase()) : undefined;
  if (payment === undefined || payment.applicationId !== app.applicationId) {
    throw new HttpError(404, 'payment_not_found', `no payment "${body.paymentId}" for this application`);
  }
  if (payment.status !== 'SETTLED' && !faults.has('refund-unsettled')) {
    throw new HttpError(
      422,
      'payment_not_settled',
      faults.has('refund-unsettled-message')
        ? 'the payment cannot be refunded'
        : `payment status is ${payment.status}; a refund can be started only when the payment is SETTLED`,
    );
  }
  const amount = canonicalAmount(body.amount);
  if (amount === undefined || toMinor(amount) <= 0n) throw new HttpError(422, 'invalid_amount', 'refund amount must be greater than zero');
  const earlier = state.refundsOf(payment.paymentId);
  const active = earlier.find((r) => ACTIVE.includes(r.status));
  if (active !== undefined && !faults.has('refund-concurrent')) {
    throw new HttpError(409, 'refund_in_progress', `refund ${active.refundId} of this payment is still ${active.status}; the next refund can start when it has finished`);
  }
  const refunded = earlier.filter((r) => COUNTING.includes(r.status)).reduce((sum, r) => sum + toMinor(r.amount), 0n);
  const remaining = toMinor(payment.amount) - refunded;
  if (toMinor(amount) > remaining && !faults.has('refund-over-amount')) {
    throw new HttpError(422, 'refund_exceeds_payment', `refund amount ${amount} exceeds the refundable remainder ${fromMinor(remaining > 0n ? remaining : 0n)} of the payment amount ${payment.amount}`);
  }
  const refund: Refund = {
    refundId: randomUUID(),
    paymentId: payment.paymentId,
    applicationId: app.applicationId,
    createdAt: ctx.now(),
    status: 'IN_PROGRESS',
    amount,
    currency: payment.currency,
    reference: newRefundReference(),
    // Spec: a refund goes only to the original paying account.
    destination: payment.payer,
    plannedOutcome: plannedOutcome(amount),
  };
  state.refunds.set(refund.refundId, refund);
  ctx.lifecycle.refundChanged(refund, true);
  ctx.log(`refund ${refund.refundId} of payment ${payment.paymentId} created: ${amount} ${refund.currency}`);
  return { status: 201, contentType: REFUND_MEDIA_TYPE, body: stringifyJson(refundResource(refund, faults)) };
};

export const createRefund: RouteHandler = async (ctx, request) => {
  try {
    return await handleRefund(ctx, request);
  } catch (error) {
    // Fault refund-error-shape: refund errors leave the spec's error body.
    if (ctx.faults.has('refund-error-shape') && error instanceof HttpError) {
      return { status: error.status, contentType: 'application/json', body: JSON.stringify({ error: error.message }) };
    }
    throw error;
  }
};
