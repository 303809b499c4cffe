// Refunds (spec: Endpoint 4, Limits, Errors): an unsettled payment gives 422 UNPROCESSABLE_ENTITY with the error
// body naming its status; more than the payment amount is rejected; a second refund while one is active is
// rejected; a partial refund is accepted as a schema-valid Refund resource in IN_PROGRESS.
import {
  addDecimals,
  compareDecimals,
  formatDecimal,
  subtractDecimals,
  toDecimal,
} from '../../../src/rules/money.js';
import type { CheckRunEnv, Finding } from '../../check.js';
import { notApplicable, observation, pass, skip, violation } from '../../check.js';
import type { RecordedExchange } from '../../http-client.js';
import { NEED, serverCheck, type ServerAuditContext } from './context.js';
import { judgeRejection } from './rejection.js';
import {
  describeOutcome,
  evidenceOf,
  isSuccess,
  jsonObject,
  refundRequest,
  sandboxCall,
  sendAppCall,
  showValue,
} from './requests.js';
import { judgeResource, schemaProblems } from './resources.js';
import { unanswered } from '../no-answer.js';
import { lifecycleWaitMs, lifecycleWaitSource } from './waits.js';
import { ownSettledPayment, undecidedOnForeignPayment } from './owned-payments.js';
import type { ReceivedWebhook } from '../../webhook-listener.js';
import { member, waitForMentions, webhookKind } from './webhook-match.js';

/** The smallest partial refund. */
export const PARTIAL_REFUND_AMOUNT = '0.01';

export type SettledPayment = ServerAuditContext['payments']['settled'][number];

// Refund checks share the configured settled payments by sequencing (they run one at a time: group "refunds"). The
// spec allows one active refund per payment, so a check takes a payment none of whose audit refunds is still
// active, waiting for a final-status refund webhook of the earlier ones when every payment is busy. Two settled
// payments are enough for every refund check (refund-second-while-active-rejected holds one while it tests).

/** Per run (context): the refunds the audit created (id and amount), by payment id. */
const ledgers = new WeakMap<
  ServerAuditContext,
  Map<string, Array<{ readonly id: string; readonly amount: string }>>
>();

function ledgerOf(
  ctx: ServerAuditContext,
): Map<string, Array<{ readonly id: string; readonly amount: string }>> {
  let ledger = ledgers.get(ctx);
  if (ledger === undefined) ledgers.set(ctx, (ledger = new Map()));
  return ledger;
}

/**
 * Per run: payments a refund request was sent for that got no complete answer. The target may have created that
 * refund (it may arrive late), so the payment may have an active refund the audit cannot see: never chosen again.
 */
const tainted = new WeakMap<ServerAuditContext, Set<string>>();

function taintedOf(ctx: ServerAuditContext): Set<string> {
  let set = tainted.get(ctx);
  if (set === undefined) tainted.set(ctx, (set = new Set()));
  return set;
}

/** Records a refund the audit created (accepted by the target), so later checks wait until it has finished. */
export function noteRefund(
  ctx: ServerAuditContext,
  paymentId: string,
  refund: Record<string, unknown> | undefined,
): void {
  const id = refund?.['refundPaymentId'];
  const amount = (refund?.['refundRequestDetails'] as Record<string, unknown> | undefined)?.[
    'amount'
  ];
  if (typeof id === 'string')
    ledgerOf(ctx).set(paymentId, [
      ...(ledgerOf(ctx).get(paymentId) ?? []),
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
      status !== undefined &&
      FINISHED.includes(status)
    )
      return status;
  }
  return undefined;
}

const finished = (all: readonly ReceivedWebhook[], refundId: string): boolean =>
  finalStatus(all, refundId) !== undefined;

