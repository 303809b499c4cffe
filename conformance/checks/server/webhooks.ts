// Webhooks the service sends (spec: Events, Webhook authentication): one per status change, PUT with
// application/json, signed SHA256withRSA over the exact bytes with the key the public-key endpoint serves,
// schema-valid, and redelivered after a non-200 answer with the delivery attempt counter rising.
import { getFieldValues } from '../../../src/http/message.js';
import { compareDecimals, toDecimal } from '../../../src/rules/money.js';
import { verifyWebhook } from '../../../src/webhooks/index.js';
import type { CheckRunEnv, Evidence, Finding } from '../../check.js';
import { notApplicable, observation, pass, skip, violation } from '../../check.js';
import { mediaTypeOf } from '../../client-audit/endpoints.js';
import type { ReceivedWebhook } from '../../webhook-listener.js';
import { createHeldPayout } from './cop-cases.js';
import { NEED, serverCheck, type ServerAuditContext } from './context.js';
import { fetchPublicKey } from './served-key.js';
import { lifecycleWaitMs, lifecycleWaitSource, redeliveryWaitMs } from './waits.js';
import { createPartialRefund } from './refund-actions.js';
import { schemaProblems } from './resources.js';
import {
  createSignedPayout,
  defaultDestination,
  describeOutcome,
  evidenceOf,
  isSuccess,
  jsonObject,
  payoutActionRequest,
  sendAppCall,
  uniqueReference,
} from './requests.js';
import {
  bodyText,
  member,
  mentioning,
  waitForMentions,
  webhookEvidence,
  webhookKind,
} from './webhook-match.js';

const WEBHOOK_NEEDS = [...NEED.signing, ...NEED.webhooks] as const;
const listenerOf = (ctx: ServerAuditContext) => {
  if (ctx.webhooks === undefined)
    throw new TypeError('this check needs the webhook listener (declare webhookListen in needs)');
  return ctx.webhooks;
};
const statusOf = (w: ReceivedWebhook, kind: 'payout' | 'refund'): string | undefined =>
  member(w, kind === 'payout' ? 'payoutStatus' : 'refundStatus');

/** Creates an auto-committed payout and waits for its first webhook; a problem is a skip (other checks judge creation). */
async function triggerPayoutWebhook(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
): Promise<{ hooks: ReceivedWebhook[] } | { problem: Finding }> {
  const { ex, reference } = await createSignedPayout(ctx, env, {
    destination: defaultDestination(ctx),
  });
  if (!isSuccess(ex))
    return {
      problem: skip(`could not create a payout to trigger a webhook (${describeOutcome(ex)})`, {
        evidence: evidenceOf(ctx, ex),
      }),
    };
  const hooks = await waitForMentions(listenerOf(ctx), env, ctx.webhookWaitMs, [reference]);
  if (hooks.length === 0)
    return {
      problem: skip(
        `no webhook arrived for the payout within ${ctx.webhookWaitMs} ms (see webhook-payout-status-changes)`,
      ),
    };
  return { hooks };
}

/** Webhooks to judge: those this check triggered, and every other one received so far in this run. */
function judged(ctx: ServerAuditContext, own: readonly ReceivedWebhook[]): ReceivedWebhook[] {
  const seen = new Set(own.map((w) => w.seq));
  return [
    ...own,
    ...listenerOf(ctx)
      .received()
      .filter((w) => !seen.has(w.seq)),
  ];
}

