// vectors/content-digest.json: RFC 9530 Content-Digest as the profile uses it (sha-512 over the exact body bytes).
import {
  computeContentDigest,
  verifyContentDigest,
  type DigestAlgorithm,
} from '../../src/digest/content-digest.js';
import type { DigestInput, FlagNote, VectorCase, VectorFile, VectorResult } from '../format.js';
import { bodyBytesOf, check, checkDeclared, utf8, vectorFile, wireBody } from './common.js';

/** The payout body the request vectors also use (spec: Endpoints, 1. Create payout). */
export const PAYOUT_BODY_SPACED =
  '{"applicationId": "3f1c9a52-7b4e-4d21-9c8a-5e6f7a8b9c0d", "payInAccountSelector": "main-gbp", "amount": 125.5, "reference": "INV-2026-0042", "destination": {"destinationType": "toAccount", "accountType": "SCAN", "holderName": "Jane Example", "accountNumber": "12345678", "sortCode": "040004", "iban": null}, "doNotCommitOnCoPMismatch": true}';
/** The same JSON value re-serialised without spaces (what a framework's JSON.stringify would send). */
export const PAYOUT_BODY_COMPACT = JSON.stringify(JSON.parse(PAYOUT_BODY_SPACED));

export const NON_ASCII_BODY =
  '{"reference": "Zoë’s café £12.50", "destination": {"holderName": "Łukasz Żółć", "accountNumber": "12345678", "sortCode": "040004"}, "note": "日本語 ✓"}';

const notes: Record<string, FlagNote> = {
  Baseline: {
    description:
      'The plain, expected use: sha-512 over the exact body bytes (spec: Authentication, step 1).',
  },
  EmptyBody: {
    description: 'An empty body still has a digest: the hash of zero bytes.',
    effect: 'Skipping the digest, or hashing "null"/"{}", breaks every bodyless-POST signature.',
  },
  NonAscii: {
    description: 'The body holds non-ASCII UTF-8; the digest covers its UTF-8 bytes.',
    effect: 'Hashing UTF-16 code units or a Latin-1 re-encoding gives another digest.',
  },
  BinaryBody: {
    description: 'The body is not valid UTF-8 (sent as bodyBase64).',
    effect: 'Decoding the body as text before hashing replaces bytes and changes the digest.',
  },
  ExactBytes: {
    description:
      'The same JSON value in other bytes (re-serialised, a trailing newline): the digest differs.',
    effect: 'Verifying over a re-serialised body rejects honest requests or accepts altered ones.',
  },
  AlgorithmPolicy: {
    description:
      'The profile accepts sha-512 only; other members are ignored, and a header with no sha-512 member is rejected.',
    effect: 'Accepting sha-256 alone (or an unknown algorithm) weakens the profile.',
  },
  Syntax: {
    description:
      'The Content-Digest value is not a valid RFC 8941 Dictionary of byte sequences (uppercase key, base64url, duplicate key, wrong length, empty).',
    effect:
      'A lax parser may accept a digest that another implementation rejects, or compare the wrong member.',
  },
  Base64Padding: {
    description:
      'RFC 8941 §4.2.7: parsers SHOULD accept a byte sequence without padding; this toolkit requires padded standard base64. Either answer conforms.',
  },
  MultipleMembers: {
    description:
      'More than one digest member: RFC 9530 §2 lets a recipient check any supported one; this toolkit checks only sha-512 and ignores the rest.',
  },
  Generic: {
    description:
      'Computes a digest with an algorithm the profile does not send (sha-256), for implementations that expose RFC 9530 generally.',
  },
};

export interface DigestCaseSpec {
  readonly id: string;
  readonly description: string;
  readonly source: string;
  readonly result: VectorResult;
  readonly flags: readonly string[];
  readonly comment?: string;
  readonly input: DigestInput;
  /** The intended code for an invalid case: the generator fails when the library disagrees. */
  readonly code?: string;
}

