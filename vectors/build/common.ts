// Shared helpers of the vector generator: file assembly, body encoding, deterministic nonces, self-checks.
import { createHash } from 'node:crypto';
import type {
  FlagNote,
  KeyRef,
  KeysFile,
  VectorCase,
  VectorFile,
  VectorResult,
  WireBody,
} from '../format.js';

export const SCHEMA_ID = 'https://payconform.dev/schemas/vectors.schema.json';
export const GENERATED_BY =
  'vectors/generate.ts (npm run vectors). Generated: never edit by hand; change the generator and regenerate.';

/** A disagreement between a case's declared intent and what the library computed: the generator stops. */
export class VectorSelfCheckError extends Error {
  override readonly name = 'VectorSelfCheckError';
}

export function check(condition: boolean, caseId: string, message: string): asserts condition {
  if (!condition) throw new VectorSelfCheckError(`${caseId}: ${message}`);
}

export function utf8(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

export function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64');
}

/** A library outcome as the builders see it: ok, or the error code (and message, when it has one). */
export type LibraryOutcome =
  { readonly ok: true } | { readonly ok: false; readonly code: string; readonly message?: string };

/**
 * Checks a case's declared intent against what the library computed: a valid case must pass, an invalid one must
 * fail with the declared code; an acceptable case may go either way.
 */
export function checkDeclared(
  caseId: string,
  result: VectorResult,
  outcome: LibraryOutcome,
  code: string | undefined,
): void {
  const said = (o: LibraryOutcome): string =>
    o.ok ? 'ok' : o.message !== undefined ? `${o.code}: ${o.message}` : o.code;
  if (result === 'valid')
    check(outcome.ok, caseId, `declared valid, library says ${said(outcome)}`);
  if (result === 'invalid') {
    check(!outcome.ok, caseId, 'declared invalid, library accepts it');
    check(
      outcome.code === code,
      caseId,
      `declared ${code ?? '(no code)'}, library says ${said(outcome)}`,
    );
  }
}

/** Text bodies travel as `bodyUtf8`; bytes that are not UTF-8 as `bodyBase64`. */
export function wireBody(body: string | Uint8Array): WireBody {
  return typeof body === 'string' ? { bodyUtf8: body } : { bodyBase64: base64(body) };
}

export function bodyBytesOf(body: WireBody): Uint8Array {
  return 'bodyUtf8' in body
    ? utf8(body.bodyUtf8)
    : new Uint8Array(Buffer.from(body.bodyBase64, 'base64'));
}

/** A key of keys.json in one of its encodings, as the library takes it: the text, or the bytes of a DER encoding. */
export function keyArgument(keys: KeysFile, ref: KeyRef): string | Uint8Array {
  const entry = keys.keys[ref.key];
  const forms: Record<string, string | undefined> = entry
    ? { ...entry.public, ...entry.private }
    : {};
  const text = forms[ref.format];
  check(text !== undefined, ref.key, `keys.json has no "${ref.format}" form of this key`);
  return ref.format.endsWith('der-base64') ? new Uint8Array(Buffer.from(text, 'base64')) : text;
}

/** A UUIDv4-shaped nonce derived from a label: fixed across runs, different per case. */
export function nonceFor(label: string): string {
  const h = createHash('sha256').update(`payconform vectors nonce: ${label}`).digest();
  h[6] = (h[6]! & 0x0f) | 0x40;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const hex = h.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/**
 * Assembles a vector file and checks what the schema cannot: ids unique and well formed, every flag used is
 * explained in `notes`, every note is used.
 */
export function vectorFile(
  name: string,
  title: string,
  description: string,
  notes: Readonly<Record<string, FlagNote>>,
  cases: readonly VectorCase[],
): VectorFile {
  const ids = new Set<string>();
  const used = new Set<string>();
  for (const c of cases) {
    check(!ids.has(c.id), c.id, `duplicate case id in ${name}`);
    ids.add(c.id);
    for (const flag of c.flags) {
      check(flag in notes, c.id, `flag "${flag}" has no entry in the notes of ${name}`);
      used.add(flag);
    }
  }
  for (const flag of Object.keys(notes))
    check(used.has(flag), name, `note "${flag}" is not used by any case`);
  return {
    $schema: SCHEMA_ID,
    schemaVersion: 1,
    name,
    title,
    description,
    generatedBy: GENERATED_BY,
    keys: 'keys.json',
    notes,
    numberOfCases: cases.length,
    cases,
  };
}

/**
 * The one serialisation of every generated JSON file: two-space indent, LF, final newline; an array of scalars
 * (a header line `[name, value]`, a flag list) stays on one line so that requests read like requests.
 */
export function serializeJson(value: unknown): string {
  return `${write(value, '')}\n`;
}

function isScalar(v: unknown): boolean {
  return v === null || typeof v !== 'object';
}

function write(value: unknown, indent: string): string {
  if (isScalar(value)) return JSON.stringify(value);
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    if (value.every(isScalar)) return `[${value.map((v) => JSON.stringify(v)).join(', ')}]`;
    return `[\n${value.map((v) => inner + write(v, inner)).join(',\n')}\n${indent}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>).filter(
    ([, v]) => v !== undefined,
  );
  if (entries.length === 0) return '{}';
  return `{\n${entries.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${write(v, inner)}`).join(',\n')}\n${indent}}`;
}
