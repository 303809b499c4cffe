// The HTTP request as it travels on the wire: what signing and verification work on.

/** Field lines in the order they were sent; a name may repeat. Names are compared case-insensitively. */
export type FieldLines = ReadonlyArray<readonly [name: string, value: string]>;

/**
 * A request as signing and verification see it: method, target URI parts, field lines in order and
 * the exact body bytes.
 */
export interface HttpRequest {
  /** Method exactly as sent (RFC 9421 §2.2.1: no case transformation). */
  readonly method: string;
  /**
   * The absolute target URI as sent, e.g. `https://api.example.com:8443/api/payouts?x=1`.
   * Derived components are read from this string as written; it is never re-normalised through WHATWG URL
   * for `@path` or `@query` (RFC 9421 §2.2.6: percent-encoding and dot segments are kept).
   */
  readonly url: string;
  readonly headers: FieldLines;
  /** The exact body bytes; empty for a bodyless request. */
  readonly body: Uint8Array;
}

/** Builds field lines from a plain object (`{ name: value | [values] }`), keeping the object's order. */
export function toFieldLines(
  headers: Readonly<Record<string, string | readonly string[] | undefined>>,
): FieldLines {
  const lines: Array<readonly [string, string]> = [];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    if (typeof value === 'string') lines.push([name, value]);
    else for (const v of value) lines.push([name, v]);
  }
  return lines;
}

/** Node's `IncomingMessage.rawHeaders` (`[name, value, name, value, ...]`) as field lines, order kept. */
export function fieldLinesFromRaw(rawHeaders: readonly string[]): FieldLines {
  const lines: Array<readonly [string, string]> = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2)
    lines.push([rawHeaders[i]!, rawHeaders[i + 1]!]);
  return lines;
}

/** All values of one field, in order (case-insensitive name match). */
export function getFieldValues(headers: FieldLines, name: string): string[] {
  const lower = name.toLowerCase();
  const values: string[] = [];
  for (const [n, v] of headers) if (n.toLowerCase() === lower) values.push(v);
  return values;
}
