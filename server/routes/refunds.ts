// POST /api/merchants/{merchantId}/applications/{applicationId}/refunds (spec: Endpoint 4, Limits for refunds).
import { randomUUID } from 'node:crypto';
import type { RouteHandler, RouteRequest, ServiceContext } from '../context.js';
import { lateFaultTimings, type FaultSet } from '../faults.js';
import {
  activeRefundStatuses,
  checkRefund,
  countedRefundStatuses,
  isPositive,
  refundRefusalStatus,
  type RefundCheck,
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
  type Application,
  type Payment,
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

/**
 * Fault refund-total-float: the total taken again in binary floating point, pounds as JavaScript numbers: the earlier
 * refunds that count towards it and the new amount added with `+` and compared with the payment's amount by `>`. A
 * refund of exactly what is left after refunds whose decimal sum is inexact (0.20 after 0.10 of a 0.30 payment:
 * 0.1 + 0.2 is 0.30000000000000004) is over; the refusal it gives, else undefined.
 */
function floatTotalRefusal(
  payment: Payment,
  earlier: readonly Refund[],
  amount: unknown,
): Extract<RefundCheck, { ok: false }> | undefined {
  const counted = earlier.filter((r) => countedRefundStatuses.includes(r.status));
  const total = counted.reduce((sum, r) => sum + Number(r.amount), 0) + Number(amount);
  if (!(total > Number(payment.amount))) return undefined;
  return {
    ok: false,
    code: 'REFUND_EXCEEDS_PAYMENT',
    message: `refund of ${String(amount)} exceeds the payment: ${payment.amount} paid, refunds would total ${total}`,
  };
}

interface RefundRequestBody {
  readonly paymentId: string;
  readonly amount: string;
}

const paymentNotFound = (body: RefundRequestBody) =>
  new HttpError(404, 'payment_not_found', `no payment "${body.paymentId}" for this application`);

/** Parse: the caller's application (the path must name it) and the refund request body. Throws HttpError. */
async function readRefundRequest(
  ctx: ServiceContext,
  request: RouteRequest,
): Promise<{ app: Application; body: RefundRequestBody }> {
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
  const body = validateRequestBody<RefundRequestBody>(
    'refund-request',
    parseJsonBody(request.http.body),
  );
  return { app, body };
}

/** The rule's verdict on the payment and its earlier refunds; faults weaken its inputs, each switching off one limit. */
function refundVerdict(
  ctx: ServiceContext,
  payment: Payment,
  earlier: readonly Refund[],
  amount: string,
): RefundCheck {
  const { faults } = ctx;
  return checkRefund({
    payment: {
      status: faults.has('refund-unsettled') ? 'SETTLED' : payment.status,
      amount: refundCap(payment.amount, faults),
    },
    refunds: earlier.map((r) => ({
      // Fault refund-total-single: earlier refunds count for the one-active rule, not for the total.
      amount: faults.has('refund-total-single') ? '0.00' : r.amount,
      status: countedStatus(r, faults, ctx.now()),
    })),
    amount,
  });
}

/** The error a refused verdict is answered with (status and message as the variant and the faults choose). */
function refusalError(verdict: Extract<RefundCheck, { ok: false }>, faults: FaultSet): HttpError {
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
  if (verdict.code === 'PAYMENT_NOT_SETTLED' && faults.has('refund-unsettled-400')) status = 400;
  const message =
    verdict.code === 'PAYMENT_NOT_SETTLED' && faults.has('refund-unsettled-message')
      ? 'the payment cannot be refunded'
      : verdict.message;
  return new HttpError(status as ErrorStatus, verdict.code, message);
}

/**
 * Resolve: the refund of `payment` the rule allows given its `earlier` refunds, or the HttpError that refuses it.
 * Runs inside the store's atomic step (createRefund).
 */
function decideRefund(
  ctx: ServiceContext,
  app: Application,
  body: RefundRequestBody,
  payment: Payment,
  earlier: readonly Refund[],
): Refund {
  const { faults } = ctx;
  if (payment.applicationId !== app.applicationId) throw paymentNotFound(body);
  if (faults.has('refund-one-per-payment') && earlier.length > 0) {
    throw new HttpError(
      409,
      'REFUND_EXISTS',
      `payment ${payment.paymentId} has already been refunded`,
    );
  }
  const verdict = refundVerdict(ctx, payment, earlier, body.amount);
  if (
    !verdict.ok &&
    !(verdict.code === 'REFUND_EXCEEDS_PAYMENT' && faults.has('refund-over-amount'))
  )
    throw refusalError(verdict, faults);
  const overFloat = faults.has('refund-total-float')
    ? floatTotalRefusal(payment, earlier, body.amount)
    : undefined;
  if (verdict.ok && overFloat !== undefined) throw refusalError(overFloat, faults);
  const amount = positiveAmount(body.amount);
  if (amount === undefined)
    throw new HttpError(400, 'AMOUNT_INVALID', 'refund amount must be greater than zero');
  if (verdict.ok && faults.has('refund-partial-rejected') && isPositive(verdict.remainingAfter)) {
    throw new HttpError(
      422,
      'REFUND_PARTIAL',
      'only a refund of the whole remaining amount is accepted',
    );
  }
  return {
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
}

/**
 * Act: the refund decided and stored in one atomic step of the store (concurrent refunds of one payment, through any
 * instance, are decided one after another on what the earlier ones left), within room reserved for one more refund
 * of the application (507 when its share or the service is full), given back unless the refund is created.
 */
async function storeRefund(
  ctx: ServiceContext,
  app: Application,
  body: RefundRequestBody,
): Promise<Refund> {
  if (!isUuid(body.paymentId)) throw paymentNotFound(body);
  const release = await ctx.store.reserve('refunds', app.applicationId);
  let refund: Refund | undefined;
  try {
    refund = await ctx.store.createRefund(body.paymentId.toLowerCase(), (payment, earlier) =>
      decideRefund(ctx, app, body, payment, earlier),
    );
  } finally {
    if (refund === undefined) await release().catch(() => {});
  }
  if (refund === undefined) throw paymentNotFound(body);
  return refund;
}

const handleRefund: RouteHandler = async (ctx, request) => {
  const { app, body } = await readRefundRequest(ctx, request);
  const refund = await storeRefund(ctx, app, body);
  ctx.lifecycle.refundChanged(refund, true);
  ctx.log(
    `refund ${refund.refundId} of payment ${refund.paymentId} created: ${refund.amount} ${refund.currency}`,
  );
  return {
    status: ctx.faults.alt ? 200 : 201,
    contentType: withCharset(ctx.faults, REFUND_MEDIA_TYPE),
    body: stringifyJson(refundResource(refund, ctx.faults)),
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
