// Nonce reuse: the same signed request sent again is rejected, and of N identical signed requests sent at once
// exactly one is accepted; in both cases at most one payout results (at most one payout id in the webhooks).
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { Evidence, Finding } from '../../run/check.js';
import type { HttpRequest } from '../../../src/http/message.js';
import {
  inconclusive,
  notApplicable,
  pass,
  skip,
  violation,
  type CheckRunEnv,
} from '../../run/check.js';
import type { RecordedExchange } from '../../http/http-client.js';
import { NEED, serverCheck, type ServerAuditContext } from './context.js';
import { signCorrectly } from './forge.js';
import { REJECTION_REQUIREMENTS, judgeRejection } from './rejection.js';
import {
  credentialsOf,
  defaultDestination,
  describeOutcome,
  evidenceOf,
  exchange,
  isSuccess,
  payoutRequest,
} from './requests.js';
import { heldPayouts } from './held-payouts.js';
import { member, mentioning, webhookEvidence } from './webhook-match.js';
import { openConnections } from './warm-connections.js';
import { unanswered } from '../no-answer.js';

/**
 * Identical signed requests sent at once by `nonce-concurrent-once`, each on its own connection (no keep-alive pool),
 * so a load balancer spreads them over every instance: a target whose instances keep per-instance nonce stores
 * accepts more than one. The connections are opened first and the requests released together.
 */
export const CONCURRENT_COPIES = 50;

/** What the target shows of the payouts for one reference: their ids, or undefined when nothing shows them. */
interface PayoutsSeen {
  readonly ids: readonly string[] | undefined;
  readonly finding: Finding;
}

/**
 * After the quiet wait: at most one payout id among the target's payouts (as its state provider lists them, at once) or the webhooks
 * mentioning `reference`. This is evidence independent of the answers, so it also decides for requests that got none.
 */
async function payoutsFor(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  reference: string,
  requirement: string,
): Promise<PayoutsSeen> {
  const held = await heldPayouts(ctx, env, [reference]);
  if (held !== undefined) {
    const ids = held.payouts.map((p) => p.payoutId);
    if (ids.length <= 1)
      return { ids, finding: onePayout(ids.length, 'the target lists', requirement) };
    return {
      ids,
      finding: severalPayouts(ids, requirement, held.evidence),
    };
  }
  if (ctx.webhooks === undefined) {
    return {
      ids: undefined,
      finding: notApplicable(
        'not checked that only one payout was created: no webhook listener is configured (set "webhookListen")',
        { requirement },
      ),
    };
  }
  const budget = Math.max(0, Math.min(ctx.quietWaitMs, env.deadline - Date.now() - 250));
  await ctx.webhooks.waitFor(() => false, { timeoutMs: budget, signal: env.signal });
  const hooks = mentioning(ctx.webhooks.received(), reference);
  const ids = [...new Set(hooks.map((w) => member(w, 'payoutId') ?? `#${w.seq}`))];
  if (ids.length > 1) {
    return {
      ids,
      finding: severalPayouts(ids, requirement, webhookEvidence(hooks[0]!)),
    };
  }
  // No webhook is no proof that no payout exists: only a payout seen counts for the unanswered requests.
  return {
    ids: ids.length === 1 ? ids : undefined,
    finding: onePayout(ids.length, 'webhooks show', requirement),
  };
}

const onePayout = (n: number, source: string, requirement: string): Finding =>
  pass(`${source} ${n} payout for the reference`, { requirement });

const severalPayouts = (ids: readonly string[], requirement: string, evidence: Evidence): Finding =>
  violation(`${ids.length} payouts were created from one signed request`, {
    requirement,
    expected: 'at most one payout',
    received: `payout ids ${ids.join(', ')}`,
    evidence,
  });

/** After the quiet wait: at most one payout for `reference` (see `payoutsFor`). */
async function atMostOnePayout(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  reference: string,
  requirement: string,
): Promise<Finding> {
  return (await payoutsFor(ctx, env, reference, requirement)).finding;
}

const replayed = serverCheck({
  id: 'nonce-replayed',
  title: 'the same signed request sent twice is rejected the second time',
  area: 'signing',
  requirements: [
    'SIG-VERIFY-NONCE-UNUSED',
    'SIG-VERIFY-RECORD-NONCE',
    'LIMIT-NONCE',
    ...REJECTION_REQUIREMENTS,
  ],
  level: 'MUST',
  needs: NEED.signing,
  mutating: true,
  async run(ctx, env) {
    const { request, reference } = payoutRequest(ctx, { destination: defaultDestination(ctx) });
    const once = signCorrectly(request, credentialsOf(ctx));
    const first = await exchange(ctx, env, once);
    if (!isSuccess(first)) {
      return [
        skip(
          `the first (valid) request was not accepted (${describeOutcome(first)}), so a replay cannot be told apart`,
          { evidence: evidenceOf(ctx, first) },
        ),
      ];
    }
    const second = await exchange(ctx, env, once);
    return [
      pass('the first request was accepted', {
        requirement: 'SIG-VERIFY-NONCE-UNUSED',
        evidence: evidenceOf(ctx, first),
      }),
      ...judgeRejection(
        ctx,
        second,
        'SIG-VERIFY-NONCE-UNUSED',
        'the identical request sent again (same nonce)',
      ),
      await atMostOnePayout(ctx, env, reference, 'SIG-PAYOUT-CREATE-SIGNED'),
    ];
  },
});

