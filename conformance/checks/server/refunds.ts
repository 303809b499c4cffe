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
import type { CheckRunEnv, Evidence, Finding } from '../../run/check.js';
import { notApplicable, pass, skip, violation } from '../../run/check.js';
import type { RecordedExchange } from '../../http/http-client.js';
import { NEED, serverCheck, type ServerAuditContext, type ServerRunContext } from './context.js';
import {
  allFinished,
  createPartialRefund,
  freeSettledPayment,
  noteRefund,
  PARTIAL_REFUND_AMOUNT,
  refundRoomOf,
  refundNotCreated,
  sendRefund,
  type SettledPayment,
} from './refund-actions.js';
import { judgeRejection } from './rejection.js';
import { describeOutcome, evidenceOf, isSuccess, jsonObject, showValue } from './requests.js';
import { schemaProblems } from './resources.js';
import { lifecycleWaitMs, lifecycleWaitSource } from './waits.js';
import {
  judgeRefundResource,
  judgeUnsettledRefund,
  REFUND_CREATED_STATUS,
} from '../../spec-model/index.js';
import { violationOf } from './judgements.js';
import { judgeOverlap } from './refund-overlap.js';

type UnsettledPayment = ServerAuditContext['payments']['unsettled'][number];

/** The refusal of a refund of an unsettled payment: 422, an error body by the schema, UNPROCESSABLE_ENTITY, the status named. */
function judgeUnsettledRefusal(
  ctx: ServerAuditContext,
  payment: UnsettledPayment,
  ex: RecordedExchange,
): Finding[] {
  const evidence = evidenceOf(ctx, ex);
  const what = `a refund of payment ${payment.paymentId} in ${payment.status}`;
  const accepted = judgeUnsettledRefund(payment, {
    accepted: isSuccess(ex),
    outcome: describeOutcome(ex),
  });
  if (accepted !== undefined) return [violationOf(accepted, evidence)];
  const findings: Finding[] = [
    ex.response?.status === 422
      ? pass(`${what} was answered 422`, { requirement: 'ERROR-REFUND-UNSETTLED-422' })
      : violation(`${what} was answered ${describeOutcome(ex)}`, {
          requirement: 'ERROR-REFUND-UNSETTLED-422',
          expected: '422',
          received: describeOutcome(ex),
          evidence,
        }),
  ];
  const body = jsonObject(ex);
  const problems =
    body === undefined ? ['the body is not a JSON object'] : schemaProblems('error', body);
  if (problems.length > 0)
    return [
      ...findings,
      violation(`${what}: the error body does not match the error schema`, {
        requirement: 'ERROR-REFUND-BODY',
        expected:
          'schemas/error.schema.json (statusCode, statusName, errorMessage, traceId, source)',
        received: problems.join('; '),
        evidence,
      }),
    ];
  return [...findings, ...judgeErrorBody(what, payment.status, body!, evidence)];
}

