// RSA keys for webhook signatures: the trimmed PEM body the service serves, full PEM, DER; export and generation.

import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
} from 'node:crypto';
import { decodeStrictBase64, encodeBase64 } from '../keys/base64.js';
import { KeyFormatError } from '../keys/errors.js';
import { looksLikePem, parsePem } from '../keys/pem.js';

/** An RSA public key ready for RSASSA-PKCS1-v1_5 verification. */
export interface ParsedRsaPublicKey {
  readonly kind: 'rsa-public';
  readonly keyObject: KeyObject;
  readonly modulusBits: number;
}

/** An RSA private key (a node:crypto KeyObject: printing it never shows key material). */
export interface ParsedRsaPrivateKey {
  readonly kind: 'rsa-private';
  readonly keyObject: KeyObject;
  readonly modulusBits: number;
}

/** Text (full PEM, or the trimmed PEM body) or DER bytes. */
export type RsaPublicKeyInput = string | Uint8Array;
/** PKCS#8 or PKCS#1 PEM text, DER bytes (PKCS#8), or an already parsed key. */
export type RsaPrivateKeyInput = string | Uint8Array | ParsedRsaPrivateKey;

/** The RSA keys a webhook signer or verifier accepts (the smallest modulus). */
export interface RsaKeyPolicy {
  /** Smallest accepted modulus; default 2048 (NIST SP 800-131A). */
  readonly minModulusBits?: number;
  /** Largest accepted modulus; default 16384 (bounds the cost of one verify). */
  readonly maxModulusBits?: number;
}

const PUBLIC_WHAT = 'webhook RSA public key';
const PRIVATE_WHAT = 'webhook RSA private key';

function checkRsa(keyObject: KeyObject, what: string, policy: RsaKeyPolicy): number {
  if (keyObject.asymmetricKeyType !== 'rsa') {
    throw new KeyFormatError(
      'KEY_TYPE_UNSUPPORTED',
      `${what}: expected an RSA key (rsaEncryption, OID 1.2.840.113549.1.1.1) for SHA256withRSA; found a key of type "${String(keyObject.asymmetricKeyType)}"`,
    );
  }
  const bits = keyObject.asymmetricKeyDetails?.modulusLength ?? 0;
  const min = policy.minModulusBits ?? 2048;
  const max = policy.maxModulusBits ?? 16384;
  if (bits < min || bits > max) {
    throw new KeyFormatError(
      'KEY_TYPE_UNSUPPORTED',
      `${what}: expected a modulus of ${min} to ${max} bits; found ${bits} bits`,
    );
  }
  return bits;
}

function importPublicDer(der: Uint8Array): KeyObject {
  const key = Buffer.from(der);
  try {
    return createPublicKey({ key, format: 'der', type: 'spki' });
  } catch (spkiError) {
    try {
      return createPublicKey({ key, format: 'der', type: 'pkcs1' });
    } catch {
      throw new KeyFormatError(
        'KEY_FORMAT_INVALID',
        `${PUBLIC_WHAT}: expected a DER SubjectPublicKeyInfo (or PKCS#1 RSAPublicKey); the ${der.length} bytes do not parse as one`,
        { cause: spkiError },
      );
    }
  }
}

/**
 * Parses the webhook verification key. Accepted forms:
 * - what `GET /.well-known/signature/pem` serves: the base64 body of the SPKI PEM with the
 *   BEGIN/END lines trimmed off, with or without its inner line breaks (LF or CRLF);
 * - a full `-----BEGIN PUBLIC KEY-----` (SPKI) or `-----BEGIN RSA PUBLIC KEY-----` (PKCS#1) PEM;
 * - DER bytes (SPKI or PKCS#1).
 * Throws {@link KeyFormatError} (`KEY_FORMAT_INVALID`, or `KEY_TYPE_UNSUPPORTED` for a non-RSA key
 * or a modulus outside the policy).
 */
export function parseRsaPublicKey(
  input: RsaPublicKeyInput,
  policy: RsaKeyPolicy = {},
): ParsedRsaPublicKey {
  let keyObject: KeyObject;
  if (input instanceof Uint8Array) {
    keyObject = importPublicDer(input);
  } else if (typeof input === 'string') {
    const text = input.trim();
    if (text.length === 0) {
      throw new KeyFormatError(
        'KEY_FORMAT_INVALID',
        `${PUBLIC_WHAT}: expected the trimmed PEM body, a PEM or DER; found an empty value`,
      );
    }
    if (looksLikePem(text)) {
      const { label, der } = parsePem(text, PUBLIC_WHAT);
      if (label === 'PUBLIC KEY' || label === 'RSA PUBLIC KEY') {
        keyObject = importPublicDer(der);
      } else if (label.includes('PRIVATE')) {
        throw new KeyFormatError(
          'KEY_FORMAT_INVALID',
          `${PUBLIC_WHAT}: expected a public key; found a private key PEM ("${label}")`,
        );
      } else {
        throw new KeyFormatError(
          'KEY_FORMAT_INVALID',
          `${PUBLIC_WHAT}: expected a "PUBLIC KEY" PEM; found a "${label}" PEM`,
        );
      }
    } else {
      keyObject = importPublicDer(
        decodeStrictBase64(text.replace(/\r?\n/g, ''), `${PUBLIC_WHAT} (trimmed PEM body)`),
      );
    }
  } else {
    throw new TypeError('parseRsaPublicKey: expected a string or a Uint8Array');
  }
  const modulusBits = checkRsa(keyObject, PUBLIC_WHAT, policy);
  return Object.freeze({ kind: 'rsa-public' as const, keyObject, modulusBits });
}