/**
 * Waits until `done` holds for the webhooks received: one lifecycle step's wait (waits.ts); then, where the target has
 * payconform's /sandbox/ and `unfinished` refunds remain, asks it to move them on and waits for their webhooks.
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
  if (done(listener.received()) || ctx.sandbox !== true) return done(listener.received());
  // A refused move (already final, or moving by itself) changes nothing: the webhooks decide.
  for (const id of unfinished())
    await sandboxCall(ctx, env, 'POST', `/refunds/${encodeURIComponent(id)}/advance`, {});
  await wait(ctx.webhookWaitMs);
  return done(listener.received());
}

/** Waits until every audit refund of the payment has a final status (see `untilFinished`); returns whether they have. */
async function allFinished(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  paymentId: string,
): Promise<boolean> {
  const ids = (ledgerOf(ctx).get(paymentId) ?? []).map((r) => r.id);
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
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  among: readonly SettledPayment[] = ctx.payments.settled,
): Promise<SettledPayment | { problem: string }> {
  // A check owns what it judges: where the target has payconform's /sandbox/, a fresh settled payment, which no earlier
  // run (nor an earlier check) can have left an active refund on; the configured payments where it cannot be made.
  if (ctx.sandbox === true) {
    const own = await ownSettledPayment(ctx, env);
    if (own !== undefined) return own;
  }
  const large = among.filter((p) => allowsPartial(p.amount));
  const candidates = large.filter((p) => !taintedOf(ctx).has(p.paymentId));
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
  const ledger = ledgerOf(ctx);
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
        problem: `every configured settled payment (${candidates.length}) still has an active refund created by an earlier check after waiting ${lifecycleWaitMs(ctx)} ms (${lifecycleWaitSource(ctx)})${ctx.sandbox === true ? ` and asking /sandbox/ to move it on` : ''} for a final-status refund webhook (the spec allows one active refund per payment; configure more settled payments, or state the target's "lifecycle" in the config)`,
      };
}

/** True when a partial refund of 0.01 leaves something of the payment. */
function allowsPartial(amount: string): boolean {
  return compareDecimals(toDecimal(amount), toDecimal(PARTIAL_REFUND_AMOUNT)) > 0;
}

/** Sends a refund (unsigned first; signed again after a 401) and records a signed retry as an observation. */
export async function sendRefund(
  ctx: ServerAuditContext,
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
    taintedOf(ctx).add(paymentId);
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
  ctx: ServerAuditContext,
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
  // An unanswered request is the no-answer rule's to word (checks/no-answer.ts); a refusal is the target's answer.
  const judged =
    isSuccess(ex) || unanswered(ex)
      ? verdict.findings
      : undecidedOnForeignPayment(ctx, payment.paymentId, verdict.findings);
  return {
    findings: [...notes, ...judged],
    ex,
    paymentId: payment.paymentId,
    payment,
    ...(verdict.findings.length === 0 && verdict.resource ? { refund: verdict.resource } : {}),
  };
}

