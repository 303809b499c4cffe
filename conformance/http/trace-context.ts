// W3C Trace Context (Recommendation, §3.2 "Traceparent Header") for every request payconform sends: one trace per
// check (the engine runs each check inside `withTrace`), one span (`parent-id`) per exchange, so a user can find a
// failing exchange in the target's own logs by its trace id. The one place trace ids are made, written and read.
//
// Not a covered component of the request signature (spec: Signed requests, Step 2 lists eight fixed components), so
// adding the header changes nothing a target verifies or judges.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import { getFieldValues, type FieldLines } from '../../src/http/message.js';

/** The header's name (W3C Trace Context §3.2: `traceparent`, lowercase as the spec writes it). */
export const TRACEPARENT_HEADER = 'traceparent';

/** §3.2.2.1: the version this writes; `ff` is never valid. */
export const TRACE_VERSION = '00';
/** §3.2.2.5: `sampled` set, so a target that records sampled traces records these. */
export const TRACE_FLAGS = '01';
/** §3.2.2.3: 16 bytes (32 lowercase hex characters), not all zero. */
export const TRACE_ID_BYTES = 16;
/** §3.2.2.4: the parent-id (this exchange's span) is 8 bytes (16 lowercase hex characters), not all zero. */
export const SPAN_ID_BYTES = 8;

/** The parts of a `traceparent` value. */
export interface Traceparent {
  readonly version: string;
  readonly traceId: string;
  /** The span of the exchange that sent it (W3C: `parent-id`, the caller's span as the callee sees it). */
  readonly parentId: string;
  readonly flags: string;
}

/** Random bytes as lowercase hex, never all zero (§3.2.2.3 and §3.2.2.4 make an all-zero id invalid). */
function randomNonZeroHex(bytes: number): string {
  const b = randomBytes(bytes);
  if (b.every((x) => x === 0)) b[bytes - 1] = 1;
  return b.toString('hex');
}

/** A new random trace id: 32 lowercase hex characters, not all zero. */
export const newTraceId = (): string => randomNonZeroHex(TRACE_ID_BYTES);

/** A new random span id: 16 lowercase hex characters, not all zero. */
export const newSpanId = (): string => randomNonZeroHex(SPAN_ID_BYTES);

/** `00-<trace-id>-<parent-id>-01`. */
export function formatTraceparent(traceId: string, parentId: string): string {
  return `${TRACE_VERSION}-${traceId}-${parentId}-${TRACE_FLAGS}`;
}

const HEX = /^[0-9a-f]+$/;
const allZero = (hex: string): boolean => /^0+$/.test(hex);

/**
 * A `traceparent` value's parts, or undefined where §3.2 says to ignore it: not lowercase hex of the right lengths,
 * version `ff`, an all-zero trace or parent id, version 00 with anything after the flags, or a later version whose
 * extra part does not start with `-` (§3.2.4: later versions are read as version 00 up to the flags).
 */
export function parseTraceparent(v: string): Traceparent | undefined {
  if (v.length < 55) return undefined;
  const [version, traceId, parentId, flags] = [
    v.slice(0, 2),
    v.slice(3, 35),
    v.slice(36, 52),
    v.slice(53, 55),
  ];
  if (v[2] !== '-' || v[35] !== '-' || v[52] !== '-') return undefined;
  if (![version, traceId, parentId, flags].every((p) => HEX.test(p))) return undefined;
  if (version === 'ff' || allZero(traceId) || allZero(parentId)) return undefined;
  if (v.length > 55 && (version === TRACE_VERSION || v[55] !== '-')) return undefined;
  return { version, traceId, parentId, flags };
}

/** The trace id of a request's one valid `traceparent` line; undefined when it has none, several, or a bad one. */
export function traceIdOf(headers: FieldLines): string | undefined {
  const values = getFieldValues(headers, TRACEPARENT_HEADER);
  return values.length === 1 ? parseTraceparent(values[0]!)?.traceId : undefined;
}

const scope = new AsyncLocalStorage<string>();

/** Runs `fn` in a trace of its own: every request sent inside it carries `traceId` (default: a new one). */
export function withTrace<T>(fn: () => T, traceId: string = newTraceId()): T {
  return scope.run(traceId, fn);
}

/** The trace of the current scope (a check's), if any. */
export function currentTraceId(): string | undefined {
  return scope.getStore();
}

/**
 * The `traceparent` for one exchange: the current scope's trace (outside any, a trace of its own, so a request sent
 * outside a check is still traced), and a new span.
 */
export function traceparentForExchange(): string {
  return formatTraceparent(currentTraceId() ?? newTraceId(), newSpanId());
}

/** The request's header lines with a `traceparent` for this exchange after them, or as given when it carries one. */
export function withTraceparent(headers: FieldLines): FieldLines {
  if (getFieldValues(headers, TRACEPARENT_HEADER).length > 0) return headers;
  return [...headers, [TRACEPARENT_HEADER, traceparentForExchange()]];
}
