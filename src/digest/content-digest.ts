// RFC 9530 Content-Digest: create, parse and verify against the exact content bytes (never re-serialised).
import * as nodeCrypto from 'node:crypto';
import { serializeDictionary, type Dictionary } from 'structured-headers';
import {
  CANONICAL_BYTE_SEQUENCE_MEMBER,
  decodeCanonicalBase64,
  isByteSequence,
  isByteSequenceWrittenCanonically,
  isInnerList,
  parseSfDictionary,
} from '../structured-fields/structured-fields.js';

/** The Active algorithms of the RFC 9530 §7.2 registry; the deprecated ones are never used for integrity. */
export type DigestAlgorithm = 'sha-512' | 'sha-256';

const DIGEST_LENGTH: Readonly<Record<DigestAlgorithm, number>> = { 'sha-512': 64, 'sha-256': 32 };
const NODE_HASH: Readonly<Record<DigestAlgorithm, string>> = {
  'sha-512': 'sha512',
  'sha-256': 'sha256',
};

/** More members than this is treated as malformed (RFC 9530 §6.6: resource exhaustion). */
export const MAX_DIGEST_MEMBERS = 16;

/** True for a digest algorithm this library computes (`sha-512`, `sha-256`). */
export function isDigestAlgorithm(name: string): name is DigestAlgorithm {
  return name === 'sha-512' || name === 'sha-256';
}

// crypto.hash (Node >= 20.12) is a one-shot digest without a Hash object; fall back to createHash.
type OneShotHash = ((alg: string, data: Uint8Array | string, enc: 'buffer') => Buffer) &
  ((alg: string, data: Uint8Array | string, enc: 'base64') => string);
const oneShotHash = (nodeCrypto as { hash?: OneShotHash }).hash;

/** The raw digest of `body` with one algorithm. */
export function digestBytes(body: Uint8Array, algorithm: DigestAlgorithm): Uint8Array {
  return oneShotHash
    ? oneShotHash(NODE_HASH[algorithm], body, 'buffer')
    : nodeCrypto.createHash(NODE_HASH[algorithm]).update(body).digest();
}

/** The digest of `body` as padded standard base64 (the text between the colons of a canonical byte sequence). */
export function digestBase64(body: Uint8Array, algorithm: DigestAlgorithm): string {
  return oneShotHash
    ? oneShotHash(NODE_HASH[algorithm], body, 'base64')
    : nodeCrypto.createHash(NODE_HASH[algorithm]).update(body).digest('base64');
}

/** The digest of `text`'s UTF-8 bytes (the same bytes TextEncoder gives), without an intermediate copy. */
export function digestText(text: string, algorithm: DigestAlgorithm): Uint8Array {
  return oneShotHash
    ? oneShotHash(NODE_HASH[algorithm], text, 'buffer')
    : nodeCrypto.createHash(NODE_HASH[algorithm]).update(text, 'utf8').digest();
}

/**
 * The Content-Digest field value for `body`, e.g. `sha-512=:...:`, members in the order given.
 * @example
 * computeContentDigest(new TextEncoder().encode('{"hello": "world"}')); // 'sha-512=:WZDPaVn…:'
 */
export function computeContentDigest(
  body: Uint8Array,
  algorithms: readonly DigestAlgorithm[] = ['sha-512'],
): string {
  if (!(body instanceof Uint8Array)) throw new TypeError('body must be a Uint8Array');
  if (algorithms.length === 0) throw new TypeError('at least one digest algorithm is required');
  const members: Dictionary = new Map();
  for (const algorithm of algorithms) {
    if (!isDigestAlgorithm(algorithm))
      throw new TypeError(`unsupported digest algorithm "${String(algorithm)}"`);
    members.set(algorithm, [digestBytes(body, algorithm), new Map()]);
  }
  return serializeDictionary(members);
}

/** Why a Content-Digest was refused (RFC 9530). */
export type ContentDigestErrorCode =
  'DIGEST_MALFORMED' | 'DIGEST_ALGORITHM_UNSUPPORTED' | 'DIGEST_MISMATCH';

/** A parsed Content-Digest field: each algorithm's digest bytes, or why it does not parse. */
export type ParseContentDigestResult =
  | {
      readonly ok: true;
      /** Every byte-sequence member in received order, known algorithm or not (keys are lowercase by RFC 8941). */
      readonly digests: ReadonlyMap<string, Uint8Array>;
    }
  | {
      readonly ok: false;
      readonly code: 'DIGEST_MALFORMED';
      readonly message: string;
      /** Set where an RFC 8941 parser reads the value all the same: a byte sequence without its "=" padding. */
      readonly problem?: 'digest-unpadded';
    };

/**
 * Parses a Content-Digest Dictionary. Malformed: not a Dictionary, a duplicate key, more than
 * MAX_DIGEST_MEMBERS members, a member that is not a byte sequence, or a known algorithm with the wrong length.
 */
