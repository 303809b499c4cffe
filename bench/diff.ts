// `npx tsx bench/diff.ts`: how `payconform diff` (conformance/report/diff.ts, `diffReports`) grows with the number of
// results: two synthetic reports of N checks each (every one regressed), timed at several N, with the time per
// thousand results (flat when linear), and beside it the lookup the diff used before (one Array.find per id: quadratic)
// at the smaller sizes only. A benchmark, never a timed test; bounded: fixed sizes, one timed run each after a warm-up.
// Usage: npx tsx bench/diff.ts [--json]
import { performance } from 'node:perf_hooks';
import { diffReports } from '../conformance/report/diff.js';
import type { JsonReport } from '../conformance/reporters/json.js';
import { syntheticReport as report } from '../test/fixtures/synthetic-report.js';

const SIZES = [25_000, 50_000, 100_000, 200_000] as const;
/** The quadratic lookup is timed only up to this size (at 100 000 it took 29 s). */
const QUADRATIC_UP_TO = 50_000;

/** Milliseconds one call of `f` takes. */
function time(f: () => unknown): number {
  const started = performance.now();
  f();
  return performance.now() - started;
}

/** The earlier lookup: each id found by scanning the other report's results. */
function quadraticLookup(a: JsonReport, b: JsonReport): number {
  let found = 0;
  for (const r of a.results) if (b.results.find((x) => x.id === r.id) !== undefined) found += 1;
  return found;
}

const rows: Array<{ n: number; linearMs: number; perThousandMs: number; quadraticMs?: number }> =
  [];
diffReports(report(1_000, 'pass'), report(1_000, 'fail')); // warm-up
for (const n of SIZES) {
  const [before, after] = [report(n, 'pass'), report(n, 'fail')];
  const linearMs = time(() => diffReports(before, after));
  const quadraticMs = n <= QUADRATIC_UP_TO ? time(() => quadraticLookup(before, after)) : undefined;
  rows.push({
    n,
    linearMs,
    perThousandMs: (linearMs / n) * 1000,
    ...(quadraticMs !== undefined ? { quadraticMs } : {}),
  });
}
if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
else
  for (const r of rows)
    process.stdout.write(
      `${String(r.n).padStart(7)} results: diffReports ${r.linearMs.toFixed(0).padStart(5)} ms (${r.perThousandMs.toFixed(2)} ms per 1000)${r.quadraticMs !== undefined ? `; Array.find lookup alone ${r.quadraticMs.toFixed(0)} ms` : ''}\n`,
    );
