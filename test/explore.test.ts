// The explorer (`audit server --explore`): finds each of the reference service's explorer-only faults with a shrunk
// sequence of at most five steps that replays, and finds nothing on the clean and `alt` services over 20 seeds each
// (50 with PAYCONFORM_LONG_TESTS=1).
// The faults that misbehave only seconds after a call are found by the patient lanes (long waits), whose shrunk
// sequences replay with their `~patient` token.
// Budget: the faults run at once (one service each), the seeds ten at a time, and the searches beside the seeds
// (describe.concurrent: the explorations wait on the services far more than they compute); each fault's search starts
// from the seed that finds it soonest, and the correct services' seeds run a count of sequences, not seconds: about
// 11.5 s of CPU (vitest's start included) and 35 s alone on two shared cores, against 16 s and 58 s before.
import { describe, expect, it } from 'vitest';
import { startEmbeddedTarget } from '../cli/commands/audit-server.js';
import type { CheckRunEnv } from '../conformance/run/check.js';
import type { ServerAuditContext } from '../conformance/checks/server/context.js';
import {
  EXPLORE_DEFAULTS,
  explore,
  parseReplayToken,
  type ExploreOutcome,
  type ExploreSettings,
} from '../conformance/explore/explorer.js';
import { type ExplorerFaultName, type ServiceVariant } from '../server/index.js';
import { explorerFaults } from '../server/faults.js';
import { runMain } from './fixtures/cli.js';
import { loadTestKeys } from './fixtures/keys.js';

/**
 * Seeds per correct service: 20 (two sequences per lane each, about a thousand explorer steps in all on a quiet machine), 50 with
 * PAYCONFORM_LONG_TESTS=1 (README, "Tests").
 */
const CLEAN_SEEDS = process.env['PAYCONFORM_LONG_TESTS'] === '1' ? 50 : 20;

/** Every service signs its webhooks with the test key: a fresh RSA key per service cost 0.15 s of CPU each. */
const webhookSigningKey = loadTestKeys().webhookRsa.privatePem;

const cli = (args: readonly string[], options: { timeoutMs?: number } = {}) =>
  runMain(args, { PATH: process.env['PATH'] ?? '' }, options);

const env = (ms: number): CheckRunEnv => ({
  signal: new AbortController().signal,
  deadline: Date.now() + ms,
});

const commandsOf = (o: ExploreOutcome): string[] =>
  (o.failure?.steps ?? []).map((s) => s.command).filter((c) => !c.startsWith('end of sequence'));

/** A step's command as drawn, without what it was applied to (`→ payout <id>`: ids differ from service to service). */
const drawn = (command: string): string => command.split(' → ')[0]!;

/** The requirement each fault breaks, as the explorer may report it. */
const expected: Record<ExplorerFaultName, readonly string[]> = {
  'amount-large-pence-dropped': ['PAYOUT-RESPONSE-RESOURCE'],
  'reference-long-truncated': ['PAYOUT-RESPONSE-RESOURCE'],
  'webhook-reference-spaces-stripped': ['WEBHOOK-PAYOUT-PAYLOAD'],
  'hold-skipped-large-amount': ['COP-HOLD-ON-MISMATCH'],
  'commit-late-resets-cop': ['COP-COMMIT'],
  'cancel-late-no-webhook': ['PAYOUT-STATUS-CHANGE-WEBHOOK'],
  'webhook-amount-of-previous-payout': ['WEBHOOK-PAYOUT-PAYLOAD'],
  'refund-cap-large-payment': ['REFUND-TOTAL-CAP'],
  // A commit sent just as the hold lapses is refused before the lapse's webhook arrives: the commit rule shows it; a
  // cancel sent then is refused alike, and the cancel rule shows it (seen with one core busy).
  'hold-lapses': ['COP-HOLD-ON-MISMATCH', 'COP-COMMIT', 'COP-CANCEL'],
  'refund-active-lapses': ['REFUND-ONE-ACTIVE'],
  'refund-total-float': ['REFUND-PARTIAL-ALLOWED'],
  'webhook-without-change': ['PAYOUT-STATUS-CHANGE-WEBHOOK'],
  'webhook-other-application': ['WEBHOOK-PAYOUT-PAYLOAD'],
};

/**
 * The seed a search tries first where another than 3 found the fault with far fewer sequences, shrinking included
 * (seeds 1 to 8 measured alone, the thirteen searches at once). Lane i draws from seed + i, so seeds 1, 2 and 3 share
 * the quick lane of seed 3, which took over 200 sequences for three of these faults.
 */
