import { availableParallelism } from 'node:os';
import { relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { QUICK_TIER } from './test/tiers/quick-tier.js';

/**
 * The slowest files, slowest first, with their test time in seconds in a full run on a 2 vCPU machine (Node 20.20).
 * They start first, so that no long file begins near the end while the other worker has run dry: vitest's own order
 * puts the files its cache timed as slow first, but a fresh clone (CI) has no cache, and then larger files go first,
 * which left `adversity` (small, long) for last. Figures marked ~ are estimates after the CLI moved in-process:
 * the full run's figure times the file's own after/before ratio, each file timed alone on 2026-11-27 on the
 * shared machine (load 13-23); diff (~4 s), baseline (~3), audit-client-cli (~8) and explore-default (~9) left the
 * list. `.ci/run` prints the ten slowest of every CI run: keep this list true to it.
 */
const SLOWEST_FIRST: readonly string[] = [
  'test/runs-repeat.test.ts', // ~77
  'test/package-install.test.ts', // 75
  'test/explore.test.ts', // ~71
  'test/serve-redis-cli.test.ts', // 65
  'test/adversity.test.ts', // ~57
  'test/bench-smoke.test.ts', // 49
  'test/audit-waits.test.ts', // 37
  'test/attestation.test.ts', // ~32
  'test/tls.test.ts', // 25
  'test/har-report.test.ts', // ~21
  'test/audit-client-faults.test.ts', // 20
  'test/audit-server-cli.test.ts', // 19
  'test/signature-forgeries.test.ts', // 18
  'test/audit-server-faults.test.ts', // 17
  'test/audit-gates.test.ts', // ~16
  'test/target-outage.test.ts', // ~15
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
