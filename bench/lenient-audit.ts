// The lenient personality against the default server audit, explorer included (it must pass on 20 seeds):
// `npm run bench:lenient -- [--seeds N] [--concurrency C]` starts the embedded reference service with
// `variant: 'lenient'` once per seed and runs every server check plus the explorer at its default budget, the drawn
// forgeries and the explorer both seeded with the seed (1..N), at most 2 seeds at a time. It prints one line per seed
// and the count that passed (no failure, no error; the one warning allowed is created-in-future, payconform's SHOULD,
// as for alt). The figure is quoted in docs/verdicts.md.
import { parseArgs } from 'node:util';
import { auditTarget, startEmbeddedTarget } from '../cli/commands/audit-server.js';
import { EXPLORE_DEFAULTS } from '../conformance/explore/explorer.js';
import type { RunSummary } from '../conformance/run/result.js';

const { values } = parseArgs({
  options: { seeds: { type: 'string' }, concurrency: { type: 'string' } },
});
const seeds = Math.min(100, Math.max(1, Number(values.seeds ?? 20) || 20));
const concurrency = Math.min(2, Math.max(1, Number(values.concurrency ?? 2) || 2));
/** The warning alt and lenient both earn: payconform's own SHOULD on a created in the future. */
const ALLOWED_WARNINGS: readonly string[] = ['created-in-future'];

async function auditSeed(seed: number): Promise<{ seed: number; ms: number; bad: string[] }> {
  const started = Date.now();
  const target = await startEmbeddedTarget({ variant: 'lenient' });
  let summary: RunSummary;
  try {
    const context = { ...target.context, forgeries: { seed } };
    summary = await auditTarget(
      { ...target, context },
      { explore: { ...EXPLORE_DEFAULTS, seed, only: false } },
    );
  } finally {
    await target.close();
  }
  const bad = summary.results
    .filter(
      (r) =>
        r.outcome === 'fail' ||
        r.outcome === 'error' ||
        r.outcome === 'skip' ||
        (r.outcome === 'warn' && !ALLOWED_WARNINGS.includes(r.id)),
    )
    .map((r) => `${r.id}: ${r.outcome} (${r.message})`);
  return { seed, ms: Date.now() - started, bad };
}

const started = Date.now();
const queue = Array.from({ length: seeds }, (_, i) => i + 1);
const results: Array<Awaited<ReturnType<typeof auditSeed>>> = [];
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    for (let seed = queue.shift(); seed !== undefined; seed = queue.shift()) {
      const r = await auditSeed(seed);
      results.push(r);
      const verdict = r.bad.length === 0 ? 'pass' : `FAIL ${r.bad.join('; ')}`;
      process.stdout.write(`seed ${seed}: ${verdict} (${(r.ms / 1000).toFixed(1)} s)\n`);
    }
  }),
);
const passed = results.filter((r) => r.bad.length === 0).length;
const wall = ((Date.now() - started) / 1000).toFixed(0);
process.stdout.write(
  `lenient personality, default audit with explorer (${EXPLORE_DEFAULTS.seconds} s): ${passed}/${seeds} seeds passed in ${wall} s wall, ${concurrency} at a time\n`,
);
process.exitCode = passed === seeds ? 0 : 1;