const FIRST_SEED: Partial<Record<ExplorerFaultName, number>> = {
  'amount-large-pence-dropped': 5, // 11 sequences, against 231 from seed 3
  'webhook-reference-spaces-stripped': 5, // 16, against 207
  'webhook-other-application': 5, // 11, against 205
  'cancel-late-no-webhook': 6, // 27 in 13 s, against 171 shrunk until the 45 s limit
  'refund-total-float': 1, // 26, against 44
};

/**
 * Shrinking by a count, with time only as a bound on a broken run: at most 150 sequences (the most any fault's
 * shrinking played from its first seed was 99, reference-long-truncated's, its string shortened after its single step;
 * the others 4 to 20), within 90 s (the patient lanes' sequences wait 1.6 to 3.6 s a step). A loaded machine then
 * shrinks as far as a quiet one: the default 30 s once left seven steps with one core busy.
 */
const SHRINK = { shrinkRuns: 150, shrinkSeconds: 90 } as const;

/**
 * Faults that show only seconds after a call, which the patient lanes' waits are for. With one core busy a quick lane's
 * sequence can also run long enough to show one (refund-active-lapses, once in four searches: seven quick steps whose
 * slowness is the evidence, so they shrink no further). Such a finding must cite the fault's rule too, and the search
 * goes on to the next seed for what this test asserts of these faults: a patient lane's shrunk sequence.
 */
const PATIENT_FAULTS: ReadonlySet<ExplorerFaultName> = new Set(['refund-active-lapses']);

/**
 * Explores with the default budget (shrinking as SHRINK says), trying the fault's first seed (FIRST_SEED, else 3), then
 * 3, 1, 2 until one finds something (bounded; for PATIENT_FAULTS, until a patient lane finds it). Each of seeds 3, 1 and
 * 2 finds each of the faults (measured alone); seed 3 goes first otherwise because its searches end soonest, shrinking
 * included (the longest 23.5 s, against 31.6 s for seed 1: `commit-late-resets-cop` and `cancel-late-no-webhook`,
 * whose shrinking waits). The searches wait for webhooks as long as the embedded service's own audit does (2 s; the
 * wait ends when the webhook comes): with one core busy, a 1.2 s wait once read a late webhook as never sent
 * (PAYOUT-STATUS-CHANGE-WEBHOOK reported for refund-cap-large-payment), and 800 ms had done the same on a quiet run.
 */
async function findWith(fault: ExplorerFaultName): Promise<ExploreOutcome> {
  const t = await startEmbeddedTarget({ faults: [fault], webhookSigningKey });
  try {
    let last: ExploreOutcome | undefined;
    for (const seed of new Set([FIRST_SEED[fault] ?? 3, 3, 1, 2])) {
      last = await explore(t.context, env(120_000), { ...EXPLORE_DEFAULTS, seed, ...SHRINK });
      const found = last.failure;
      if (found === undefined) continue;
      if (!PATIENT_FAULTS.has(fault) || found.token.endsWith('~patient')) return last;
      expect(expected[fault], `${fault} (quick lane)`).toContain(
        found.violation.judgement.requirement,
      );
    }
    return last!;
  } finally {
    await t.close();
  }
}

describe.concurrent(
  'explorer: each explorer-only fault is found, shrunk to at most five steps, and replays',
  () => {
    it('covers every fault the catalogue marks for the explorer', () => {
      expect(Object.keys(expected).sort()).toEqual([...explorerFaults].sort());
    });

    it(
      'finds each (run at once), each citing the rule it breaks',
      { timeout: 240_000 },
      async () => {
        // The replays (below) of two faults' shrunk sequences start as soon as each is found, beside the others: one
        // from a quick lane, one from a patient lane (refundTwice is drawn there only).
        const replayedFaults = ['hold-skipped-large-amount', 'refund-active-lapses'] as const;
        const searches = explorerFaults.map((f) => [f, findWith(f)] as const);
        const [outcomes, replays] = await Promise.all([
          Promise.all(searches.map(async ([f, o]) => [f, await o] as const)),
          Promise.all(
            replayedFaults.map((fault) =>
              searches.find(([f]) => f === fault)![1].then((o) => replayOnFreshServices(fault, o)),
            ),
          ),
        ]);
        for (const [fault, o] of outcomes) {
          expect(o.error, fault).toBeUndefined();
          expect(expected[fault], fault).toContain(o.failure?.violation.judgement.requirement);
          expect(
            commandsOf(o).length,
            `${fault}: ${commandsOf(o).join(' | ')}`,
          ).toBeLessThanOrEqual(5);
          expect(parseReplayToken(o.failure!.token).ok, fault).toBe(true);
        }
        expect(replays[1]!.found.failure!.token).toMatch(/~patient$/);
        replays.forEach(({ found, again, onClean }, i) => {
          const fault = replayedFaults[i]!;
          // The shrunk sequence replays: the same rule breaks again on a fresh faulty service, and not on a clean one.
          expect(expected[fault], fault).toContain(again.failure?.violation.judgement.requirement);
          // (the same commands; the ids after "→" are those of the fresh service)
          expect(commandsOf(again).map(drawn), fault).toEqual(commandsOf(found).map(drawn));
          expect(onClean.failure, fault).toBeUndefined();
          // The replayed sequence only (fast-check may first run the unshrunk sequence the path starts from).
          expect(onClean.runs, fault).toBeLessThanOrEqual(2);
        });
      },
    );
  },
);

