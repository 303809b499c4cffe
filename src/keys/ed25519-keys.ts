// Ed25519 key parsing and export: base64 seed, PKCS#8 PEM/DER, raw base64 public key, SPKI PEM/DER.

import { createPrivateKey, createPublicKey, randomBytes, type KeyObject } from 'node:crypto';
import type { Ed25519PrivateKey, Ed25519PublicKey } from '../ed25519/backend.js';
import { isSmallOrderEncoding } from '../ed25519/small-order.js';
import { decodeStrictBase64, encodeBase64 } from './base64.js';
import { KeyFormatError } from './errors.js';
import { assertSingleDerSequence, formatPem, looksLikePem, parsePem } from './pem.js';

/** RFC 8410 §7: PKCS#8 v1 prefix for an Ed25519 private key (OID 1.3.101.112); the seed follows. */
const PKCS8_ED25519_PREFIX = Uint8Array.from([
  0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
]);
/** RFC 8410 §4: SPKI prefix for an Ed25519 public key; the 32-byte key follows. */
const SPKI_ED25519_PREFIX = Uint8Array.from([
  0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00,
]);

const PRIVATE_WHAT = 'Ed25519 private key';
const PUBLIC_WHAT = 'Ed25519 public key';

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

function fromBase64Url(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, 'base64url'));
}

/** Builds the frozen public key object. */
function makePublicKey(raw: Uint8Array): Ed25519PublicKey {
  return Object.freeze({ kind: 'ed25519-public' as const, raw: Uint8Array.from(raw) });
}

/** A public key received from outside: small-order points are refused (they verify forgeries). */
function checkedPublicKey(raw: Uint8Array): Ed25519PublicKey {
  if (isSmallOrderEncoding(raw)) {
    throw new KeyFormatError(
      'KEY_FORMAT_INVALID',
      `${PUBLIC_WHAT}: found a small-order point, with which a signature of S = 0 verifies for any message; refused`,
    );
  }
  return makePublicKey(raw);
}

/**
 * Builds the frozen private key object. `seed` is non-enumerable so that `console.log`,
 * `util.inspect` and `JSON.stringify` of a key never print the secret.
 */
function makePrivateKey(seed: Uint8Array, publicRaw: Uint8Array): Ed25519PrivateKey {
  const key = { kind: 'ed25519-private' as const, publicKey: makePublicKey(publicRaw) } as {
    kind: 'ed25519-private';
    publicKey: Ed25519PublicKey;
    seed: Uint8Array;
  };
  Object.defineProperty(key, 'seed', {
    value: Uint8Array.from(seed),
    enumerable: false,
    writable: false,
  });
  return Object.freeze(key);
}

function keyTypeName(type: string | undefined): string {
  switch (type) {
    case 'rsa':
    case 'rsa-pss':
      return 'an RSA key';
    case 'ec':
      return 'an EC (ECDSA) key';
    case 'x25519':
      return 'an X25519 key (key agreement, OID 1.3.101.110)';
    case 'ed448':
      return 'an Ed448 key (OID 1.3.101.113)';
    case 'x448':
      return 'an X448 key';
    case 'dsa':
      return 'a DSA key';
    default:
      return `a key of type "${String(type)}"`;
  }
}

function pkcs8ToPrivateKey(der: Uint8Array): Ed25519PrivateKey {
  assertSingleDerSequence(der, `${PRIVATE_WHAT} (PKCS#8 DER)`);
  let keyObject: KeyObject;
  try {
    keyObject = createPrivateKey({ key: Buffer.from(der), format: 'der', type: 'pkcs8' });
  } catch (cause) {
    throw new KeyFormatError(
      'KEY_FORMAT_INVALID',
      `${PRIVATE_WHAT}: expected a DER PKCS#8 PrivateKeyInfo (RFC 5208/8410); the ${der.length} bytes do not parse as one`,
      { cause },
    );
  }
  if (keyObject.asymmetricKeyType !== 'ed25519') {
    throw new KeyFormatError(
      'KEY_TYPE_UNSUPPORTED',
      `${PRIVATE_WHAT}: expected an Ed25519 PKCS#8 key (OID 1.3.101.112); found ${keyTypeName(keyObject.asymmetricKeyType)}`,
    );
  }
  const jwk = keyObject.export({ format: 'jwk' });
  if (typeof jwk.d !== 'string' || typeof jwk.x !== 'string') {
    throw new KeyFormatError(
      'KEY_FORMAT_INVALID',
      `${PRIVATE_WHAT}: the PKCS#8 key did not yield a seed`,
    );
  }
  // The spec's rule "the seed is the last 32 bytes of the DER" holds for this v1 form (48 bytes);
  // the seed is taken from the parsed privateKey OCTET STRING, which is right in every form.
  return makePrivateKey(fromBase64Url(jwk.d), fromBase64Url(jwk.x));
}

