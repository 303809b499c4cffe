import { availableParallelism } from 'node:os';
import { relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { QUICK_TIER } from './test/tiers/quick-tier.js';

/**
 * The slowest files, slowest first, with their test time in seconds in a full run on a 2 vCPU machine (Node 20.20).
 * They start first, so that no long file begins near the end while the other worker has run dry: vitest's own order
 * puts the files its cache timed as slow first, but a fresh clone (CI) has no cache, and then larger files go first,
 * which left `adversity` (small, long) for last.
 */
const SLOWEST_FIRST: readonly string[] = [
  'test/package-install.test.ts', // 75
  'test/explore.test.ts', // 68
  'test/runs-repeat.test.ts', // 67
  'test/serve-redis-cli.test.ts', // 65
  'test/bench-smoke.test.ts', // 49
  'test/adversity.test.ts', // 48
  'test/attestation.test.ts', // 37
  'test/audit-waits.test.ts', // 37
  'test/audit-client-cli.test.ts', // 27
  'test/tls.test.ts', // 25
  'test/audit-gates.test.ts', // 25
  'test/diff.test.ts', // 24
  'test/target-outage.test.ts', // 23
  'test/baseline.test.ts', // 22
  'test/har-report.test.ts', // 22
  'test/audit-client-faults.test.ts', // 20
  'test/audit-server-cli.test.ts', // 19
  'test/signature-forgeries.test.ts', // 18
  'test/explore-default.test.ts', // 18
  'test/audit-server-faults.test.ts', // 17
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
