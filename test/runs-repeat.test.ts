// Runs repeat (docs/verdicts.md, "A check owns what it judges"): consecutive audits of one long-lived `payconform
// serve`, started with the README's route (manual lifecycle: the refunds of one run stay active) and with an automatic
// lifecycle, all pass; refund checks make their own settled payment through /sandbox/. Where a check must use a
// configured payment (no /sandbox/), what an earlier run left on it makes a refusal undecided, never a failure.
// Two audits per target (ten with PAYCONFORM_LONG_TESTS=1); about 20 s each target on two cores. The targets are
// independent and the audits mostly wait on them (about 13 s of CPU in 42 s one after another), so the three tests
// run side by side (describe.concurrent).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startLongLivedTarget, type LongLivedTarget } from './fixtures/long-lived-target.js';

const RUNS = process.env['PAYCONFORM_LONG_TESTS'] === '1' ? 10 : 2;
/** Sequences per explorer lane in each audit (3 s alone drew 130 to 260 sequences in all on a busy two-core machine). */
const EXPLORE_RUNS_PER_LANE = 20;

interface Report {
  readonly exitCode: number;
  readonly results: ReadonlyArray<{
    readonly id: string;
    readonly outcome: string;
    readonly message: string;
  }>;
}

async function audits(target: LongLivedTarget, n: number, args: readonly string[] = []) {
  const out: Array<{ code: number | null; out: string; report: Report }> = [];
  for (let i = 0; i < n; i++) {
    // The default audit, explorer included (a short budget: its sequences create payouts and refunds too). The budget
    // is a count per lane (six lanes: at most 120 sequences) within the 3 s it had: a quiet machine stops at the count,
    // a loaded one at the time, as before.
    const { code, out: text } = await target.audit([
      '--explore-runs',
      String(EXPLORE_RUNS_PER_LANE),
      '--explore-seconds',
      '3',
      ...args,
      '--report',
      `json:run-${i}.json`,
    ]).done;
    const report = JSON.parse(readFileSync(join(target.dir, `run-${i}.json`), 'utf8')) as Report;
    out.push({ code, out: text, report });
  }
  return out;
}

const notPassing = (r: Report): string[] =>
  r.results.filter((x) => x.outcome !== 'pass').map((x) => `${x.id}: ${x.outcome} (${x.message})`);

describe.concurrent(`${RUNS} consecutive audits of one long-lived target all pass`, () => {
  it.each([
    ['manual lifecycle (the README route: refunds stay active)', []],
    ['automatic lifecycle (--lifecycle-ms 300)', ['--lifecycle-ms', '300']],
  ])(
    '%s',
    async (_name, flags) => {
      const target = await startLongLivedTarget(flags);
      try {
        const runs = await audits(target, RUNS);
        runs.forEach((run, i) => {
          expect(notPassing(run.report), `run ${i + 1}`).toEqual([]);
          expect(run.code, `run ${i + 1}:\n${run.out}`).toBe(0);
        });
      } finally {
        await target.close();
      }
    },
    60_000 + RUNS * 40_000,
  );
});

describe.concurrent(
  'a configured payment an earlier run left a refund active on: undecided, never failed',
  () => {
    it('without /sandbox/ the second run names the payment and fails no check', async () => {
      const target = await startLongLivedTarget();
      try {
        // The README's config, as a user of a target without payconform's /sandbox/ writes it.
        const config = JSON.parse(readFileSync(join(target.dir, 'audit.json'), 'utf8')) as Record<
          string,
          unknown
        >;
        writeFileSync(
          join(target.dir, 'no-sandbox.json'),
          JSON.stringify({ ...config, sandbox: false }),
        );
        const only = ['--only', 'refund-partial-accepted'];
        const first = await target.audit([
          '--config',
          'no-sandbox.json',
          ...only,
          '--report',
          'json:first.json',
        ]).done;
        expect(first.code, first.out).toBe(0);
        const second = await target.audit([
          '--config',
          'no-sandbox.json',
          ...only,
          '--report',
          'json:second.json',
        ]).done;
        const report = JSON.parse(readFileSync(join(target.dir, 'second.json'), 'utf8')) as Report;
        const r = report.results.find((x) => x.id === 'refund-partial-accepted');
        expect(r?.outcome, second.out).toBe('error');
        expect(r?.message).toMatch(
          /undecided: payment \S+ comes from the config, not from this run/,
        );
        expect(report.results.filter((x) => x.outcome === 'fail')).toEqual([]);
      } finally {
        await target.close();
      }
    }, 90_000);
  },
);
