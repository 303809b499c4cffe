// Untrusted text made safe for a terminal: every control character (C0, DEL, C1), the Unicode line and paragraph
// separators, the bidirectional marks, overrides and isolates, and the byte-order mark are shown as escapes, so a
// string a target or a file controls cannot move the cursor, clear the screen, recolour the output, or reorder
// what is printed after it (the "verified: ..." a hostile `keyid` would otherwise print over a failure).

/** What is never printed as itself. Tab and line feed are added where the text is a single line. */
const ALWAYS =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/g;
const ALWAYS_AND_LINE_BREAKS =
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/g;

const NAMED: Readonly<Record<string, string>> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };

function escapeOne(c: string): string {
  const named = NAMED[c];
  if (named !== undefined) return named;
  const code = c.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * The text with every control character shown as an escape (`\x1b`, `\r`, `\u202e`). `multiline`: line feeds and
 * tabs are kept (a body, a command over several lines); otherwise they are escaped too, so one field stays on one
 * line. A backslash already in the text is left as written.
 */
export function showControls(text: string, options: { readonly multiline?: boolean } = {}): string {
  return text.replace(options.multiline === true ? ALWAYS : ALWAYS_AND_LINE_BREAKS, escapeOne);
}

/** Members of a run's records whose text is several lines by nature (a body, a recorded command, notes). */
const MULTILINE_MEMBERS: ReadonlySet<string> = new Set(['text', 'reproduce', 'notes']);

/**
 * Every string of a JSON-shaped value (a run summary, a diff, a verification result) passed through `showControls`:
 * the members in MULTILINE_MEMBERS keep their line breaks, every other string is kept to one line. Member names
 * are kept as they are (they are ours).
 */
export function printableValue<T>(value: T): T {
  return printableAt(value, false) as T;
}

function printableAt(value: unknown, multiline: boolean): unknown {
  if (typeof value === 'string') return showControls(value, { multiline });
  if (Array.isArray(value)) return value.map((v) => printableAt(v, multiline));
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, printableAt(v, MULTILINE_MEMBERS.has(k))]),
    );
  return value;
}
