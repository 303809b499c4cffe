import { availableParallelism } from 'node:os';
import { relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The slowest files, slowest first, with their test time in seconds in a full run on a 2 vCPU machine (Node 20.20).
 * They start first, so that no long file begins near the end while the other worker has run dry: vitest's own order
 * puts the files its cache timed as slow first, but a fresh clone (CI) has no cache, and then larger files go first,
 * which left `adversity` (small, long) for last.
 */
const SLOWEST_FIRST: readonly string[] = [
  'test/serve-redis-cli.test.ts', // 75
  'test/bench-smoke.test.ts', // 54
  'test/adversity.test.ts', // 45 (90 before its default budget)
  'test/explore.test.ts', // 42 (74 before its default budget)
  'test/tls.test.ts', // 37
  'test/package-install.test.ts', // 35
  'test/audit-gates.test.ts', // 29
  'test/audit-client-cli.test.ts', // 25
  'test/audit-server-cli.test.ts', // 22
  'test/redis-cluster.test.ts', // 19
  'test/audit-waits.test.ts', // 18
  'test/audit-client-faults.test.ts', // 18
  'test/portal-browser.test.ts', // 16
  'test/scale-out-redis.test.ts', // 16
  'test/report-on-every-exit.test.ts', // 16
  'test/bounded-evidence.test.ts', // 15
  'test/vectors-harness.test.ts', // 14
];

/** The files above first, in that order; the others after them in vitest's own order (its cache, else size). */
class SlowestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification): number => {
      const i = SLOWEST_FIRST.indexOf(relative(spec.project.config.root, spec.moduleId));
      return i === -1 ? SLOWEST_FIRST.length : i;
    };
    // Array.prototype.sort is stable: the files not listed keep vitest's order.
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Files run in parallel: most of the suite waits on child processes, sockets and timers rather than a core, so
    // two workers on a 2-core machine take about 60% of the serial time (362 s against about 600 s measured here).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    sequence: { sequencer: SlowestFirstSequencer },
  },
});