export function parseContentDigest(
  value: string,
  options: { readonly fastPath?: boolean } = {},
): ParseContentDigestResult {
  // Fast path for the canonical one-member form (`sha-512=:<padded base64>:`); anything else takes the general
  // parser. The result is identical to the general path (a property test checks this).
  const single = options.fastPath === false ? null : CANONICAL_BYTE_SEQUENCE_MEMBER.exec(value);
  if (single) {
    const bytes = decodeCanonicalBase64(single[2]!);
    const key = single[1]!;
    if (!isDigestAlgorithm(key) || bytes.length === DIGEST_LENGTH[key]) {
      return { ok: true, digests: new Map([[key, bytes]]) };
    }
  }
  const parsed = parseSfDictionary(value);
  if (!parsed.ok)
    return { ok: false, code: 'DIGEST_MALFORMED', message: `Content-Digest: ${parsed.message}` };
  if (parsed.value.size === 0)
    return { ok: false, code: 'DIGEST_MALFORMED', message: 'Content-Digest is empty' };
  if (parsed.value.size > MAX_DIGEST_MEMBERS) {
    return {
      ok: false,
      code: 'DIGEST_MALFORMED',
      message: `Content-Digest has more than ${MAX_DIGEST_MEMBERS} members`,
    };
  }
  const digests = new Map<string, Uint8Array>();
  for (const [key, member] of parsed.value) {
    if (isInnerList(member) || !isByteSequence(member[0])) {
      return {
        ok: false,
        code: 'DIGEST_MALFORMED',
        message: `Content-Digest member "${key}" is not a byte sequence`,
      };
    }
    const bytes = new Uint8Array(member[0]);
    if (isDigestAlgorithm(key) && bytes.length !== DIGEST_LENGTH[key]) {
      return {
        ok: false,
        code: 'DIGEST_MALFORMED',
        message: `Content-Digest member "${key}" has ${bytes.length} bytes, expected ${DIGEST_LENGTH[key]}`,
      };
    }
    if (!isByteSequenceWrittenCanonically(value, bytes)) {
      return {
        ok: false,
        code: 'DIGEST_MALFORMED',
        message: `Content-Digest member "${key}" is not padded standard base64`,
        problem: 'digest-unpadded',
      };
    }
    digests.set(key, bytes);
  }
  return { ok: true, digests };
}

/** The algorithms whose digest matched the body, or why the Content-Digest does not hold. */
export type VerifyContentDigestResult =
  | { readonly ok: true; readonly algorithms: readonly DigestAlgorithm[] }
  | {
      readonly ok: false;
      readonly code: ContentDigestErrorCode;
      readonly message: string;
      readonly problem?: 'digest-unpadded';
    };

/** `sha-256=:`: what a canonical one-member value starts with, per algorithm. */
const CANONICAL_PREFIX: Readonly<Record<DigestAlgorithm, string>> = {
  'sha-512': 'sha-512=:',
  'sha-256': 'sha-256=:',
};
/** The fast path's answers, shared (results are read-only). */
const VERIFIED: Readonly<Record<DigestAlgorithm, VerifyContentDigestResult>> = {
  'sha-512': Object.freeze({ ok: true, algorithms: Object.freeze(['sha-512'] as const) }),
  'sha-256': Object.freeze({ ok: true, algorithms: Object.freeze(['sha-256'] as const) }),
};

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

/**
 * Verifies a Content-Digest value against the exact body bytes. Members with algorithms outside `accept` are
 * ignored (RFC 9530 §2); at least one accepted algorithm must be present, and every accepted one must match.
 * @example
 * const result = verifyContentDigest(contentDigestHeaderValue, rawBody);
 * if (!result.ok) console.log(result.code);
 */
export function verifyContentDigest(
  value: string,
  body: Uint8Array,
  options: {
    readonly accept?: readonly DigestAlgorithm[];
    /** Default true; false forces the general parser (for tests). */ readonly fastPath?: boolean;
  } = {},
): VerifyContentDigestResult {
  const accept = options.accept ?? ['sha-512'];
  // Fast path: one accepted algorithm and the value is exactly its canonical member for this body (what a conforming
  // signer sends). The general path gives the same result for that string; anything else goes through it.
  if (accept.length === 1 && options.fastPath !== false) {
    const algorithm = accept[0]!;
    const prefix = isDigestAlgorithm(algorithm) ? CANONICAL_PREFIX[algorithm] : undefined;
    if (prefix !== undefined && value.startsWith(prefix)) {
      const expected = digestBase64(body, algorithm);
      if (
        value.length === prefix.length + expected.length + 1 &&
        value.charCodeAt(value.length - 1) === 0x3a &&
        value.slice(prefix.length, -1) === expected
      ) {
        return VERIFIED[algorithm];
      }
    }
  }
  const parsed = parseContentDigest(value);
  if (!parsed.ok) return parsed;
  const checked: DigestAlgorithm[] = [];
  for (const algorithm of accept) {
    const expected = parsed.digests.get(algorithm);
    if (expected === undefined) continue;
    if (!equalBytes(digestBytes(body, algorithm), expected)) {
      return {
        ok: false,
        code: 'DIGEST_MISMATCH',
        message: `Content-Digest "${algorithm}" does not match the body`,
      };
    }
    checked.push(algorithm);
  }
  if (checked.length === 0) {
    const found = [...parsed.digests.keys()].map((k) => `"${k}"`).join(', ');
    return {
      ok: false,
      code: 'DIGEST_ALGORITHM_UNSUPPORTED',
      message: `Content-Digest has no accepted algorithm (accepted: ${accept.join(', ')}; found: ${found})`,
    };
  }
  return { ok: true, algorithms: checked };
}
