// The cases of vectors/key-parsing.json, one row each: every key form the spec names (seed, PKCS#8 PEM/DER,
// trimmed-PEM public key) and its misuses, each written from the key material (keys.json).
import type { Ed25519KeyEntry, ParseKeyType, RsaKeyEntry, VectorResult } from '../format.js';
import { base64 } from './common.js';
import { APP_A } from './keys.js';

/** The keys the cases are written from (keys.json's application A and the webhook RSA key). */
export interface KeyMaterial {
  readonly a: Ed25519KeyEntry & { readonly private: NonNullable<Ed25519KeyEntry['private']> };
  readonly rsa: RsaKeyEntry & { readonly private: NonNullable<RsaKeyEntry['private']> };
  readonly seed: string;
  readonly seedBytes: Buffer;
}

/** One case: what it is, and its input (`text`, or binary input as `bytesBase64`) written from the key material. */
export interface KeyCaseRow {
  readonly id: string;
  readonly description: string;
  readonly source: string;
  readonly result: VectorResult;
  readonly flags: readonly string[];
  readonly code?: string;
  readonly keyType: ParseKeyType;
  readonly text?: (keys: KeyMaterial) => string;
  readonly bytesBase64?: (keys: KeyMaterial) => string;
  /** For a valid case: the key name in keys.json whose public key must come out. */
  readonly expectKey?: string;
}

const CRED = 'spec: Authentication, Signed requests (credentials held by the caller)';
const PEM_ENDPOINT = 'spec: Endpoints, 5. Public key for webhook verification';

