// The refund actions the refund, payment and webhook checks share (spec: Endpoint 4, Limits): a settled payment with
// no active refund of this run, a refund sent (unsigned first), a partial refund created and judged, and the run's
// ledger of the refunds it created, waited on until they finish (one active refund per payment).
import { compareDecimals, toDecimal } from '../../../src/rules/money.js';
import type { CheckRunEnv, Finding } from '../../run/check.js';
import { observation, skip } from '../../run/check.js';
import type { RecordedExchange } from '../../http/http-client.js';
import type { ReceivedWebhook } from '../../http/webhook-listener.js';
import { finishedRefundStatuses, isIn, refundRoom } from '../../spec-model/index.js';
import { unanswered } from '../no-answer.js';
import type { ServerAuditContext, ServerRunContext } from './context.js';
import { judgeRefusal, ownSettledPayment } from './owned-payments.js';
import { askState, stateSource } from '../../state-hook/index.js';
import { evidenceOf, isSuccess, jsonObject, refundRequest, sendAppCall } from './requests.js';
import { judgeResource } from './resources.js';
import { lifecycleWaitMs, lifecycleWaitSource } from './waits.js';
import { member, webhookKind } from './webhook-match.js';

/** Whether a refund status is final: the spec model's finished refunds (no longer active; one active refund per payment). */
const isFinalRefundStatus = (status: string | undefined): boolean =>
  isIn(finishedRefundStatuses, status);

/** The smallest partial refund. */
export const PARTIAL_REFUND_AMOUNT = '0.01';

export type SettledPayment = ServerAuditContext['payments']['settled'][number];

// Refund checks share the configured settled payments by sequencing (they run one at a time: group "refunds"). The
// spec allows one active refund per payment, so a check takes a payment none of whose audit refunds is still
// active, waiting for a final-status refund webhook of the earlier ones when every payment is busy. Two settled
// payments are enough for every refund check (refund-second-while-active-rejected holds one while it tests).

/** Records a refund the audit created (accepted by the target), so later checks wait until it has finished. */
export function noteRefund(
  ctx: ServerRunContext,
  paymentId: string,
  refund: Record<string, unknown> | undefined,
): void {
  const id = refund?.['refundPaymentId'];
  const amount = (refund?.['refundRequestDetails'] as Record<string, unknown> | undefined)?.[
    'amount'
  ];
  if (typeof id === 'string')
    ctx.run.refunds.set(paymentId, [
      ...(ctx.run.refunds.get(paymentId) ?? []),
      { id, amount: typeof amount === 'number' ? String(amount) : PARTIAL_REFUND_AMOUNT },
    ]);
}

/** The final status of a refund, when a refund webhook with one arrived for it. */
function finalStatus(all: readonly ReceivedWebhook[], refundId: string): string | undefined {
  for (const w of all) {
    const status = member(w, 'refundStatus');
    if (
      webhookKind(w) === 'refund' &&
      member(w, 'refundId') === refundId &&
      isFinalRefundStatus(status)
    )
      return status;
  }
  return undefined;
}

const finished = (all: readonly ReceivedWebhook[], refundId: string): boolean =>
  finalStatus(all, refundId) !== undefined;

/**
 * What the spec model leaves the payment to refund (refundRoom), from its amount and this run's refunds of it, each
 * with the final status a refund webhook reported (none yet: still active).
 */
export function refundRoomOf(
  ctx: ServerRunContext,
  payment: SettledPayment,
): ReturnType<typeof refundRoom> {
  const all = ctx.webhooks?.received() ?? [];
  const refunds = (ctx.run.refunds.get(payment.paymentId) ?? []).map((r) => {
    const status = finalStatus(all, r.id);
    return {
      refundId: r.id,
      amount: toDecimal(r.amount),
      createdAt: 0,
      ...(status !== undefined ? { status } : {}),
    };
  });
  return refundRoom({ paymentId: payment.paymentId, amount: toDecimal(payment.amount), refunds });
}

