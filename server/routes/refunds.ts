// POST /api/merchants/{merchantId}/applications/{applicationId}/refunds (spec: Endpoint 4, Limits for refunds).
import { randomUUID } from 'node:crypto';
import type { RouteHandler } from '../context.js';
import { lateFaultTimings, type FaultSet } from '../faults.js';
import {
  activeRefundStatuses,
  checkRefund,
  isPositive,
  refundRefusalStatus,
} from '../../src/rules/index.js';
import { positiveAmount } from '../amounts.js';
import { createErrorBody, HttpError, type ErrorStatus } from '../error-body.js';
import { parseJsonBody, requireAcceptable, requireContentType } from '../../net/http-io.js';
import { stringifyJson } from '../json-writer.js';
import { plannedOutcome } from '../lifecycle.js';
import {
  ALT_EXTRA,
  newTracingId,
  REFUND_MEDIA_TYPE,
  refundResource,
  withCharset,
} from '../representations.js';
import { validateRequestBody } from '../request-validation.js';
import {
  isUuid,
  newRefundReference,
  type Account,
  type Refund,
  type RefundStatus,
} from '../state.js';

/** Where fault refund-arbitrary-destination sends refunds: an account no payer has. */
const ARBITRARY_ACCOUNT: Account = {
  name: 'Arbitrary Recipient Ltd',
  accountNumber: '99999999',
  sortCode: '999999',
  iban: null,
};

/** The amount the refund total is held to; fault refund-cap-large-payment rounds a large payment up to whole pounds. */
function refundCap(amount: string, faults: FaultSet): string {
  const pounds = Number(amount.split('.')[0]);
  if (!faults.has('refund-cap-large-payment') || pounds < 10_000) return amount;
  return `${pounds}.99`;
}

/**
 * The status an earlier refund counts with for the one-active rule: its own, or finished (PROCESSED) under fault
 * refund-concurrent (every active one) or refund-active-lapses (an IN_PROGRESS one older than the lapse).
 */
function countedStatus(refund: Refund, faults: FaultSet, now: number): RefundStatus {
  if (faults.has('refund-concurrent') && activeRefundStatuses.includes(refund.status))
    return 'PROCESSED';
  const lapsed =
    refund.status === 'IN_PROGRESS' &&
    now - refund.createdAt > lateFaultTimings.refundActiveLapseMs;
  if (faults.has('refund-active-lapses') && lapsed) return 'PROCESSED';
  return refund.status;
}

