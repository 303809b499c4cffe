// Nonce reuse: the same signed request sent again is rejected, and of N identical signed requests sent at once
// exactly one is accepted; in both cases at most one payout results (at most one payout id in the webhooks).
import { randomUUID } from 'node:crypto';
import type { Finding } from '../../check.js';
import { notApplicable, pass, skip, violation, type CheckRunEnv } from '../../check.js';
import type { RecordedExchange } from '../../http-client.js';
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
  sandboxPayoutsWith,
} from './requests.js';
import { member, mentioning, webhookEvidence } from './webhook-match.js';

/**
 * Identical signed requests sent at once by `nonce-concurrent-once`, each on its own connection (no keep-alive pool),
 * so a load balancer spreads them over every instance: a target whose instances keep per-instance nonce stores
 * accepts more than one.
 */
export const CONCURRENT_COPIES = 50;

/** After the quiet wait: at most one payout id among the webhooks mentioning `reference`. */
async function atMostOnePayout(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  reference: string,
  requirement: string,
): Promise<Finding> {
  // The target's own payout list (payconform's /sandbox/) answers at once; the webhook wait below stays for every target.
  const held = await sandboxPayoutsWith(ctx, env, [reference]);
  if (held !== undefined && held.payouts.length > 1) {
    return violation(`${held.payouts.length} payouts were created from one signed request`, {
      requirement,
      expected: 'at most one payout',
      received: `payout ids ${held.payouts.map((p) => String(p['payoutId'])).join(', ')}`,
      evidence: evidenceOf(ctx, held.ex, held.note),
    });
  }
  if (ctx.webhooks === undefined) {
    return notApplicable(
      'not checked that only one payout was created: no webhook listener is configured (set "webhookListen")',
      { requirement },
    );
  }
  const budget = Math.max(0, Math.min(ctx.quietWaitMs, env.deadline - Date.now() - 250));
  await ctx.webhooks.waitFor(() => false, { timeoutMs: budget, signal: env.signal });
  const hooks = mentioning(ctx.webhooks.received(), reference);
  const ids = new Set(hooks.map((w) => member(w, 'payoutId') ?? `#${w.seq}`));
  if (ids.size > 1) {
    return violation(`${ids.size} payouts were created from one signed request`, {
      requirement,
      expected: 'at most one payout',
      received: `payout ids ${[...ids].join(', ')}`,
      evidence: webhookEvidence(hooks[0]!),
    });
  }
  return pass(`webhooks show ${ids.size} payout for the reference`, { requirement });
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
    const all: RecordedExchange[] = await Promise.all(
      Array.from({ length: CONCURRENT_COPIES }, () => exchange(ctx, env, once)),
    );
    const accepted = all.filter(isSuccess);
    const tally = all
      .map(describeOutcome)
      .reduce<Record<string, number>>((t, s) => ({ ...t, [s]: (t[s] ?? 0) + 1 }), {});
    const summary = Object.entries(tally)
      .map(([s, n]) => `${n}× ${s}`)
      .join(', ');
    const findings: Finding[] = [];
    if (accepted.length !== 1) {
      // More than one accepted: a nonce was used again (spec step 4). None accepted: payconform's expectation only.
      findings.push(
        violation(`${accepted.length} of ${CONCURRENT_COPIES} identical requests were accepted`, {
          requirement: accepted.length > 1 ? 'SIG-VERIFY-NONCE-UNUSED' : 'SIG-PROFILE-NONCE-ATOMIC',
          expected: 'exactly one accepted, the others rejected',
          received: summary,
          evidence: evidenceOf(ctx, accepted[1] ?? all[0]!),
        }),
      );
    } else {
      findings.push(
        pass(`exactly one of ${CONCURRENT_COPIES} was accepted (${summary})`, {
          requirement: 'SIG-PROFILE-NONCE-ATOMIC',
        }),
      );
      for (const ex of all.filter((e) => !isSuccess(e)))
        findings.push(
          ...judgeRejection(
            ctx,
            ex,
            'SIG-VERIFY-NONCE-UNUSED',
            'a concurrent copy of an accepted request',
          ),
        );
    }
    findings.push(await atMostOnePayout(ctx, env, reference, 'SIG-VERIFY-NONCE-UNUSED'));
    return findings;
  },
});

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