/**
 * Waits until `done` holds for the webhooks received: one lifecycle step's wait (waits.ts); then, where the target has
 * a state provider (a state hook, or /sandbox/) and `unfinished` refunds remain, asks it to move them on and waits for
 * their webhooks.
 */
async function untilFinished(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  done: (all: readonly ReceivedWebhook[]) => boolean,
  unfinished: () => readonly string[],
): Promise<boolean> {
  const listener = ctx.webhooks;
  if (listener === undefined) return false;
  const wait = (ms: number): Promise<unknown> =>
    listener.waitFor(done, {
      timeoutMs: Math.max(0, Math.min(ms, env.deadline - Date.now() - 2_000)),
      signal: env.signal,
    });
  await wait(lifecycleWaitMs(ctx));
  if (done(listener.received()) || stateSource(ctx) === undefined) return done(listener.received());
  // A refused move (already final, moving by itself, or not offered) changes nothing: the webhooks decide.
  for (const id of unfinished()) await askState(ctx, env, { state: 'refund-status', refundId: id });
  await wait(ctx.webhookWaitMs);
  return done(listener.received());
}

/** Waits until every audit refund of the payment has a final status (see `untilFinished`); returns whether they have. */
export async function allFinished(
  ctx: ServerRunContext,
  env: CheckRunEnv,
  paymentId: string,
): Promise<boolean> {
  const ids = (ctx.run.refunds.get(paymentId) ?? []).map((r) => r.id);
  return untilFinished(
    ctx,
    env,
    (all) => ids.every((id) => finished(all, id)),
    () => ids.filter((id) => !finished(ctx.webhooks?.received() ?? [], id)),
  );
}

/**
 * A configured settled payment with no active audit refund (and enough left for a partial refund), waiting up to the
 * lifecycle time for an earlier refund to finish; or why none is free. Without a webhook listener the finish cannot
 * be seen: the payment used least is taken and a refused refund is reported as such by the check.
 */
export async function freeSettledPayment(
  ctx: ServerRunContext,
  env: CheckRunEnv,
  among: readonly SettledPayment[] = ctx.payments.settled,
): Promise<SettledPayment | { problem: string }> {
  // A check owns what it judges: where the target has a state provider (a state hook, or /sandbox/), a fresh settled
  // payment, which no earlier run (nor an earlier check) can have left an active refund on; the configured payments
  // where it cannot be made (a named hook that failed: its error, docs/state-hook.md).
  if (stateSource(ctx) !== undefined) {
    const own = await ownSettledPayment(ctx, env);
    if (own !== undefined) return own;
  }
  const large = among.filter((p) => allowsPartial(p.amount));
  const candidates = large.filter((p) => !ctx.run.tainted.has(p.paymentId));
  if (candidates.length === 0) {
    return {
      problem:
        among.length === 0
          ? 'needs payments.settled in the config'
          : large.length === 0
            ? `every configured settled payment is too small for a partial refund of ${PARTIAL_REFUND_AMOUNT}`
            : `every configured settled payment had a refund request that got no answer in this run, so each may hold an active refund the audit cannot see`,
    };
  }
  const ledger = ctx.run.refunds;
  const busy = (p: SettledPayment, all: readonly ReceivedWebhook[]): boolean =>
    (ledger.get(p.paymentId) ?? []).some((r) => !finished(all, r.id));
  const listener = ctx.webhooks;
  if (listener === undefined)
    return [...candidates].sort(
      (a, b) => (ledger.get(a.paymentId)?.length ?? 0) - (ledger.get(b.paymentId)?.length ?? 0),
    )[0]!;
  const free = (): SettledPayment | undefined =>
    candidates.find((p) => !busy(p, listener.received()));
  if (free() !== undefined) return free()!;
  const waited = await untilFinished(
    ctx,
    env,
    (all) => candidates.some((p) => !busy(p, all)),
    () =>
      candidates.flatMap((p) =>
        (ledger.get(p.paymentId) ?? [])
          .filter((r) => !finished(listener.received(), r.id))
          .map((r) => r.id),
      ),
  );
  return waited && free() !== undefined
    ? free()!
    : {
        problem: `every configured settled payment (${candidates.length}) still has an active refund created by an earlier check after waiting ${lifecycleWaitMs(ctx)} ms (${lifecycleWaitSource(ctx)})${stateSource(ctx) !== undefined ? ` and asking the ${stateSource(ctx) === 'hook' ? 'state hook' : "target's /sandbox/"} to move it on` : ''} for a final-status refund webhook (the spec allows one active refund per payment; configure more settled payments, or state the target's "lifecycle" in the config)`,
      };
}

