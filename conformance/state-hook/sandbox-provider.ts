// payconform's own /sandbox/ (the reference service's helper endpoints) as a provider of the state hook contract
// (contract.ts): each state, the helper calls that make or read it. The one module that calls /sandbox/ for a check or
// the explorer (test/state-hook.test.ts, "one path"); the endpoints' methods and paths are net/sandbox-protocol.ts's.
import {
  SANDBOX_ENDPOINTS,
  sandboxPath,
  type SandboxEndpointName,
} from '../../net/sandbox-protocol.js';
import type { HttpRequest } from '../../src/http/message.js';
import type { CheckRunEnv } from '../run/check.js';
import type { ServerAuditContext } from '../checks/server/context.js';
import { describeOutcome, exchange, isSuccess, jsonObject } from '../checks/server/requests.js';
import type { RecordedExchange } from '../http/http-client.js';
import { judgeAnswer, type StateRequest, type StateResult } from './contract.js';
import type { StateProvider } from './providers.js';

/**
 * What a listing of payconform's /sandbox/ may be read up to: it holds every payout of a long-lived service, where
 * the spec's own answers stay within the client's default limit (256 KiB).
 */
const SANDBOX_LISTING_BYTES = 16 * 1024 * 1024;

/** An endpoint of payconform's /sandbox/ helpers (not the spec's API), with the values of its path's parameters. */
interface SandboxTarget {
  readonly endpoint: SandboxEndpointName;
  readonly params?: Readonly<Record<string, string>>;
}

/** `GET /sandbox/payouts`: how a call names its endpoint in a message. */
const described = (t: SandboxTarget): string =>
  `${SANDBOX_ENDPOINTS[t.endpoint].method} ${sandboxPath(t.endpoint, t.params)}`;

/** A call to payconform's /sandbox/ helper endpoints (not the spec's API). */
function sandboxRequest(
  ctx: ServerAuditContext,
  target: SandboxTarget,
  body?: unknown,
): HttpRequest {
  return {
    method: SANDBOX_ENDPOINTS[target.endpoint].method,
    url: ctx.baseUrl + sandboxPath(target.endpoint, target.params),
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
  target: SandboxTarget,
  body?: unknown,
): Promise<{ readonly ex: RecordedExchange; readonly value?: Record<string, unknown> }> {
  const ex = await exchange(ctx, env, sandboxRequest(ctx, target, body));
  const value = isSuccess(ex) ? jsonObject(ex) : undefined;
  return { ex, ...(value !== undefined ? { value } : {}) };
}

/** payconform's own /sandbox/ as a provider of the contract: each state, the helper calls that make it. */
export const sandboxHook: StateProvider = async (ctx, env, request) => {
  const from = `the target's /sandbox/`;
  if (request.state === 'payouts') {
    const payouts: SandboxTarget = { endpoint: 'listPayouts' };
    const held = await listed(ctx, env, payouts, (p) =>
      request.references.includes(p['reference'] as string),
    );
    return held === undefined
      ? { kind: 'failed', reason: `${from}: ${described(payouts)} could not be read` }
      : judgeAnswer(
          request,
          { payouts: held.map((p) => ({ payoutId: p['payoutId'], reference: p['reference'] })) },
          from,
        );
  }
  const call = async (target: SandboxTarget, body: unknown): Promise<StateResult> => {
    const r = await sandboxCall(ctx, env, target, body);
    return r.value === undefined
      ? { kind: 'failed', reason: `${from}: ${described(target)} got ${describeOutcome(r.ex)}` }
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
    { endpoint: 'listPayments' },
    (p) => p['reference'] === payment['reference'] && p['paymentId'] !== payment['paymentId'],
  );
  return others?.map((p) => String(p['paymentId']));
}

/** The objects a /sandbox/ listing holds that `keep` keeps; undefined when it cannot be read. */
async function listed(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  target: SandboxTarget,
  keep: (item: Record<string, unknown>) => boolean,
): Promise<Array<Record<string, unknown>> | undefined> {
  const ex = await exchange(ctx, env, sandboxRequest(ctx, target), {
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
  call: (target: SandboxTarget, body: unknown) => Promise<StateResult>,
): Promise<StateResult> {
  const id = (r: StateResult): string => String(r.kind === 'made' ? r.answer['paymentId'] : '');
  const createPayment: SandboxTarget = { endpoint: 'createPayment' };
  switch (request.state) {
    case 'settled-payment':
      return call(createPayment, { amount: request.amount, status: 'SETTLED' });
    case 'unsettled-payment':
      return call(createPayment, { amount: '20.00' });
    case 'payout-status':
      return call(
        { endpoint: 'advancePayout', params: { payoutId: request.payoutId } },
        statusOf(request),
      );
    case 'refund-status':
      return call(
        { endpoint: 'advanceRefund', params: { refundId: request.refundId } },
        statusOf(request),
      );
    case 'payment-webhook': {
      const reference = request.reference !== undefined ? { reference: request.reference } : {};
      const payment = await call(createPayment, { amount: '20.00', ...reference });
      if (payment.kind !== 'made') return payment;
      const path: SandboxTarget = { endpoint: 'movePayment', params: { paymentId: id(payment) } };
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