/**
 * `nonce-concurrent-once` gives each copy this many times the request timeout to be answered (bounded by the check's
 * deadline): the copies arrive together, and a target that queues them answers the last ones late.
 */
export const CONCURRENT_STRAGGLER_FACTOR = 3;

/** Sends the copies together: connections opened first (within the request timeout), then every request at once. */
async function sendCopies(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  request: HttpRequest,
): Promise<{ all: RecordedExchange[]; waitMs: number; warm: number }> {
  setMaxListeners(4 * CONCURRENT_COPIES, env.signal);
  const connections = await openConnections(ctx.baseUrl, CONCURRENT_COPIES, {
    timeoutMs: Math.max(1, Math.min(ctx.requestTimeoutMs, env.deadline - Date.now() - 1_000)),
    signal: env.signal,
    ...(ctx.tlsCa !== undefined ? { ca: ctx.tlsCa } : {}),
  });
  // Leaves time for the quiet wait and the payout listing that decide the copies left without an answer.
  const waitMs = Math.max(
    1,
    Math.min(
      CONCURRENT_STRAGGLER_FACTOR * ctx.requestTimeoutMs,
      env.deadline - Date.now() - ctx.quietWaitMs - ctx.requestTimeoutMs - 500,
    ),
  );
  const all = await Promise.all(
    connections.map((connection) =>
      exchange(ctx, env, request, { timeoutMs: waitMs, ...(connection ? { connection } : {}) }),
    ),
  );
  // Every connection is closed here, used or not: one left open (a target still sending) would keep the process alive.
  for (const connection of connections) connection?.destroy();
  return { all, waitMs, warm: connections.filter((c) => c !== undefined).length };
}

/** `3× 409, 1× no response (TIMEOUT: …)` */
function tallyOf(all: readonly RecordedExchange[]): string {
  const tally = all
    .map(describeOutcome)
    .map((s) => s.replace(/ within \d+ ms.*$/, ''))
    .reduce<Record<string, number>>((t, s) => ({ ...t, [s]: (t[s] ?? 0) + 1 }), {});
  return Object.entries(tally)
    .map(([s, n]) => `${n}× ${s}`)
    .join(', ');
}

const concurrent = serverCheck({
  id: 'nonce-concurrent-once',
  title: `of ${CONCURRENT_COPIES} identical signed requests sent at once exactly one is accepted`,
  area: 'signing',
  requirements: ['SIG-PROFILE-NONCE-ATOMIC', 'SIG-VERIFY-NONCE-UNUSED', ...REJECTION_REQUIREMENTS],
  level: 'MUST',
  needs: NEED.signing,
  mutating: true,
  async run(ctx, env) {
    const { request, reference } = payoutRequest(ctx, { destination: defaultDestination(ctx) });
    const once = signCorrectly(request, credentialsOf(ctx));
    const sent = await sendCopies(ctx, env, once);
    const seen = await payoutsFor(ctx, env, reference, 'SIG-VERIFY-NONCE-UNUSED');
    return [...judgeCopies(ctx, sent, seen), seen.finding];
  },
});

/** Exactly one of the copies accepted, the others rejected (copies without an answer decided by what the target holds). */
function judgeCopies(
  ctx: ServerAuditContext,
  sent: { all: RecordedExchange[]; waitMs: number; warm: number },
  seen: PayoutsSeen,
): Finding[] {
  const { all, waitMs, warm } = sent;
  const accepted = all.filter(isSuccess);
  const silent = all.filter((e) => e.response === undefined && unanswered(e));
  const how = `${warm} of ${CONCURRENT_COPIES} connections opened first, then all sent at once; each copy given ${waitMs} ms`;
  const summary = `${tallyOf(all)} (${how})`;
  if (accepted.length > 1)
    // More than one accepted: a nonce was used again (spec step 4).
    return [
      violation(`${accepted.length} of ${CONCURRENT_COPIES} identical requests were accepted`, {
        requirement: 'SIG-VERIFY-NONCE-UNUSED',
        expected: 'exactly one accepted, the others rejected',
        received: summary,
        evidence: evidenceOf(ctx, accepted[1]!),
      }),
    ];
  if (accepted.length === 1 || (silent.length > 0 && seen.ids?.length === 1))
    return [
      pass(
        accepted.length === 1
          ? `exactly one of ${CONCURRENT_COPIES} was accepted (${summary})`
          : `the target holds exactly one payout for the reference; the answer to the accepted copy did not arrive (${summary})`,
        { requirement: 'SIG-PROFILE-NONCE-ATOMIC' },
      ),
      ...all
        .filter((e) => !isSuccess(e) && !silent.includes(e))
        .flatMap((ex) =>
          judgeRejection(
            ctx,
            ex,
            'SIG-VERIFY-NONCE-UNUSED',
            'a concurrent copy of an accepted request',
          ),
        ),
      ...(silent.length > 0 ? [unansweredCopies(ctx, silent, seen, waitMs)] : []),
    ];
  if (silent.length > 0)
    return [
      inconclusive(
        `none of the answered copies was accepted and ${silent.length} got no answer within ${waitMs} ms; nothing shows whether one of those was accepted`,
        {
          requirement: 'SIG-PROFILE-NONCE-ATOMIC',
          received: summary,
          evidence: evidenceOf(ctx, silent[0]!),
        },
      ),
    ];
  // None accepted, every copy answered: payconform's expectation only (the profile's atomic nonce check).
  return [
    violation(`0 of ${CONCURRENT_COPIES} identical requests were accepted`, {
      requirement: 'SIG-PROFILE-NONCE-ATOMIC',
      expected: 'exactly one accepted, the others rejected',
      received: summary,
      evidence: evidenceOf(ctx, all[0]!),
    }),
  ];
}

