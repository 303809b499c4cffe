// bench/load.ts and bench/suite.ts, the tools behind the suite's timed runs (docs/performance.md, "The test suite's
// time"): the load is a process that really spins, whose share of a core is read back and which stops when asked;
// the suite runner reads vitest's own duration from its summary line.
import { describe, expect, it } from 'vitest';
import { startLoad } from '../bench/load.js';
import { vitestDuration } from '../bench/suite.js';
import { until } from './fixtures/until.js';

describe('npm run bench:load', () => {
  it('spins one process, reports the CPU it had as a share of one core, and stops when asked', async () => {
    const load = startLoad(60);
    try {
      await until('the load used 0.2 s of CPU', () => (load.cpuSeconds() ?? 0) >= 0.2, 30_000);
    } finally {
      const report = await load.stop();
      expect(report.cpuSeconds).toBeGreaterThanOrEqual(0.2);
      expect(report.coreShare).toBeGreaterThan(0);
      // One process, one thread spinning: never more than a core (and a tick of rounding).
      expect(report.coreShare).toBeLessThanOrEqual(1.05);
    }
  });
});

describe('npm run bench:suite', () => {
  it("reads vitest's duration from its summary line, colours or not, and nothing from other output", () => {
    expect(
      vitestDuration(
        ' Test Files  169 passed (169)\n   Duration  311.78s (transform 21.48s, setup 442ms)\n',
      ),
    ).toBe(311.78);
    expect(vitestDuration('\u001b[2m   Duration \u001b[22m 42.5s\u001b[2m (transform 1s)\n')).toBe(
      42.5,
    );
    expect(vitestDuration('npm ERR! missing script: test\n')).toBeUndefined();
  });
});
