// vectors/key-parsing.json: every key form the spec names (seed, PKCS#8 PEM/DER, trimmed-PEM public key) and its misuses.
import { PayconformError } from '../../src/errors.js';
import {
  exportEd25519PublicKeyBase64,
  parseEd25519PrivateKey,
  parseEd25519PublicKey,
} from '../../src/keys/index.js';
import { parseRsaPublicKey } from '../../src/webhooks/index.js';
import type { FlagNote, KeysFile, ParseKeyInput, VectorCase, VectorFile } from '../format.js';
import { base64, check, checkDeclared, vectorFile } from './common.js';
import { APP_A } from './keys.js';
import { type KeyMaterial, type KeyCaseRow, KEY_CASES } from './key-parsing-cases.js';

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
