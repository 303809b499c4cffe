// JSON serialisation that writes decimal amounts as exact number tokens ("100.50", not the float 100.5).

/** A decimal amount written into JSON as a number token exactly as `text` (e.g. `100.50`). */
export class DecimalNumber {
  constructor(readonly text: string) {
    if (!/^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/.test(text))
      throw new TypeError(`not a decimal number: "${text}"`);
  }
  toJSON(): number {
    return Number(this.text);
  }
}

/** Like `JSON.stringify` (compact, or indented by `indent`), with `DecimalNumber` written verbatim. */
export function stringifyJson(value: unknown, indent = 0): string {
  return write(value, indent, '');
}

function write(value: unknown, indent: number, pad: string): string {
  if (value instanceof DecimalNumber) return value.text;
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string' || typeof value === 'boolean') return JSON.stringify(value);
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : 'null';
  if (typeof value === 'bigint') return value.toString();
  const inner = indent > 0 ? pad + ' '.repeat(indent) : '';
  const nl = indent > 0 ? '\n' : '';
  const colon = indent > 0 ? ': ' : ':';
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[${nl}${value.map((v) => inner + write(v, indent, inner)).join(`,${nl}`)}${nl}${pad}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>).filter(
    ([, v]) => v !== undefined,
  );
  if (entries.length === 0) return '{}';
  return `{${nl}${entries.map(([k, v]) => `${inner}${JSON.stringify(k)}${colon}${write(v, indent, inner)}`).join(`,${nl}`)}${nl}${pad}}`;
}
