// The other serialisations of a JSON body that clients produce by parsing and re-serialising it between signing (or
// digesting) and sending: what the diagnosis of a signature or a Content-Digest tries the digest over.

const utf8 = new TextDecoder('utf-8', { fatal: true });
const encoder = new TextEncoder();

/** Other serialisations of a JSON body that clients produce by parsing and re-serialising it. */
export function reserializedBodies(
  body: Uint8Array,
): Array<{ readonly how: string; readonly bytes: Uint8Array }> {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    return [];
  }
  const out = new Map<string, string>();
  const add = (how: string, t: string): void => {
    if (t !== text && ![...out.values()].includes(t)) out.set(how, t);
  };
  let value: unknown;
  let parsed = false;
  try {
    value = JSON.parse(text);
    parsed = true;
  } catch {
    parsed = false;
  }
  if (parsed) {
    add('compact JSON (JSON.stringify)', JSON.stringify(value));
    add('JSON indented by 2 spaces', JSON.stringify(value, null, 2));
    add('JSON indented by 4 spaces', JSON.stringify(value, null, 4));
    add('JSON indented by tabs', JSON.stringify(value, null, '\t'));
    add('compact JSON with a trailing newline', `${JSON.stringify(value)}\n`);
    add('JSON indented by 2 spaces with a trailing newline', `${JSON.stringify(value, null, 2)}\n`);
    add('JSON with ", " and ": " separators (Python json.dumps default)', pythonDumps(value));
  }
  if (text.endsWith('\n')) add('the body without its trailing newline', text.replace(/\r?\n$/, ''));
  else add('the body with a trailing newline', `${text}\n`);
  if (text.includes('\n') && !text.includes('\r\n'))
    add('the body with CRLF line ends', text.replace(/\n/g, '\r\n'));
  add('an empty body', '');
  return [...out].map(([how, t]) => ({ how, bytes: encoder.encode(t) }));
}

/** json.dumps default separators: ", " and ": " (keys in insertion order, ASCII escapes aside). */
function pythonDumps(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonDumps).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}: ${pythonDumps(v)}`)
      .join(', ')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
