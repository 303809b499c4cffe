import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Files run in parallel: most of the suite waits on child processes, sockets and timers rather than a core, so
    // two workers on a 2-core machine take about 60% of the serial time (362 s against about 600 s measured here).
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
