// /sandbox/ helper endpoints, apart from the spec's API: payments, lifecycle moves, webhook deliveries, CoP triggers.
// Their methods and paths are net/sandbox-protocol.ts's table; this module gives each one its handler.
import { randomUUID } from 'node:crypto';
import type { RouteHandler, RouteRequest, ServiceContext } from '../context.js';
import { copTriggers } from '../cop-triggers.js';
import { HttpError } from '../error-body.js';
import { parseJsonBody, queryParams } from '../../net/http-io.js';
import {
  describeSandboxEndpoint,
  SANDBOX_ENDPOINTS,
  type SandboxEndpointName,
} from '../../net/sandbox-protocol.js';
import { DecimalNumber, stringifyJson } from '../json-writer.js';
import { isOneOf, paymentStatuses, refundStatuses } from '../../src/schemas/statuses.js';
import { positiveAmount } from '../amounts.js';
import { isoUtc, paymentRefundData, payoutResource, refundResource } from '../representations.js';
import {
  type Account,
  type Application,
  type Payment,
  type PaymentStatus,
  type Payout,
  type Refund,
  type RefundStatus,
} from '../state.js';
import { addWithinLimits } from '../state-store.js';
import type { WebhookKind } from '../../src/webhooks/kinds.js';

const ok = (value: unknown, status = 200) => ({
  status,
  contentType: 'application/json',
  body: stringifyJson(value, 2),
});

function jsonObject(request: RouteRequest): Record<string, unknown> {
  if (request.http.body.length === 0) return {};
  const value = parseJsonBody(request.http.body);
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new HttpError(400, 'invalid_body', 'request body must be a JSON object');
  return value as Record<string, unknown>;
}

function optionalString(body: Record<string, unknown>, name: string): string | undefined {
  const v = body[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new HttpError(400, 'invalid_body', `"${name}" must be a string`);
  return v;
}

function application(ctx: ServiceContext, id: string | undefined): Application {
  const app =
    id === undefined
      ? ctx.state.applications.values().next().value
      : ctx.state.applications.get(id);
  if (app === undefined)
    throw new HttpError(404, 'application_not_found', `no application "${id ?? ''}"`);
  return app;
}

export function paymentView(
  ctx: ServiceContext,
  p: Payment,
  refunds: readonly Refund[] = ctx.state.refundsOf(p.paymentId),
): Record<string, unknown> {
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
    refunds: refunds.map((r) => ({
      refundId: r.refundId,
      status: r.status,
      amount: new DecimalNumber(r.amount),
    })),
  };
}

const index: RouteHandler = () =>
  ok({
    note: 'payconform reference service sandbox helpers; not part of the payments service API',
    endpoints: Object.values(SANDBOX_ENDPOINTS)
      .filter((e) => e !== SANDBOX_ENDPOINTS.index)
      .map(describeSandboxEndpoint),
  });

const listPayments: RouteHandler = async (ctx, request) => {
  const q = queryParams(request.target);
  const app = q.get('applicationId');
  const list = (await ctx.store.listPayments()).filter(
    (p) => app === null || p.applicationId === app,
  );
  return ok(
    await Promise.all(
      list.map(async (p) => paymentView(ctx, p, await ctx.store.refundsOf(p.paymentId))),
    ),
  );
};

const getPayment: RouteHandler = async (ctx, request) => {
  const payment = await findPayment(ctx, request);
  return ok(paymentView(ctx, payment, await ctx.store.refundsOf(payment.paymentId)));
};

/** The path parameter `param` in lower case (ids are compared so). */
const idParam = (request: RouteRequest, param: string): string =>
  (request.params[param] ?? '').toLowerCase();

/** `found`, or 404 `<what>_not_found` naming the id as sent. */
function mustExist<T>(
  found: T | undefined,
  request: RouteRequest,
  param: string,
  what: WebhookKind,
): T {
  if (found === undefined)
    throw new HttpError(404, `${what}_not_found`, `no ${what} "${request.params[param] ?? ''}"`);
  return found;
}