/** Builds a digest case: the library computes the expected output; the declared intent is checked against it. */
export function digestCase(spec: DigestCaseSpec): VectorCase {
  const body = bodyBytesOf(spec.input);
  const { id } = spec;
  const base = {
    id,
    op: 'digest' as const,
    description: spec.description,
    source: spec.source,
    result: spec.result,
    flags: spec.flags,
    ...(spec.comment ? { comment: spec.comment } : {}),
  };
  if (spec.input.mode === 'compute') {
    check(spec.result === 'valid', id, 'a compute case is always valid');
    return {
      ...base,
      input: spec.input,
      expected: { contentDigest: computeContentDigest(body, [spec.input.algorithm]) },
    };
  }
  const outcome = verifyContentDigest(spec.input.contentDigest, body, {
    accept: spec.input.algorithms as DigestAlgorithm[],
  });
  checkDeclared(id, spec.result, outcome, spec.code);
  return {
    ...base,
    input: spec.input,
    expected: outcome.ok ? { valid: true } : { valid: false, code: outcome.code },
  };
}

const S1 = 'spec: Authentication, Signed requests, step 1 (content digest)';
const RFC = 'RFC 9530 §2, RFC 8941 §3.2 (Dictionary), §3.3.5 (Byte Sequence)';

const sha512Of = (text: string | Uint8Array): string =>
  computeContentDigest(typeof text === 'string' ? utf8(text) : text, ['sha-512']);
const sha256Of = (text: string): string => computeContentDigest(utf8(text), ['sha-256']);
const goodPayout = sha512Of(PAYOUT_BODY_SPACED);
const binary = Uint8Array.from([0x00, 0xff, 0xfe, 0x80, 0x0a, 0x7b, 0x22, 0xc3, 0x28]);
const profile = ['sha-512'];

