// The explorer engine's shrinking bounded by a count (`shrinkRuns`): with a count, shrinking plays at most that many
// sequences and reports the smallest failure found by then, the same on a quiet machine and a loaded one; without
// one, only the time bounds it. A toy role: a sequence of numbers fails its one rule when a number is over 50.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lanesOf, search, type ExplorerRole, type Played } from '../conformance/explore/engine.js';

/** The toy role, counting the sequences it plays while a failure is being shrunk. */
function toyRole(): {
  role: ExplorerRole<number[], string, number[]>;
  playedAfterFailure: () => number;
} {
  let failed = false;
  let after = 0;
  const role: ExplorerRole<number[], string, number[]> = {
    sequences: () => fc.array(fc.integer({ min: 0, max: 100 }), { minLength: 1, maxLength: 30 }),
    play: (sequence): Promise<Played<string, number[]>> => {
      if (failed) after++;
      const over = sequence.findIndex((n) => n > 50);
      if (over === -1) return Promise.resolve({ record: sequence, steps: sequence.length });
      failed = true;
      return Promise.resolve({
        record: sequence.slice(0, over + 1),
        steps: over + 1,
        failure: `${sequence[over]} is over 50`,
      });
    },
    requirementOf: () => 'TOY-AT-MOST-50',
  };
  return { role, playedAfterFailure: () => after };
}

const settings = (shrinkRuns?: number) => ({
  runs: 200,
  seconds: 30,
  shrinkSeconds: 30,
  ...(shrinkRuns !== undefined ? { shrinkRuns } : {}),
  lanes: lanesOf(7, 1, 0, undefined),
});

describe('explorer engine: shrinking bounded by a count', () => {
  it('without a count, shrinks to the smallest failure (one number, 51)', async () => {
    const toy = toyRole();
    const found = await search(toy.role, settings());
    expect(found.failure?.record).toEqual([51]);
  });

  it('with a count, plays at most that many sequences shrinking, and still reports a failure of the same rule', async () => {
    const toy = toyRole();
    const found = await search(toy.role, settings(3));
    expect(toy.playedAfterFailure()).toBeLessThanOrEqual(3);
    expect(found.failure?.violation).toMatch(/is over 50$/);
    // The same seed and count give the same shrunk failure (what a loaded machine would report too).
    const again = await search(toyRole().role, settings(3));
    expect(again.failure?.record).toEqual(found.failure?.record);
    expect(again.failure?.token).toBe(found.failure?.token);
  });
});
