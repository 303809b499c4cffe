// Reads JSON text for validation and, when it is unreadable, says where: JSON.parse does the parsing; on failure a
// small syntax scanner (RFC 8259 grammar, iterative, so deep nesting cannot overflow the stack) finds the offset.

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

/** Returns the first syntax error of `text`, or undefined when the scanner finds none. */
export function findJsonSyntaxError(text: string): Failure | undefined {
  let i = 0;
  const n = text.length;
  const skip = (): void => {
    while (i < n && WS.has(text[i]!)) i++;
  };
  const describe = (at: number): string =>
    at >= n ? 'unexpected end of input' : `unexpected character ${JSON.stringify(text[at])}`;

  // Each stack entry is the container we are in: '{' or '['.
  const stack: string[] = [];
  // What the scanner expects next.
  let state: 'value' | 'afterValue' | 'key' | 'keyOrEnd' | 'valueOrEnd' = 'value';

  for (let steps = 0; steps <= n + 2; steps++) {
    skip();
    if (state === 'value' || state === 'valueOrEnd') {
      if (state === 'valueOrEnd' && text[i] === ']') {
        stack.pop();
        i++;
        state = 'afterValue';
        continue;
      }
      const c = text[i];
      if (c === '{') {
        stack.push('{');
        i++;
        state = 'keyOrEnd';
      } else if (c === '[') {
        stack.push('[');
        i++;
        state = 'valueOrEnd';
      } else if (c === '"') {
        const end = scanString(text, i);
        if (typeof end !== 'number') return end;
        i = end;
        state = 'afterValue';
      } else if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) {
        const end = scanNumber(text, i);
        if (typeof end !== 'number') return end;
        i = end;
        state = 'afterValue';
      } else {
        const word = ['true', 'false', 'null'].find((w) => text.startsWith(w, i));
        if (!word) return fail(i, `${describe(i)}, expected a value`);
        i += word.length;
        state = 'afterValue';
      }
    } else if (state === 'key' || state === 'keyOrEnd') {
      if (state === 'keyOrEnd' && text[i] === '}') {
        stack.pop();
        i++;
        state = 'afterValue';
        continue;
      }
      if (text[i] !== '"') return fail(i, `${describe(i)}, expected a double-quoted property name`);
      const end = scanString(text, i);
      if (typeof end !== 'number') return end;
      i = end;
      skip();
      if (text[i] !== ':') return fail(i, `${describe(i)}, expected ':' after the property name`);
      i++;
      state = 'value';
    } else {
      const top = stack[stack.length - 1];
      if (top === undefined) {
        return i < n ? fail(i, `${describe(i)} after the JSON value`) : undefined;
      }
      const c = text[i];
      if (c === ',') {
        i++;
        state = top === '{' ? 'key' : 'value';
      } else if ((c === '}' && top === '{') || (c === ']' && top === '[')) {
        stack.pop();
        i++;
      } else {
        return fail(i, `${describe(i)}, expected ',' or '${top === '{' ? '}' : ']'}'`);
      }
    }
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