/** The Content-Digest cases, in file order (spec: Signed requests, step 1: Content-Digest; RFC 9530). */
const DIGEST_CASES: readonly DigestCaseSpec[] = [
  {
    id: 'digest-sha512-payout-body',
    description: 'sha-512 of a payout JSON body, exactly as sent (with its spaces).',
    source: S1,
    result: 'valid',
    flags: ['Baseline'],
    input: { mode: 'compute', algorithm: 'sha-512', ...wireBody(PAYOUT_BODY_SPACED) },
  },
  {
    id: 'digest-sha512-payout-body-compact',
    description: 'sha-512 of the same JSON value serialised without spaces: another digest.',
    source: S1,
    result: 'valid',
    flags: ['ExactBytes'],
    input: { mode: 'compute', algorithm: 'sha-512', ...wireBody(PAYOUT_BODY_COMPACT) },
  },
  {
    id: 'digest-sha512-empty-body',
    description: 'sha-512 of the empty body.',
    source: S1,
    result: 'valid',
    flags: ['EmptyBody'],
    input: { mode: 'compute', algorithm: 'sha-512', ...wireBody('') },
  },
  {
    id: 'digest-sha512-non-ascii-body',
    description: 'sha-512 over the UTF-8 bytes of a body with non-ASCII characters.',
    source: S1,
    result: 'valid',
    flags: ['NonAscii'],
    input: { mode: 'compute', algorithm: 'sha-512', ...wireBody(NON_ASCII_BODY) },
  },
  {
    id: 'digest-sha512-binary-body',
    description: 'sha-512 of bytes that are not UTF-8.',
    source: S1,
    result: 'valid',
    flags: ['BinaryBody'],
    input: { mode: 'compute', algorithm: 'sha-512', ...wireBody(binary) },
  },
  {
    id: 'digest-sha512-trailing-newline',
    description: 'sha-512 of the payout body followed by LF: differs from the body without it.',
    source: S1,
    result: 'valid',
    flags: ['ExactBytes'],
    input: { mode: 'compute', algorithm: 'sha-512', ...wireBody(`${PAYOUT_BODY_SPACED}\n`) },
  },
  {
    id: 'digest-sha256-payout-body',
    description: 'sha-256 of the payout body (RFC 9530 generally; the profile sends sha-512).',
    source: 'RFC 9530 §2, §7.2',
    result: 'valid',
    flags: ['Generic'],
    input: { mode: 'compute', algorithm: 'sha-256', ...wireBody(PAYOUT_BODY_SPACED) },
  },

  {
    id: 'digest-verify-sha512-match',
    description: 'The sha-512 member matches the body.',
    source: S1,
    result: 'valid',
    flags: ['Baseline'],
    input: {
      mode: 'verify',
      contentDigest: goodPayout,
      algorithms: profile,
      ...wireBody(PAYOUT_BODY_SPACED),
    },
  },
  {
    id: 'digest-verify-empty-body-match',
    description: 'The digest of the empty body verifies an empty body.',
    source: S1,
    result: 'valid',
    flags: ['EmptyBody'],
    input: { mode: 'verify', contentDigest: sha512Of(''), algorithms: profile, ...wireBody('') },
  },
  {
    id: 'digest-verify-body-changed',
    description: 'One character of the body changed after the digest was computed.',
    source: S1,
    result: 'invalid',
    flags: ['Baseline'],
    code: 'DIGEST_MISMATCH',
    input: {
      mode: 'verify',
      contentDigest: goodPayout,
      algorithms: profile,
      ...wireBody(PAYOUT_BODY_SPACED.replace('125.5', '725.5')),
    },
  },
  {
    id: 'digest-verify-reserialised-json',
    description:
      'Digest of the spaced JSON, body re-serialised without spaces (same JSON value, other bytes).',
    source: S1,
    result: 'invalid',
    flags: ['ExactBytes'],
    code: 'DIGEST_MISMATCH',
    input: {
      mode: 'verify',
      contentDigest: goodPayout,
      algorithms: profile,
      ...wireBody(PAYOUT_BODY_COMPACT),
    },
  },
  {
    id: 'digest-verify-trailing-newline-added',
    description: 'A trailing LF was added to the body after the digest was computed.',
    source: S1,
    result: 'invalid',
    flags: ['ExactBytes'],
    code: 'DIGEST_MISMATCH',
    input: {
      mode: 'verify',
      contentDigest: goodPayout,
      algorithms: profile,
      ...wireBody(`${PAYOUT_BODY_SPACED}\n`),
    },
  },
  {
    id: 'digest-verify-sha256-only',
    description: 'Only a (correct) sha-256 member: the profile requires sha-512.',
    source: `${S1}; spec: Algorithms (hash SHA-512)`,
    result: 'invalid',
    flags: ['AlgorithmPolicy'],
    code: 'DIGEST_ALGORITHM_UNSUPPORTED',
    input: {
      mode: 'verify',
      contentDigest: sha256Of(PAYOUT_BODY_SPACED),
      algorithms: profile,
      ...wireBody(PAYOUT_BODY_SPACED),
    },
  },
  {
    id: 'digest-verify-unknown-algorithm-only',
    description: 'Only an md5 member (deprecated, RFC 9530 §7.2): no accepted algorithm.',
    source: 'RFC 9530 §7.2; spec: Algorithms',
    result: 'invalid',
    flags: ['AlgorithmPolicy'],
    code: 'DIGEST_ALGORITHM_UNSUPPORTED',
    input: {
      mode: 'verify',
      contentDigest: 'md5=:Sd/dVLAcvNLSq16eXua5uQ==:',
      algorithms: profile,
      ...wireBody('{"hello": "world"}'),
    },
  },
  {
    id: 'digest-verify-sha512-with-wrong-sha256-member',
    description:
      'A correct sha-512 member next to a wrong sha-256 member: the profile checks sha-512 only.',
    source: 'RFC 9530 §2 (several members)',
    result: 'acceptable',
    flags: ['MultipleMembers'],
    input: {
      mode: 'verify',
      contentDigest: `sha-256=:${'A'.repeat(43)}=:, ${goodPayout}`,
      algorithms: profile,
      ...wireBody(PAYOUT_BODY_SPACED),
    },
  },
  {
    id: 'digest-verify-uppercase-algorithm-key',
    description:
      'The algorithm key is written "SHA-512": RFC 8941 keys are lowercase, so the field does not parse.',
    source: RFC,
    result: 'invalid',
    flags: ['Syntax'],
    code: 'DIGEST_MALFORMED',
    input: {
      mode: 'verify',
      contentDigest: goodPayout.replace('sha-512', 'SHA-512'),
      algorithms: profile,
      ...wireBody(PAYOUT_BODY_SPACED),
    },
  },
  {
    id: 'digest-verify-base64url-value',
    description:
      'The digest is written in base64url ("-" and "_"), which is not an RFC 8941 byte sequence.',
    source: RFC,
    result: 'invalid',
    flags: ['Syntax'],
    code: 'DIGEST_MALFORMED',
    input: {
      mode: 'verify',
      contentDigest: computeContentDigest(utf8('{"k": "v?>"}'), ['sha-512'])
        .replace(/\+/g, '-')
        .replace(/\//g, '_'),
      algorithms: profile,
      ...wireBody('{"k": "v?>"}'),
    },
  },
  {
    id: 'digest-verify-duplicate-member',
    description:
      'Two sha-512 members (the first correct): a duplicate Dictionary key is rejected, not "last wins".',
    source: RFC,
    result: 'invalid',
    flags: ['Syntax'],
    code: 'DIGEST_MALFORMED',
    input: {
      mode: 'verify',
      contentDigest: `${goodPayout}, ${sha512Of('other')}`,
      algorithms: profile,
      ...wireBody(PAYOUT_BODY_SPACED),
    },
  },
  {
    id: 'digest-verify-truncated-digest',
    description: 'A sha-512 member of 63 bytes.',
    source: RFC,
    result: 'invalid',
    flags: ['Syntax'],
    code: 'DIGEST_MALFORMED',
    input: {
      mode: 'verify',
      contentDigest: `sha-512=:${Buffer.alloc(63, 7).toString('base64')}:`,
      algorithms: profile,
      ...wireBody(PAYOUT_BODY_SPACED),
    },
  },
  {
    id: 'digest-verify-token-not-byte-sequence',
    description: 'The member is a token, not a byte sequence.',
    source: RFC,
    result: 'invalid',
    flags: ['Syntax'],
    code: 'DIGEST_MALFORMED',
    input: {
      mode: 'verify',
      contentDigest: 'sha-512=abc',
      algorithms: profile,
      ...wireBody(PAYOUT_BODY_SPACED),
    },
  },
  {
    id: 'digest-verify-empty-value',
    description: 'The Content-Digest value is empty.',
    source: RFC,
    result: 'invalid',
    flags: ['Syntax'],
    code: 'DIGEST_MALFORMED',
    input: {
      mode: 'verify',
      contentDigest: '',
      algorithms: profile,
      ...wireBody(PAYOUT_BODY_SPACED),
    },
  },
  {
    id: 'digest-verify-missing-padding',
    description: 'The correct digest written without its "==" padding.',
    source: 'RFC 8941 §4.2.7',
    result: 'acceptable',
    flags: ['Base64Padding'],
    input: {
      mode: 'verify',
      contentDigest: goodPayout.replace('==:', ':'),
      algorithms: profile,
      ...wireBody(PAYOUT_BODY_SPACED),
    },
  },
];

export function buildContentDigestFile(): VectorFile {
  const cases = DIGEST_CASES.map(digestCase);
  return vectorFile(
    'content-digest',
    'Content-Digest (RFC 9530) as the service profile uses it',
    'Compute: the Content-Digest field value for a body. Verify: whether a received Content-Digest value matches the body bytes under an accepted-algorithm list (the profile: ["sha-512"]).',
    notes,
    cases,
  );
}