const unsettled = serverCheck({
  id: 'refund-unsettled-rejected',
  title:
    'a refund of an unsettled payment gives 422 UNPROCESSABLE_ENTITY with the error body naming the status',
  area: 'refunds',
  requirements: [
    'REFUND-SETTLED-ONLY',
    'ERROR-REFUND-UNSETTLED-422',
    'ERROR-REFUND-BODY',
    'SIG-OTHER-ENDPOINTS-SIGNED',
  ],
  level: 'MUST',
  needs: [...NEED.refunds, 'payments.unsettled'],
  mutating: true,
  async run(ctx, env) {
    const cases = ctx.payments.unsettled.slice(0, 4).map(async (payment): Promise<Finding[]> => {
      const { ex, notes } = await sendRefund(ctx, env, payment.paymentId, PARTIAL_REFUND_AMOUNT);
      const evidence = evidenceOf(ctx, ex);
      const what = `a refund of payment ${payment.paymentId} in ${payment.status}`;
      const findings: Finding[] = [...notes];
      if (isSuccess(ex))
        return [
          ...findings,
          violation(`${what} was accepted`, {
            requirement: 'REFUND-SETTLED-ONLY',
            expected: '422 UNPROCESSABLE_ENTITY',
            received: describeOutcome(ex),
            evidence,
          }),
        ];
      const status = ex.response?.status;
      findings.push(
        status === 422
          ? pass(`${what} was answered 422`, { requirement: 'ERROR-REFUND-UNSETTLED-422' })
          : violation(`${what} was answered ${describeOutcome(ex)}`, {
              requirement: 'ERROR-REFUND-UNSETTLED-422',
              expected: '422',
              received: describeOutcome(ex),
              evidence,
            }),
      );
      const body = jsonObject(ex);
      const problems =
        body === undefined ? ['the body is not a JSON object'] : schemaProblems('error', body);
      if (problems.length > 0) {
        findings.push(
          violation(`${what}: the error body does not match the error schema`, {
            requirement: 'ERROR-REFUND-BODY',
            expected:
              'schemas/error.schema.json (statusCode, statusName, errorMessage, traceId, source)',
            received: problems.join('; '),
            evidence,
          }),
        );
        return findings;
      }
      const b = body!;
      if (b['statusName'] !== 'UNPROCESSABLE_ENTITY' || b['statusCode'] !== 422) {
        findings.push(
          violation(
            `${what}: statusName ${showValue(b['statusName'])}, statusCode ${showValue(b['statusCode'])}`,
            {
              requirement: 'ERROR-REFUND-UNSETTLED-422',
              expected: 'statusName UNPROCESSABLE_ENTITY, statusCode 422',
              evidence,
            },
          ),
        );
      }
      const message = String(b['errorMessage']);
      findings.push(
        message.toUpperCase().includes(payment.status.toUpperCase())
          ? pass(`the error message names the status ${payment.status}`, {
              requirement: 'ERROR-REFUND-UNSETTLED-422',
            })
          : violation(
              `the error message "${message}" does not name the payment status ${payment.status}`,
              {
                requirement: 'ERROR-REFUND-UNSETTLED-422',
                expected: `a message naming ${payment.status}`,
                received: message,
                evidence,
              },
            ),
      );
      return findings;
    });
    return (await Promise.all(cases)).flat();
  },
});

const overAmount = serverCheck({
  id: 'refund-over-amount-rejected',
  title: 'a refund of more than the payment amount is rejected',
  area: 'refunds',
  requirements: [
    'REFUND-TOTAL-CAP',
    'ERROR-REFUND-OVER-TOTAL',
    'ERROR-STATUS-CLASSES',
    'SIG-OTHER-ENDPOINTS-SIGNED',
  ],
  level: 'MUST',
  needs: [...NEED.refunds, 'payments.settled'],
  mutating: true,
  group: 'refunds',
  async run(ctx, env) {
    // A payment with no active refund: otherwise a rejection could be for the one-active rule, not the total.
    const payment = await freeSettledPayment(ctx, env);
    if ('problem' in payment) return [skip(payment.problem)];
    const amount = formatDecimal(addDecimals(toDecimal(payment.amount), toDecimal('0.01')), {
      minScale: 2,
    });
    const { ex, notes } = await sendRefund(ctx, env, payment.paymentId, amount);
    if (isSuccess(ex)) noteRefund(ctx, payment.paymentId, jsonObject(ex));
    return [
      ...notes,
      ...judgeRejection(
        ctx,
        ex,
        'REFUND-TOTAL-CAP',
        `a refund of ${amount} of a payment of ${payment.amount}`,
        'ERROR-REFUND-OVER-TOTAL',
      ),
    ];
  },
});

