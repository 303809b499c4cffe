// The shared verification pool and its settings: its size (configured, else PAYCONFORM_VERIFY_THREADS, else one
// thread per core from POOL_MIN_CORES cores), its restart policy, what it has done, and starting it.
import { availableParallelism } from 'node:os';
import {
  checkRestartPolicy,
  DEFAULT_RESTART_POLICY,
  emitVerifyPoolEvent,
  type RestartPolicy,
} from './health.js';
import { describeThrown, VerifyPool } from './pool.js';
import { poolCounters, poolStop } from './pool-counters.js';

/** The environment variable that sizes the pool: 0 turns it off (step 10 then runs on libuv's thread pool). */
export const VERIFY_THREADS_VARIABLE = 'PAYCONFORM_VERIFY_THREADS';
const MAX_THREADS = 256;
/** The pool is on by default from this many cores (see verifyPoolThreads). */
export const POOL_MIN_CORES = 8;

let configuredThreads: number | undefined;
let restartPolicy: RestartPolicy = DEFAULT_RESTART_POLICY;
let shared: VerifyPool | undefined;
const forget = (pool: VerifyPool): void => {
  if (shared === pool) shared = undefined;
};

/**
 * Sets how many worker threads verifyRequestAsync uses (0: none, step 10 on libuv's thread pool), and how failed
 * workers are replaced (default DEFAULT_RESTART_POLICY; a pool already running keeps its own unless its size changes,
 * so configure `{ threads: 0 }` first to apply a new one now). Call before the first verification; the default size is
 * PAYCONFORM_VERIFY_THREADS, or else one per core from POOL_MIN_CORES cores. A pool that stopped after too many
 * failures can be started again by configuring it (its failures are forgotten).
 */
export function configureVerifyPool(options: {
  readonly threads: number;
  readonly restarts?: Partial<RestartPolicy>;
}): void {
  const { threads } = options;
  if (!Number.isInteger(threads) || threads < 0 || threads > MAX_THREADS)
    throw new RangeError(`threads must be an integer from 0 to ${MAX_THREADS}`);
  const restarts = checkRestartPolicy({ ...DEFAULT_RESTART_POLICY, ...options.restarts });
  if (shared !== undefined && shared.size !== threads) {
    shared.close();
    shared = undefined;
  }
  configuredThreads = threads;
  restartPolicy = restarts;
  poolStop.stopped = false;
  poolStop.reason = undefined;
}

/**
 * The pool's size as configured, else PAYCONFORM_VERIFY_THREADS, else one thread per core on a machine with at least
 * POOL_MIN_CORES cores and none (off) below that. Why: the pool takes the event loop's per-request work down to a few
 * microseconds but costs more CPU per request in all (the messages, and a worker's own share of the steps), so it pays
 * where the loop is the limit: one loop with step 10 on libuv's pool feeds about four to seven cores' worth of Ed25519
 * (docs/performance.md), and on two cores the pool was measured slower than libuv's.
 */
export function verifyPoolThreads(): number {
  if (configuredThreads !== undefined) return configuredThreads;
  // Read once: process.env and the core count cost microseconds, and verifyRequestAsync asks on every call.
  if (defaultThreads === undefined) {
    const raw = process.env[VERIFY_THREADS_VARIABLE];
    const cores = availableParallelism();
    defaultThreads =
      raw !== undefined && /^\d{1,3}$/.test(raw)
        ? Math.min(Number(raw), MAX_THREADS)
        : cores >= POOL_MIN_CORES
          ? Math.min(cores, MAX_THREADS)
          : 0;
  }
  return defaultThreads;
}
let defaultThreads: number | undefined;

/** What the pool is doing, for benchmarks and tests. */
export interface VerifyPoolInfo {
  /** Worker threads configured (0: off). */
  readonly threads: number;
  /** Workers started and answering. */
  readonly running: boolean;
  /**
   * Workers failed more often than the restart policy heals (`stoppedReason` says how): the pool stays off and
   * verifyRequestAsync verifies on this thread and libuv's pool. A single failure only costs a restart.
   */
  readonly failed: boolean;
  readonly stoppedReason: string | undefined;
  /** Workers running and taking requests now (below `threads` while a replacement starts). */
  readonly workersReady: number;
  /** Workers that exited, threw or errored since the process started. */
  readonly workerFailures: number;
  /** Replacements started and ready since the process started. */
  readonly restarts: number;
  /** Requests sent to workers since the process started. */
  readonly requests: number;
  /** Of those, requests whose step 10 ran with their parse (one round trip; see RecordRegistry). */
  readonly verifiedAhead: number;
  /** Application records whose keys were sent to the workers (a new or changed record each). */
  readonly registrations: number;
}

/** Counts a request whose step 10 answer from the parse was used. */
export function countVerifiedAhead(): void {
  poolCounters.verifiedAhead++;
}

/**
 * The verification pool's size and state now (threads configured, running, stopped and why,
 * workers ready), for logs and health endpoints.
 */
export function verifyPoolInfo(): VerifyPoolInfo {
  return {
    threads: verifyPoolThreads(),
    running: shared !== undefined,
    failed: poolStop.stopped,
    stoppedReason: poolStop.reason,
    workersReady: shared?.readyWorkers() ?? 0,
    workerFailures: poolCounters.workerFailures,
    restarts: poolCounters.restarts,
    requests: poolCounters.requests,
    verifiedAhead: poolCounters.verifiedAhead,
    registrations: poolCounters.registrations,
  };
}

/**
 * Starts the pool now (it otherwise starts on the first verifyRequestAsync) and resolves once every worker can take
 * requests, or the pool is off or failed. Never rejects. Until then verifyRequestAsync verifies on the calling thread.
 */
export async function startVerifyPool(): Promise<VerifyPoolInfo> {
  await verifyPool()?.ready;
  return verifyPoolInfo();
}

/** The shared pool if it was started, without starting it. */
export function runningVerifyPool(): VerifyPool | undefined {
  return shared;
}

/** Whether `verifyPool()` would start a pool now (not started, not off, no worker failed). */
export function verifyPoolStartable(): boolean {
  return shared === undefined && !poolStop.stopped && verifyPoolThreads() > 0;
}

/** The shared pool, started on first use; undefined when it is turned off or a worker failed. */
export function verifyPool(): VerifyPool | undefined {
  if (shared !== undefined || poolStop.stopped) return shared;
  const threads = verifyPoolThreads();
  if (threads === 0) return undefined;
  try {
    shared = new VerifyPool(threads, restartPolicy, forget);
  } catch (error) {
    poolStop.stopped = true;
    poolStop.reason = `the pool could not start: ${describeThrown(error)}`;
    emitVerifyPoolEvent({ type: 'pool-stopped', reason: poolStop.reason });
  }
  return shared;
}

/**
 * For tests of the healing (not exported from the package): makes one running worker fail as a real one can. `exit`:
 * the thread ends (as a crash or an out-of-memory kill ends it); `throw`: a message the worker cannot read makes it
 * throw (an uncaught exception, then exit); `error`: the Worker reports an error while its thread still runs. False
 * when no such worker runs.
 */
export function injectVerifyPoolFault(kind: 'exit' | 'throw' | 'error', index = 0): boolean {
  return shared?.injectFault(kind, index) ?? false;
}
