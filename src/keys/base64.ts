// Strict RFC 4648 §4 base64 (standard alphabet, canonical padding): Node's decoder accepts far more.

import { KeyFormatError } from './errors.js';

const ALPHABET = /^[A-Za-z0-9+/]$/;
const DECODE: Readonly<Record<string, number>> = Object.fromEntries(
  [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'].map((c, i) => [c, i]),
);

/** Describes one offending character by class, never by value (the text may be key material). */
function describeCharacter(ch: string): string {
  if (ch === '-' || ch === '_') return `a base64url character ("-" or "_")`;
  if (/\s/.test(ch)) return 'whitespace';
  if (ch === '=') return 'a padding character "=" before the end';
  return 'a character outside the base64 alphabet';
}

/**
 * Decodes standard base64 (RFC 4648 §4) and rejects everything Node's `Buffer.from(x, 'base64')`
 * silently accepts: base64url characters, any whitespace (inner or outer), missing padding, extra
 * padding, and non-zero pad bits (so that every byte string has exactly one accepted text; the
 * canonical encoders used for keys and signatures always zero them). The empty string decodes to
 * zero bytes: callers check the length they need. `what` names the value in the error message
 * (e.g. `"Ed25519 seed"`). Throws {@link KeyFormatError} (`KEY_FORMAT_INVALID`).
 */
export function decodeStrictBase64(text: string, what: string): Uint8Array {
  if (typeof text !== 'string') throw new TypeError(`${what}: expected a string`);
  const fail = (detail: string): never => {
    throw new KeyFormatError(
      'KEY_FORMAT_INVALID',
      `${what}: expected standard base64 with padding (RFC 4648 §4); ${detail}`,
    );
  };
  let end = text.length;
  let pad = 0;
  while (pad < 2 && end > 0 && text[end - 1] === '=') {
    end--;
    pad++;
  }
  for (let i = 0; i < end; i++) {
    const ch = text[i] as string;
    if (!ALPHABET.test(ch)) fail(`found ${describeCharacter(ch)} at offset ${i}`);
  }
  if (end > 0 && text[end - 1] === '=') fail(`found too much padding at offset ${end - 1}`);
  if (text.length % 4 !== 0) {
    fail(`found ${text.length} characters, not a multiple of 4 (missing or extra padding)`);
  }
  const rem = end % 4; // 0: no padding, 2: "==", 3: "="
  if (
    (rem === 0 && pad !== 0) ||
    (rem === 2 && pad !== 2) ||
    (rem === 3 && pad !== 1) ||
    rem === 1
  ) {
    fail(`found wrong padding at offset ${end}`);
  }
  const out = new Uint8Array((end * 3) >> 2);
  let acc = 0;
  let bits = 0;
  let o = 0;
  for (let i = 0; i < end; i++) {
    acc = ((acc << 6) | (DECODE[text[i] as string] as number)) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  if (bits > 0 && (acc & ((1 << bits) - 1)) !== 0)
    fail(`found non-zero pad bits at offset ${end - 1}`);
  return out;
}

/** Standard base64 with padding (RFC 4648 §4). */
export function encodeBase64(bytes: Uint8Array): string {
  if (!(bytes instanceof Uint8Array)) throw new TypeError('encodeBase64: expected a Uint8Array');
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}