function spkiToPublicKey(der: Uint8Array): Ed25519PublicKey {
  assertSingleDerSequence(der, `${PUBLIC_WHAT} (SPKI DER)`);
  let keyObject: KeyObject;
  try {
    keyObject = createPublicKey({ key: Buffer.from(der), format: 'der', type: 'spki' });
  } catch (cause) {
    throw new KeyFormatError(
      'KEY_FORMAT_INVALID',
      `${PUBLIC_WHAT}: expected a DER SubjectPublicKeyInfo (RFC 5280/8410); the ${der.length} bytes do not parse as one`,
      { cause },
    );
  }
  if (keyObject.asymmetricKeyType !== 'ed25519') {
    throw new KeyFormatError(
      'KEY_TYPE_UNSUPPORTED',
      `${PUBLIC_WHAT}: expected an Ed25519 SPKI key (OID 1.3.101.112); found ${keyTypeName(keyObject.asymmetricKeyType)}`,
    );
  }
  const jwk = keyObject.export({ format: 'jwk' });
  if (typeof jwk.x !== 'string') {
    throw new KeyFormatError(
      'KEY_FORMAT_INVALID',
      `${PUBLIC_WHAT}: the SPKI key did not yield a public key`,
    );
  }
  return checkedPublicKey(fromBase64Url(jwk.x));
}

function privateFromPem(text: string): Ed25519PrivateKey {
  const { label, der } = parsePem(text, PRIVATE_WHAT);
  if (label === 'PRIVATE KEY') return pkcs8ToPrivateKey(der);
  if (label === 'ENCRYPTED PRIVATE KEY') {
    throw new KeyFormatError(
      'KEY_FORMAT_INVALID',
      `${PRIVATE_WHAT}: expected an unencrypted PKCS#8 PEM ("PRIVATE KEY"); found "ENCRYPTED PRIVATE KEY" (decrypt it first)`,
    );
  }
  if (label === 'PUBLIC KEY') {
    throw new KeyFormatError(
      'KEY_FORMAT_INVALID',
      `${PRIVATE_WHAT}: expected a private key; found a public key PEM ("PUBLIC KEY")`,
    );
  }
  if (label === 'RSA PRIVATE KEY' || label === 'EC PRIVATE KEY' || label === 'DSA PRIVATE KEY') {
    throw new KeyFormatError(
      'KEY_TYPE_UNSUPPORTED',
      `${PRIVATE_WHAT}: expected a PKCS#8 "PRIVATE KEY" PEM holding Ed25519; found a "${label}" PEM`,
    );
  }
  throw new KeyFormatError(
    'KEY_FORMAT_INVALID',
    `${PRIVATE_WHAT}: expected a PKCS#8 "PRIVATE KEY" PEM; found a "${label}" PEM`,
  );
}

/**
 * Parses an Ed25519 private key.
 * - A string is either a base64 32-byte seed (the spec's form), a PKCS#8 PEM
 *   (PEM label `PRIVATE KEY`), or the base64 of a PKCS#8 DER without PEM lines.
 * - Bytes are a DER PKCS#8, or the 32-byte seed itself.
 * Outer whitespace (a trailing newline from a file or env var) is ignored; base64 is otherwise
 * strict. Throws {@link KeyFormatError}; a TypeError only for an argument of the wrong type.
 */
export function parseEd25519PrivateKey(input: string | Uint8Array): Ed25519PrivateKey {
  if (input instanceof Uint8Array) {
    if (input.length === 32) return ed25519PrivateKeyFromSeed(input);
    return pkcs8ToPrivateKey(input);
  }
  if (typeof input !== 'string')
    throw new TypeError('parseEd25519PrivateKey: expected a string or a Uint8Array');
  const text = input.trim();
  if (text.length === 0) {
    throw new KeyFormatError(
      'KEY_FORMAT_INVALID',
      `${PRIVATE_WHAT}: expected a base64 32-byte seed or a PKCS#8 PEM; found an empty value`,
    );
  }
  if (looksLikePem(text)) return privateFromPem(text);
  const bytes = decodeStrictBase64(text, PRIVATE_WHAT);
  if (bytes.length === 32) return ed25519PrivateKeyFromSeed(bytes);
  if (bytes.length === 64) {
    throw new KeyFormatError(
      'KEY_FORMAT_INVALID',
      `${PRIVATE_WHAT}: expected a base64 32-byte seed; found 64 bytes (this looks like a NaCl/libsodium secret key, the seed followed by the public key: supply the first 32 bytes)`,
    );
  }
  if (bytes[0] === 0x30 && bytes.length > 32) return pkcs8ToPrivateKey(bytes);
  throw new KeyFormatError(
    'KEY_FORMAT_INVALID',
    `${PRIVATE_WHAT}: expected a base64 32-byte seed or a PKCS#8 PEM; found ${bytes.length} bytes`,
  );
}

/**
 * Parses an Ed25519 public key.
 * - A string is the raw 32-byte key in base64, an SPKI PEM (`-----BEGIN PUBLIC KEY-----`), or the
 *   PEM body alone (base64 of the SPKI DER without the BEGIN/END lines, with or without line breaks).
 * - Bytes are a DER SPKI, or the raw 32-byte key.
 * Small-order points (libsodium's blocklist) are refused: they make forgeries verify.
 * Throws {@link KeyFormatError}.
 */