const secondWhileActive = serverCheck({
  id: 'refund-second-while-active-rejected',
  title: 'a second refund while one is active for the payment is rejected',
  area: 'refunds',
  requirements: [
    'REFUND-ONE-ACTIVE',
    'ERROR-REFUND-CONCURRENT',
    'ERROR-STATUS-CLASSES',
    'REFUND-PARTIAL-ALLOWED',
    'REFUND-RESPONSE-RESOURCE',
    'SIG-OTHER-ENDPOINTS-SIGNED',
  ],
  level: 'MUST',
  needs: [...NEED.refunds, 'payments.settled'],
  mutating: true,
  group: 'refunds',
  async run(ctx, env) {
    // A target whose refunds finish fast (or a loaded machine) can let the first finish before the second arrives:
    // that pair shows nothing, so it is tried again (up to three times) once the payments are free.
    let lastSkip: Finding[] = [];
    for (let attempt = 1; attempt <= 3; attempt++) {
      const first = await createPartialRefund(ctx, env);
      if (first.refund === undefined || first.paymentId === undefined) {
        return [
          ...first.findings.filter((f) => f.outcome === 'observation'),
          skip(
            `the first refund was not created, so a second one cannot be tested: ${first.findings.find((f) => f.outcome !== 'observation')?.message ?? ''}`,
          ),
        ];
      }
      const { ex, notes } = await sendRefund(ctx, env, first.paymentId, PARTIAL_REFUND_AMOUNT);
      if (isSuccess(ex)) noteRefund(ctx, first.paymentId, jsonObject(ex));
      const finishedFirst = isSuccess(ex)
        ? await finishedBefore(ctx, env, first.refund, jsonObject(ex))
        : undefined;
      if (finishedFirst === undefined) {
        return [
          pass('the first refund was created', { requirement: 'REFUND-PARTIAL-ALLOWED' }),
          ...notes,
          ...judgeRejection(
            ctx,
            ex,
            'REFUND-ONE-ACTIVE',
            'a second refund while the first is active',
            'ERROR-REFUND-CONCURRENT',
          ),
        ];
      }
      lastSkip = [
        ...notes,
        skip(
          `the first refund had already finished (${finishedFirst}), so a second one was allowed: could not send it while the first was active (${attempt} attempt(s))`,
          { evidence: evidenceOf(ctx, ex) },
        ),
      ];
      if (env.deadline - Date.now() < 4_000) break;
    }
    return lastSkip;
  },
});

/** Final refund statuses (no longer active; spec: one active refund per payment). */
const FINISHED = ['PROCESSED', 'FAILED', 'CANCELLED', 'RETURNED'];

/**
 * When a second refund was accepted: did the first finish before it was created? Judged on the service's own clock:
 * the eventTimeUtc of a final-status webhook of the first refund against the second refund's createdAtUtc.
 * Returns a description when it did, undefined when it did not or nothing shows it.
 */
async function finishedBefore(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  firstRefund: Record<string, unknown>,
  second: Record<string, unknown> | undefined,
): Promise<string | undefined> {
  const id = firstRefund['refundPaymentId'];
  const createdAt = second?.['createdAtUtc'];
  if (ctx.webhooks === undefined || typeof id !== 'string' || typeof createdAt !== 'string')
    return undefined;
  const done = (w: Parameters<typeof member>[0]): boolean =>
    FINISHED.includes(member(w, 'refundStatus') ?? '');
  // A first refund that finished must send its final webhook (each status change produces one): waited for as a
  // webhook that must come, not a quiet wait, so a delivery slowed by load is not read as "still active". The
  // timestamps decide, so a longer wait cannot hide a second refund accepted while the first was active.
  const hooks = await waitForMentions(ctx.webhooks, env, ctx.webhookWaitMs, [id], 1, done);
  const secondAt = Date.parse(
    /(?:[zZ]|[+-]\d\d:?\d\d)$/.test(createdAt) ? createdAt : `${createdAt}Z`,
  );
  for (const w of hooks) {
    const at = member(w, 'eventTimeUtc');
    const finishedAt =
      at === undefined ? NaN : Date.parse(/(?:[zZ]|[+-]\d\d:?\d\d)$/.test(at) ? at : `${at}Z`);
    if (!Number.isNaN(finishedAt) && !Number.isNaN(secondAt) && finishedAt <= secondAt)
      return `${member(w, 'refundStatus')} at ${at}, second refund created at ${createdAt}`;
  }
  return undefined;
}