/**
 * Copies without an answer: decided by the payouts the target shows for the reference (one payout: none of them took
 * effect beyond the accepted one); inconclusive when nothing shows the payouts.
 */
function unansweredCopies(
  ctx: ServerAuditContext,
  silent: readonly RecordedExchange[],
  seen: PayoutsSeen,
  waitMs: number,
): Finding {
  const what = `${silent.length} concurrent cop${silent.length === 1 ? 'y' : 'ies'} got no answer within ${waitMs} ms`;
  if (seen.ids?.length === 1)
    return pass(
      `${what}; the target shows one payout for the reference, so none of them created another`,
      {
        requirement: 'SIG-VERIFY-NONCE-UNUSED',
      },
    );
  return inconclusive(
    `${what}, and nothing shows the payouts for the reference: whether they were rejected is unknown`,
    {
      requirement: 'SIG-VERIFY-NONCE-UNUSED',
      expected: 'a 4xx rejection',
      received: describeOutcome(silent[0]!),
      evidence: evidenceOf(ctx, silent[0]!),
    },
  );
}

/**
 * Spec, Server verification order: the nonce is checked at step 4 and recorded at step 11, after the signature
 * verified (step 10). A request rejected at step 8 or 10 therefore leaves its nonce unused: the genuine request
 * carrying it must still be accepted. A server that records at step 4 lets anyone who sees a nonce burn it.
 */
const keptAfterRejection = serverCheck({
  id: 'nonce-kept-after-rejection',
  title:
    'a request rejected for its digest does not use up its nonce: the genuine request with that nonce is accepted',
  area: 'signing',
  requirements: ['SIG-VERIFY-RECORD-NONCE', 'SIG-VERIFY-NONCE-UNUSED', ...REJECTION_REQUIREMENTS],
  level: 'MUST',
  needs: NEED.signing,
  mutating: true,
  async run(ctx, env) {
    const nonce = randomUUID();
    const forged = payoutRequest(ctx, { destination: defaultDestination(ctx) });
    const signedForged = signCorrectly(forged.request, credentialsOf(ctx), { nonce });
    // The body changed after signing (same length): rejected at step 8, after the nonce check.
    const text = new TextDecoder().decode(signedForged.body);
    const changed = {
      ...signedForged,
      body: new TextEncoder().encode(
        text.replace(
          forged.reference,
          `${forged.reference.slice(0, -1)}${forged.reference.endsWith('0') ? '1' : '0'}`,
        ),
      ),
    };
    const first = await exchange(ctx, env, changed);
    if (isSuccess(first))
      return [
        skip(
          'the request with a changed body was accepted, so the nonce question does not arise (see body-changed-after-signing)',
          { evidence: evidenceOf(ctx, first) },
        ),
      ];
    const genuine = payoutRequest(ctx, { destination: defaultDestination(ctx) });
    const second = await exchange(
      ctx,
      env,
      signCorrectly(genuine.request, credentialsOf(ctx), { nonce }),
    );
    const evidence = evidenceOf(ctx, second);
    if (isSuccess(second))
      return [
        pass(
          `the genuine request with the nonce of the rejected one was accepted (${describeOutcome(second)})`,
          { requirement: 'SIG-VERIFY-RECORD-NONCE', evidence },
        ),
      ];
    return [
      violation(
        'the genuine request was refused after a rejected request had carried its nonce: the nonce was recorded before the signature verified',
        {
          requirement: 'SIG-VERIFY-RECORD-NONCE',
          expected:
            'acceptance: the nonce is recorded only at step 11, after verification succeeds',
          received: describeOutcome(second),
          evidence,
        },
      ),
    ];
  },
});

export const replayChecks = [replayed, concurrent, keptAfterRejection] as const;