/** A status webhook for `token` (payout or refund id) with `status` arrives within `timeoutMs`. */
async function expectStatusWebhook(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  kind: 'payout' | 'refund',
  token: string,
  status: string,
  timeoutMs: number,
  requirement: string,
  why: string,
  trigger?: Evidence,
): Promise<Finding> {
  const hooks = await waitForMentions(
    listenerOf(ctx),
    env,
    timeoutMs,
    [token],
    1,
    (w) => statusOf(w, kind) === status,
  );
  if (hooks.length > 0)
    return pass(`a ${kind} webhook with status ${status} arrived ${why}`, { requirement });
  const others = mentioning(listenerOf(ctx).received(), token);
  return violation(
    `no ${kind} webhook with status ${status} arrived within ${timeoutMs} ms ${why}`,
    {
      requirement,
      expected: `a ${kind} webhook with ${kind}Status ${status}`,
      received:
        others.length === 0
          ? 'no webhook for it'
          : `webhooks with status ${others.map((w) => statusOf(w, kind) ?? '(none)').join(', ')}`,
      ...(others[0]
        ? { evidence: webhookEvidence(others[0]) }
        : trigger
          ? { evidence: trigger }
          : {}),
    },
  );
}

/** After creation: a later status webhook must come when the runner knows the target's timers; else it is recorded. */
async function laterStatus(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  kind: 'payout' | 'refund',
  token: string,
  requirement: string,
  trigger?: Evidence,
): Promise<Finding> {
  const later = (w: ReceivedWebhook): boolean =>
    (statusOf(w, kind) ?? 'IN_PROGRESS') !== 'IN_PROGRESS';
  // Only a stated lifecycle (the runner's timer, or config "lifecycle.withinMs") says the status must move on.
  const stated = ctx.knownTimings !== undefined || ctx.lifecycle?.withinMs !== undefined;
  // The stated time bounds the move; its webhook then gets the webhook wait (the spec states no delivery time, and a
  // long-lived or loaded target delivers a moment after it moves).
  const wait = stated ? lifecycleWaitMs(ctx) + ctx.webhookWaitMs : 0;
  const hooks = await waitForMentions(listenerOf(ctx), env, wait, [token], 1, later);
  if (hooks.length > 0)
    return pass(`a later ${kind} status webhook arrived (${statusOf(hooks[0]!, kind) ?? '?'})`, {
      requirement,
    });
  if (stated) {
    const seen = mentioning(listenerOf(ctx).received(), token);
    return violation(
      `the ${kind} moved on from IN_PROGRESS (${lifecycleWaitSource(ctx)}) but no webhook for the new status arrived within ${wait} ms (that wait and the webhook wait, ${ctx.webhookWaitMs} ms)`,
      {
        requirement,
        expected: 'a webhook for each status change',
        received: `webhooks with status ${seen.map((w) => statusOf(w, kind) ?? '(none)').join(', ') || '(none)'}`,
        ...(trigger ? { evidence: trigger } : {}),
      },
    );
  }
  return observation(
    `no later ${kind} status webhook seen yet (when the ${kind} moves on from IN_PROGRESS is not shown)`,
    { requirement },
  );
}

