// A tiny bounded timing loop: per round, an untimed prepare, a warm-up, then N iterations or T ms, whichever first.
// A benchmark may keep several operations in flight (`inFlight`), for asynchronous work that runs off the main thread.
// Rounds are interleaved across benchmarks (A B C, A B C, ...) so that a noisy neighbour hits all of them alike;
// a benchmark's figure is the median of its rounds, and a ratio is the median of the per-round ratios (the two figures
// of one round were measured seconds apart, under the same load). Ratios are only meaningful within one run.

import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

/** One timed operation; `iteration` counts from 0 within a round (warm-up included). Throw when the result is wrong. */
export type Operation = (iteration: number) => unknown;

export interface Benchmark {
  /** Stable id, printed in the JSON lines (`{ "name": ..., "opsPerSec": ... }`). */
  readonly name: string;
  /** One line for people. */
  readonly title: string;
  /**
   * Operations kept in flight at once (default 1: each awaited before the next starts). With more, the round's
   * figure is completed operations per second of wall time, which is what a thread pool can raise.
   */
  readonly inFlight?: number;
  /**
   * Called once per round, untimed: returns the operation for iterations 0 .. count − 1. Per-iteration inputs (for
   * example requests signed with a fresh nonce each) are built here, so that only the operation itself is timed.
   */
  prepare(count: number): Operation | Promise<Operation>;
}

/** A ratio printed after the table: numerator ops/s ÷ denominator ops/s, with the target it should reach. */
export interface Comparison {
  readonly label: string;
  readonly numerator: string;
  readonly denominator: string;
  /** The ratio should be at least this; absent for informational ratios. */
  readonly target?: number;
}

/** What a bench module contributes to `bench/run.ts`. */
export interface BenchmarkSuite {
  readonly benchmarks: readonly Benchmark[];
  readonly comparisons?: readonly Comparison[];
  /** Releases what the suite holds (servers, sockets); called once after the last round. */
  close?(): Promise<void>;
}

export interface HarnessOptions {
  /** Untimed iterations at the start of each round. */
  readonly warmupIterations: number;
  /** Upper bound on timed iterations per round. */
  readonly iterations: number;
  /** Upper bound on timed milliseconds per round (checked after each iteration). */
  readonly maxMilliseconds: number;
  readonly rounds: number;
}

export const defaultHarnessOptions: HarnessOptions = Object.freeze({
  warmupIterations: 500,
  iterations: 2_000,
  maxMilliseconds: 500,
  rounds: 7,
});

export interface Measurement {
  readonly name: string;
  readonly title: string;
  /** Median over the rounds. */
  readonly opsPerSec: number;
  /** Ops/s of each round, in order. */
  readonly roundOpsPerSec: readonly number[];
  /** Timed iterations over all rounds. */
  readonly iterations: number;
}

interface RoundResult {
  readonly iterations: number;
  readonly elapsedMs: number;
}

/**
 * A full garbage collection between the untimed preparation and the timed loop, so that the garbage of preparing
 * (thousands of signed requests) is not collected on some other benchmark's clock. Exposed at run time through V8's
 * flag; a no-op where that is unavailable.
 */
const collectGarbage: () => void = (() => {
  try {
    v8.setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    if (typeof gc === 'function') return () => void gc();
  } catch {
    // fall through
  }
  return () => undefined;
})();

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/** Runs one round of one benchmark. Synchronous operations are not awaited, so they pay no microtask cost. */
async function runRound(benchmark: Benchmark, options: HarnessOptions): Promise<RoundResult> {
  const { warmupIterations, iterations, maxMilliseconds } = options;
  const op = await benchmark.prepare(warmupIterations + iterations);
  collectGarbage();
  const inFlight = benchmark.inFlight ?? 1;
  if (inFlight > 1) return runRoundInFlight(op, inFlight, options);
  let i = 0;
  for (; i < warmupIterations; i++) {
    const result = op(i);
    if (isThenable(result)) await result;
  }
  const start = performance.now();
  const deadline = start + maxMilliseconds;
  const end = warmupIterations + iterations;
  let now = start;
  for (; i < end;) {
    const result = op(i);
    if (isThenable(result)) await result;
    i++;
    now = performance.now();
    if (now >= deadline) break;
  }
  return { iterations: i - warmupIterations, elapsedMs: now - start };
}