/** True when a partial refund of 0.01 leaves something of the payment. */
function allowsPartial(amount: string): boolean {
  return compareDecimals(toDecimal(amount), toDecimal(PARTIAL_REFUND_AMOUNT)) > 0;
}

/** Sends a refund (unsigned first; signed again after a 401) and records a signed retry as an observation. */
export async function sendRefund(
  ctx: ServerRunContext,
  env: CheckRunEnv,
  paymentId: string,
  amount: string,
): Promise<{ ex: RecordedExchange; notes: Finding[] }> {
  const { ex, unsignedAttempt } = await sendAppCall(
    ctx,
    env,
    refundRequest(ctx, paymentId, amount),
  );
  // A refund request without an answer may still be acted on (late): the payment may hold a refund nobody saw.
  if (unanswered(ex) || (unsignedAttempt !== undefined && unanswered(unsignedAttempt)))
    ctx.run.tainted.add(paymentId);
  const notes = unsignedAttempt
    ? [
        observation(
          `refund without a signature was answered ${unsignedAttempt.response?.status ?? ''}; sent again signed (whether refunds require a signature is not shown)`,
          { requirement: 'SIG-OTHER-ENDPOINTS-SIGNED', evidence: evidenceOf(ctx, unsignedAttempt) },
        ),
      ]
    : [];
  return { ex, notes };
}

/** Creates a partial refund on a free settled payment and judges the Refund resource. */
export async function createPartialRefund(
  ctx: ServerRunContext,
  env: CheckRunEnv,
  chosen?: SettledPayment,
): Promise<{
  findings: Finding[];
  refund?: Record<string, unknown>;
  ex?: RecordedExchange;
  paymentId?: string;
  payment?: SettledPayment;
}> {
  const payment = chosen ?? (await freeSettledPayment(ctx, env));
  if ('problem' in payment) return { findings: [skip(payment.problem)] };
  const { ex, notes } = await sendRefund(ctx, env, payment.paymentId, PARTIAL_REFUND_AMOUNT);
  if (isSuccess(ex)) noteRefund(ctx, payment.paymentId, jsonObject(ex));
  const verdict = judgeResource(
    ctx,
    ex,
    `a partial refund of ${PARTIAL_REFUND_AMOUNT} of settled payment ${payment.paymentId}`,
    'refund',
    'REFUND-PARTIAL-ALLOWED',
    'REFUND-RESPONSE-RESOURCE',
  );
  // An unanswered request is the no-answer rule's to word (checks/no-answer.ts); a refusal is the target's answer,
  // or the state hook's where it made the payment and the target does not know it (judgeRefusal).
  const judged =
    isSuccess(ex) || unanswered(ex)
      ? verdict.findings
      : judgeRefusal(ctx, payment.paymentId, ex, verdict.findings);
  return {
    findings: [...notes, ...judged],
    ex,
    paymentId: payment.paymentId,
    payment,
    ...(verdict.findings.length === 0 && verdict.resource ? { refund: verdict.resource } : {}),
  };
}

/**
 * A refund a check needed was not created: the observations made on the way and a skip, worded by `why` from the
 * first other finding (the refusal or the skip that says why).
 */
export function refundNotCreated(
  made: { readonly findings: readonly Finding[] },
  why: (message: string) => string,
): Finding[] {
  return [
    ...made.findings.filter((f) => f.outcome === 'observation'),
    skip(why(made.findings.find((f) => f.outcome !== 'observation')?.message ?? '')),
  ];
}