const payoutStatusChanges = serverCheck({
  id: 'webhook-payout-status-changes',
  title:
    'a payout webhook arrives for each payout status change (create, commit, cancel, lifecycle)',
  area: 'webhooks',
  requirements: [
    'PAYOUT-STATUS-CHANGE-WEBHOOK',
    'WEBHOOK-AWAITING-COMMIT',
    'SIG-OTHER-ENDPOINTS-SIGNED',
  ],
  level: 'MUST',
  needs: WEBHOOK_NEEDS,
  mutating: true,
  async run(ctx, env) {
    const auto = async (): Promise<Finding[]> => {
      const { ex } = await createSignedPayout(ctx, env, { destination: defaultDestination(ctx) });
      const id = jsonObject(ex)?.['payoutId'];
      if (!isSuccess(ex) || typeof id !== 'string')
        return [
          skip(`could not create a payout (${describeOutcome(ex)})`, {
            evidence: evidenceOf(ctx, ex),
          }),
        ];
      const trigger = evidenceOf(ctx, ex);
      const created = await expectStatusWebhook(
        ctx,
        env,
        'payout',
        id,
        'IN_PROGRESS',
        ctx.webhookWaitMs,
        'PAYOUT-STATUS-CHANGE-WEBHOOK',
        'for a created payout',
        trigger,
      );
      return [
        created,
        await laterStatus(ctx, env, 'payout', id, 'PAYOUT-STATUS-CHANGE-WEBHOOK', trigger),
      ];
    };
    const moved = async (action: 'commit' | 'cancel'): Promise<Finding[]> => {
      const held = await createHeldPayout(ctx, env);
      if ('problem' in held) return [notApplicable(`${action}: ${held.problem.message}`)];
      const { ex } = await sendAppCall(ctx, env, payoutActionRequest(ctx, held.payoutId, action));
      if (!isSuccess(ex))
        return [
          skip(`${action} of a held payout failed (${describeOutcome(ex)}); see cop-${action}`, {
            evidence: evidenceOf(ctx, ex),
          }),
        ];
      const status = action === 'commit' ? 'IN_PROGRESS' : 'CANCELLED';
      const found = await expectStatusWebhook(
        ctx,
        env,
        'payout',
        held.payoutId,
        status,
        ctx.webhookWaitMs,
        'PAYOUT-STATUS-CHANGE-WEBHOOK',
        `after ${action}`,
        evidenceOf(ctx, ex),
      );
      const awaiting = mentioning(listenerOf(ctx).received(), held.payoutId).some(
        (w) => statusOf(w, 'payout') === 'AWAITING_COMMIT',
      );
      return [
        found,
        observation(
          `a webhook for the AWAITING_COMMIT status was ${awaiting ? '' : 'not '}sent (not shown by the spec)`,
          { requirement: 'WEBHOOK-AWAITING-COMMIT' },
        ),
      ];
    };
    return (await Promise.all([auto(), moved('commit'), moved('cancel')])).flat();
  },
});

const refundStatusChanges = serverCheck({
  id: 'webhook-refund-status-changes',
  title: 'a refund webhook arrives for each refund status change (create, lifecycle)',
  area: 'webhooks',
  requirements: [
    'REFUND-STATUS-CHANGE-WEBHOOK',
    'WEBHOOK-REFUND-PAYLOAD',
    'SIG-OTHER-ENDPOINTS-SIGNED',
    'REFUND-PARTIAL-ALLOWED',
    'REFUND-RESPONSE-RESOURCE',
  ],
  level: 'MUST',
  needs: [...NEED.refunds, 'payments.settled', ...NEED.webhooks],
  mutating: true,
  group: 'refunds',
  async run(ctx, env) {
    const made = await createPartialRefund(ctx, env);
    const id = made.refund?.['refundPaymentId'];
    const trigger = made.ex ? evidenceOf(ctx, made.ex) : undefined;
    if (typeof id !== 'string')
      return [
        ...made.findings.filter((f) => f.outcome === 'observation'),
        skip(`could not create a refund to trigger webhooks; see refund-partial-accepted`),
      ];
    const findings: Finding[] = [
      ...made.findings,
      await expectStatusWebhook(
        ctx,
        env,
        'refund',
        id,
        'IN_PROGRESS',
        ctx.webhookWaitMs,
        'REFUND-STATUS-CHANGE-WEBHOOK',
        'for a created refund',
        trigger,
      ),
      await laterStatus(ctx, env, 'refund', id, 'REFUND-STATUS-CHANGE-WEBHOOK', trigger),
    ];
    // The payload names the original payment and its amount (spec: refundedPaymentAmount, "amount of the original payment").
    const payment = made.payment;
    const hooks = mentioning(listenerOf(ctx).received(), id).filter(
      (w) => webhookKind(w) === 'refund',
    );
    if (payment !== undefined && hooks.length > 0) {
      const wrong = hooks.flatMap((w) => {
        const j = (w.json ?? {}) as Record<string, unknown>;
        const why: string[] = [];
        if (j['refundedPaymentId'] !== payment.paymentId)
          why.push(`refundedPaymentId ${JSON.stringify(j['refundedPaymentId'])}`);
        const paid = j['refundedPaymentAmount'];
        if (
          typeof paid !== 'number' ||
          compareDecimals(toDecimal(String(paid)), toDecimal(payment.amount)) !== 0
        )
          why.push(`refundedPaymentAmount ${JSON.stringify(paid)}`);
        return why.length > 0 ? [{ w, why: why.join(', ') }] : [];
      });
      findings.push(
        wrong.length > 0
          ? violation(
              `refund webhooks do not name the original payment and its amount (${payment.paymentId}, ${payment.amount})`,
              {
                requirement: 'WEBHOOK-REFUND-PAYLOAD',
                expected: `refundedPaymentId ${payment.paymentId}, refundedPaymentAmount ${payment.amount}`,
                received: offenders(wrong),
                evidence: webhookEvidence(wrong[0]!.w),
              },
            )
          : pass(`refund webhooks name the original payment and its amount ${payment.amount}`, {
              requirement: 'WEBHOOK-REFUND-PAYLOAD',
            }),
      );
    }
    return findings;
  },
});