const findPayment = async (ctx: ServiceContext, request: RouteRequest): Promise<Payment> =>
  mustExist(
    await ctx.store.getPayment(idParam(request, 'paymentId')),
    request,
    'paymentId',
    'payment',
  );
const findPayout = async (ctx: ServiceContext, request: RouteRequest): Promise<Payout> =>
  mustExist(await ctx.store.getPayout(idParam(request, 'payoutId')), request, 'payoutId', 'payout');
const findRefund = async (ctx: ServiceContext, request: RouteRequest): Promise<Refund> =>
  mustExist(await ctx.store.getRefund(idParam(request, 'refundId')), request, 'refundId', 'refund');

function paymentStatus(value: unknown): PaymentStatus {
  if (!isOneOf(paymentStatuses, value))
    throw new HttpError(
      400,
      'invalid_status',
      `"status" must be one of ${paymentStatuses.join(', ')}`,
    );
  return value;
}

/** The payer of a sandbox payment: a generated account, with what `payer` gives (name, account number, sort code). */
function readPayer(ctx: ServiceContext, payerIn: unknown): Account {
  const payer: Account = {
    name: 'Sandbox Payer',
    accountNumber: String(10_000_000 + ctx.state.payments.size),
    sortCode: '200000',
    iban: null,
  };
  if (payerIn === undefined) return payer;
  if (payerIn === null || typeof payerIn !== 'object')
    throw new HttpError(400, 'invalid_body', '"payer" must be an object');
  const p = payerIn as Record<string, unknown>;
  return {
    name: optionalString(p, 'name') ?? payer.name,
    accountNumber: optionalString(p, 'accountNumber') ?? payer.accountNumber,
    sortCode: optionalString(p, 'sortCode') ?? payer.sortCode,
    iban: null,
  };
}

/** A sandbox payment's metadata: absent, or an object of string values (400 otherwise). */
function readMetadata(metadata: unknown): Record<string, string> | undefined {
  if (
    metadata !== undefined &&
    (metadata === null ||
      typeof metadata !== 'object' ||
      Object.values(metadata).some((v) => typeof v !== 'string'))
  ) {
    throw new HttpError(400, 'invalid_body', '"metadata" must be an object of string values');
  }
  return metadata as Record<string, string> | undefined;
}

const createPayment: RouteHandler = async (ctx, request) => {
  const body = jsonObject(request);
  const app = application(ctx, optionalString(body, 'applicationId'));
  const amount = positiveAmount(body.amount);
  if (amount === undefined)
    throw new HttpError(
      400,
      'invalid_amount',
      '"amount" must be a positive decimal (number or string) with at most two fractional digits',
    );
  const payer = readPayer(ctx, body.payer);
  const metadata = readMetadata(body.metadata);
  const merchantPaymentId = optionalString(body, 'merchantPaymentId');
  // Spec, What the service does 7: every sandbox payment is into the application's virtual account, so the reference
  // passed (as a payment component would) is ignored and the service assigns its own; fault payment-reference-kept keeps it.
  const passedReference = optionalString(body, 'reference');
  const reference =
    passedReference !== undefined && ctx.faults.has('payment-reference-kept')
      ? passedReference
      : await ctx.store.newPaymentReference();
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
    ...(metadata !== undefined ? { metadata } : {}),
    isExternal: body.isExternal === true,
    createdAt: ctx.now(),
  };
  const target = body.status === undefined ? undefined : paymentStatus(body.status);
  await addWithinLimits(ctx.store, 'payments', app.applicationId, () =>
    ctx.store.addPayment(payment),
  );
  const moved =
    target !== undefined && target !== 'AWAITING_AUTHORIZATION'
      ? await ctx.lifecycle.movePayment(
          payment.paymentId,
          target,
          optionalString(body, 'errorDescription'),
        )
      : undefined;
  return ok(paymentView(ctx, moved ?? payment, []), 201);
};

