// Redelivery of a webhook answered non-200 (spec: Events, "retried until the receiver answers 200"; the delivery
// attempt counter of the payout webhook): the runner's listener refuses the first deliveries of one event and
// collects the redeliveries. The spec shows no retry interval, so a redelivery is awaited for the check's whole time
// limit, unless the runner set the target's retry timer itself (the embedded service: its own timer, not a reading).
import type { CheckRunEnv, Finding } from '../../run/check.js';
import { observation, pass, skip, violation } from '../../run/check.js';
import type { ReceivedWebhook } from '../../http/webhook-listener.js';
import { expectedCreateStatus } from '../../spec-model/index.js';
import { askedPayout } from './cop-cases.js';
import { serverCheck, type ServerAuditContext } from './context.js';
import {
  createSignedPayout,
  defaultDestination,
  describeOutcome,
  evidenceOf,
  isSuccess,
  uniqueReference,
} from './requests.js';
import { fetchPublicKey } from './served-key.js';
import { redeliveryWaitMs } from './waits.js';
import { listenerOf, offenders, unverifiedWebhooks, WEBHOOK_NEEDS } from './webhook-actions.js';
import { bodyText, waitForMentions, webhookEvidence } from './webhook-match.js';

/** Deliveries of one event, and the waits they were given: for the first, and for the redeliveries after an answer. */
interface Deliveries {
  readonly deliveries: ReceivedWebhook[];
  readonly firstWaitMs: number;
  /** How long the last redelivery awaited was waited for, from the answer before it (ms). */
  readonly waited: number;
}

/**
 * How long a redelivery is awaited from the answer before it: the retry timer the runner set (embedded service), else
 * as long as the check's time limit allows (the spec: "Retry interval and maximum number of attempts: not shown"; a
 * config's webhookRetry only makes that limit longer: docs/verdicts.md, "Readings the spec does not state").
 */
function redeliveryWait(ctx: ServerAuditContext, env: CheckRunEnv, answeredAt: number): number {
  if (ctx.knownTimings !== undefined)
    return Math.max(0, answeredAt + redeliveryWaitMs(ctx) - Date.now());
  // Room to verify the deliveries' signatures and report before the limit.
  return Math.max(0, env.deadline - Date.now() - 1_000);
}

/**
 * Creates a payout whose first webhook (of the status it is created in) the listener answers `failures` times with
 * non-200, and collects the deliveries of that event. The first delivery is awaited for the webhook wait; each
 * redelivery as `redeliveryWait` says, measured from the answer to the delivery before it, never from the payout's
 * creation.
 */
async function failedDeliveries(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  failures: number,
): Promise<Deliveries | { problem: Finding }> {
  const listener = listenerOf(ctx);
  const reference = uniqueReference();
  const spec = { destination: defaultDestination(ctx), reference };
  // Without doNotCommitOnCoPMismatch the status a payout is created in does not depend on its copStatus.
  const created = expectedCreateStatus(askedPayout('default', spec, reference), null)?.status;
  const isFirstEvent = (call: { readonly body: Uint8Array; readonly json?: unknown }): boolean => {
    const text = new TextDecoder().decode(call.body);
    const j = call.json as Record<string, unknown> | undefined;
    return text.includes(reference) && (j?.['payoutStatus'] ?? created) === created;
  };
  // The first failure is a 503, the others a 400: any answer other than 200 is a failure (spec: Events).
  const withdrawn = [
    listener.answerNonOk(isFirstEvent, 1, 503),
    ...(failures > 1 ? [listener.answerNonOk(isFirstEvent, failures - 1, 400)] : []),
  ];
  const withdraw = (): void => withdrawn.forEach((w) => w());
  try {
    const { ex } = await createSignedPayout(ctx, env, spec);
    if (!isSuccess(ex))
      return {
        problem: skip(`could not create a payout to trigger a webhook (${describeOutcome(ex)})`, {
          evidence: evidenceOf(ctx, ex),
        }),
      };
    let waited = 0;
    let deliveries = await waitForMentions(listener, env, ctx.webhookWaitMs, [reference], 1, (w) =>
      isFirstEvent(w),
    );
    while (deliveries.length > 0 && deliveries.length <= failures) {
      // The listener answers as it records: the answer to the last delivery is its receivedAt.
      const answeredAt = deliveries[deliveries.length - 1]!.receivedAt;
      const left = redeliveryWait(ctx, env, answeredAt);
      waited = Date.now() - answeredAt + left;
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
 * No redelivery seen: a failure only when the runner set the target's retry timer (the embedded service: its own
 * timer, not a reading of the spec). Otherwise a warning, never a failure: the spec shows no retry interval, so a
 * redelivery after the check's time limit is still a redelivery (a stated webhookRetry.withinMs only makes the limit
 * longer). A first delivery that never came is judged by webhook-payout-status-changes, so here it is a skip.
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
  if (ctx.knownTimings !== undefined) {
    return violation(what, {
      requirement,
      expected: `redelivery until the receiver answers 200, each within ${got.waited} ms of the answer before it (the interval the runner set)`,
      ...evidence,
    });
  }
  return violation(
    `${what} (the check's time limit); the spec shows no retry interval, so this warns and never fails (a longer webhookRetry.waitMs or withinMs gives the check more time)`,
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
      const bad = unverifiedWebhooks(deliveries, key.key);
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

export const redeliveryChecks = [redelivered, attemptCounter] as const;