/** Lists at most three offenders and the count, for one finding about many webhooks. */
function offenders(list: ReadonlyArray<{ w: ReceivedWebhook; why: string }>): string {
  return `${list.length} webhook(s): ${list
    .slice(0, 3)
    .map((o) => `#${o.w.seq} ${o.why}`)
    .join('; ')}${list.length > 3 ? '; …' : ''}`;
}

const signatureVerified = serverCheck({
  id: 'webhook-signature-verified',
  title: 'every webhook verifies with the served public key over the exact bytes received',
  area: 'webhooks',
  requirements: ['WEBHOOK-AUTHORIZATION', 'WEBHOOK-SAME-MECHANISM', 'KEY-ENDPOINT'],
  level: 'MUST',
  needs: WEBHOOK_NEEDS,
  mutating: true,
  async run(ctx, env) {
    const key = await fetchPublicKey(ctx, env);
    if (!key.ok)
      return [
        violation(`cannot verify webhooks: ${key.message}`, {
          requirement: 'KEY-ENDPOINT',
          evidence: evidenceOf(ctx, key.ex),
        }),
      ];
    const trigger = await triggerPayoutWebhook(ctx, env);
    if ('problem' in trigger) return [trigger.problem];
    const all = judged(ctx, trigger.hooks);
    const bad = all.flatMap((w) => {
      const auth = getFieldValues(w.headers, 'authorization');
      const result = verifyWebhook(w.body, auth.length === 1 ? auth[0] : undefined, key.key);
      return result.ok ? [] : [{ w, why: `${result.code}: ${result.message}` }];
    });
    if (bad.length > 0) {
      return [
        violation('webhook signatures do not verify with the served key over the exact bytes', {
          requirement: 'WEBHOOK-AUTHORIZATION',
          expected: 'Authorization: SHA256withRSA <base64> over the body as sent',
          received: offenders(bad),
          evidence: webhookEvidence(bad[0]!.w),
        }),
      ];
    }
    const kinds = [...new Set(all.map((w) => webhookKind(w) ?? 'unknown'))].join(', ');
    return [
      pass(`${all.length} webhook(s) (${kinds}) verified with the served key`, {
        requirement: 'WEBHOOK-AUTHORIZATION',
      }),
      pass('payout and refund webhooks use the same mechanism', {
        requirement: 'WEBHOOK-SAME-MECHANISM',
      }),
    ];
  },
});

const SCHEMA_OF = {
  payout: 'payout-webhook',
  refund: 'refund-webhook',
  payment: 'payment-webhook',
} as const;
const REQUIREMENT_OF = {
  payout: 'WEBHOOK-PAYOUT-PAYLOAD',
  refund: 'WEBHOOK-REFUND-PAYLOAD',
  payment: 'WEBHOOK-PAYMENT-PAYLOAD',
} as const;

const payloadSchema = serverCheck({
  id: 'webhook-payload-schema',
  title: 'every webhook payload matches its schema (payout, refund, payment)',
  area: 'webhooks',
  requirements: [
    'WEBHOOK-PAYOUT-PAYLOAD',
    'WEBHOOK-REFUND-PAYLOAD',
    'WEBHOOK-PAYMENT-PAYLOAD',
    'WEBHOOK-PAYOUT-STATUS-VALUES',
  ],
  level: 'MUST',
  needs: WEBHOOK_NEEDS,
  mutating: true,
  async run(ctx, env) {
    const trigger = await triggerPayoutWebhook(ctx, env);
    if ('problem' in trigger) return [trigger.problem];
    const findings: Finding[] = [];
    for (const kind of ['payout', 'refund', 'payment'] as const) {
      const hooks = judged(ctx, trigger.hooks).filter((w) => webhookKind(w) === kind);
      if (hooks.length === 0) {
        findings.push(notApplicable(`no ${kind} webhook was received in this run`));
        continue;
      }
      const bad = hooks.flatMap((w) => {
        if (w.json === undefined) return [{ w, why: 'the body is not JSON' }];
        const problems = schemaProblems(SCHEMA_OF[kind], w.json);
        return problems.length === 0 ? [] : [{ w, why: problems.slice(0, 3).join(', ') }];
      });
      findings.push(
        bad.length > 0
          ? violation(
              `${kind} webhook payloads do not match schemas/${SCHEMA_OF[kind]}.schema.json`,
              {
                requirement: REQUIREMENT_OF[kind],
                received: offenders(bad),
                evidence: webhookEvidence(bad[0]!.w),
              },
            )
          : pass(`${hooks.length} ${kind} webhook payload(s) match the schema`, {
              requirement: REQUIREMENT_OF[kind],
            }),
      );
    }
    return findings;
  },
});

const putJson = serverCheck({
  id: 'webhook-put-json',
  title: 'webhooks are PUT calls with Content-Type application/json (and Accept, Authorization)',
  area: 'webhooks',
  requirements: [
    'WEBHOOK-PUT',
    'VERSION-WEBHOOK-MEDIA-TYPE',
    'WEBHOOK-PAYOUT-REFUND-HEADERS',
    'WEBHOOK-PAYMENT-HEADERS',
  ],
  level: 'MUST',
  needs: WEBHOOK_NEEDS,
  mutating: true,
  async run(ctx, env) {
    const trigger = await triggerPayoutWebhook(ctx, env);
    if ('problem' in trigger) return [trigger.problem];
    const all = judged(ctx, trigger.hooks);
    const notPut = all
      .filter((w) => w.method !== 'PUT')
      .map((w) => ({ w, why: `method ${w.method}` }));
    const notJson = all
      .filter(
        (w) =>
          mediaTypeOf(getFieldValues(w.headers, 'content-type')[0] ?? '') !== 'application/json',
      )
      .map((w) => ({
        w,
        why: `Content-Type ${getFieldValues(w.headers, 'content-type').join(', ') || '(none)'}`,
      }));
    const headers = all.flatMap((w) => {
      const kind = webhookKind(w);
      const missing = ['accept', 'authorization'].filter(
        (h) => getFieldValues(w.headers, h).length === 0,
      );
      const acceptWrong =
        (kind === 'payout' || kind === 'refund') &&
        getFieldValues(w.headers, 'accept').length > 0 &&
        mediaTypeOf(getFieldValues(w.headers, 'accept')[0] ?? '') !== 'application/json';
      if (missing.length === 0 && !acceptWrong) return [];
      return [
        {
          w,
          why: [
            missing.length > 0 ? `missing ${missing.join(', ')}` : '',
            acceptWrong ? `Accept ${getFieldValues(w.headers, 'accept')[0] ?? ''}` : '',
          ]
            .filter(Boolean)
            .join(', '),
        },
      ];
    });
    const findings: Finding[] = [];
    findings.push(
      notPut.length > 0
        ? violation('webhooks are not sent with PUT', {
            requirement: 'WEBHOOK-PUT',
            expected: 'PUT',
            received: offenders(notPut),
            evidence: webhookEvidence(notPut[0]!.w),
          })
        : pass(`${all.length} webhook(s) sent with PUT`, { requirement: 'WEBHOOK-PUT' }),
    );
    findings.push(
      notJson.length > 0
        ? violation('webhooks are not sent with Content-Type application/json', {
            requirement: 'VERSION-WEBHOOK-MEDIA-TYPE',
            expected: 'application/json',
            received: offenders(notJson),
            evidence: webhookEvidence(notJson[0]!.w),
          })
        : pass('every webhook has Content-Type application/json', {
            requirement: 'VERSION-WEBHOOK-MEDIA-TYPE',
          }),
    );
    const payoutRefund = headers.filter((o) => webhookKind(o.w) !== 'payment');
    const payment = headers.filter((o) => webhookKind(o.w) === 'payment');
    findings.push(
      payoutRefund.length > 0
        ? violation('payout or refund webhooks lack Accept: application/json or Authorization', {
            requirement: 'WEBHOOK-PAYOUT-REFUND-HEADERS',
            received: offenders(payoutRefund),
            evidence: webhookEvidence(payoutRefund[0]!.w),
          })
        : pass('payout and refund webhooks carry Accept: application/json and Authorization', {
            requirement: 'WEBHOOK-PAYOUT-REFUND-HEADERS',
          }),
    );
    if (payment.length > 0)
      findings.push(
        violation('payment webhooks lack Accept or Authorization', {
          requirement: 'WEBHOOK-PAYMENT-HEADERS',
          received: offenders(payment),
          evidence: webhookEvidence(payment[0]!.w),
        }),
      );
    return findings;
  },
});

/** Deliveries of one event, and the waits they were given: for the first, and for each redelivery after an answer. */
interface Deliveries {
  readonly deliveries: ReceivedWebhook[];
  readonly firstWaitMs: number;
  readonly waited: number;
}

/**
 * Creates a payout whose first (IN_PROGRESS) webhook the listener answers `failures` times with non-200, and collects
 * the deliveries of that event. The first delivery is awaited for the webhook wait; each redelivery for the
 * redelivery wait (waits.ts) measured from the answer to the delivery before it, never from the payout's creation.
 */
async function failedDeliveries(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  failures: number,
): Promise<Deliveries | { problem: Finding }> {
  const listener = listenerOf(ctx);
  const reference = uniqueReference();
  const isFirstEvent = (call: { readonly body: Uint8Array; readonly json?: unknown }): boolean => {
    const text = new TextDecoder().decode(call.body);
    const j = call.json as Record<string, unknown> | undefined;
    return text.includes(reference) && (j?.['payoutStatus'] ?? 'IN_PROGRESS') === 'IN_PROGRESS';
  };
  // The first failure is a 503, the others a 400: any answer other than 200 is a failure (spec: Events).
  const withdrawn = [
    listener.answerNonOk(isFirstEvent, 1, 503),
    ...(failures > 1 ? [listener.answerNonOk(isFirstEvent, failures - 1, 400)] : []),
  ];
  const withdraw = (): void => withdrawn.forEach((w) => w());
  try {
    const { ex } = await createSignedPayout(ctx, env, {
      destination: defaultDestination(ctx),
      reference,
    });
    if (!isSuccess(ex))
      return {
        problem: skip(`could not create a payout to trigger a webhook (${describeOutcome(ex)})`, {
          evidence: evidenceOf(ctx, ex),
        }),
      };
    const waited = redeliveryWaitMs(ctx);
    let deliveries = await waitForMentions(listener, env, ctx.webhookWaitMs, [reference], 1, (w) =>
      isFirstEvent(w),
    );
    while (deliveries.length > 0 && deliveries.length <= failures) {
      // The listener answers as it records: the answer to the last delivery is its receivedAt.
      const answeredAt = deliveries[deliveries.length - 1]!.receivedAt;
      const left = Math.max(0, answeredAt + waited - Date.now());
      const next = await waitForMentions(
        listener,
        env,
        left,
        [reference],
        deliveries.length + 1,
        (w) => isFirstEvent(w),
      );
      if (next.length <= deliveries.length) break;
      deliveries = next;
    }
    return { deliveries, firstWaitMs: ctx.webhookWaitMs, waited };
  } finally {
    withdraw();
  }
}

/**
 * No redelivery seen: a failure when the interval is known (the runner set the target's retry timer, or the config
 * states it in webhookRetry.withinMs); otherwise a warning, since the spec shows no retry interval: the wait may
 * simply have been too short (webhookRetry.waitMs sets it). A first delivery that never came is judged by
 * webhook-payout-status-changes, so here it is a skip.
 */
function noRedelivery(
  ctx: ServerAuditContext,
  first: ReceivedWebhook | undefined,
  got: Deliveries,
  requirement: string,
): Finding {
  if (first === undefined)
    return skip(
      `the payout's first webhook did not arrive within ${got.firstWaitMs} ms, so no redelivery could be asked for (see webhook-payout-status-changes)`,
    );
  const what = `webhook #${first.seq} was answered ${first.answeredStatus} and not redelivered within ${got.waited} ms of that answer`;
  const evidence = { evidence: webhookEvidence(first) };
  if (ctx.knownTimings !== undefined || ctx.redelivery?.stated === true) {
    return violation(what, {
      requirement,
      expected: `redelivery until the receiver answers 200, each within ${got.waited} ms of the answer before it (${ctx.knownTimings ? 'the interval the runner set' : 'the interval the config states, with tolerance'})`,
      ...evidence,
    });
  }
  return violation(
    `${what}; the spec shows no retry interval, so this warns (set webhookRetry.waitMs to wait longer, or webhookRetry.withinMs to state the target's interval and fail)`,
    {
      requirement,
      level: 'SHOULD',
      expected: 'redelivery until the receiver answers 200',
      ...evidence,
    },
  );
}

