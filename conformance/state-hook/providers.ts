// The three providers of the state hook contract (contract.ts): a hook URL (POST of the request; its exchanges are in
// the HAR like any other), a hook command (run with the request as its one argument, the answer on standard output),
// and payconform's own /sandbox/ (the reference service's helper endpoints, answering through the same contract).
import { execFile } from 'node:child_process';
import type { CheckRunEnv } from '../check.js';
import type { ServerAuditContext } from '../checks/server/context.js';
import {
  describeOutcome,
  exchange,
  isSuccess,
  jsonObject,
  SANDBOX_LISTING_BYTES,
  sandboxCall,
  sandboxRequest,
} from '../checks/server/requests.js';
import { unanswered } from '../checks/no-answer.js';
import {
  judgeAnswer,
  NOT_OFFERED_EXIT,
  NOT_OFFERED_STATUS,
  notOfferedReason,
  requestBody,
  type StateRequest,
  type StateResult,
} from './contract.js';

/** Asks one state of a provider; never throws. */
export type StateProvider = (
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  request: StateRequest,
) => Promise<StateResult>;

/** A hook's answer this large or larger is not read further. */
const MAX_ANSWER_BYTES = 64 * 1024;

/** A hook URL: POST of the request as JSON; 2xx with the answer, 501 for a state it does not offer. */
export function urlHook(url: string): StateProvider {
  return async (ctx, env, request) => {
    const ex = await exchange(
      ctx,
      env,
      {
        method: 'POST',
        url,
        headers: [
          ['content-type', 'application/json'],
          ['accept', 'application/json'],
        ],
        body: new TextEncoder().encode(JSON.stringify(requestBody(request))),
      },
      { maxResponseBytes: MAX_ANSWER_BYTES },
    );
    const from = `the state hook ${url}`;
    if (unanswered(ex)) return { kind: 'failed', reason: `${from}: ${describeOutcome(ex)}` };
    if (ex.response?.status === NOT_OFFERED_STATUS)
      return { kind: 'not-offered', reason: notOfferedReason(request, jsonObject(ex), from) };
    if (!isSuccess(ex))
      return { kind: 'failed', reason: `${from} answered ${describeOutcome(ex)}` };
    return judgeAnswer(request, ex.response?.json, from);
  };
}

/** A hook command: run with the request as its last argument; exit 0 with the answer on stdout, 3: not offered. */
export function commandHook(command: readonly [string, ...string[]]): StateProvider {
  return (ctx, env, request) =>
    new Promise((resolve) => {
      const from = `the state hook command ${command[0]}`;
      const timeout = Math.max(1, Math.min(ctx.requestTimeoutMs * 2, env.deadline - Date.now()));
      const argument = JSON.stringify(requestBody(request));
      execFile(
        command[0],
        [...command.slice(1), argument],
        { timeout, maxBuffer: MAX_ANSWER_BYTES, signal: env.signal, windowsHide: true },
        (error, stdout, stderr) => {
          const code = error === null ? 0 : typeof error.code === 'number' ? error.code : undefined;
          const said = ctx.redactor.redactText(String(stderr).trim().split('\n').pop() ?? '');
          if (code === NOT_OFFERED_EXIT)
            return resolve({
              kind: 'not-offered',
              reason: notOfferedReason(request, parsed(stdout), from),
            });
          if (code !== 0)
            return resolve({
              kind: 'failed',
              reason: `${from} ${code !== undefined ? `exited with ${code}` : `did not finish (${error?.killed === true ? `killed after ${timeout} ms` : (error?.message ?? 'unknown')})`}${said !== '' ? `: ${said.slice(0, 300)}` : ''}`,
            });
          resolve(judgeAnswer(request, parsed(stdout), from));
        },
      );
    });
}

/** Standard output as JSON, or undefined. */
function parsed(stdout: string | Buffer): unknown {
  try {
    return JSON.parse(String(stdout)) as unknown;
  } catch {
    return undefined;
  }
}

/** payconform's own /sandbox/ as a provider of the contract: each state, the helper calls that make it. */
export const sandboxHook: StateProvider = async (ctx, env, request) => {
  const from = `the target's /sandbox/`;
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
  const listed = await exchange(ctx, env, sandboxRequest(ctx, 'GET', '/payments'), {
    maxResponseBytes: SANDBOX_LISTING_BYTES,
  });
  const all = listed.response?.json;
  if (!isSuccess(listed) || !Array.isArray(all)) return undefined;
  return all
    .filter(
      (p): p is Record<string, unknown> =>
        typeof p === 'object' &&
        p !== null &&
        p['reference'] === payment['reference'] &&
        p['paymentId'] !== payment['paymentId'],
    )
    .map((p) => String(p['paymentId']));
}

/** The /sandbox/ calls that make a state (a payment webhook: a payment made, then moved to the status). */
async function sandboxCallFor(
  request: StateRequest,
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
  request: StateRequest,
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