export function parseEd25519PublicKey(input: string | Uint8Array): Ed25519PublicKey {
  if (input instanceof Uint8Array) {
    if (input.length === 32) return checkedPublicKey(input);
    return spkiToPublicKey(input);
  }
  if (typeof input !== 'string')
    throw new TypeError('parseEd25519PublicKey: expected a string or a Uint8Array');
  const text = input.trim();
  if (text.length === 0) {
    throw new KeyFormatError(
      'KEY_FORMAT_INVALID',
      `${PUBLIC_WHAT}: expected base64 of the raw 32-byte key or an SPKI PEM; found an empty value`,
    );
  }
  if (looksLikePem(text)) {
    const { label, der } = parsePem(text, PUBLIC_WHAT);
    if (label === 'PUBLIC KEY') return spkiToPublicKey(der);
    if (label === 'PRIVATE KEY') {
      throw new KeyFormatError(
        'KEY_FORMAT_INVALID',
        `${PUBLIC_WHAT}: expected a public key; found a private key PEM ("PRIVATE KEY"); never hand a private key to a verifier`,
      );
    }
    throw new KeyFormatError(
      'KEY_FORMAT_INVALID',
      `${PUBLIC_WHAT}: expected an SPKI "PUBLIC KEY" PEM; found a "${label}" PEM`,
    );
  }
  // The trimmed PEM body may keep its line breaks; nothing else is removed.
  const bytes = decodeStrictBase64(text.replace(/\r?\n/g, ''), PUBLIC_WHAT);
  if (bytes.length === 32) return checkedPublicKey(bytes);
  if (bytes[0] === 0x30 && bytes.length > 32) return spkiToPublicKey(bytes);
  throw new KeyFormatError(
    'KEY_FORMAT_INVALID',
    `${PUBLIC_WHAT}: expected base64 of the raw 32-byte key or of an SPKI DER; found ${bytes.length} bytes`,
  );
}

/** The private key for a 32-byte RFC 8032 seed; its public key is derived with node:crypto. */
export function ed25519PrivateKeyFromSeed(seed: Uint8Array): Ed25519PrivateKey {
  if (!(seed instanceof Uint8Array))
    throw new TypeError('ed25519PrivateKeyFromSeed: expected a Uint8Array');
  if (seed.length !== 32) {
    throw new KeyFormatError(
      'KEY_FORMAT_INVALID',
      `${PRIVATE_WHAT}: expected a 32-byte seed; found ${seed.length} bytes`,
    );
  }
  const keyObject = createPrivateKey({
    key: Buffer.from(concat(PKCS8_ED25519_PREFIX, seed)),
    format: 'der',
    type: 'pkcs8',
  });
  const x = createPublicKey(keyObject).export({ format: 'jwk' }).x;
  if (typeof x !== 'string') throw new Error('node:crypto did not derive an Ed25519 public key');
  return makePrivateKey(seed, fromBase64Url(x));
}

/** A fresh random key (32 bytes from the CSPRNG as the seed). */
export function generateEd25519PrivateKey(): Ed25519PrivateKey {
  return ed25519PrivateKeyFromSeed(new Uint8Array(randomBytes(32)));
}

/** PKCS#8 v1 DER of the key (48 bytes: the seed is the last 32). */
export function exportEd25519PrivateKeyDer(key: Ed25519PrivateKey): Uint8Array {
  return concat(PKCS8_ED25519_PREFIX, key.seed);
}

/** SPKI DER of the key (44 bytes: the raw key is the last 32). */
export function exportEd25519PublicKeyDer(key: Ed25519PublicKey | Ed25519PrivateKey): Uint8Array {
  const pub = key.kind === 'ed25519-private' ? key.publicKey : key;
  return concat(SPKI_ED25519_PREFIX, pub.raw);
}

/** PKCS#8 PEM (label `PRIVATE KEY`). */
export function exportEd25519PrivateKeyPem(key: Ed25519PrivateKey): string {
  return formatPem('PRIVATE KEY', exportEd25519PrivateKeyDer(key));
}

/** `-----BEGIN PUBLIC KEY-----` SPKI PEM (accepts a private key and exports its public half). */
export function exportEd25519PublicKeyPem(key: Ed25519PublicKey | Ed25519PrivateKey): string {
  return formatPem('PUBLIC KEY', exportEd25519PublicKeyDer(key));
}

/** The raw 32-byte public key in standard base64 (44 characters). */
export function exportEd25519PublicKeyBase64(key: Ed25519PublicKey | Ed25519PrivateKey): string {
  const pub = key.kind === 'ed25519-private' ? key.publicKey : key;
  return encodeBase64(pub.raw);
}

/** The 32-byte seed in standard base64 (44 characters): the spec's credential form. Secret. */
export function exportEd25519SeedBase64(key: Ed25519PrivateKey): string {
  return encodeBase64(key.seed);
}