const redelivered = serverCheck({
  id: 'webhook-redelivered',
  title: 'a webhook answered non-200 is delivered again until answered 200',
  area: 'webhooks',
  requirements: ['WEBHOOK-RETRY-UNTIL-200', 'WEBHOOK-RETRY-TIMING', 'WEBHOOK-AUTHORIZATION'],
  level: 'MUST',
  needs: WEBHOOK_NEEDS,
  mutating: true,
  async run(ctx, env) {
    const [got, key] = await Promise.all([failedDeliveries(ctx, env, 2), fetchPublicKey(ctx, env)]);
    if ('problem' in got) return [got.problem];
    const { deliveries } = got;
    // Every delivery, redeliveries included, is signed over its own exact bytes (spec: every webhook carries it).
    const signatures: Finding[] = [];
    if (key.ok && deliveries.length > 1) {
      const bad = deliveries.flatMap((w) => {
        const auth = getFieldValues(w.headers, 'authorization');
        const result = verifyWebhook(w.body, auth.length === 1 ? auth[0] : undefined, key.key);
        return result.ok ? [] : [{ w, why: `${result.code}: ${result.message}` }];
      });
      signatures.push(
        bad.length > 0
          ? violation('redeliveries do not verify with the served key over their exact bytes', {
              requirement: 'WEBHOOK-AUTHORIZATION',
              expected: 'every delivery signed over the body sent',
              received: offenders(bad),
              evidence: webhookEvidence(bad[0]!.w),
            })
          : pass(`all ${deliveries.length} deliveries verify over their exact bytes`, {
              requirement: 'WEBHOOK-AUTHORIZATION',
            }),
      );
    }
    if (deliveries.length < 2)
      return [noRedelivery(ctx, deliveries[0], got, 'WEBHOOK-RETRY-UNTIL-200'), ...signatures];
    // Each interval from the answer to one delivery to the next delivery (the listener answers as it records).
    const gaps = deliveries.slice(1).map((w, i) => w.receivedAt - deliveries[i]!.receivedAt);
    const findings: Finding[] = [
      pass(
        `redelivered after ${deliveries[0]!.answeredStatus}: ${deliveries.length} deliveries, answered ${deliveries.map((w) => w.answeredStatus).join(', ')}`,
        { requirement: 'WEBHOOK-RETRY-UNTIL-200' },
      ),
    ];
    if (deliveries.length < 3)
      findings.push(noRedelivery(ctx, deliveries[1], got, 'WEBHOOK-RETRY-UNTIL-200'));
    const same = deliveries.every(
      (w) =>
        bodyText(w).replace(/"payoutWebhookDeliveryAttempt"\s*:\s*\d+/, '') ===
        bodyText(deliveries[0]!).replace(/"payoutWebhookDeliveryAttempt"\s*:\s*\d+/, ''),
    );
    findings.push(
      observation(
        `redelivery intervals ${gaps.map((g) => `${g} ms`).join(', ')}; payload ${same ? 'identical apart from the attempt counter' : 'changed between attempts'} (retry timing is not shown)`,
        { requirement: 'WEBHOOK-RETRY-TIMING' },
      ),
    );
    return [...findings, ...signatures];
  },
});

