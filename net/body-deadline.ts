// A deadline and a minimum receive rate for reading a request body: a client that sends less than its Content-Length
// and waits, or trickles a byte a second, is told 408 within a bound the service chose instead of holding a socket
// until Node's 300 s requestTimeout (Express) or for ever (Fastify 5 sets none).
import type { IncomingMessage } from 'node:http';

/** The whole body must arrive within 10 s of the verifier starting to read it (1 MiB at ~105 KB/s). */
export const DEFAULT_BODY_TIMEOUT_MS = 10_000;
/** After the grace period, the bytes received must average at least 1 KiB/s since reading started. */
export const DEFAULT_MIN_BODY_BYTES_PER_SECOND = 1024;
/** Time before the rate is enforced: a body that arrives in one or two packets is never measured. */
export const DEFAULT_BODY_RATE_GRACE_MS = 2_000;

/** How long a request body may take and how large it may be. */
export interface BodyLimits {
  /** Milliseconds from the start of reading to the body's last byte. */
  readonly timeoutMs: number;
  /** The least average rate once `graceMs` has passed; 0 turns the rate check off (the deadline still holds). */
  readonly minBytesPerSecond: number;
  readonly graceMs: number;
}

/** How often the reads in progress are checked: a limit is noticed at most this late. */
export const BODY_CHECK_INTERVAL_MS = 50;

/** One body being read: what the sweep checks. */
interface Watch {
  readonly started: number;
  readonly limits: BodyLimits;
  received: number;
  readonly expire: (reason: string) => void;
}

const watched = new Set<Watch>();
let sweeper: NodeJS.Timeout | undefined;

/**
 * Watches `req`'s body as it arrives (a listener beside the reader's, so the reader is unchanged) and calls `expire`
 * once, with the reason, when the deadline passes or the bytes received fall below `minBytesPerSecond` × (elapsed −
 * `graceMs`). One shared timer checks every read in progress each BODY_CHECK_INTERVAL_MS (a timer per request cost
 * about ten times more). Returns the function that stops watching; call it when the body has been read.
 */
export function watchBodyDeadline(
  req: IncomingMessage,
  limits: BodyLimits,
  expire: (reason: string) => void,
): () => void {
  const watch: Watch = { started: Date.now(), limits, received: 0, expire };
  const count = (chunk: Buffer): void => {
    watch.received += chunk.length;
  };
  req.on('data', count);
  watched.add(watch);
  if (sweeper === undefined) {
    sweeper = setInterval(sweep, BODY_CHECK_INTERVAL_MS);
    sweeper.unref(); // a request in flight keeps the server alive, not this timer
  }
  return () => {
    req.off('data', count);
    watched.delete(watch);
  };
}

function sweep(): void {
  if (watched.size === 0) {
    clearInterval(sweeper);
    sweeper = undefined;
    return;
  }
  const now = Date.now();
  for (const watch of watched) {
    const reason = overLimit(watch, now);
    if (reason === undefined) continue;
    watched.delete(watch);
    watch.expire(reason);
  }
}

function overLimit(watch: Watch, now: number): string | undefined {
  const { timeoutMs, minBytesPerSecond, graceMs } = watch.limits;
  const elapsed = now - watch.started;
  if (elapsed >= timeoutMs)
    return `the body did not arrive within ${timeoutMs} ms (bodyTimeoutMs; ${watch.received} bytes received)`;
  if (minBytesPerSecond > 0 && watch.received < (minBytesPerSecond * (elapsed - graceMs)) / 1000)
    return `the body arrived slower than ${minBytesPerSecond} bytes/s (minBodyBytesPerSecond; ${watch.received} bytes in ${elapsed} ms)`;
  return undefined;
}

/** Throws a TypeError unless the limits are usable numbers. */
export function checkBodyLimits(limits: BodyLimits): BodyLimits {
  const { timeoutMs, minBytesPerSecond, graceMs } = limits;
  if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0)
    throw new TypeError('bodyTimeoutMs must be a positive finite number of milliseconds');
  if (
    typeof minBytesPerSecond !== 'number' ||
    !Number.isFinite(minBytesPerSecond) ||
    minBytesPerSecond < 0
  )
    throw new TypeError('minBodyBytesPerSecond must be a finite number, 0 or more');
  if (typeof graceMs !== 'number' || !Number.isFinite(graceMs) || graceMs < 0)
    throw new TypeError('bodyRateGraceMs must be a finite number of milliseconds, 0 or more');
  return limits;
}
