import { availableParallelism } from 'node:os';
import { relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { OWN_WORKER } from './test/tiers/own-worker.js';
import { QUICK_TIER } from './test/tiers/quick-tier.js';

/**
 * The slowest files, slowest first, with their test time in seconds in a full run on a 2 vCPU machine (Node 20.20,
 * 2026-11-29, `npm test` in the working tree with redis-server, chromium and Go, four files at a time: 273 s in all). They start first, so that no long file begins near the end
 * while the other workers have run dry: vitest's own order puts the files its cache timed as slow first, but a fresh
 * clone (CI) has no cache, and then larger files go first. `.ci/run` prints the ten slowest of every CI run: keep this
 * list true to it.
 */
const SLOWEST_FIRST: readonly string[] = [
  'test/serve-redis-cli.test.ts', // 55
  'test/ci-recipes.test.ts', // 52
  'test/package-install.test.ts', // 49
  'test/sdk-explore.test.ts', // 49
  'test/explore.test.ts', // 48
  'test/executable.test.ts', // 40
  'test/delayed-webhooks.test.ts', // 36
  'test/attestation.test.ts', // 30
  'test/signature-forgeries.test.ts', // 28
  'test/lenient-personality.test.ts', // 27
  'test/readme-first-audit.test.ts', // 26
  'test/runs-repeat.test.ts', // 26
  'test/state-hook.test.ts', // 25
  'test/bounded-evidence.test.ts', // 23
  'test/explore-config-payments.test.ts', // 22
  'test/audit-gates.test.ts', // 19
  'test/bench-smoke.test.ts', // 19
  'test/audit-server-faults.test.ts', // 17
  'test/state-hook-failures.test.ts', // 16
  'test/har-report.test.ts', // 15
  'test/scale-out-redis.test.ts', // 13
  'test/vectors-harness.test.ts', // 13
  'test/child-process-roles.test.ts', // 12
  'test/redis-cluster.test.ts', // 12
  'test/target-outage.test.ts', // 12
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
    // Files run in parallel: most of the suite waits on child processes, sockets and timers rather than a core (the
    // longest files use a third of a core or less), so a 2-core machine runs four files at once: 294 s against 444 s
    // with two workers, the same commit, both passing (2 vCPU, 2026-11-28; CPU 83% busy against 54%).
    maxWorkers: Math.max(4, availableParallelism()),
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
          // Its files share a worker's modules (no server, no process, no global they leave changed): the tier takes
          // 18 s of CPU in place of 32 s (9 s against 17 s of wall time here, 2026-11-28).
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'end-to-end',
          include: ['test/**/*.test.ts'],
          exclude: [...QUICK_TIER, ...OWN_WORKER],
          // Files share a worker's modules, as in the quick tier; those that change process-wide state get their
          // own worker below (test/tiers/own-worker.ts says which and why).
          isolate: false,
        },
      },
      {
        extends: true,
        test: { name: 'end-to-end-own-worker', include: [...OWN_WORKER] },
      },
    ],
  },
});
