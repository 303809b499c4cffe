// vectors/key-parsing.json: every key form the spec names (seed, PKCS#8 PEM/DER, trimmed-PEM public key) and its misuses.
import { PayconformError } from '../../src/errors.js';
import {
  exportEd25519PublicKeyBase64,
  parseEd25519PrivateKey,
  parseEd25519PublicKey,
} from '../../src/keys/index.js';
import { parseRsaPublicKey } from '../../src/webhooks/index.js';
import type {
  FlagNote,
  KeysFile,
  ParseKeyInput,
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

interface KeyCaseSpec {
  readonly id: string;
  readonly description: string;
  readonly source: string;
  readonly result: VectorResult;
  readonly flags: readonly string[];
  readonly input: ParseKeyInput;
  readonly code?: string;
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

function keyCase(keys: KeysFile, spec: KeyCaseSpec): VectorCase {
  const outcome = parseWithLibrary(spec.input);
  const { id } = spec;
  checkDeclared(id, spec.result, outcome, spec.code);
  if (outcome.ok && spec.expectKey) {
    const entry = keys.keys[spec.expectKey]!;
    const want =
      entry.type === 'ed25519' ? entry.public['raw-base64'] : entry.public['spki-der-base64'];
    check(outcome.publicKey === want, id, `parsed to another key than "${spec.expectKey}"`);
  }
  return {
    id,
    op: 'parse-key',
    description: spec.description,
    source: spec.source,
    result: spec.result,
    flags: spec.flags,
    input: spec.input,
    expected: outcome.ok
      ? { ok: true, publicKey: outcome.publicKey }
      : { ok: false, code: outcome.code },
  };
}

const CRED = 'spec: Authentication, Signed requests (credentials held by the caller)';
const PEM_ENDPOINT = 'spec: Endpoints, 5. Public key for webhook verification';

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
  const seedBytes = Buffer.from(seed, 'base64');
  const A = APP_A.key;
  const cases: VectorCase[] = [
    // Ed25519 private keys: the forms the spec names.
    keyCase(keys, {
      id: 'parse-private-seed-base64',
      description: 'The base64 32-byte seed.',
      source: CRED,
      result: 'valid',
      flags: ['Seed'],
      input: { keyType: 'ed25519-private', text: seed },
      expectKey: A,
    }),
    keyCase(keys, {
      id: 'parse-private-pkcs8-pem',
      description: 'A PKCS#8 PEM ("-----BEGIN PRIVATE KEY-----").',
      source: CRED,
      result: 'valid',
      flags: ['Pkcs8'],
      input: { keyType: 'ed25519-private', text: a.private['pkcs8-pem'] },
      expectKey: A,
    }),
    keyCase(keys, {
      id: 'parse-private-pkcs8-der-bytes',
      description: 'PKCS#8 DER bytes (48 bytes; the seed is the last 32).',
      source: CRED,
      result: 'valid',
      flags: ['Pkcs8'],
      input: { keyType: 'ed25519-private', bytesBase64: a.private['pkcs8-der-base64'] },
      expectKey: A,
    }),
    keyCase(keys, {
      id: 'parse-private-seed-bytes',
      description: 'The 32 seed bytes themselves (binary input).',
      source: CRED,
      result: 'valid',
      flags: ['Seed'],
      input: { keyType: 'ed25519-private', bytesBase64: seed },
      expectKey: A,
    }),
    keyCase(keys, {
      id: 'parse-private-seed-trailing-newline',
      description: 'The base64 seed followed by a newline, as read from a file.',
      source: CRED,
      result: 'acceptable',
      flags: ['Seed', 'OuterWhitespace'],
      input: { keyType: 'ed25519-private', text: `${seed}\n` },
    }),
    keyCase(keys, {
      id: 'parse-private-pkcs8-der-base64-text',
      description: 'The base64 of the PKCS#8 DER without PEM lines.',
      source: CRED,
      result: 'acceptable',
      flags: ['Pkcs8', 'Convenience'],
      input: { keyType: 'ed25519-private', text: a.private['pkcs8-der-base64'] },
    }),
    // Ed25519 private keys: misuse.
    keyCase(keys, {
      id: 'parse-private-seed-base64url',
      description: 'The seed in base64url (one "+" or "/" replaced by "-" or "_").',
      source: CRED,
      result: 'invalid',
      flags: ['StrictBase64'],
      code: 'KEY_FORMAT_INVALID',
      input: { keyType: 'ed25519-private', text: base64url32() },
    }),
    keyCase(keys, {
      id: 'parse-private-seed-inner-space',
      description: 'The base64 seed with a space in the middle.',
      source: CRED,
      result: 'invalid',
      flags: ['StrictBase64'],
      code: 'KEY_FORMAT_INVALID',
      input: { keyType: 'ed25519-private', text: `${seed.slice(0, 20)} ${seed.slice(20)}` },
    }),
    keyCase(keys, {
      id: 'parse-private-seed-missing-padding',
      description: 'The base64 seed without its "=" padding.',
      source: CRED,
      result: 'invalid',
      flags: ['StrictBase64'],
      code: 'KEY_FORMAT_INVALID',
      input: { keyType: 'ed25519-private', text: seed.replace(/=+$/, '') },
    }),
    keyCase(keys, {
      id: 'parse-private-seed-over-padded',
      description: 'The base64 seed with one "=" too many.',
      source: CRED,
      result: 'invalid',
      flags: ['StrictBase64'],
      code: 'KEY_FORMAT_INVALID',
      input: { keyType: 'ed25519-private', text: `${seed}=` },
    }),
    keyCase(keys, {
      id: 'parse-private-seed-31-bytes',
      description: 'Base64 of 31 bytes.',
      source: CRED,
      result: 'invalid',
      flags: ['WrongLength'],
      code: 'KEY_FORMAT_INVALID',
      input: { keyType: 'ed25519-private', text: base64(seedBytes.subarray(0, 31)) },
    }),
    keyCase(keys, {
      id: 'parse-private-seed-33-bytes',
      description: 'Base64 of 33 bytes.',
      source: CRED,
      result: 'invalid',
      flags: ['WrongLength'],
      code: 'KEY_FORMAT_INVALID',
      input: {
        keyType: 'ed25519-private',
        text: base64(Buffer.concat([seedBytes, Buffer.from([0])])),
      },
    }),
    keyCase(keys, {
      id: 'parse-private-libsodium-64-bytes',
      description: 'The 64-byte libsodium secret key (seed followed by public key).',
      source: CRED,
      result: 'invalid',
      flags: ['WrongLength'],
      code: 'KEY_FORMAT_INVALID',
      input: {
        keyType: 'ed25519-private',
        text: base64(Buffer.concat([seedBytes, Buffer.from(a.public['raw-base64'], 'base64')])),
      },
    }),
    keyCase(keys, {
      id: 'parse-private-empty',
      description: 'An empty value.',
      source: CRED,
      result: 'invalid',
      flags: ['Empty'],
      code: 'KEY_FORMAT_INVALID',
      input: { keyType: 'ed25519-private', text: '' },
    }),
    keyCase(keys, {
      id: 'parse-private-rsa-pkcs8-pem',
      description: 'An RSA PKCS#8 PEM where an Ed25519 private key is expected.',
      source: CRED,
      result: 'invalid',
      flags: ['WrongKeyType'],
      code: 'KEY_TYPE_UNSUPPORTED',
      input: { keyType: 'ed25519-private', text: rsa.private['pkcs8-pem'] },
    }),
    keyCase(keys, {
      id: 'parse-private-public-pem-given',
      description: 'An SPKI public key PEM where a private key is expected.',
      source: CRED,
      result: 'invalid',
      flags: ['PrivateForPublic'],
      code: 'KEY_FORMAT_INVALID',
      input: { keyType: 'ed25519-private', text: a.public['spki-pem'] },
    }),
    // Ed25519 public keys.
    keyCase(keys, {
      id: 'parse-public-raw-base64',
      description: 'The raw 32-byte public key in base64.',
      source: 'spec: Authentication, step 7 (resolve the public key)',
      result: 'valid',
      flags: ['RawPublicKey'],
      input: { keyType: 'ed25519-public', text: a.public['raw-base64'] },
      expectKey: A,
    }),
    keyCase(keys, {
      id: 'parse-public-spki-pem',
      description: 'An SPKI PEM ("-----BEGIN PUBLIC KEY-----").',
      source: 'spec: Authentication, step 7',
      result: 'valid',
      flags: ['Spki'],
      input: { keyType: 'ed25519-public', text: a.public['spki-pem'] },
      expectKey: A,
    }),
    keyCase(keys, {
      id: 'parse-public-spki-der-bytes',
      description: 'SPKI DER bytes (44 bytes).',
      source: 'spec: Authentication, step 7',
      result: 'valid',
      flags: ['Spki'],
      input: { keyType: 'ed25519-public', bytesBase64: a.public['spki-der-base64'] },
      expectKey: A,
    }),
    keyCase(keys, {
      id: 'parse-public-trimmed-pem',
      description: 'The SPKI PEM body without BEGIN/END lines.',
      source: PEM_ENDPOINT,
      result: 'valid',
      flags: ['TrimmedPem'],
      input: { keyType: 'ed25519-public', text: a.public['trimmed-pem'] },
      expectKey: A,
    }),
    keyCase(keys, {
      id: 'parse-public-private-pem-given',
      description: 'A PKCS#8 private key PEM handed to a verifier.',
      source: 'spec: Authentication, other rules (private keys never distributed)',
      result: 'invalid',
      flags: ['PrivateForPublic'],
      code: 'KEY_FORMAT_INVALID',
      input: { keyType: 'ed25519-public', text: a.private['pkcs8-pem'] },
    }),
    keyCase(keys, {
      id: 'parse-public-rsa-spki',
      description: 'An RSA SPKI PEM where an Ed25519 public key is expected.',
      source: 'spec: Authentication, algorithms (Ed25519)',
      result: 'invalid',
      flags: ['WrongKeyType'],
      code: 'KEY_TYPE_UNSUPPORTED',
      input: { keyType: 'ed25519-public', text: rsa.public['spki-pem'] },
    }),
    keyCase(keys, {
      id: 'parse-public-33-bytes',
      description: 'Base64 of 33 bytes.',
      source: 'spec: Authentication, step 7',
      result: 'invalid',
      flags: ['WrongLength'],
      code: 'KEY_FORMAT_INVALID',
      input: {
        keyType: 'ed25519-public',
        text: base64(
          Buffer.concat([Buffer.from(a.public['raw-base64'], 'base64'), Buffer.from([1])]),
        ),
      },
    }),
    // RSA public keys for webhooks.
    keyCase(keys, {
      id: 'parse-rsa-trimmed-pem',
      description:
        'The webhook key as the service serves it: SPKI PEM body, 64-character lines, no BEGIN/END lines.',
      source: PEM_ENDPOINT,
      result: 'valid',
      flags: ['TrimmedPem'],
      input: { keyType: 'rsa-public', text: rsa.public['trimmed-pem'] },
      expectKey: 'webhook-rsa',
    }),
    keyCase(keys, {
      id: 'parse-rsa-trimmed-pem-single-line',
      description: 'The trimmed PEM body on one line (line breaks removed).',
      source: PEM_ENDPOINT,
      result: 'valid',
      flags: ['TrimmedPem'],
      input: { keyType: 'rsa-public', text: rsa.public['trimmed-pem'].replace(/\n/g, '') },
      expectKey: 'webhook-rsa',
    }),
    keyCase(keys, {
      id: 'parse-rsa-spki-pem',
      description: 'The full SPKI PEM with BEGIN/END lines.',
      source: PEM_ENDPOINT,
      result: 'valid',
      flags: ['Spki'],
      input: { keyType: 'rsa-public', text: rsa.public['spki-pem'] },
      expectKey: 'webhook-rsa',
    }),
    keyCase(keys, {
      id: 'parse-rsa-spki-der-bytes',
      description: 'SPKI DER bytes.',
      source: PEM_ENDPOINT,
      result: 'valid',
      flags: ['Spki'],
      input: { keyType: 'rsa-public', bytesBase64: rsa.public['spki-der-base64'] },
      expectKey: 'webhook-rsa',
    }),
    keyCase(keys, {
      id: 'parse-rsa-ed25519-key',
      description: 'An Ed25519 SPKI PEM where the RSA webhook key is expected.',
      source: 'spec: Webhook authentication (SHA256withRSA)',
      result: 'invalid',
      flags: ['WrongKeyType'],
      code: 'KEY_TYPE_UNSUPPORTED',
      input: { keyType: 'rsa-public', text: a.public['spki-pem'] },
    }),
    keyCase(keys, {
      id: 'parse-rsa-trimmed-pem-base64url',
      description: 'The trimmed PEM body with "+" and "/" turned into base64url characters.',
      source: PEM_ENDPOINT,
      result: 'invalid',
      flags: ['StrictBase64'],
      code: 'KEY_FORMAT_INVALID',
      input: {
        keyType: 'rsa-public',
        text: rsa.public['trimmed-pem'].replace(/\+/g, '-').replace(/\//g, '_'),
      },
    }),
    keyCase(keys, {
      id: 'parse-rsa-private-pem-given',
      description: 'The RSA private key PEM handed to a webhook receiver.',
      source: PEM_ENDPOINT,
      result: 'invalid',
      flags: ['PrivateForPublic'],
      code: 'KEY_FORMAT_INVALID',
      input: { keyType: 'rsa-public', text: rsa.private['pkcs8-pem'] },
    }),
    keyCase(keys, {
      id: 'parse-rsa-empty',
      description: 'An empty value (for example an empty response from the public-key endpoint).',
      source: PEM_ENDPOINT,
      result: 'invalid',
      flags: ['Empty'],
      code: 'KEY_FORMAT_INVALID',
      input: { keyType: 'rsa-public', text: '' },
    }),
  ];
  return vectorFile(
    'key-parsing',
    'Key parsing: Ed25519 request-signing keys and the RSA webhook key',
    'Input: the key type expected and either `text` (what a person pastes or an environment variable holds) or `bytesBase64` (binary input such as a DER file). Output: the public key the input stands for (Ed25519: raw 32 bytes in base64; RSA: SPKI DER in base64), or the error code.',
    notes,
    cases,
  );

  /** 32 bytes whose base64 contains "+" or "/", re-written in base64url (the seed itself may contain neither). */
  function base64url32(): string {
    const bytes = Uint8Array.from({ length: 32 }, (_, i) =>
      i === 0 ? 0xfb : i === 1 ? 0xff : (i * 37) & 0xff,
    );
    return base64(bytes).replace(/\+/g, '-').replace(/\//g, '_');
  }
}
