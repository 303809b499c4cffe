// No answer is never a finding, in the explorer too (docs/verdicts.md, "No answer is not a failure"; docs/explorer.md,
// "No answer"): a long-lived `payconform serve` killed mid-run ends the audit with exit 3, no failing check, and every
// report saying the target stopped answering; an exploration that judged fewer than its minimum of steps, or created
// no payout, is not a pass.
// Each test has its own service and waits on it, so the tests run side by side (describe.concurrent).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startEmbeddedTarget } from '../cli/commands/audit-server.js';
import type { CheckRunEnv } from '../conformance/run/check.js';
import { createExploreCheck, EXPLORE_DEFAULTS } from '../conformance/explore/explorer.js';
import { validateAgainst } from '../src/schemas/index.js';
import { loadTestKeys } from './fixtures/keys.js';
import { startLongLivedTarget } from './fixtures/long-lived-target.js';

/** The embedded services sign their webhooks with the test key (a fresh RSA key costs 0.15 s of CPU). */
const webhookSigningKey = loadTestKeys().webhookRsa.privatePem;

const env = (ms: number): CheckRunEnv => ({
  signal: new AbortController().signal,
  deadline: Date.now() + ms,
});

interface Report {
  readonly verdict: string;
  readonly exitCode: number;
  readonly stopped?: { readonly exitCode: number; readonly reason: string };
  readonly results: ReadonlyArray<{ readonly id: string; readonly outcome: string }>;
}

/** Runs `audit server ARGS` against a fresh `payconform serve`, killed once the run has made `payouts` payouts. */
async function auditKilledMidRun(args: readonly string[], payouts: number) {
  // The service is a child process: killing it is the outage (the audit runs in-process).
  const target = await startLongLivedTarget([], undefined, { process: true });
  try {
    const started = Date.now();
    const run = target.audit([
      ...args,
      '--report',
      'json:run.json',
      '--report',
      'junit:run.xml',
      '--report',
      'html:run.html',
    ]);
    await target.payoutsReach(payouts);
    target.kill();
    const { code, out } = await run.done;
    const read = (f: string): string => readFileSync(join(target.dir, f), 'utf8');
    return {
      code,
      out,
      seconds: (Date.now() - started) / 1000,
      json: JSON.parse(read('run.json')) as Report,
      junit: read('run.xml'),
      html: read('run.html'),
    };
  } finally {
    await target.close();
  }
}

describe.concurrent(
  'a target that stops answering mid-run: exit 3, no finding against it, every report says so',
  () => {
    it('while exploring: the sequences without an answer are inconclusive, never shrunk as a failure', async () => {
      // 60 s of exploring asked: an exploration that did not stop at the outage would run past it (and shrink after).
      // --verbose: each sequence's line, so a shrink that began shows.
      const r = await auditKilledMidRun(
        ['--explore-only', '--explore-seconds', '60', '--verbose'],
        6,
      );
      expect(r.out).toMatch(/explore: sequence 1, /);
      expect(r.code, r.out).toBe(3);
      expect(r.json.verdict).toBe('error');
      expect(r.json.exitCode).toBe(3);
      expect(r.json.stopped?.reason).toMatch(/stopped answering during the run/);
      expect(
        validateAgainst('https://payconform.dev/schemas/conformance-report.schema.json', r.json),
      ).toEqual({ valid: true });
      expect(r.json.results.filter((x) => x.outcome === 'fail')).toEqual([]);
      expect(r.json.results.find((x) => x.id === 'explore-model')?.outcome).toBe('error');
      expect(r.out).toMatch(
        /the target stopped answering: \d+ sequences in a row got no complete answer/,
      );
      // A webhook the killed target never sent may have started a shrink before the outage showed: what it was
      // shrinking is then undecided, never a failure.
      if (/shrinking a failure/.test(r.out))
        expect(r.out).toMatch(
          /the exploration stopped, and what it was shrinking \([A-Z-]+\) is undecided/,
        );
      expect(r.junit).toMatch(/run stopped \(exit 3\): the target stopped answering/);
      expect(r.html).toMatch(/Run stopped \(exit 3\):<\/strong> the target stopped answering/);
      // Nothing is shrunk: the exploration ends soon after the outage, long before its 60 s of exploring (the bound
      // leaves room for a loaded machine: 10 to 13 s alone, 19.7 s seen in a full suite run on two cores).
      expect(r.seconds).toBeLessThan(40);
    }, 120_000);

    it('during the fixed checks: the same ending', async () => {
      const r = await auditKilledMidRun([], 2);
      expect(r.code, r.out).toBe(3);
      expect(r.json.stopped?.exitCode).toBe(3);
      expect(r.json.results.filter((x) => x.outcome === 'fail')).toEqual([]);
      expect(r.json.results.some((x) => x.outcome === 'error')).toBe(true);
      expect(r.out).toMatch(/verdict: ERROR \(the target stopped answering during the run/);
    }, 120_000);
  },
);

describe.concurrent('an exploration that did not reach enough is not a pass', () => {
  it(`fewer than ${EXPLORE_DEFAULTS.minSteps} judged steps: inconclusive, with the minimum named`, async () => {
    const t = await startEmbeddedTarget({ webhookSigningKey });
    try {
      // One quick lane, one sequence of one command: a few steps (a refund in parts records up to four, and the end
      // of the sequence one), never ten. Three lanes of three commands could reach ten with those.
      const check = createExploreCheck({
        runs: 1,
        seconds: 10,
        maxCommands: 1,
        lanes: 1,
        patientLanes: 0,
      });
      const findings = await check.run(t.context, env(60_000));
      const decisive = findings.filter((f) => f.outcome !== 'observation');
      expect(decisive.map((f) => f.outcome)).toEqual(['inconclusive']);
      expect(decisive[0]!.message).toMatch(
        new RegExp(`fewer than its minimum of ${EXPLORE_DEFAULTS.minSteps}: not a pass`),
      );
    } finally {
      await t.close();
    }
  }, 60_000);

  it('no payout created (every one refused): inconclusive, never a pass', async () => {
    const t = await startEmbeddedTarget({ webhookSigningKey });
    try {
      const c = t.context.credentials!;
      // A secret the target does not know: every payout is refused (401), so nothing of a payout's life is judged.
      // Payouts alone are drawn (no sandbox, no unsettled payments), so no other rule is reached either.
      const refused = {
        ...t.context,
        credentials: { ...c, applicationSecret: 'not-the-secret' },
        sandbox: false,
        payments: { ...t.context.payments, unsettled: [] },
      };
      // A count, not a time: three sequences per lane (well over the minimum of steps; one per lane judged 17), where
      // 3 s of refused requests cost several times the CPU. The 60 s only bounds a broken run.
      const check = createExploreCheck({ runs: 3, seconds: 60 });
      const findings = await check.run(refused, env(60_000));
      const decisive = findings.filter((f) => f.outcome !== 'observation');
      expect(decisive.map((f) => f.outcome)).toEqual(['inconclusive']);
      expect(decisive[0]!.message).toMatch(/created no payout/);
    } finally {
      await t.close();
    }
  }, 60_000);
});
