import { availableParallelism } from 'node:os';
import { relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { QUICK_TIER } from './test/tiers/quick-tier.js';

/**
 * The slowest files, slowest first, with their test time in seconds in a full run on a 2 vCPU machine (Node 20.20,
 * 2026-11-27, the machine otherwise quiet: 440 s in all). They start first, so that no long file begins near the end
 * while the other worker has run dry: vitest's own order puts the files its cache timed as slow first, but a fresh
 * clone (CI) has no cache, and then larger files go first. `.ci/run` prints the ten slowest of every CI run: keep this
 * list true to it.
 */
const SLOWEST_FIRST: readonly string[] = [
  'test/state-hook.test.ts', // 65
  'test/explore.test.ts', // 64
  'test/explore-config-payments.test.ts', // 58
  'test/serve-redis-cli.test.ts', // 51
  'test/runs-repeat.test.ts', // 43
  'test/target-outage.test.ts', // 31
  'test/package-install.test.ts', // 30
  'test/sdk-explore.test.ts', // 30
  'test/audit-waits.test.ts', // 29
  'test/executable.test.ts', // 28
  'test/bench-smoke.test.ts', // 25
  'test/ci-recipes.test.ts', // 18
  'test/har-report.test.ts', // 16
  'test/lenient-personality.test.ts', // 14
  'test/audit-gates.test.ts', // 13
  'test/explore-default.test.ts', // 13
  'test/audit-server-faults.test.ts', // 13
  'test/scale-out-redis.test.ts', // 12
  'test/redis-cluster.test.ts', // 11
  'test/bounded-evidence.test.ts', // 11
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
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Files run in parallel: most of the suite waits on child processes, sockets and timers rather than a core, so
    // two workers on a 2-core machine take about 60% of the serial time (362 s against about 600 s measured here).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    sequence: { sequencer: SlowestFirstSequencer },
    // Two tiers (README, "The two commands"): `npm test` runs both, `npm run test:quick` the quick one alone.
    projects: [
      {
        extends: true,
        test: {
          name: 'quick',
          include: [...QUICK_TIER],
          // Listening or spawning fails there: the tier holds no server and no process.
          setupFiles: ['test/tiers/no-server-or-process.ts'],
        },
      },
      {
        extends: true,
        test: { name: 'end-to-end', include: ['test/**/*.test.ts'], exclude: [...QUICK_TIER] },
      },
    ],
  },
});
