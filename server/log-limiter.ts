// Keeps the service's log readable under repeated errors (Redis down, one client's bad requests): each kind of line
// is shown a few times per window, and what was held back is summed up in one line with its count.

export interface LogRateLimit {
  /** Lines of one kind shown per window (default 20); the rest are counted. */
  readonly lines: number;
  /** The window (default 10 s). */
  readonly windowMs: number;
}

export const DEFAULT_LOG_RATE_LIMIT: LogRateLimit = Object.freeze({ lines: 20, windowMs: 10_000 });

/** Kinds tracked at once; lines of further kinds share one "other" kind, so varied lines cannot flood either. */
const MAX_KINDS = 500;

interface Window {
  readonly start: number;
  shown: number;
  held: number;
  last: string;
}

/**
 * The kind of a line, or undefined for a line that is never held back: an access line of a request that succeeded
 * (`POST /api/payouts -> 201 (1.2 ms)`). A failed request's kind is its method and status (paths vary at a client's
 * will); any other line's kind is its text with numbers and hexadecimal ids blanked, cut to 120 characters.
 */
export function logLineKind(line: string): string | undefined {
  const access = /^(\S+) \S* -> (\d{3}|no response)/.exec(line);
  if (access !== null) {
    const status = access[2]!;
    return /^[123]/.test(status) ? undefined : `access ${access[1]} -> ${status}`;
  }
  return line
    .replace(/[0-9a-f]{8,}(?:-[0-9a-f]{4,})*/gi, '#')
    .replace(/\d+(?:\.\d+)?/g, '#')
    .slice(0, 120);
}

/**
 * A log function in front of `sink`: of each kind of line, the first `lines` of a window are written, the others
 * counted; when the window ends (at the next line, or at the latest one window later by a timer) one line says
 * `… 402 more like this in the last 10 s` after the last one held back. `now`: injectable clock (ms).
 */
export class RateLimitedLog {
  readonly #sink: (line: string) => void;
  readonly #limit: LogRateLimit;
  readonly #now: () => number;
  readonly #windows = new Map<string, Window>();
  #nextEnd = Number.POSITIVE_INFINITY;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    sink: (line: string) => void,
    limit: LogRateLimit = DEFAULT_LOG_RATE_LIMIT,
    now: () => number = Date.now,
  ) {
    if (!Number.isInteger(limit.lines) || limit.lines < 1)
      throw new TypeError('logRateLimit.lines must be a positive integer');
    if (!Number.isInteger(limit.windowMs) || limit.windowMs < 1)
      throw new TypeError('logRateLimit.windowMs must be a positive integer');
    this.#sink = sink;
    this.#limit = limit;
    this.#now = now;
  }

  readonly log = (line: string): void => {
    const now = this.#now();
    if (now >= this.#nextEnd) this.flush(now);
    let kind = logLineKind(line);
    if (kind === undefined) {
      this.#sink(line);
      return;
    }
    if (!this.#windows.has(kind) && this.#windows.size >= MAX_KINDS) kind = 'other';
    let window = this.#windows.get(kind);
    if (window === undefined) {
      window = { start: now, shown: 0, held: 0, last: '' };
      this.#windows.set(kind, window);
      this.#nextEnd = Math.min(this.#nextEnd, now + this.#limit.windowMs);
    }
    if (window.shown < this.#limit.lines) {
      window.shown += 1;
      this.#sink(line);
      return;
    }
    window.held += 1;
    window.last = line;
    this.#arm(now);
  };

  /** A timer for the end of the next window, so a count is written even when no further line comes. */
  #arm(now: number): void {
    if (this.#timer !== undefined || this.#nextEnd === Number.POSITIVE_INFINITY) return;
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        const at = this.#now();
        this.flush(at);
        for (const window of this.#windows.values()) {
          if (window.held > 0) {
            this.#arm(at);
            break;
          }
        }
      },
      Math.max(1, this.#nextEnd - now + 1),
    ).unref();
  }

  /** Ends every window that is over at `now` (all of them with `Infinity`), writing what each held back. */
  flush(now: number = this.#now()): void {
    let nextEnd = Number.POSITIVE_INFINITY;
    for (const [kind, window] of this.#windows) {
      const end = window.start + this.#limit.windowMs;
      if (now < end) {
        nextEnd = Math.min(nextEnd, end);
        continue;
      }
      this.#windows.delete(kind);
      if (window.held > 0)
        this.#sink(
          `${window.last} (… ${window.held} more like this in the last ${Math.round(this.#limit.windowMs / 1000)} s)`,
        );
    }
    this.#nextEnd = nextEnd;
  }

  /** Writes every count still held and stops the timer. */
  close(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.flush(Number.POSITIVE_INFINITY);
  }
}