/**
 * Parses the webhook signing key: PKCS#8 (`PRIVATE KEY`) or PKCS#1 (`RSA PRIVATE KEY`) PEM, or
 * PKCS#8 DER bytes. Encrypted keys are rejected. Throws {@link KeyFormatError}.
 */
export function parseRsaPrivateKey(
  input: string | Uint8Array,
  policy: RsaKeyPolicy = {},
): ParsedRsaPrivateKey {
  let keyObject: KeyObject;
  if (input instanceof Uint8Array) {
    try {
      keyObject = createPrivateKey({ key: Buffer.from(input), format: 'der', type: 'pkcs8' });
    } catch (cause) {
      throw new KeyFormatError(
        'KEY_FORMAT_INVALID',
        `${PRIVATE_WHAT}: expected a DER PKCS#8 PrivateKeyInfo; the ${input.length} bytes do not parse as one`,
        { cause },
      );
    }
  } else if (typeof input === 'string') {
    const text = input.trim();
    if (!looksLikePem(text)) {
      throw new KeyFormatError(
        'KEY_FORMAT_INVALID',
        `${PRIVATE_WHAT}: expected a PKCS#8 "PRIVATE KEY" or PKCS#1 "RSA PRIVATE KEY" PEM; found text without a BEGIN line`,
      );
    }
    const { label, der } = parsePem(text, PRIVATE_WHAT);
    const type =
      label === 'PRIVATE KEY' ? 'pkcs8' : label === 'RSA PRIVATE KEY' ? 'pkcs1' : undefined;
    if (type === undefined) {
      throw new KeyFormatError(
        'KEY_FORMAT_INVALID',
        `${PRIVATE_WHAT}: expected a PKCS#8 "PRIVATE KEY" or PKCS#1 "RSA PRIVATE KEY" PEM; found a "${label}" PEM`,
      );
    }
    try {
      keyObject = createPrivateKey({ key: Buffer.from(der), format: 'der', type });
    } catch (cause) {
      throw new KeyFormatError(
        'KEY_FORMAT_INVALID',
        `${PRIVATE_WHAT}: the "${label}" PEM body is not a valid ${type === 'pkcs8' ? 'PKCS#8' : 'PKCS#1'} key`,
        { cause },
      );
    }
  } else {
    throw new TypeError('parseRsaPrivateKey: expected a string or a Uint8Array');
  }
  const modulusBits = checkRsa(keyObject, PRIVATE_WHAT, policy);
  return Object.freeze({ kind: 'rsa-private' as const, keyObject, modulusBits });
}

function publicOf(key: ParsedRsaPublicKey | ParsedRsaPrivateKey): KeyObject {
  return key.kind === 'rsa-private' ? createPublicKey(key.keyObject) : key.keyObject;
}

/** Full SPKI PEM (`-----BEGIN PUBLIC KEY-----`, 64-character lines, final newline). */
export function exportRsaPublicKeyPem(key: ParsedRsaPublicKey | ParsedRsaPrivateKey): string {
  return publicOf(key).export({ format: 'pem', type: 'spki' }) as string;
}

/** PKCS#8 PEM of the private key. Secret: for tests and the reference service only. */
export function exportRsaPrivateKeyPem(key: ParsedRsaPrivateKey): string {
  return key.keyObject.export({ format: 'pem', type: 'pkcs8' }) as string;
}

/**
 * What `GET /.well-known/signature/pem` serves: the SPKI PEM with its BEGIN and END lines trimmed
 * off, i.e. the base64 body in 64-character lines joined by LF, with no final newline. With
 * `{ singleLine: true }`, the same base64 without line breaks (the other form seen in the wild).
 * {@link parseRsaPublicKey} accepts both.
 */
export function exportTrimmedPublicKeyPem(
  key: ParsedRsaPublicKey | ParsedRsaPrivateKey,
  options: { readonly singleLine?: boolean } = {},
): string {
  const b64 = encodeBase64(new Uint8Array(publicOf(key).export({ format: 'der', type: 'spki' })));
  if (options.singleLine === true) return b64;
  const lines: string[] = [];
  for (let i = 0; i < b64.length; i += 64) lines.push(b64.slice(i, i + 64));
  return lines.join('\n');
}

/** A fresh RSA key pair for webhook signing (public exponent 65537). */
export function generateWebhookKeyPair(modulusBits = 2048): {
  readonly privateKey: ParsedRsaPrivateKey;
  readonly publicKey: ParsedRsaPublicKey;
} {
  if (!Number.isInteger(modulusBits) || modulusBits < 2048 || modulusBits > 16384) {
    throw new TypeError(
      'generateWebhookKeyPair: modulusBits must be an integer from 2048 to 16384',
    );
  }
  const pair = generateKeyPairSync('rsa', { modulusLength: modulusBits, publicExponent: 0x10001 });
  return Object.freeze({
    privateKey: Object.freeze({
      kind: 'rsa-private' as const,
      keyObject: pair.privateKey,
      modulusBits,
    }),
    publicKey: Object.freeze({
      kind: 'rsa-public' as const,
      keyObject: pair.publicKey,
      modulusBits,
    }),
  });
}
