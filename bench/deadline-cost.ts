// `tsx bench/deadline-cost.ts`: what payconform/node's deadlines add to one request, measured alone: the lookup
// deadline around an asynchronous resolver (a timer set and cleared), and the body watch (a 'data' listener and an
// entry in the set one shared timer checks) on a request whose body has arrived. A benchmark, never a timed test; bounded by counts.
// Medians of 7 interleaved rounds, so the two figures of each pair were measured moments apart.
import { EventEmitter } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import {
  DEFAULT_BODY_RATE_GRACE_MS,
  DEFAULT_BODY_TIMEOUT_MS,
  DEFAULT_MIN_BODY_BYTES_PER_SECOND,
  watchBodyDeadline,
} from '../net/body-deadline.js';
import { DEFAULT_LOOKUP_TIMEOUT_MS, withLookupDeadline } from '../src/profile/lookup-deadline.js';
import type { ApplicationRecord } from '../src/profile/verify-request.js';
import { median } from './harness.js';

const ITERATIONS = 100_000;
const ROUNDS = 7;
const record: ApplicationRecord = { secret: 'test-only', publicKeys: new Map() };
const resolve = async (_id: string) => record;
const withDeadline = withLookupDeadline(resolve, DEFAULT_LOOKUP_TIMEOUT_MS);
const limits = {
  timeoutMs: DEFAULT_BODY_TIMEOUT_MS,
  minBytesPerSecond: DEFAULT_MIN_BODY_BYTES_PER_SECOND,
  graceMs: DEFAULT_BODY_RATE_GRACE_MS,
};

/** Microseconds per call of `run`, one after another (each answer awaited when it is a Promise). */
async function perCall(run: () => unknown): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < ITERATIONS; i++) {
    const answer = run();
    if (answer instanceof Promise) await answer;
  }
  return ((performance.now() - started) * 1000) / ITERATIONS;
}

const watchOnce = (): void => {
  const req = new EventEmitter() as unknown as IncomingMessage;
  const stop = watchBodyDeadline(req, limits, () => {});
  req.emit('data', Buffer.alloc(600));
  stop();
};
const emitOnce = (): void => {
  const req = new EventEmitter();
  req.on('data', () => {});
  req.emit('data', Buffer.alloc(600));
};

const rows: Record<string, number[]> = {
  'resolver alone': [],
  'resolver with its deadline': [],
  'request emitter alone': [],
  'request emitter with the body watch': [],
};
for (let r = 0; r < ROUNDS; r++) {
  rows['resolver alone']!.push(await perCall(() => resolve('a')));
  rows['resolver with its deadline']!.push(await perCall(() => withDeadline('a')));
  rows['request emitter alone']!.push(await perCall(emitOnce));
  rows['request emitter with the body watch']!.push(await perCall(watchOnce));
}
for (const [name, values] of Object.entries(rows))
  console.log(`${name}: ${median(values).toFixed(2)} µs per request (median of ${ROUNDS})`);