/** A schema-valid error body: UNPROCESSABLE_ENTITY and 422, and a message naming the payment's status. */
function judgeErrorBody(
  what: string,
  status: string,
  b: Record<string, unknown>,
  evidence: Evidence,
): Finding[] {
  const findings: Finding[] = [];
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
    message.toUpperCase().includes(status.toUpperCase())
      ? pass(`the error message names the status ${status}`, {
          requirement: 'ERROR-REFUND-UNSETTLED-422',
        })
      : violation(`the error message "${message}" does not name the payment status ${status}`, {
          requirement: 'ERROR-REFUND-UNSETTLED-422',
          expected: `a message naming ${status}`,
          received: message,
          evidence,
        }),
  );
  return findings;
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
      return [...notes, ...judgeUnsettledRefusal(ctx, payment, ex)];
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
      const firstAt = Date.now();
      if (first.refund === undefined || first.paymentId === undefined)
        return refundNotCreated(
          first,
          (why) => `the first refund was not created, so a second one cannot be tested: ${why}`,
        );
      const { ex, notes } = await sendRefund(ctx, env, first.paymentId, PARTIAL_REFUND_AMOUNT);
      const secondAt = Date.now();
      if (isSuccess(ex)) noteRefund(ctx, first.paymentId, jsonObject(ex));
      const overlap = isSuccess(ex)
        ? await judgeOverlap(
            ctx,
            env,
            first.paymentId,
            { refund: first.refund, at: firstAt },
            ex,
            secondAt,
          )
        : undefined;
      if (overlap?.finished === undefined) {
        return [
          pass('the first refund was created', { requirement: 'REFUND-PARTIAL-ALLOWED' }),
          ...notes,
          ...(overlap?.judgement !== undefined
            ? [violationOf(overlap.judgement, evidenceOf(ctx, ex))]
            : judgeRejection(
                ctx,
                ex,
                'REFUND-ONE-ACTIVE',
                'a second refund while the first is active',
                'ERROR-REFUND-CONCURRENT',
              )),
        ];
      }
      lastSkip = [
        ...notes,
        skip(
          `the first refund had already finished (${overlap.finished}), so a second one was allowed: could not send it while the first was active (${attempt} attempt(s))`,
          { evidence: evidenceOf(ctx, ex) },
        ),
      ];
      if (env.deadline - Date.now() < 4_000) break;
    }
    return lastSkip;
  },
});

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
    const payment = made.payment!;
    // The spec model's judge of the Refund resource: created IN_PROGRESS, naming the payment, the amount asked.
    const wrong = judgeRefundResource(
      { paymentId: payment.paymentId, amount: toDecimal(payment.amount), refunds: [] },
      toDecimal(PARTIAL_REFUND_AMOUNT),
      refund,
    );
    if (wrong !== undefined)
      return [...findings, violationOf(wrong, made.ex ? evidenceOf(ctx, made.ex) : undefined)];
    findings.push(
      pass(`the refund was created ${REFUND_CREATED_STATUS}`, {
        requirement: 'REFUND-CREATED-IN-PROGRESS',
      }),
      pass('refundedPaymentId names the refunded payment', {
        requirement: 'REFUND-RESPONSE-RESOURCE',
      }),
      pass(`refundRequestDetails.amount is ${PARTIAL_REFUND_AMOUNT}`, {
        requirement: 'REFUND-RESPONSE-RESOURCE',
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
    if (first.refund === undefined || first.payment === undefined)
      return refundNotCreated(first, (why) => `the first refund was not created: ${why}`);
    const payment = first.payment;
    if (!(await allFinished(ctx, env, payment.paymentId))) {
      return [
        skip(
          `the first refund of payment ${payment.paymentId} did not reach a final status (refund webhook) within ${lifecycleWaitMs(ctx)} ms (${lifecycleWaitSource(ctx)})${ctx.sandbox === true ? ' and after asking /sandbox/ to move it on' : ''}, so a second one could not be sent after it finished`,
        ),
      ];
    }
    const second = await sendSecondPartial(ctx, env, payment.paymentId);
    if (!second.accepted) return second.findings;
    if (!(await allFinished(ctx, env, payment.paymentId))) {
      return [
        ...second.findings,
        skip(
          `the refunds of payment ${payment.paymentId} did not all reach a final status in time, so the total could not be tested`,
        ),
      ];
    }
    return [...second.findings, ...(await refundBeyondTotal(ctx, env, payment))];
  },
});

/** A second partial refund, sent after the first finished, must be accepted (several partial refunds are allowed). */
async function sendSecondPartial(
  ctx: ServerRunContext,
  env: CheckRunEnv,
  paymentId: string,
): Promise<{ findings: Finding[]; accepted: boolean }> {
  const { ex, notes } = await sendRefund(ctx, env, paymentId, PARTIAL_REFUND_AMOUNT);
  if (!isSuccess(ex)) {
    const refused = violation(
      'a second partial refund, sent after the first had finished, was refused',
      {
        requirement: 'REFUND-PARTIAL-ALLOWED',
        expected: 'a Refund resource (several partial refunds per payment are allowed)',
        received: describeOutcome(ex),
        evidence: evidenceOf(ctx, ex),
      },
    );
    return { findings: [...notes, refused], accepted: false };
  }
  noteRefund(ctx, paymentId, jsonObject(ex));
  const accepted = pass('a second partial refund after the first had finished was accepted', {
    requirement: 'REFUND-PARTIAL-ALLOWED',
  });
  return { findings: [...notes, accepted], accepted: true };
}

/** Once the earlier refunds finished: a refund of the rest plus 0.01 must be rejected (the sum stays within the amount). */
async function refundBeyondTotal(
  ctx: ServerRunContext,
  env: CheckRunEnv,
  payment: SettledPayment,
): Promise<Finding[]> {
  // Every refund of the payment has finished: only those not failed, cancelled or returned surely count towards the
  // total (whether those do is not shown), so what is surely left is the model's `most`.
  const left = refundRoomOf(ctx, payment).most;
  const taken = subtractDecimals(toDecimal(payment.amount), left);
  if (compareDecimals(taken, toDecimal(PARTIAL_REFUND_AMOUNT)) <= 0) {
    return [
      notApplicable(
        `fewer than two of the audit's refunds of payment ${payment.paymentId} ended PROCESSED, so the total is not tested`,
      ),
    ];
  }
  const amount = formatDecimal(addDecimals(left, toDecimal(PARTIAL_REFUND_AMOUNT)), {
    minScale: 2,
  });
  const over = await sendRefund(ctx, env, payment.paymentId, amount);
  if (isSuccess(over.ex)) noteRefund(ctx, payment.paymentId, jsonObject(over.ex));
  return [
    ...over.notes,
    ...judgeRejection(
      ctx,
      over.ex,
      'REFUND-TOTAL-CAP',
      `a refund of ${amount} of a payment of ${payment.amount} after refunds of ${formatDecimal(taken, { minScale: 2 })}`,
      'ERROR-REFUND-OVER-TOTAL',
    ),
  ];
}

export const refundChecks = [
  unsettled,
  overAmount,
  secondWhileActive,
  partial,
  severalPartial,
] as const;
