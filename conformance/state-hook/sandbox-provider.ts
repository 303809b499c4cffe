// payconform's own /sandbox/ (the reference service's helper endpoints) as a provider of the state hook contract
// (contract.ts): each state, the helper calls that make or read it. The one module that calls /sandbox/ for a check or
// the explorer (test/state-hook.test.ts, "one path").
import type { HttpRequest } from '../../src/http/message.js';
import type { CheckRunEnv } from '../check.js';
import type { ServerAuditContext } from '../checks/server/context.js';
import { describeOutcome, exchange, isSuccess, jsonObject } from '../checks/server/requests.js';
import type { RecordedExchange } from '../http-client.js';
import { judgeAnswer, type StateRequest, type StateResult } from './contract.js';
import type { StateProvider } from './providers.js';

/**
 * What a listing of payconform's /sandbox/ may be read up to: it holds every payout of a long-lived service, where
 * the spec's own answers stay within the client's default limit (256 KiB).
 */
const SANDBOX_LISTING_BYTES = 16 * 1024 * 1024;

/** A call to payconform's /sandbox/ helper endpoints (not the spec's API). */
function sandboxRequest(
  ctx: ServerAuditContext,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): HttpRequest {
  return {
    method,
    url: `${ctx.baseUrl}/sandbox${path}`,
    headers:
      body === undefined
        ? [['accept', 'application/json']]
        : [
            ['accept', 'application/json'],
            ['content-type', 'application/json'],
          ],
    body: body === undefined ? new Uint8Array(0) : new TextEncoder().encode(JSON.stringify(body)),
  };
}

/** One /sandbox/ call: the exchange, and the JSON object of a 2xx answer. */
async function sandboxCall(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<{ readonly ex: RecordedExchange; readonly value?: Record<string, unknown> }> {
  const ex = await exchange(ctx, env, sandboxRequest(ctx, method, path, body));
  const value = isSuccess(ex) ? jsonObject(ex) : undefined;
  return { ex, ...(value !== undefined ? { value } : {}) };
}

/** payconform's own /sandbox/ as a provider of the contract: each state, the helper calls that make it. */
export const sandboxHook: StateProvider = async (ctx, env, request) => {
  const from = `the target's /sandbox/`;
  if (request.state === 'payouts') {
    const held = await listed(ctx, env, '/payouts', (p) =>
      request.references.includes(p['reference'] as string),
    );
    return held === undefined
      ? { kind: 'failed', reason: `${from}: GET /sandbox/payouts could not be read` }
      : judgeAnswer(
          request,
          { payouts: held.map((p) => ({ payoutId: p['payoutId'], reference: p['reference'] })) },
          from,
        );
  }
  const call = async (path: string, body: unknown): Promise<StateResult> => {
    const r = await sandboxCall(ctx, env, 'POST', path, body);
    return r.value === undefined
      ? { kind: 'failed', reason: `${from}: POST /sandbox${path} got ${describeOutcome(r.ex)}` }
      : { kind: 'made', answer: r.value };
  };
  const made = await sandboxCallFor(request, call);
  if (made.kind !== 'made') return made;
  const others =
    request.state === 'payment-webhook' && request.reference !== undefined
      ? await othersWithReference(ctx, env, made.answer)
      : undefined;
  return judgeAnswer(
    request,
    {
      ...answerOf(request, made.answer),
      ...(others !== undefined ? { otherPaymentsWithReference: others } : {}),
    },
    from,
  );
};

/** The other payments `/sandbox/payments` lists (every application) with the payment's reference; undefined unread. */
async function othersWithReference(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  payment: Readonly<Record<string, unknown>>,
): Promise<string[] | undefined> {
  const others = await listed(
    ctx,
    env,
    '/payments',
    (p) => p['reference'] === payment['reference'] && p['paymentId'] !== payment['paymentId'],
  );
  return others?.map((p) => String(p['paymentId']));
}

/** The objects a /sandbox/ listing holds that `keep` keeps; undefined when it cannot be read. */
async function listed(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  path: string,
  keep: (item: Record<string, unknown>) => boolean,
): Promise<Array<Record<string, unknown>> | undefined> {
  const ex = await exchange(ctx, env, sandboxRequest(ctx, 'GET', path), {
    maxResponseBytes: SANDBOX_LISTING_BYTES,
  });
  const all = ex.response?.json;
  if (!isSuccess(ex) || !Array.isArray(all)) return undefined;
  return all.filter(
    (p): p is Record<string, unknown> => typeof p === 'object' && p !== null && keep(p),
  );
}

/** The /sandbox/ calls that make a state (a payment webhook: a payment made, then moved to the status). */
async function sandboxCallFor(
  request: Exclude<StateRequest, { state: 'payouts' }>,
  call: (path: string, body: unknown) => Promise<StateResult>,
): Promise<StateResult> {
  const id = (r: StateResult): string => String(r.kind === 'made' ? r.answer['paymentId'] : '');
  switch (request.state) {
    case 'settled-payment':
      return call('/payments', { amount: request.amount, status: 'SETTLED' });
    case 'unsettled-payment':
      return call('/payments', { amount: '20.00' });
    case 'payout-status':
      return call(`/payouts/${encodeURIComponent(request.payoutId)}/advance`, statusOf(request));
    case 'refund-status':
      return call(`/refunds/${encodeURIComponent(request.refundId)}/advance`, statusOf(request));
    case 'payment-webhook': {
      const reference = request.reference !== undefined ? { reference: request.reference } : {};
      const payment = await call('/payments', { amount: '20.00', ...reference });
      if (payment.kind !== 'made') return payment;
      const path = `/payments/${encodeURIComponent(id(payment))}/status`;
      // SETTLED is reached through COMPLETED (Payment statuses: a webhook for each).
      if (request.status === 'SETTLED') {
        const completed = await call(path, { status: 'COMPLETED' });
        if (completed.kind !== 'made') return completed;
      }
      return call(path, { status: request.status });
    }
  }
}

const statusOf = (r: { readonly status?: string }): Record<string, string> =>
  r.status !== undefined ? { status: r.status } : {};

/** A /sandbox/ resource as the contract's answer to `request`. */
function answerOf(
  request: Exclude<StateRequest, { state: 'payouts' }>,
  r: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const text = (v: unknown): unknown => (typeof v === 'number' ? String(v) : v);
  switch (request.state) {
    case 'settled-payment':
      return {
        paymentId: r['paymentId'],
        amount: text(r['amount']),
        ...(typeof r['payer'] === 'object' && r['payer'] !== null ? { payer: r['payer'] } : {}),
      };
    case 'payout-status':
      return { payoutId: r['payoutId'], status: r['status'] };
    case 'refund-status':
      return { refundId: r['refundPaymentId'] ?? r['refundId'], status: r['status'] };
    case 'payment-webhook':
      return {
        paymentId: r['paymentId'],
        status: r['status'],
        ...(typeof r['reference'] === 'string' ? { reference: r['reference'] } : {}),
      };
    default:
      return { paymentId: r['paymentId'], status: r['status'] };
  }
}