const attemptCounter = serverCheck({
  id: 'webhook-attempt-counter-rises',
  title: 'the delivery attempt counter rises on each redelivery',
  area: 'webhooks',
  requirements: ['WEBHOOK-PROFILE-ATTEMPT-COUNTER', 'WEBHOOK-PAYOUT-PAYLOAD'],
  level: 'SHOULD',
  needs: WEBHOOK_NEEDS,
  mutating: true,
  async run(ctx, env) {
    const got = await failedDeliveries(ctx, env, 1);
    if ('problem' in got) return [got.problem];
    const [first, second] = got.deliveries;
    if (first === undefined || second === undefined) {
      return [
        skip(
          first === undefined
            ? 'the webhook never arrived'
            : `webhook #${first.seq} was not redelivered within ${got.waited} ms of its answer (see webhook-redelivered)`,
        ),
      ];
    }
    const a = (first.json as Record<string, unknown> | undefined)?.['payoutWebhookDeliveryAttempt'];
    const b = (second.json as Record<string, unknown> | undefined)?.[
      'payoutWebhookDeliveryAttempt'
    ];
    if (typeof a === 'number' && typeof b === 'number' && b > a) {
      return [
        pass(`payoutWebhookDeliveryAttempt rose from ${a} to ${b}`, {
          requirement: 'WEBHOOK-PROFILE-ATTEMPT-COUNTER',
        }),
        observation(`the first delivery carried attempt ${a} (the spec's example shows 0)`, {
          requirement: 'WEBHOOK-PROFILE-ATTEMPT-COUNTER',
        }),
      ];
    }
    return [
      violation('the delivery attempt counter did not rise on redelivery', {
        requirement: 'WEBHOOK-PROFILE-ATTEMPT-COUNTER',
        expected: 'a larger payoutWebhookDeliveryAttempt on the second delivery',
        received: `${String(a)} then ${String(b)}`,
        evidence: webhookEvidence(second),
      }),
    ];
  },
});

export const webhookChecks = [
  payoutStatusChanges,
  refundStatusChanges,
  signatureVerified,
  payloadSchema,
  putJson,
  redelivered,
  attemptCounter,
] as const;
