// RFC 9421 §2.1: HTTP field values as they enter a signature base (trim, obs-fold, combine with ", ").
import type { FieldLines } from '../http/message.js';

/** One field line's value, canonicalised: obs-fold becomes one SP, leading and trailing SP/HTAB are removed. */
export function canonicalizeFieldLine(value: string): string {
  let v = value;
  if (v.includes('\n')) v = v.replace(/\r?\n[ \t]+/g, ' ');
  let start = 0;
  let end = v.length;
  while (start < end && (v.charCodeAt(start) === 32 || v.charCodeAt(start) === 9)) start++;
  while (end > start && (v.charCodeAt(end - 1) === 32 || v.charCodeAt(end - 1) === 9)) end--;
  return start === 0 && end === v.length ? v : v.slice(start, end);
}

/** The canonicalised values of every line of field `lowercaseName`, in order; empty when the field is absent. */
export function fieldLineValues(headers: FieldLines, lowercaseName: string): string[] {
  const values: string[] = [];
  for (const [name, value] of headers) {
    if (name.length === lowercaseName.length && name.toLowerCase() === lowercaseName)
      values.push(canonicalizeFieldLine(value));
  }
  return values;
}

/** Canonicalised field values by lowercase name, built once per request (one pass over the field lines). */
export type FieldIndex = ReadonlyMap<string, readonly string[]>;

export function indexFieldLines(headers: FieldLines): FieldIndex {
  const index = indexCheckedFieldLines(headers);
  if (index === undefined)
    throw new TypeError('field lines must be [name, value] pairs of strings');
  return index;
}

/** indexFieldLines for input not yet checked: undefined when a line is not a [name, value] pair of strings. */
export function indexCheckedFieldLines(headers: readonly unknown[]): FieldIndex | undefined {
  const index = new Map<string, string[]>();
  for (let i = 0; i < headers.length; i++) {
    const line = headers[i];
    if (!Array.isArray(line)) return undefined;
    const name: unknown = line[0];
    const value: unknown = line[1];
    if (typeof name !== 'string' || typeof value !== 'string') return undefined;
    const key = name.toLowerCase();
    const values = index.get(key);
    if (values === undefined) index.set(key, [canonicalizeFieldLine(value)]);
    else values.push(canonicalizeFieldLine(value));
  }
  return index;
}

/** The combined field value (lines joined with exactly `", "`), or undefined when the field is absent. */
export function combinedFieldValue(headers: FieldLines, lowercaseName: string): string | undefined {
  const values = fieldLineValues(headers, lowercaseName);
  return values.length === 0 ? undefined : values.join(', ');
}

/** CR, LF and NUL may not appear in a field value (RFC 9110 §5.5), nor in a signature base line. */
export function hasForbiddenFieldCharacter(value: string): boolean {
  return /[\r\n\0]/.test(value);
}