/** The cases, in file order: Ed25519 private keys (the forms the spec names, then misuse), public keys, RSA. */
export const KEY_CASES: readonly KeyCaseRow[] = [
  {
    id: 'parse-private-seed-base64',
    description: 'The base64 32-byte seed.',
    source: CRED,
    result: 'valid',
    flags: ['Seed'],
    keyType: 'ed25519-private',
    text: ({ seed }) => seed,
    expectKey: APP_A.key,
  },
  {
    id: 'parse-private-pkcs8-pem',
    description: 'A PKCS#8 PEM ("-----BEGIN PRIVATE KEY-----").',
    source: CRED,
    result: 'valid',
    flags: ['Pkcs8'],
    keyType: 'ed25519-private',
    text: ({ a }) => a.private['pkcs8-pem'],
    expectKey: APP_A.key,
  },
  {
    id: 'parse-private-pkcs8-der-bytes',
    description: 'PKCS#8 DER bytes (48 bytes; the seed is the last 32).',
    source: CRED,
    result: 'valid',
    flags: ['Pkcs8'],
    keyType: 'ed25519-private',
    bytesBase64: ({ a }) => a.private['pkcs8-der-base64'],
    expectKey: APP_A.key,
  },
  {
    id: 'parse-private-seed-bytes',
    description: 'The 32 seed bytes themselves (binary input).',
    source: CRED,
    result: 'valid',
    flags: ['Seed'],
    keyType: 'ed25519-private',
    bytesBase64: ({ seed }) => seed,
    expectKey: APP_A.key,
  },
  {
    id: 'parse-private-seed-trailing-newline',
    description: 'The base64 seed followed by a newline, as read from a file.',
    source: CRED,
    result: 'acceptable',
    flags: ['Seed', 'OuterWhitespace'],
    keyType: 'ed25519-private',
    text: ({ seed }) => `${seed}\n`,
  },
  {
    id: 'parse-private-pkcs8-der-base64-text',
    description: 'The base64 of the PKCS#8 DER without PEM lines.',
    source: CRED,
    result: 'acceptable',
    flags: ['Pkcs8', 'Convenience'],
    keyType: 'ed25519-private',
    text: ({ a }) => a.private['pkcs8-der-base64'],
  },
  {
    id: 'parse-private-seed-base64url',
    description: 'The seed in base64url (one "+" or "/" replaced by "-" or "_").',
    source: CRED,
    result: 'invalid',
    flags: ['StrictBase64'],
    code: 'KEY_FORMAT_INVALID',
    keyType: 'ed25519-private',
    text: () => base64url32(),
  },
  {
    id: 'parse-private-seed-inner-space',
    description: 'The base64 seed with a space in the middle.',
    source: CRED,
    result: 'invalid',
    flags: ['StrictBase64'],
    code: 'KEY_FORMAT_INVALID',
    keyType: 'ed25519-private',
    text: ({ seed }) => `${seed.slice(0, 20)} ${seed.slice(20)}`,
  },
  {
    id: 'parse-private-seed-missing-padding',
    description: 'The base64 seed without its "=" padding.',
    source: CRED,
    result: 'invalid',
    flags: ['StrictBase64'],
    code: 'KEY_FORMAT_INVALID',
    keyType: 'ed25519-private',
    text: ({ seed }) => seed.replace(/=+$/, ''),
  },
  {
    id: 'parse-private-seed-over-padded',
    description: 'The base64 seed with one "=" too many.',
    source: CRED,
    result: 'invalid',
    flags: ['StrictBase64'],
    code: 'KEY_FORMAT_INVALID',
    keyType: 'ed25519-private',
    text: ({ seed }) => `${seed}=`,
  },
  {
    id: 'parse-private-seed-31-bytes',
    description: 'Base64 of 31 bytes.',
    source: CRED,
    result: 'invalid',
    flags: ['WrongLength'],
    code: 'KEY_FORMAT_INVALID',
    keyType: 'ed25519-private',
    text: ({ seedBytes }) => base64(seedBytes.subarray(0, 31)),
  },
  {
    id: 'parse-private-seed-33-bytes',
    description: 'Base64 of 33 bytes.',
    source: CRED,
    result: 'invalid',
    flags: ['WrongLength'],
    code: 'KEY_FORMAT_INVALID',
    keyType: 'ed25519-private',
    text: ({ seedBytes }) => base64(Buffer.concat([seedBytes, Buffer.from([0])])),
  },
  {
    id: 'parse-private-libsodium-64-bytes',
    description: 'The 64-byte libsodium secret key (seed followed by public key).',
    source: CRED,
    result: 'invalid',
    flags: ['WrongLength'],
    code: 'KEY_FORMAT_INVALID',
    keyType: 'ed25519-private',
    text: ({ a, seedBytes }) =>
      base64(Buffer.concat([seedBytes, Buffer.from(a.public['raw-base64'], 'base64')])),
  },
  {
    id: 'parse-private-empty',
    description: 'An empty value.',
    source: CRED,
    result: 'invalid',
    flags: ['Empty'],
    code: 'KEY_FORMAT_INVALID',
    keyType: 'ed25519-private',
    text: () => '',
  },
  {
    id: 'parse-private-rsa-pkcs8-pem',
    description: 'An RSA PKCS#8 PEM where an Ed25519 private key is expected.',
    source: CRED,
    result: 'invalid',
    flags: ['WrongKeyType'],
    code: 'KEY_TYPE_UNSUPPORTED',
    keyType: 'ed25519-private',
    text: ({ rsa }) => rsa.private['pkcs8-pem'],
  },
  {
    id: 'parse-private-public-pem-given',
    description: 'An SPKI public key PEM where a private key is expected.',
    source: CRED,
    result: 'invalid',
    flags: ['PrivateForPublic'],
    code: 'KEY_FORMAT_INVALID',
    keyType: 'ed25519-private',
    text: ({ a }) => a.public['spki-pem'],
  },
  {
    id: 'parse-public-raw-base64',
    description: 'The raw 32-byte public key in base64.',
    source: 'spec: Authentication, step 7 (resolve the public key)',
    result: 'valid',
    flags: ['RawPublicKey'],
    keyType: 'ed25519-public',
    text: ({ a }) => a.public['raw-base64'],
    expectKey: APP_A.key,
  },
  {
    id: 'parse-public-spki-pem',
    description: 'An SPKI PEM ("-----BEGIN PUBLIC KEY-----").',
    source: 'spec: Authentication, step 7',
    result: 'valid',
    flags: ['Spki'],
    keyType: 'ed25519-public',
    text: ({ a }) => a.public['spki-pem'],
    expectKey: APP_A.key,
  },
  {
    id: 'parse-public-spki-der-bytes',
    description: 'SPKI DER bytes (44 bytes).',
    source: 'spec: Authentication, step 7',
    result: 'valid',
    flags: ['Spki'],
    keyType: 'ed25519-public',
    bytesBase64: ({ a }) => a.public['spki-der-base64'],
    expectKey: APP_A.key,
  },
  {
    id: 'parse-public-trimmed-pem',
    description: 'The SPKI PEM body without BEGIN/END lines.',
    source: PEM_ENDPOINT,
    result: 'valid',
    flags: ['TrimmedPem'],
    keyType: 'ed25519-public',
    text: ({ a }) => a.public['trimmed-pem'],
    expectKey: APP_A.key,
  },
  {
    id: 'parse-public-private-pem-given',
    description: 'A PKCS#8 private key PEM handed to a verifier.',
    source: 'spec: Authentication, other rules (private keys never distributed)',
    result: 'invalid',
    flags: ['PrivateForPublic'],
    code: 'KEY_FORMAT_INVALID',
    keyType: 'ed25519-public',
    text: ({ a }) => a.private['pkcs8-pem'],
  },
  {
    id: 'parse-public-rsa-spki',
    description: 'An RSA SPKI PEM where an Ed25519 public key is expected.',
    source: 'spec: Authentication, algorithms (Ed25519)',
    result: 'invalid',
    flags: ['WrongKeyType'],
    code: 'KEY_TYPE_UNSUPPORTED',
    keyType: 'ed25519-public',
    text: ({ rsa }) => rsa.public['spki-pem'],
  },
  {
    id: 'parse-public-33-bytes',
    description: 'Base64 of 33 bytes.',
    source: 'spec: Authentication, step 7',
    result: 'invalid',
    flags: ['WrongLength'],
    code: 'KEY_FORMAT_INVALID',
    keyType: 'ed25519-public',
    text: ({ a }) =>
      base64(Buffer.concat([Buffer.from(a.public['raw-base64'], 'base64'), Buffer.from([1])])),
  },
  {
    id: 'parse-rsa-trimmed-pem',
    description:
      'The webhook key as the service serves it: SPKI PEM body, 64-character lines, no BEGIN/END lines.',
    source: PEM_ENDPOINT,
    result: 'valid',
    flags: ['TrimmedPem'],
    keyType: 'rsa-public',
    text: ({ rsa }) => rsa.public['trimmed-pem'],
    expectKey: 'webhook-rsa',
  },
  {
    id: 'parse-rsa-trimmed-pem-single-line',
    description: 'The trimmed PEM body on one line (line breaks removed).',
    source: PEM_ENDPOINT,
    result: 'valid',
    flags: ['TrimmedPem'],
    keyType: 'rsa-public',
    text: ({ rsa }) => rsa.public['trimmed-pem'].replace(/\n/g, ''),
    expectKey: 'webhook-rsa',
  },
  {
    id: 'parse-rsa-spki-pem',
    description: 'The full SPKI PEM with BEGIN/END lines.',
    source: PEM_ENDPOINT,
    result: 'valid',
    flags: ['Spki'],
    keyType: 'rsa-public',
    text: ({ rsa }) => rsa.public['spki-pem'],
    expectKey: 'webhook-rsa',
  },
  {
    id: 'parse-rsa-spki-der-bytes',
    description: 'SPKI DER bytes.',
    source: PEM_ENDPOINT,
    result: 'valid',
    flags: ['Spki'],
    keyType: 'rsa-public',
    bytesBase64: ({ rsa }) => rsa.public['spki-der-base64'],
    expectKey: 'webhook-rsa',
  },
  {
    id: 'parse-rsa-ed25519-key',
    description: 'An Ed25519 SPKI PEM where the RSA webhook key is expected.',
    source: 'spec: Webhook authentication (SHA256withRSA)',
    result: 'invalid',
    flags: ['WrongKeyType'],
    code: 'KEY_TYPE_UNSUPPORTED',
    keyType: 'rsa-public',
    text: ({ a }) => a.public['spki-pem'],
  },
  {
    id: 'parse-rsa-trimmed-pem-base64url',
    description: 'The trimmed PEM body with "+" and "/" turned into base64url characters.',
    source: PEM_ENDPOINT,
    result: 'invalid',
    flags: ['StrictBase64'],
    code: 'KEY_FORMAT_INVALID',
    keyType: 'rsa-public',
    text: ({ rsa }) => rsa.public['trimmed-pem'].replace(/\+/g, '-').replace(/\//g, '_'),
  },
  {
    id: 'parse-rsa-private-pem-given',
    description: 'The RSA private key PEM handed to a webhook receiver.',
    source: PEM_ENDPOINT,
    result: 'invalid',
    flags: ['PrivateForPublic'],
    code: 'KEY_FORMAT_INVALID',
    keyType: 'rsa-public',
    text: ({ rsa }) => rsa.private['pkcs8-pem'],
  },
  {
    id: 'parse-rsa-empty',
    description: 'An empty value (for example an empty response from the public-key endpoint).',
    source: PEM_ENDPOINT,
    result: 'invalid',
    flags: ['Empty'],
    code: 'KEY_FORMAT_INVALID',
    keyType: 'rsa-public',
    text: () => '',
  },
];

/** 32 bytes whose base64 contains "+" or "/", re-written in base64url (the seed itself may contain neither). */
function base64url32(): string {
  const bytes = Uint8Array.from({ length: 32 }, (_, i) =>
    i === 0 ? 0xfb : i === 1 ? 0xff : (i * 37) & 0xff,
  );
  return base64(bytes).replace(/\+/g, '-').replace(/\//g, '_');
}
