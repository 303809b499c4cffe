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

export interface BodyLimits {
  /** Milliseconds from the start of reading to the body's last byte. */
  readonly timeoutMs: number;
  /** The least average rate once `graceMs` has passed; 0 turns the rate check off (the deadline still holds). */
  readonly minBytesPerSecond: number;
  readonly graceMs: number;
}

export interface BodyWatch {
  /** Settles with the reason once a limit is passed; never settles if `stop()` is called first. */
  readonly expired: Promise<string>;
  stop(): void;
}

/**
 * Watches `req`'s body as it arrives (a listener beside the reader's, so the reader is unchanged): `expired` settles
 * when the deadline passes, or when the bytes received fall below `minBytesPerSecond` × (elapsed − `graceMs`). The
 * rate timer fires only when the bytes counted at its last run would fall behind, so a steady body costs one timer.
 */
export function watchBodyDeadline(req: IncomingMessage, limits: BodyLimits): BodyWatch {
  const started = Date.now();
  let received = 0;
  let deadline: NodeJS.Timeout | undefined;
  let rateTimer: NodeJS.Timeout | undefined;
  const count = (chunk: Buffer): void => {
    received += chunk.length;
  };
  const stop = (): void => {
    clearTimeout(deadline);
    clearTimeout(rateTimer);
    req.off('data', count);
  };
  const expired = new Promise<string>((expire) => {
    deadline = setTimeout(() => {
      stop();
      expire(
        `the body did not arrive within ${limits.timeoutMs} ms (bodyTimeoutMs; ${received} bytes received)`,
      );
    }, limits.timeoutMs);
    if (limits.minBytesPerSecond > 0) {
      // When the bytes received so far stop being enough: grace + received / rate.
      const due = (): number =>
        Math.max(
          1,
          started + limits.graceMs + (received * 1000) / limits.minBytesPerSecond - Date.now(),
        );
      const checkRate = (): void => {
        const elapsed = Date.now() - started;
        const needed = (limits.minBytesPerSecond * (elapsed - limits.graceMs)) / 1000;
        if (received >= needed) {
          rateTimer = setTimeout(checkRate, due());
          return;
        }
        stop();
        expire(
          `the body arrived slower than ${limits.minBytesPerSecond} bytes/s (minBodyBytesPerSecond; ${received} bytes in ${elapsed} ms)`,
        );
      };
      rateTimer = setTimeout(checkRate, due());
    }
  });
  req.on('data', count);
  return { expired, stop };
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
