// /sandbox/ helper endpoints, apart from the spec's API: payments, lifecycle moves, webhook deliveries, CoP triggers.
import { randomUUID } from 'node:crypto';
import type { RouteHandler, RouteRequest, ServiceContext } from '../context.js';
import { copTriggers } from '../cop-triggers.js';
import { HttpError } from '../error-body.js';
import { parseJsonBody, queryParams } from '../http-io.js';
import { DecimalNumber, stringifyJson } from '../json-writer.js';
import { isOneOf, paymentStatuses, refundStatuses } from '../../src/schemas/statuses.js';
import { positiveAmount } from '../amounts.js';
import { isoUtc, paymentRefundData, payoutResource, refundResource } from '../representations.js';
import { type Account, type Application, type Payment, type PaymentStatus, type Payout, type Refund, type RefundStatus } from '../state.js';

const ok = (value: unknown, status = 200) => ({ status, contentType: 'application/json', body: stringifyJson(value, 2) });

function jsonObject(request: RouteRequest): Record<string, unknown> {
  if (request.http.body.length === 0) return {};
  const value = parseJsonBody(request.http.body);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new HttpError(400, 'invalid_body', 'request body must be a JSON object');
  return value as Record<string, unknown>;
}

function optionalString(body: Record<string, unknown>, name: string): string | undefined {
  const v = body[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new HttpError(400, 'invalid_body', `"${name}" must be a string`);
  return v;
}

function application(ctx: ServiceContext, id: string | undefined): Application {
  const app = id === undefined ? ctx.state.applications.values().next().value : ctx.state.applications.get(id);
  if (app === undefined) throw new HttpError(404, 'application_not_found', `no application "${id ?? ''}"`);
  return app;
}

export function paymentView(ctx: ServiceContext, p: Payment): Record<string, unknown> {
  return {
    paymentId: p.paymentId,
    applicationId: p.applicationId,
    merchantPaymentId: p.merchantPaymentId ?? null,
    status: p.status,
    errorDescription: p.errorDescription,
    amount: new DecimalNumber(p.amount),
    currency: p.currency,
    reference: p.reference,
    payer: p.payer,
    // The payer details in the form the payment webhook gives them (what a refund must go back to).
    paymentRefundData: paymentRefundData(p),
    isExternal: p.isExternal,
    createdAt: isoUtc(p.createdAt),
    refunds: ctx.state.refundsOf(p.paymentId).map((r) => ({ refundId: r.refundId, status: r.status, amount: new DecimalNumber(r.amount) })),
  };
}

const index: RouteHandler = () =>
  ok({
    note: 'payconform reference service sandbox helpers; not part of the payments service API',
    endpoints: [
      'GET  /sandbox/payments',
      'POST /sandbox/payments {applicationId?, amount, merchantPaymentId?, reference? (ignored: the service assigns it), payer?: {name, accountNumber, sortCode}, metadata?, isExternal?, status?}',
      'GET  /sandbox/payments/{paymentId}',
      'POST /sandbox/payments/{paymentId}/status {status: COMPLETED|SETTLED|FAILED, errorDescription?}',
      'GET  /sandbox/payouts',
      'GET  /sandbox/payouts/{payoutId}',
      'POST /sandbox/payouts/{payoutId}/advance {status?}',
      'GET  /sandbox/refunds',
      'GET  /sandbox/refunds/{refundId}',
      'POST /sandbox/refunds/{refundId}/advance {status?}',
      'GET  /sandbox/deliveries?kind=&resourceId=',
      'GET  /sandbox/cop-triggers',
      'GET  /sandbox/faults',
      'GET  /sandbox/applications',
    ],
  });

const listPayments: RouteHandler = (ctx, request) => {
  const q = queryParams(request.target);
  const app = q.get('applicationId');
  const list = [...ctx.state.payments.values()].filter((p) => app === null || p.applicationId === app);
  return ok(list.map((p) => paymentView(ctx, p)));
};

const getPayment: RouteHandler = (ctx, request) => ok(paymentView(ctx, findPayment(ctx, request)));

/** The entry of `map` named by the path parameter `param` (ids compared in lower case); 404 `<what>_not_found` when none. */
function findByParam<T>(map: ReadonlyMap<string, T>, request: RouteRequest, param: string, what: 'payment' | 'payout' | 'refund'): T {
  const id = request.params[param] ?? '';
  const found = map.get(id.toLowerCase());
  if (found === undefined) throw new HttpError(404, `${what}_not_found`, `no ${what} "${id}"`);
  return found;
}

const findPayment = (ctx: ServiceContext, request: RouteRequest): Payment => findByParam(ctx.state.payments, request, 'paymentId', 'payment');
const findPayout = (ctx: ServiceContext, request: RouteRequest): Payout => findByParam(ctx.state.payouts, request, 'payoutId', 'payout');
const findRefund = (ctx: ServiceContext, request: RouteRequest): Refund => findByParam(ctx.state.refunds, request, 'refundId', 'refund');

function paymentStatus(value: unknown): PaymentStatus {
  if (!isOneOf(paymentStatuses, value)) throw new HttpError(400, 'invalid_status', `"status" must be one of ${paymentStatuses.join(', ')}`);
  return value;
}

const createPayment: RouteHandler = (ctx, request) => {
  ctx.state.requireRoom('payments');
  const body = jsonObject(request);
  const app = application(ctx, optionalString(body, 'applicationId'));
  const amount = positiveAmount(body.amount);
  if (amount === undefined) throw new HttpError(400, 'invalid_amount', '"amount" must be a positive decimal (number or string) with at most two fractional digits');
  const payerIn = body.payer;
  let payer: Account = { name: 'Sandbox Payer', accountNumber: String(10_000_000 + ctx.state.payments.size), sortCode: '200000', iban: null };
  if (payerIn !== undefined) {
    if (payerIn === null || typeof payerIn !== 'object') throw new HttpError(400, 'invalid_body', '"payer" must be an object');
    const p = payerIn as Record<string, unknown>;
    payer = {
      name: optionalString(p, 'name') ?? payer.name,
      accountNumber: optionalString(p, 'accountNumber') ?? payer.accountNumber,
      sortCode: optionalString(p, 'sortCode') ?? payer.sortCode,
      iban: null,
    };
  }
  const metadata = body.metadata;
  if (metadata !== undefined && (metadata === null || typeof metadata !== 'object' || Object.values(metadata).some((v) => typeof v !== 'string'))) {
    throw new HttpError(400, 'invalid_body', '"metadata" must be an object of string values');
  }
  const merchantPaymentId = optionalString(body, 'merchantPaymentId');
  // Spec, What the service does 7: every sandbox payment is into the application's virtual account, so the reference
  // passed (as a payment component would) is ignored and the service assigns its own; fault payment-reference-kept keeps it.
  const passedReference = optionalString(body, 'reference');
  const reference = passedReference !== undefined && ctx.faults.has('payment-reference-kept') ? passedReference : ctx.state.assignPaymentReference();
  const payment: Payment = {
    paymentId: randomUUID(),
    applicationId: app.applicationId,
    ...(merchantPaymentId !== undefined ? { merchantPaymentId } : {}),
    status: 'AWAITING_AUTHORIZATION',
    errorDescription: null,
    amount,
    currency: 'GBP',
    reference,
    payer,
    ...(metadata !== undefined ? { metadata: metadata as Record<string, string> } : {}),
    isExternal: body.isExternal === true,
    createdAt: ctx.now(),
  };
  const target = body.status === undefined ? undefined : paymentStatus(body.status);
  ctx.state.payments.set(payment.paymentId, payment);
  if (target !== undefined && target !== 'AWAITING_AUTHORIZATION') ctx.lifecycle.movePayment(payment, target, optionalString(body, 'errorDescription'));
  return ok(paymentView(ctx, payment), 201);
};

const movePayment: RouteHandler = (ctx, request) => {
  const payment = findPayment(ctx, request);
  const body = jsonObject(request);
  ctx.lifecycle.movePayment(payment, paymentStatus(body.status), optionalString(body, 'errorDescription'));
  return ok(paymentView(ctx, payment));
};

/** The optional target of an advance: any payout or refund status but AWAITING_COMMIT (the six refund statuses). */
function targetStatus(body: Record<string, unknown>): RefundStatus | undefined {
  if (body.status === undefined || body.status === null) return undefined;
  if (!isOneOf(refundStatuses, body.status)) throw new HttpError(400, 'invalid_status', `"status" must be one of ${refundStatuses.join(', ')}`);
  return body.status;
}

const listPayouts: RouteHandler = (ctx) => ok([...ctx.state.payouts.values()].map((p) => payoutResource(p, ctx.faults)));

const getPayout: RouteHandler = (ctx, request) => ok(payoutResource(findPayout(ctx, request), ctx.faults));

const advancePayout: RouteHandler = (ctx, request) => {
  const p = findPayout(ctx, request);
  ctx.lifecycle.advancePayout(p, targetStatus(jsonObject(request)));
  return ok(payoutResource(p, ctx.faults));
};

const listRefunds: RouteHandler = (ctx) => ok([...ctx.state.refunds.values()].map((r) => refundResource(r, ctx.faults)));

const getRefund: RouteHandler = (ctx, request) => ok(refundResource(findRefund(ctx, request), ctx.faults));

const advanceRefund: RouteHandler = (ctx, request) => {
  const r = findRefund(ctx, request);
  ctx.lifecycle.advanceRefund(r, targetStatus(jsonObject(request)));
  return ok(refundResource(r, ctx.faults));
};

const listDeliveries: RouteHandler = (ctx, request) => {
  const q = queryParams(request.target);
  const kind = q.get('kind');
  const resourceId = q.get('resourceId');
  return ok(ctx.queue.deliveries().filter((d) => (kind === null || d.kind === kind) && (resourceId === null || d.resourceId === resourceId)));
};

const listCopTriggers: RouteHandler = () =>
  ok({ default: 'FULL_MATCH', matching: 'holderName, case-insensitive, surrounding and repeated spaces ignored', triggers: copTriggers });

const listActiveFaults: RouteHandler = (ctx) => ok({ faults: ctx.faults.list() });

/** What an audit needs to address each application (no secret, no key): its ids and its pay-in account. */
const listApplications: RouteHandler = (ctx) =>
  ok([...ctx.state.applications.values()].map((a) => ({ applicationId: a.applicationId, merchantId: a.merchantId, cop: a.cop, payInAccountSelector: a.virtualAccount.id })));

export const sandboxRoutes: ReadonlyArray<readonly [method: string, path: string, handler: RouteHandler]> = [
  ['GET', '/sandbox', index],
  ['GET', '/sandbox/', index],
  ['GET', '/sandbox/payments', listPayments],
  ['POST', '/sandbox/payments', createPayment],
  ['GET', '/sandbox/payments/{paymentId}', getPayment],
  ['POST', '/sandbox/payments/{paymentId}/status', movePayment],
  ['GET', '/sandbox/payouts', listPayouts],
  ['GET', '/sandbox/payouts/{payoutId}', getPayout],
  ['POST', '/sandbox/payouts/{payoutId}/advance', advancePayout],
  ['GET', '/sandbox/refunds', listRefunds],
  ['GET', '/sandbox/refunds/{refundId}', getRefund],
  ['POST', '/sandbox/refunds/{refundId}/advance', advanceRefund],
  ['GET', '/sandbox/deliveries', listDeliveries],
  ['GET', '/sandbox/cop-triggers', listCopTriggers],
  ['GET', '/sandbox/faults', listActiveFaults],
  ['GET', '/sandbox/applications', listApplications],
];
