// What a judge of the spec model returns: a Judgement (a sentence the spec states was broken, with its requirement
// id, what was expected and what came) or nothing; and a Verdict, what one observation gave: the rules it judged,
// the judgements, and what the target chose where the spec leaves the answer open (recorded, never failed).
import { decimalsEqual, formatDecimal, parseDecimal, type Decimal } from '../../src/rules/money.js';
import type { RuleId } from './rules.js';

export interface Judgement {
  readonly requirement: RuleId;
  readonly message: string;
  readonly expected: string;
  readonly received: string;
  /** Which of the observation's answers showed it (index), where it had more than one. */
  readonly answer?: number;
}

export interface Verdict {
  /** The rules this observation judged (whatever the outcome). */
  readonly judged: RuleId[];
  readonly judgements: Judgement[];
  /** Answers where the spec leaves the choice open, or that the model cannot place: recorded, never failed. */
  readonly observations: string[];
}

export const emptyVerdict = (): Verdict => ({ judged: [], judgements: [], observations: [] });

/** Adds a judge's result to a verdict: `rule` judged, and the judgement if there is one. */
export function judge(verdict: Verdict, rule: RuleId, j: Judgement | undefined): void {
  verdict.judged.push(rule);
  if (j !== undefined) verdict.judgements.push(j);
}

/** A value as a report shows it: strings bare, the rest as JSON. */
export function show(v: unknown): string {
  return v === null ? 'null' : typeof v === 'string' ? v : (JSON.stringify(v) ?? 'undefined');
}

/** A JSON number or string as a decimal, or undefined. */
export function decimalOf(v: unknown): Decimal | undefined {
  if (typeof v !== 'number' && typeof v !== 'string') return undefined;
  const parsed = parseDecimal(typeof v === 'number' ? String(v) : v);
  return parsed.ok ? parsed.value : undefined;
}

/** A decimal as money: at least two decimals. */
export const money = (d: Decimal): string => formatDecimal(d, { minScale: 2 });

export function sameAmount(received: unknown, asked: Decimal): boolean {
  const d = decimalOf(received);
  return d !== undefined && decimalsEqual(d, asked);
}

/** An object member as a record ({} when it is not an object). */
export function record(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : {};
}

export type FieldCheck = readonly [
  field: string,
  ok: boolean,
  expected: unknown,
  received: unknown,
];

/** A UUID (RFC 9562 §4: "string (UUID)" in the spec's tables). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The same identifier: equal strings, or the same UUID written in the other case (RFC 9562 §4: its hex digits are
 * case-insensitive on input, so the case does not make another resource or application).
 */
export function sameId(received: unknown, expected: unknown): boolean {
  if (typeof received !== 'string' || typeof expected !== 'string') return false;
  if (received === expected) return true;
  return (
    UUID.test(received) && UUID.test(expected) && received.toLowerCase() === expected.toLowerCase()
  );
}

/**
 * One member compared with the value the resource showed: `same` decides (exact equality unless given); none when
 * the resource did not show a value (`undefined`), since the model compares only what it saw.
 */
export function sameMember(
  field: string,
  expected: unknown,
  received: unknown,
  same: (received: unknown, expected: unknown) => boolean = (a, b) => a === b,
): FieldCheck[] {
  return expected === undefined ? [] : [[field, same(received, expected), expected, received]];
}

/** An amount member: the same decimal whether sent as a JSON number or decimal text, at any scale (12.5, 12.50). */
export function sameAmountMember(field: string, expected: Decimal, received: unknown): FieldCheck {
  return [field, sameAmount(received, expected), money(expected), received];
}

/** The first field that differs, as a Judgement of `requirement` (message from the field's name). */
export function firstWrong(
  checks: readonly FieldCheck[],
  requirement: RuleId,
  message: (field: string) => string,
): Judgement | undefined {
  const wrong = checks.find(([, ok]) => !ok);
  if (wrong === undefined) return undefined;
  const [field, , expected, received] = wrong;
  return {
    requirement,
    message: message(field),
    expected: `${field} ${show(expected)}`,
    received: `${field} ${show(received)}`,
  };
}

/**
 * An ISO 8601 timestamp as epoch milliseconds, read as UTC when it has no zone (the Refund resource's createdAtUtc
 * has none); undefined when it is not one.
 */
export function utcMillis(v: unknown): number | undefined {
  if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(v)) return undefined;
  const ms = Date.parse(/(?:Z|[+-]\d{2}:?\d{2})$/i.test(v) ? v : `${v}Z`);
  return Number.isNaN(ms) ? undefined : ms;
}
