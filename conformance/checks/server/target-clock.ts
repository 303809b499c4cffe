// The target's clock beside this machine's, read from the Date header of its answers (RFC 9110 §6.6.1: an origin
// server with a clock sends one). A server judges `created` by its own clock, so a request near the 300 s window's edge
// by this machine's clock may lie inside it by the target's: signature-forgeries judges such a request only where every
// clock the answers allow gives the same verdict.
import { getFieldValues } from '../../../src/http/message.js';
import type { RecordedExchange } from '../../http/http-client.js';
import { CLOCK_SKEW_TOLERANCE_SECONDS } from '../../client-audit/rules/rule.js';
import type { ServerAuditContext } from './context.js';

/** Bounds on (the target's clock − this machine's), in seconds. */
export interface ClockBounds {
  readonly lo: number;
  readonly hi: number;
  /** Seconds a request may take to reach the target and be verified after it was built. */
  readonly inFlight: number;
  /** Where the bounds come from, for the reports. */
  readonly source: string;
}

/** Seconds allowed for a request to reach a target elsewhere and be verified after it was built. */
const IN_FLIGHT_SECONDS = 2;

/** The embedded reference service runs on this machine's clock, in this process: judged at the edge itself. */
export const SAME_CLOCK: ClockBounds = {
  lo: 0,
  hi: 0,
  inFlight: 0,
  source: 'the embedded service: this clock',
};

/** Without a Date header: payconform's tolerance for clocks that are not compared (the client audit's too). */
export const UNKNOWN_CLOCK: ClockBounds = {
  lo: -CLOCK_SKEW_TOLERANCE_SECONDS,
  hi: CLOCK_SKEW_TOLERANCE_SECONDS,
  inFlight: IN_FLIGHT_SECONDS,
  source: `no Date header: assumed within ${CLOCK_SKEW_TOLERANCE_SECONDS} s`,
};

/** Whether the target runs on this machine's clock: the embedded service, the one target whose timings are known. */
export const onThisClock = (ctx: ServerAuditContext): boolean => ctx.knownTimings !== undefined;

/** One answer: its Date header, and this machine's clock when the request left and the answer arrived (ms). */
export interface ClockSample {
  readonly date: string | undefined;
  readonly sentAtMs: number;
  readonly receivedAtMs: number;
}

/** The sample of one recorded exchange timed by the caller. */
export const sampleOf = (
  ex: RecordedExchange,
  sentAtMs: number,
  receivedAtMs: number,
): ClockSample => ({
  date: ex.response === undefined ? undefined : getFieldValues(ex.response.headers, 'date')[0],
  sentAtMs,
  receivedAtMs,
});

/**
 * The bounds every sample allows: a Date of d (whole seconds) was written while the target's clock read between d and
 * d + 1, and this machine's between the request's departure and the answer's arrival. UNKNOWN_CLOCK when no sample has
 * a Date that parses, or when the samples contradict each other (a clock that jumped).
 */
export function clockBounds(samples: readonly ClockSample[]): ClockBounds {
  let lo = -Infinity;
  let hi = Infinity;
  for (const s of samples) {
    const at = s.date === undefined ? NaN : Date.parse(s.date);
    if (!Number.isFinite(at) || !Number.isFinite(s.sentAtMs) || s.receivedAtMs < s.sentAtMs)
      continue;
    const d = Math.floor(at / 1000);
    lo = Math.max(lo, d - s.receivedAtMs / 1000);
    hi = Math.min(hi, d + 1 - s.sentAtMs / 1000);
  }
  if (!Number.isFinite(lo) || !Number.isFinite(hi) || lo > hi) return UNKNOWN_CLOCK;
  return { lo, hi, inFlight: IN_FLIGHT_SECONDS, source: `from ${samples.length} Date header(s)` };
}

/**
 * The target's `now` (whole seconds) when it verifies a request built at `nowMs` by this machine's clock: from the
 * earliest (its clock as far behind as the bounds allow, verifying at once) to the latest (as far ahead, and the
 * request `inFlight` seconds on its way).
 */
export function targetNowRange(
  nowMs: number,
  clock: ClockBounds,
): { readonly earliest: number; readonly latest: number } {
  return {
    earliest: Math.floor(nowMs / 1000 + clock.lo),
    latest: Math.floor(nowMs / 1000 + clock.hi + clock.inFlight),
  };
}