const movePayment: RouteHandler = async (ctx, request) => {
  const body = jsonObject(request);
  const status = paymentStatus(body.status);
  const payment = mustExist(
    await ctx.lifecycle.movePayment(
      idParam(request, 'paymentId'),
      status,
      optionalString(body, 'errorDescription'),
    ),
    request,
    'paymentId',
    'payment',
  );
  return ok(paymentView(ctx, payment, await ctx.store.refundsOf(payment.paymentId)));
};

/** The optional target of an advance: any payout or refund status but AWAITING_COMMIT (the six refund statuses). */
function targetStatus(body: Record<string, unknown>): RefundStatus | undefined {
  if (body.status === undefined || body.status === null) return undefined;
  if (!isOneOf(refundStatuses, body.status))
    throw new HttpError(
      400,
      'invalid_status',
      `"status" must be one of ${refundStatuses.join(', ')}`,
    );
  return body.status;
}

const listPayouts: RouteHandler = async (ctx) =>
  ok((await ctx.store.listPayouts()).map((p) => payoutResource(p, ctx.faults)));

const getPayout: RouteHandler = async (ctx, request) =>
  ok(payoutResource(await findPayout(ctx, request), ctx.faults));

const advancePayout: RouteHandler = async (ctx, request) => {
  const target = targetStatus(jsonObject(request));
  const p = mustExist(
    await ctx.lifecycle.advancePayout(idParam(request, 'payoutId'), target),
    request,
    'payoutId',
    'payout',
  );
  return ok(payoutResource(p, ctx.faults));
};

const listRefunds: RouteHandler = async (ctx) =>
  ok((await ctx.store.listRefunds()).map((r) => refundResource(r, ctx.faults)));

const getRefund: RouteHandler = async (ctx, request) =>
  ok(refundResource(await findRefund(ctx, request), ctx.faults));

const advanceRefund: RouteHandler = async (ctx, request) => {
  const target = targetStatus(jsonObject(request));
  const r = mustExist(
    await ctx.lifecycle.advanceRefund(idParam(request, 'refundId'), target),
    request,
    'refundId',
    'refund',
  );
  return ok(refundResource(r, ctx.faults));
};

const listDeliveries: RouteHandler = async (ctx, request) => {
  const q = queryParams(request.target);
  const kind = q.get('kind');
  const resourceId = q.get('resourceId');
  return ok(
    (await ctx.queue.listDeliveries()).filter(
      (d) =>
        (kind === null || d.kind === kind) && (resourceId === null || d.resourceId === resourceId),
    ),
  );
};

const listCopTriggers: RouteHandler = () =>
  ok({
    default: 'FULL_MATCH',
    matching: 'holderName, case-insensitive, surrounding and repeated spaces ignored',
    triggers: copTriggers,
  });

const listActiveFaults: RouteHandler = (ctx) => ok({ faults: ctx.faults.list() });

/** What an audit needs to address each application (no secret, no key): its ids and its pay-in account. */
const listApplications: RouteHandler = (ctx) =>
  ok(
    [...ctx.state.applications.values()].map((a) => ({
      applicationId: a.applicationId,
      merchantId: a.merchantId,
      cop: a.cop,
      payInAccountSelector: a.virtualAccount.id,
    })),
  );

/** Each endpoint of the protocol's table and its handler: an endpoint cannot be added there without one here. */
const handlers = {
  index,
  listPayments,
  createPayment,
  getPayment,
  movePayment,
  listPayouts,
  getPayout,
  advancePayout,
  listRefunds,
  getRefund,
  advanceRefund,
  listDeliveries,
  listCopTriggers,
  listFaults: listActiveFaults,
  listApplications,
} satisfies Record<SandboxEndpointName, RouteHandler>;

/** The routes below `base` (the index with and without a trailing slash), as the router adds them. */
export function sandboxRoutes(
  base: string,
): ReadonlyArray<readonly [method: string, path: string, handler: RouteHandler]> {
  return (Object.keys(handlers) as SandboxEndpointName[]).flatMap((name) => {
    const { method, path } = SANDBOX_ENDPOINTS[name];
    const paths = path === '' ? ['', '/'] : [path];
    return paths.map((p) => [method, `${base}${p}`, handlers[name]] as const);
  });
}
