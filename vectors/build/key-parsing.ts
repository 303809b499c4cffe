// vectors/key-parsing.json: every key form the spec names (seed, PKCS#8 PEM/DER, trimmed-PEM public key) and its misuses.
import { PayconformError } from '../../src/errors.js';
import {
  exportEd25519PublicKeyBase64,
  parseEd25519PrivateKey,
  parseEd25519PublicKey,
} from '../../src/keys/index.js';
import { parseRsaPublicKey } from '../../src/webhooks/index.js';
import type {
  Ed25519KeyEntry,
  FlagNote,
  KeysFile,
  ParseKeyInput,
  ParseKeyType,
  RsaKeyEntry,
  VectorCase,
  VectorFile,
  VectorResult,
} from '../format.js';
import { base64, check, checkDeclared, vectorFile } from './common.js';
import { APP_A } from './keys.js';

const notes: Record<string, FlagNote> = {
  Seed: { description: "The spec's credential form: the 32-byte Ed25519 seed in base64." },
  Pkcs8: {
    description:
      'The private key in a PKCS#8 container (PEM, or DER bytes); the seed is the last 32 bytes of the DER (spec: Authentication, credentials).',
  },
  RawPublicKey: { description: 'The 32-byte Ed25519 public key (raw), in base64 or as bytes.' },
  Spki: { description: 'A public key as SPKI (PEM, DER bytes).' },
  TrimmedPem: {
    description:
      'The SPKI PEM with its BEGIN/END lines cut off: what GET /.well-known/signature/pem serves (spec: Endpoints, 5).',
  },
  StrictBase64: {
    description:
      'The spec says base64: standard alphabet with canonical padding. base64url, inner whitespace and bad padding are rejected.',
    effect: "A lenient decoder (Node's Buffer.from) turns malformed text into some key silently.",
  },
  WrongLength: {
    description:
      'Well-formed base64 of the wrong number of bytes (31, 33, or the 64-byte libsodium secret key).',
    effect: 'Truncating or padding to 32 bytes yields a different key without an error.',
  },
  WrongKeyType: {
    description:
      'A well-formed key of another type (RSA where Ed25519 is expected, Ed25519 where RSA is expected).',
  },
  PrivateForPublic: {
    description:
      'A private key handed to a verifier, or a public key where a private one is expected.',
    effect: 'A verifier that accepts private keys invites their distribution.',
  },
  OuterWhitespace: {
    description:
      'Surrounding whitespace, typically the trailing newline of a file or an environment variable. This toolkit ignores it; rejecting it also conforms.',
  },
  Convenience: {
    description:
      'A form the spec does not name but this toolkit accepts (base64 of a PKCS#8 DER without PEM lines). Rejecting it also conforms.',
  },
  Empty: { description: 'An empty value.' },
};

/** The keys the cases are written from (keys.json's application A and the webhook RSA key). */
interface KeyMaterial {
  readonly a: Ed25519KeyEntry & { readonly private: NonNullable<Ed25519KeyEntry['private']> };
  readonly rsa: RsaKeyEntry & { readonly private: NonNullable<RsaKeyEntry['private']> };
  readonly seed: string;
  readonly seedBytes: Buffer;
}

/** One case: what it is, and its input (`text`, or binary input as `bytesBase64`) written from the key material. */
interface KeyCaseRow {
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

function parseWithLibrary(
  input: ParseKeyInput,
): { ok: true; publicKey: string } | { ok: false; code: string } {
  const arg: string | Uint8Array =
    'text' in input ? input.text : new Uint8Array(Buffer.from(input.bytesBase64, 'base64'));
  try {
    if (input.keyType === 'ed25519-private')
      return { ok: true, publicKey: exportEd25519PublicKeyBase64(parseEd25519PrivateKey(arg)) };
    if (input.keyType === 'ed25519-public')
      return { ok: true, publicKey: exportEd25519PublicKeyBase64(parseEd25519PublicKey(arg)) };
    const rsa = parseRsaPublicKey(arg);
    return {
      ok: true,
      publicKey: base64(new Uint8Array(rsa.keyObject.export({ format: 'der', type: 'spki' }))),
    };
  } catch (error) {
    if (error instanceof PayconformError) return { ok: false, code: error.code };
    throw error;
  }
}

function keyCase(keys: KeysFile, material: KeyMaterial, row: KeyCaseRow): VectorCase {
  const input: ParseKeyInput =
    row.bytesBase64 !== undefined
      ? { keyType: row.keyType, bytesBase64: row.bytesBase64(material) }
      : { keyType: row.keyType, text: row.text!(material) };
  const outcome = parseWithLibrary(input);
  const { id } = row;
  checkDeclared(id, row.result, outcome, row.code);
  if (outcome.ok && row.expectKey) {
    const entry = keys.keys[row.expectKey]!;
    const want =
      entry.type === 'ed25519' ? entry.public['raw-base64'] : entry.public['spki-der-base64'];
    check(outcome.publicKey === want, id, `parsed to another key than "${row.expectKey}"`);
  }
  return {
    id,
    op: 'parse-key',
    description: row.description,
    source: row.source,
    result: row.result,
    flags: row.flags,
    input,
    expected: outcome.ok
      ? { ok: true, publicKey: outcome.publicKey }
      : { ok: false, code: outcome.code },
  };
}

const CRED = 'spec: Authentication, Signed requests (credentials held by the caller)';
const PEM_ENDPOINT = 'spec: Endpoints, 5. Public key for webhook verification';

/** The cases, in file order: Ed25519 private keys (the forms the spec names, then misuse), public keys, RSA. */
const KEY_CASES: readonly KeyCaseRow[] = [
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

export function buildKeyParsingFile(keys: KeysFile): VectorFile {
  const a = keys.keys[APP_A.key]!;
  const rsa = keys.keys['webhook-rsa']!;
  check(
    a.type === 'ed25519' &&
      a.private !== undefined &&
      rsa.type === 'rsa' &&
      rsa.private !== undefined,
    'key-parsing',
    'keys.json lacks the expected keys',
  );
  const seed = a.private['seed-base64'];
  const material: KeyMaterial = {
    a: { ...a, private: a.private },
    rsa: { ...rsa, private: rsa.private },
    seed,
    seedBytes: Buffer.from(seed, 'base64'),
  };
  return vectorFile(
    'key-parsing',
    'Key parsing: Ed25519 request-signing keys and the RSA webhook key',
    'Input: the key type expected and either `text` (what a person pastes or an environment variable holds) or `bytesBase64` (binary input such as a DER file). Output: the public key the input stands for (Ed25519: raw 32 bytes in base64; RSA: SPKI DER in base64), or the error code.',
    notes,
    KEY_CASES.map((row) => keyCase(keys, material, row)),
  );
}

/** 32 bytes whose base64 contains "+" or "/", re-written in base64url (the seed itself may contain neither). */
function base64url32(): string {
  const bytes = Uint8Array.from({ length: 32 }, (_, i) =>
    i === 0 ? 0xfb : i === 1 ? 0xff : (i * 37) & 0xff,
  );
  return base64(bytes).replace(/\+/g, '-').replace(/\//g, '_');
}
