// How the verification pool (pool.ts) heals: a worker that exits, throws or errors is replaced after a back-off
// that doubles with each failure in a window, and after too many the pool stays off and says why. Every failure,
// replacement and stop is an event a service can log (payconform/node logs them once per process).

/** What the pool tells its listeners. */
export type VerifyPoolEvent =
  | {
      readonly type: 'worker-failed';
      /** What happened, e.g. `worker exited with code 1`, `worker threw: TypeError: …`. */
      readonly reason: string;
      /** Requests the worker held; each is verified on the calling thread instead (same results). */
      readonly inFlight: number;
      /** When its replacement starts; -1 when none will (a `pool-stopped` event follows). */
      readonly restartInMs: number;
    }
  | {
      readonly type: 'worker-restarted';
      /** Replacements started and ready since the process started. */
      readonly restarts: number;
    }
  | {
      readonly type: 'pool-stopped';
      /** Why the pool stays off; verifyRequestAsync verifies on the calling thread and libuv's pool from now on. */
      readonly reason: string;
    };

/** Receives the verification pool's events (a worker lost, restarted, given up). */
export type VerifyPoolListener = (event: VerifyPoolEvent) => void;

/** How many failures the pool heals, and how fast. */
export interface RestartPolicy {
  /** Failures healed within `windowMs`; one more stops the pool. */
  readonly maxRestarts: number;
  readonly windowMs: number;
  /** Delay before the first replacement; each further failure in the window doubles it, up to `maxBackoffMs`. */
  readonly backoffMs: number;
  readonly maxBackoffMs: number;
}

/** Five failures a minute are healed (100 ms, then 200, 400, 800, 1,600 ms); a sixth stops the pool. */
export const DEFAULT_RESTART_POLICY: RestartPolicy = Object.freeze({
  maxRestarts: 5,
  windowMs: 60_000,
  backoffMs: 100,
  maxBackoffMs: 5_000,
});

/** Throws a RangeError unless every number is usable. */
export function checkRestartPolicy(policy: RestartPolicy): RestartPolicy {
  const { maxRestarts, windowMs, backoffMs, maxBackoffMs } = policy;
  if (!Number.isInteger(maxRestarts) || maxRestarts < 0)
    throw new RangeError('restarts.maxRestarts must be an integer, 0 or more');
  for (const [name, value] of [
    ['windowMs', windowMs],
    ['backoffMs', backoffMs],
    ['maxBackoffMs', maxBackoffMs],
  ] as const)
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
      throw new RangeError(`restarts.${name} must be a finite number of milliseconds, 0 or more`);
  return policy;
}

/** The failures in the window, and the decision each new one gets. */
export class FailureWindow {
  readonly #times: number[] = [];
  constructor(readonly policy: RestartPolicy) {}

  /** Records a failure now: the delay before its replacement, or undefined when the pool must stop. */
  next(now = Date.now()): number | undefined {
    const { maxRestarts, windowMs, backoffMs, maxBackoffMs } = this.policy;
    while (this.#times.length > 0 && now - this.#times[0]! > windowMs) this.#times.shift();
    this.#times.push(now);
    const recent = this.#times.length;
    if (recent > maxRestarts) return undefined;
    return Math.min(backoffMs * 2 ** (recent - 1), maxBackoffMs);
  }

  /** How many failures the window holds (for the stop reason). */
  get recent(): number {
    return this.#times.length;
  }
}

const listeners = new Set<VerifyPoolListener>();

/** Tells `listener` of every pool event from now on; returns the function that stops it. */
export function onVerifyPoolEvent(listener: VerifyPoolListener): () => void {
  if (typeof listener !== 'function') throw new TypeError('listener must be a function');
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

/** Tells every listener; one that throws is ignored (a logging hook must not stop the pool's healing). */
export function emitVerifyPoolEvent(event: VerifyPoolEvent): void {
  for (const listener of listeners) {
    try {
      listener(event);
    } catch {
      // ignored: see above
    }
  }
}