/**
 * A round with `inFlight` operations outstanding: each finished operation starts the next (a closed loop, like that
 * many clients), until the count or the time bound; the clock stops when the last outstanding one has finished.
 */
async function runRoundInFlight(
  op: Operation,
  inFlight: number,
  options: HarnessOptions,
): Promise<RoundResult> {
  const { warmupIterations, iterations, maxMilliseconds } = options;
  let next = 0;
  let deadline = Number.POSITIVE_INFINITY;
  const lane = async (end: number): Promise<void> => {
    while (next < end && performance.now() < deadline) await op(next++);
  };
  const lanes = (end: number) => Promise.all(Array.from({ length: inFlight }, () => lane(end)));
  await lanes(warmupIterations);
  const start = performance.now();
  deadline = start + maxMilliseconds;
  await lanes(warmupIterations + iterations);
  return { iterations: next - warmupIterations, elapsedMs: performance.now() - start };
}

/** The median of `values` (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The nearest-rank percentile `fraction` (0..1) of ascending `sorted` values; undefined when there are none. */
export function percentile(sorted: readonly number[], fraction: number): number | undefined {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))];
}

/** Checks the options are positive integers (TypeError otherwise: a caller's misuse). */
export function checkHarnessOptions(options: HarnessOptions): HarnessOptions {
  for (const [key, value] of Object.entries(options)) {
    const min = key === 'warmupIterations' ? 0 : 1;
    if (!Number.isSafeInteger(value) || value < min)
      throw new TypeError(`${key} must be an integer ≥ ${min}, got ${String(value)}`);
  }
  return options;
}

/**
 * Runs every benchmark for `options.rounds` interleaved rounds and returns one measurement per benchmark, in order.
 * `onRound` is told after each round (for progress output).
 */
export async function runBenchmarks(
  benchmarks: readonly Benchmark[],
  options: HarnessOptions = defaultHarnessOptions,
  onRound?: (name: string, round: number, opsPerSec: number) => void,
): Promise<Measurement[]> {
  checkHarnessOptions(options);
  const names = new Set<string>();
  for (const b of benchmarks) {
    if (names.has(b.name)) throw new TypeError(`duplicate benchmark name "${b.name}"`);
    if (b.inFlight !== undefined && !(Number.isSafeInteger(b.inFlight) && b.inFlight >= 1)) {
      throw new TypeError(
        `inFlight of "${b.name}" must be an integer ≥ 1, got ${String(b.inFlight)}`,
      );
    }
    names.add(b.name);
  }
  const perRound = benchmarks.map(() => [] as number[]);
  const counts = benchmarks.map(() => 0);
  for (let round = 0; round < options.rounds; round++) {
    for (const [index, benchmark] of benchmarks.entries()) {
      const { iterations, elapsedMs } = await runRound(benchmark, options);
      const opsPerSec = elapsedMs > 0 ? (iterations * 1000) / elapsedMs : Number.POSITIVE_INFINITY;
      perRound[index]!.push(opsPerSec);
      counts[index]! += iterations;
      onRound?.(benchmark.name, round, opsPerSec);
    }
  }
  return benchmarks.map((b, index) => ({
    name: b.name,
    title: b.title,
    opsPerSec: median(perRound[index]!),
    roundOpsPerSec: perRound[index]!,
    iterations: counts[index]!,
  }));
}

/**
 * numerator ÷ denominator within one run: the median of the per-round ratios, which cancels load that changes from
 * round to round; undefined when either benchmark is missing.
 */
export function compare(
  measurements: readonly Measurement[],
  comparison: Comparison,
): number | undefined {
  const top = measurements.find((m) => m.name === comparison.numerator)?.roundOpsPerSec;
  const bottom = measurements.find((m) => m.name === comparison.denominator)?.roundOpsPerSec;
  if (top === undefined || bottom === undefined || top.length !== bottom.length || top.length === 0)
    return undefined;
  const ratios = top.map((t, round) => t / bottom[round]!).filter((r) => Number.isFinite(r));
  return ratios.length === 0 ? undefined : median(ratios);
}