/** Replays `found`'s shrunk sequence on a fresh service with `fault` and on a fresh clean one. */
async function replayOnFreshServices(
  fault: ExplorerFaultName,
  found: ExploreOutcome,
): Promise<{ found: ExploreOutcome; again: ExploreOutcome; onClean: ExploreOutcome }> {
  if (found.failure === undefined) return { found, again: found, onClean: found };
  const replay: ExploreSettings = { ...EXPLORE_DEFAULTS, replay: found.failure.token };
  const faulty = await startEmbeddedTarget({ faults: [fault], webhookSigningKey });
  const clean = await startEmbeddedTarget({ webhookSigningKey });
  try {
    const again = await explore(faulty.context, env(60_000), replay);
    const onClean = await explore(clean.context, env(60_000), replay);
    return { found, again, onClean };
  } finally {
    await Promise.all([faulty.close(), clean.close()]);
  }
}

describe.concurrent(
  'explorer: no finding on correct services (a false failure is as bad as a miss)',
  () => {
    it.each(['clean', 'alt'] as const)(
      `%s: ${CLEAN_SEEDS} seeds, ten at a time, no failure and no error`,
      { timeout: 240_000 },
      async (variant: ServiceVariant) => {
        const t = await startEmbeddedTarget({ variant, webhookSigningKey });
        // A count, not a time: two sequences per lane and seed (the 4 s each had before cost about twice the CPU). The
        // steps judged still vary with the load (an answer or webhook that comes too late leaves its step unjudged):
        // one sequence per lane gave 507 steps alone and 181 with one core busy, two give twice that. The 60 s only
        // bounds a broken run.
        const settings = { runs: 2, seconds: 60, shrinkSeconds: 10, maxCommands: 8 };
        const bad: string[] = [];
        let steps = 0;
        try {
          for (let batch = 0; batch < CLEAN_SEEDS / 10; batch++) {
            const seeds = Array.from({ length: 10 }, (_, i) => 1000 + batch * 10 + i);
            const outcomes = await Promise.all(
              seeds.map((seed) => explore(t.context, env(60_000), { ...settings, seed })),
            );
            for (const o of outcomes) {
              steps += o.steps;
              if (o.failure !== undefined || o.error !== undefined)
                bad.push(
                  `seed ${o.seed}: ${o.error ?? o.failure!.violation.message} (${commandsOf(o).join(' | ')})`,
                );
            }
          }
        } finally {
          await t.close();
        }
        expect(bad).toEqual([]);
        expect(steps).toBeGreaterThan(200); // the runs did act on the service
      },
    );
  },
);

describe('audit server --explore (command line)', () => {
  it('--explore-only on the embedded service: one check, PASS, in the JSON report with its requirements', async () => {
    const r = await cli(
      [
        'audit',
        'server',
        '--explore-only',
        // A count, not a time (two sequences per lane, about 50 steps): enough for a pass, whatever the load.
        '--explore-runs',
        '2',
        '--explore-seconds',
        '60',
        '--explore-seed',
        '7',
        '--report',
        'json:-',
      ],
      { timeoutMs: 90_000 },
    );
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as {
      results: Array<{ id: string; outcome: string; requirements: string[] }>;
    };
    expect(report.results.map((x) => x.id)).toEqual(['explore-model']);
    expect(report.results[0]!.outcome).toBe('pass');
    expect(report.results[0]!.requirements).toContain('REFUND-TOTAL-CAP');
  });

  it('refuses a malformed replay token and a bad seed (exit 2)', async () => {
    expect((await cli(['audit', 'server', '--explore-replay', 'nonsense'])).code).toBe(2);
    expect((await cli(['audit', 'server', '--explore', '--explore-seed', '-1'])).code).toBe(2);
  });
});