const handleRefund: RouteHandler = async (ctx, request) => {
  const { faults, state } = ctx;
  const app =
    request.asApplication ??
    (await ctx.auth.authenticate(request.http, ctx.requireSignatureOnCommitCancelRefund));
  if (
    request.params.merchantId !== app.merchantId ||
    request.params.applicationId !== app.applicationId
  ) {
    throw new HttpError(
      403,
      'merchant_mismatch',
      'merchantId and applicationId in the path must be those of the authenticated application',
    );
  }
  requireContentType(request.http.headers, [REFUND_MEDIA_TYPE, 'application/json']);
  requireAcceptable(request.http.headers, [REFUND_MEDIA_TYPE, 'application/json']);
  const body = validateRequestBody<{ paymentId: string; amount: string }>(
    'refund-request',
    parseJsonBody(request.http.body),
  );
  const notFound = () =>
    new HttpError(404, 'payment_not_found', `no payment "${body.paymentId}" for this application`);
  if (!isUuid(body.paymentId)) throw notFound();
  // The rule and the creation are one atomic step of the store: concurrent refunds of one payment, through any
  // instance, are decided one after another on what the earlier ones left.
  // Room for one more refund of this application (507 when its share or the service is full), given back unless
  // the refund is created.
  const release = await ctx.store.reserve('refunds', app.applicationId);
  let refund: Refund | undefined;
  try {
    refund = await ctx.store.createRefund(body.paymentId.toLowerCase(), (payment, earlier) => {
      if (payment.applicationId !== app.applicationId) throw notFound();
      if (faults.has('refund-one-per-payment') && earlier.length > 0) {
        throw new HttpError(
          409,
          'REFUND_EXISTS',
          `payment ${payment.paymentId} has already been refunded`,
        );
      }
      // Faults weaken the inputs of the rule, each switching off one limit.
      const verdict = checkRefund({
        payment: {
          status: faults.has('refund-unsettled') ? 'SETTLED' : payment.status,
          amount: refundCap(payment.amount, faults),
        },
        refunds: earlier.map((r) => ({
          // Fault refund-total-single: earlier refunds count for the one-active rule, not for the total.
          amount: faults.has('refund-total-single') ? '0.00' : r.amount,
          status: countedStatus(r, faults, ctx.now()),
        })),
        amount: body.amount,
      });
      if (
        !verdict.ok &&
        !(verdict.code === 'REFUND_EXCEEDS_PAYMENT' && faults.has('refund-over-amount'))
      ) {
        const { statusCode } = refundRefusalStatus[verdict.code];
        // Codes other than the 422 for an unsettled payment are not shown; variant alt answers 422 for the one-active
        // conflict and 400 above the payment total.
        let status = !faults.alt
          ? statusCode
          : statusCode === 409
            ? 422
            : verdict.code === 'REFUND_EXCEEDS_PAYMENT'
              ? 400
              : statusCode;
        if (verdict.code === 'PAYMENT_NOT_SETTLED' && faults.has('refund-unsettled-400'))
          status = 400;
        const message =
          verdict.code === 'PAYMENT_NOT_SETTLED' && faults.has('refund-unsettled-message')
            ? 'the payment cannot be refunded'
            : verdict.message;
        throw new HttpError(status as ErrorStatus, verdict.code, message);
      }
      const amount = positiveAmount(body.amount);
      if (amount === undefined)
        throw new HttpError(400, 'AMOUNT_INVALID', 'refund amount must be greater than zero');
      if (
        verdict.ok &&
        faults.has('refund-partial-rejected') &&
        isPositive(verdict.remainingAfter)
      ) {
        throw new HttpError(
          422,
          'REFUND_PARTIAL',
          'only a refund of the whole remaining amount is accepted',
        );
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
        // Spec: a refund goes only to the original paying account (fault refund-arbitrary-destination: elsewhere).
        destination: faults.has('refund-arbitrary-destination') ? ARBITRARY_ACCOUNT : payment.payer,
        plannedOutcome: plannedOutcome(amount),
      };
      return refund;
    });
  } finally {
    if (refund === undefined) await release().catch(() => {});
  }
  if (refund === undefined) throw notFound();
  ctx.lifecycle.refundChanged(refund, true);
  ctx.log(
    `refund ${refund.refundId} of payment ${refund.paymentId} created: ${refund.amount} ${refund.currency}`,
  );
  return {
    status: faults.alt ? 200 : 201,
    contentType: withCharset(faults, REFUND_MEDIA_TYPE),
    body: stringifyJson(refundResource(refund, faults)),
  };
};

export const createRefund: RouteHandler = async (ctx, request) => {
  try {
    return await handleRefund(ctx, request);
  } catch (error) {
    // Fault refund-error-shape: refund errors leave the spec's error body.
    if (ctx.faults.has('refund-error-shape') && error instanceof HttpError) {
      return {
        status: error.status,
        contentType: 'application/json',
        body: JSON.stringify({ error: error.message }),
      };
    }
    // Variant alt answers other errors with problem+json; refund creation failures keep the spec's error body.
    if (ctx.faults.alt && error instanceof HttpError) {
      const body = {
        ...createErrorBody(error, newTracingId(ctx.faults)),
        [ALT_EXTRA]: { variant: 'alt' },
      };
      return {
        status: error.status,
        contentType: withCharset(ctx.faults, 'application/json'),
        body: stringifyJson(body),
        headers: { ...error.headers, 'x-payconform-error-code': error.code },
      };
    }
    throw error;
  }
};
