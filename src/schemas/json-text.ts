// Reads JSON text for validation and, when it is unreadable, says where: JSON.parse does the parsing; on failure a
// small syntax scanner (RFC 8259 grammar, iterative, so deep nesting cannot overflow the stack) finds the offset.

/** A JSON text parsed, or the offset and reason it does not parse. */
export type JsonTextResult =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly offset: number; readonly message: string };

/** Parses JSON text; an unreadable text gives the offset (in UTF-16 code units) of the first error. */
export function parseJsonText(text: string): JsonTextResult {
  if (typeof text !== 'string') throw new TypeError('parseJsonText: text must be a string');
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    const found = findJsonSyntaxError(text);
    return found ?? { ok: false, offset: 0, message: 'unreadable JSON' };
  }
}

/** Decodes UTF-8 bytes (a leading BOM is dropped, RFC 8259 §8.1) and parses them as JSON. */
export function parseJsonBytes(bytes: Uint8Array): JsonTextResult {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return {
      ok: false,
      offset: firstInvalidUtf8Offset(bytes),
      message: 'unreadable JSON: invalid UTF-8 (offset in bytes)',
    };
  }
  return parseJsonText(text);
}

function firstInvalidUtf8Offset(bytes: Uint8Array): number {
  // Bounded: one decode per byte prefix would be quadratic, so bisect on the longest prefix that decodes. In stream
  // mode a prefix that ends inside a multi-byte character is held back, not rejected, so "decodes" is monotonic in
  // the prefix length. The offset is where the valid text ends: the first byte of the ill-formed (or, at the end,
  // truncated) sequence.
  const decodePrefix = (length: number): string | undefined => {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, length), {
        stream: true,
      });
    } catch {
      return undefined;
    }
  };
  let lo = 0;
  let hi = bytes.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (decodePrefix(mid) !== undefined) lo = mid;
    else hi = mid - 1;
  }
  return new TextEncoder().encode(decodePrefix(lo)).length;
}

type Failure = { readonly ok: false; readonly offset: number; readonly message: string };

function fail(offset: number, what: string): Failure {
  return { ok: false, offset, message: `unreadable JSON at offset ${offset}: ${what}` };
}

const WS = new Set([' ', '\t', '\n', '\r']);

/** The scanner's position, the containers it is in ('{' or '[') and what it expects next. */
interface Scan {
  readonly text: string;
  i: number;
  readonly stack: string[];
  state: 'value' | 'afterValue' | 'key' | 'keyOrEnd' | 'valueOrEnd';
}

/** What one step finds: a syntax error, the end of a well-formed text (`'end'`), or nothing yet (undefined). */
type Step = Failure | 'end' | undefined;

/** Returns the first syntax error of `text`, or undefined when the scanner finds none. */
export function findJsonSyntaxError(text: string): Failure | undefined {
  const scan: Scan = { text, i: 0, stack: [], state: 'value' };
  // Bounded: every step but the last consumes at least one character.
  for (let steps = 0; steps <= text.length + 2; steps++) {
    skipWhitespace(scan);
    const step =
      scan.state === 'value' || scan.state === 'valueOrEnd'
        ? scanValue(scan)
        : scan.state === 'key' || scan.state === 'keyOrEnd'
          ? scanKey(scan)
          : scanAfterValue(scan);
    if (step === 'end') return undefined;
    if (step !== undefined) return step;
  }
  return undefined;
}

function skipWhitespace(scan: Scan): void {
  while (scan.i < scan.text.length && WS.has(scan.text[scan.i]!)) scan.i++;
}

function describe(text: string, at: number): string {
  return at >= text.length
    ? 'unexpected end of input'
    : `unexpected character ${JSON.stringify(text[at])}`;
}

/** A value (or, first in an array, its end): opens a container or scans a string, number or literal. */
function scanValue(scan: Scan): Step {
  const { text, i } = scan;
  const c = text[i];
  if (scan.state === 'valueOrEnd' && c === ']') {
    scan.stack.pop();
    scan.i++;
    scan.state = 'afterValue';
    return undefined;
  }
  if (c === '{' || c === '[') {
    scan.stack.push(c);
    scan.i++;
    scan.state = c === '{' ? 'keyOrEnd' : 'valueOrEnd';
    return undefined;
  }
  let end: number | Failure;
  if (c === '"') end = scanString(text, i);
  else if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) end = scanNumber(text, i);
  else {
    const word = ['true', 'false', 'null'].find((w) => text.startsWith(w, i));
    if (!word) return fail(i, `${describe(text, i)}, expected a value`);
    end = i + word.length;
  }
  if (typeof end !== 'number') return end;
  scan.i = end;
  scan.state = 'afterValue';
  return undefined;
}

/** A property name and its colon (or, first in an object, its end). */
function scanKey(scan: Scan): Step {
  const { text } = scan;
  if (scan.state === 'keyOrEnd' && text[scan.i] === '}') {
    scan.stack.pop();
    scan.i++;
    scan.state = 'afterValue';
    return undefined;
  }
  if (text[scan.i] !== '"')
    return fail(scan.i, `${describe(text, scan.i)}, expected a double-quoted property name`);
  const end = scanString(text, scan.i);
  if (typeof end !== 'number') return end;
  scan.i = end;
  skipWhitespace(scan);
  if (text[scan.i] !== ':')
    return fail(scan.i, `${describe(text, scan.i)}, expected ':' after the property name`);
  scan.i++;
  scan.state = 'value';
  return undefined;
}

/** After a value: a comma, the end of the container, or (at the top) the end of the text. */
function scanAfterValue(scan: Scan): Step {
  const { text, i, stack } = scan;
  const top = stack[stack.length - 1];
  if (top === undefined)
    return i < text.length ? fail(i, `${describe(text, i)} after the JSON value`) : 'end';
  const c = text[i];
  if (c === ',') {
    scan.i++;
    scan.state = top === '{' ? 'key' : 'value';
  } else if ((c === '}' && top === '{') || (c === ']' && top === '[')) {
    stack.pop();
    scan.i++;
  } else {
    return fail(i, `${describe(text, i)}, expected ',' or '${top === '{' ? '}' : ']'}'`);
  }
  return undefined;
}

function scanString(text: string, start: number): number | Failure {
  let i = start + 1;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x22) return i + 1;
    if (c < 0x20) return fail(i, 'control character in a string');
    if (c === 0x5c) {
      const e = text[i + 1];
      if (e === 'u') {
        if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6)))
          return fail(i, 'bad \\u escape in a string');
        i += 6;
        continue;
      }
      if (e === undefined || !'"\\/bfnrt'.includes(e)) return fail(i, 'bad escape in a string');
      i += 2;
      continue;
    }
    i++;
  }
  return fail(text.length, 'unterminated string');
}

function scanNumber(text: string, start: number): number | Failure {
  const pattern = /-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;
  pattern.lastIndex = start;
  const match = pattern.exec(text);
  if (!match) return fail(start, 'malformed number');
  return start + match[0].length;
}