const partial = serverCheck({
  id: 'refund-partial-accepted',
  title: 'a partial refund of a settled payment is accepted as a Refund resource in IN_PROGRESS',
  area: 'refunds',
  requirements: [
    'REFUND-PARTIAL-ALLOWED',
    'REFUND-RESPONSE-RESOURCE',
    'REFUND-CREATED-IN-PROGRESS',
    'REFUND-CREATE-REQUEST',
    'REFUND-REQUEST-BODY',
    'VERSION-REFUND-MEDIA-TYPE',
    'REFUND-STATUS-VALUES',
    'REFUND-CREATEDATUTC-FORM',
    'SIG-OTHER-ENDPOINTS-SIGNED',
  ],
  level: 'MUST',
  needs: [...NEED.refunds, 'payments.settled'],
  mutating: true,
  group: 'refunds',
  async run(ctx, env) {
    const made = await createPartialRefund(ctx, env);
    const findings = [...made.findings];
    const refund = made.refund;
    if (refund === undefined) return findings;
    const evidence = made.ex ? evidenceOf(ctx, made.ex) : undefined;
    const ev = evidence ? { evidence } : {};
    findings.push(
      refund['status'] === 'IN_PROGRESS'
        ? pass('the refund was created IN_PROGRESS', { requirement: 'REFUND-CREATED-IN-PROGRESS' })
        : violation(`the refund was created ${showValue(refund['status'])}`, {
            requirement: 'REFUND-CREATED-IN-PROGRESS',
            expected: 'IN_PROGRESS',
            received: showValue(refund['status']),
            ...ev,
          }),
    );
    findings.push(
      refund['refundedPaymentId'] === made.paymentId
        ? pass('refundedPaymentId names the refunded payment', {
            requirement: 'REFUND-RESPONSE-RESOURCE',
          })
        : violation('refundedPaymentId is not the refunded payment', {
            requirement: 'REFUND-RESPONSE-RESOURCE',
            expected: made.paymentId ?? '',
            received: showValue(refund['refundedPaymentId']),
            ...ev,
          }),
    );
    const details = refund['refundRequestDetails'] as Record<string, unknown> | undefined;
    const amount = details?.['amount'];
    const same =
      typeof amount === 'number' &&
      compareDecimals(toDecimal(String(amount)), toDecimal(PARTIAL_REFUND_AMOUNT)) === 0;
    findings.push(
      same
        ? pass(`refundRequestDetails.amount is ${PARTIAL_REFUND_AMOUNT}`, {
            requirement: 'REFUND-RESPONSE-RESOURCE',
          })
        : violation('refundRequestDetails.amount is not the amount asked for', {
            requirement: 'REFUND-RESPONSE-RESOURCE',
            expected: PARTIAL_REFUND_AMOUNT,
            received: showValue(amount),
            ...ev,
          }),
    );
    return findings;
  },
});

/**
 * Spec, Limits: "several partial refunds per payment are allowed" and "The sum of all refunds of a payment cannot
 * exceed the payment amount". Over one payment's life: a second partial refund after the first finished is
 * accepted; once both are PROCESSED, a refund of the rest plus 0.01 (within the amount alone, above it with the
 * earlier refunds) is rejected.
 */
