// RFC 7468 PEM text <-> DER bytes, plus the outer DER length check that node:crypto skips.

import { decodeStrictBase64, encodeBase64 } from './base64.js';
import { KeyFormatError } from './errors.js';

/** One PEM block: its label and the DER bytes between the boundary lines. */
export interface PemBlock {
  /** The label between `-----BEGIN ` and `-----`, e.g. `PRIVATE KEY`. */
  readonly label: string;
  readonly der: Uint8Array;
}

const BEGIN = /^-----BEGIN ([A-Z0-9 ]{1,40})-----$/;
const END = /^-----END ([A-Z0-9 ]{1,40})-----$/;

/** True when the text (ignoring outer whitespace) starts like a PEM block. */
export function looksLikePem(text: string): boolean {
  return text.trimStart().startsWith('-----BEGIN ');
}

/**
 * Parses exactly one PEM block (RFC 7468 §3, with the lax rule that each line may carry outer
 * whitespace and lines may end in CRLF). The body must be strict base64 once the line breaks are
 * removed. Encrypted legacy PEM (with `Proc-Type` headers), several blocks, and text around the
 * block are rejected with {@link KeyFormatError}.
 */
export function parsePem(text: string, what: string): PemBlock {
  const lines = text
    .trim()
    .split(/\r?\n/)
    .map((l) => l.trim());
  const first = lines[0] ?? '';
  const last = lines[lines.length - 1] ?? '';
  const begin = BEGIN.exec(first);
  if (begin === null) {
    throw new KeyFormatError(
      'KEY_FORMAT_INVALID',
      `${what}: expected a PEM block starting with "-----BEGIN <LABEL>-----"; the first line is not a BEGIN line`,
    );
  }
  const label = begin[1] as string;
  const end = END.exec(last);
  if (lines.length < 2 || end === null) {
    throw new KeyFormatError(
      'KEY_FORMAT_INVALID',
      `${what}: expected the PEM block to end with "-----END ${label}-----"; the last line is not an END line`,
    );
  }
  if (end[1] !== label) {
    throw new KeyFormatError(
      'KEY_FORMAT_INVALID',
      `${what}: PEM BEGIN label "${label}" does not match END label "${String(end[1])}"`,
    );
  }
  const body = lines.slice(1, -1);
  if (body.some((l) => l.startsWith('-----'))) {
    throw new KeyFormatError(
      'KEY_FORMAT_INVALID',
      `${what}: expected exactly one PEM block; found another BEGIN/END line inside`,
    );
  }
  if (body.some((l) => l.includes(':'))) {
    throw new KeyFormatError(
      'KEY_FORMAT_INVALID',
      `${what}: PEM encapsulated headers (e.g. "Proc-Type", an encrypted legacy key) are not supported`,
    );
  }
  const der = decodeStrictBase64(body.join(''), `${what} (PEM body)`);
  if (der.length === 0) {
    throw new KeyFormatError(
      'KEY_FORMAT_INVALID',
      `${what}: PEM block "${label}" has an empty body`,
    );
  }
  return { label, der };
}

/** Serialises DER as PEM with 64-character lines and a final newline (RFC 7468 §2). */
export function formatPem(label: string, der: Uint8Array): string {
  const b64 = encodeBase64(der);
  const lines: string[] = [];
  for (let i = 0; i < b64.length; i += 64) lines.push(b64.slice(i, i + 64));
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

/**
 * Checks that the bytes are one DER SEQUENCE whose length covers the input exactly (node:crypto
 * accepts trailing bytes after the key). Throws {@link KeyFormatError}.
 */
export function assertSingleDerSequence(der: Uint8Array, what: string): void {
  const fail = (detail: string): never => {
    throw new KeyFormatError('KEY_FORMAT_INVALID', `${what}: expected a DER SEQUENCE; ${detail}`);
  };
  if (der.length < 2) fail(`found only ${der.length} byte(s)`);
  if (der[0] !== 0x30) fail('found a different tag at offset 0');
  const first = der[1] as number;
  let length: number;
  let header: number;
  if (first < 0x80) {
    length = first;
    header = 2;
  } else {
    const n = first & 0x7f;
    if (n === 0 || n > 4) fail('found an unsupported length encoding at offset 1');
    if (der.length < 2 + n) fail('found a truncated length at offset 1');
    length = 0;
    for (let i = 0; i < n; i++) length = length * 256 + (der[2 + i] as number);
    header = 2 + n;
  }
  if (header + length !== der.length) {
    fail(`the SEQUENCE length says ${header + length} bytes, found ${der.length}`);
  }
}