const severalPartial = serverCheck({
  id: 'refund-several-partial',
  title:
    'several partial refunds of one payment are accepted one after another, and their sum stays within the payment amount',
  area: 'refunds',
  requirements: [
    'REFUND-PARTIAL-ALLOWED',
    'REFUND-TOTAL-CAP',
    'REFUND-ONE-ACTIVE',
    'ERROR-REFUND-OVER-TOTAL',
    'ERROR-STATUS-CLASSES',
    'REFUND-RESPONSE-RESOURCE',
    'SIG-OTHER-ENDPOINTS-SIGNED',
  ],
  level: 'MUST',
  needs: [...NEED.refunds, 'payments.settled', ...NEED.webhooks],
  mutating: true,
  group: 'refunds',
  async run(ctx, env) {
    const first = await createPartialRefund(ctx, env);
    if (first.refund === undefined || first.payment === undefined) {
      return [
        ...first.findings.filter((f) => f.outcome === 'observation'),
        skip(
          `the first refund was not created: ${first.findings.find((f) => f.outcome !== 'observation')?.message ?? ''}`,
        ),
      ];
    }
    const payment = first.payment;
    if (!(await allFinished(ctx, env, payment.paymentId))) {
      return [
        skip(
          `the first refund of payment ${payment.paymentId} did not reach a final status (refund webhook) within ${lifecycleWaitMs(ctx)} ms (${lifecycleWaitSource(ctx)})${ctx.sandbox === true ? ' and after asking /sandbox/ to move it on' : ''}, so a second one could not be sent after it finished`,
        ),
      ];
    }
    const { ex, notes } = await sendRefund(ctx, env, payment.paymentId, PARTIAL_REFUND_AMOUNT);
    const findings: Finding[] = [...notes];
    if (!isSuccess(ex)) {
      findings.push(
        violation('a second partial refund, sent after the first had finished, was refused', {
          requirement: 'REFUND-PARTIAL-ALLOWED',
          expected: 'a Refund resource (several partial refunds per payment are allowed)',
          received: describeOutcome(ex),
          evidence: evidenceOf(ctx, ex),
        }),
      );
      return findings;
    }
    noteRefund(ctx, payment.paymentId, jsonObject(ex));
    findings.push(
      pass('a second partial refund after the first had finished was accepted', {
        requirement: 'REFUND-PARTIAL-ALLOWED',
      }),
    );
    if (!(await allFinished(ctx, env, payment.paymentId))) {
      return [
        ...findings,
        skip(
          `the refunds of payment ${payment.paymentId} did not all reach a final status in time, so the total could not be tested`,
        ),
      ];
    }
    // Only refunds known PROCESSED certainly count towards the total (whether failed ones do is not shown).
    const all = ctx.webhooks?.received() ?? [];
    const taken = (ledgerOf(ctx).get(payment.paymentId) ?? [])
      .filter((r) => finalStatus(all, r.id) === 'PROCESSED')
      .reduce((sum, r) => addDecimals(sum, toDecimal(r.amount)), toDecimal('0'));
    if (compareDecimals(taken, toDecimal(PARTIAL_REFUND_AMOUNT)) <= 0) {
      return [
        ...findings,
        notApplicable(
          `fewer than two of the audit's refunds of payment ${payment.paymentId} ended PROCESSED, so the total is not tested`,
        ),
      ];
    }
    const rest = subtractDecimals(toDecimal(payment.amount), taken);
    const amount = formatDecimal(addDecimals(rest, toDecimal(PARTIAL_REFUND_AMOUNT)), {
      minScale: 2,
    });
    const over = await sendRefund(ctx, env, payment.paymentId, amount);
    if (isSuccess(over.ex)) noteRefund(ctx, payment.paymentId, jsonObject(over.ex));
    return [
      ...findings,
      ...over.notes,
      ...judgeRejection(
        ctx,
        over.ex,
        'REFUND-TOTAL-CAP',
        `a refund of ${amount} of a payment of ${payment.amount} after refunds of ${formatDecimal(taken, { minScale: 2 })}`,
        'ERROR-REFUND-OVER-TOTAL',
      ),
    ];
  },
});

export const refundChecks = [
  unsettled,
  overAmount,
  secondWhileActive,
  partial,
  severalPartial,
] as const;
