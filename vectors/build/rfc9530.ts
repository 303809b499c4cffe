// vectors/rfc/rfc9530.json: the published RFC 9530 Content-Digest examples, verbatim, with their known defects. The
// published strings are written here literally; the generator stops if the library's output differs from them.
import type { FlagNote, VectorCase, VectorFile } from '../format.js';
import { check, utf8, vectorFile, wireBody } from './common.js';
import { digestCase, type DigestCaseSpec } from './content-digest.js';
import { HELLO } from './rfc.js';

const HELLO_LF = `${HELLO}\n`;
const S2_SHA512 =
  'sha-512=:YMAam51Jz/jOATT6/zvHrLVgOYTGFy1d6GJiOHTohq4yP+pgk4vf2aCsyRZOtw8MjkM7iw7yZ/WkppmM44T3qg==:';
const S2_TWO_MEMBERS =
  'sha-256=:d435Qo+nKZ+gLcUHn7GQtQ72hiBVAgqoLsZnZPiTGPk=:, sha-512=:YMAam51Jz/jOATT6/zvHrLVgOYTGFy1d6GJiOHTohq4yP+pgk4vf2aCsyRZOtw8MjkM7iw7yZ/WkppmM44T3qg==:';
const B5_OVER_PADDED = 'sha-256=:RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg==:';
const LF_SHA256_CORRECT = 'sha-256=:RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg=:';
const D_SHA512 =
  'sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:';
const D_SHA256 = 'sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:';
/** The real brotli encoding of the LF body (the hex dump printed in RFC 9530 B.4/B.6 is wrong; these bytes match the published digests). */
const BROTLI_HEX = '0b09807b2268656c6c6f223a2022776f726c64227d0a03';
const BROTLI_SHA256 = 'sha-256=:d435Qo+nKZ+gLcUHn7GQtQ72hiBVAgqoLsZnZPiTGPk=:';

const rfc9530Notes: Record<string, FlagNote> = {
  Published: { description: 'A value printed in RFC 9530, reproduced byte for byte.' },
  RfcDefect: {
    description:
      'The published text is wrong here; the case says how, and what the correct value is.',
  },
  MultipleMembers: {
    description:
      'A Content-Digest with several members; which ones are checked follows the `algorithms` list.',
  },
  TrailingNewline: {
    description:
      'RFC 9530 §2-3 and Appendices B-C hash the body followed by LF (19 bytes); Appendix D and RFC 9421 hash it without (18 bytes).',
  },
};

/** A value RFC 9530 prints: the digest the library computes for `body` must be `want`, byte for byte. */
interface PublishedDigestRow {
  readonly id: string;
  readonly description: string;
  readonly source: string;
  readonly body: string | Uint8Array;
  readonly algorithm: 'sha-512' | 'sha-256';
  readonly want: string;
  readonly flags: readonly string[];
  readonly comment?: string;
}

function publishedDigestCase(row: PublishedDigestRow): VectorCase {
  const { id, description, source, body, algorithm, want, flags, comment } = row;
  const c = digestCase({
    id,
    description,
    source,
    result: 'valid',
    flags,
    input: { mode: 'compute', algorithm, ...wireBody(body) },
    ...(comment ? { comment } : {}),
  });
  const value = (c.expected as { contentDigest: string }).contentDigest;
  check(value === want, id, `library gives ${value}, the RFC prints ${want}`);
  return c;
}

const BROTLI = new Uint8Array(Buffer.from(BROTLI_HEX, 'hex'));

/** The RFC 9530 cases, in file order: the published values, then its defects as negative or corrected cases. */
const RFC9530_CASES: readonly (PublishedDigestRow | DigestCaseSpec)[] = [
  {
    id: 'rfc9530-s2-sha512-body-with-lf',
    description: 'sha-512 of {"hello": "world"} followed by LF (19 bytes).',
    source: 'RFC 9530 §2',
    body: HELLO_LF,
    algorithm: 'sha-512',
    want: S2_SHA512,
    flags: ['Published', 'TrailingNewline'],
  },
  {
    id: 'rfc9530-appendix-d-sha512',
    description: 'sha-512 of {"hello": "world"} without LF (18 bytes).',
    source: 'RFC 9530 Appendix D',
    body: HELLO,
    algorithm: 'sha-512',
    want: D_SHA512,
    flags: ['Published', 'TrailingNewline'],
  },
  {
    id: 'rfc9530-appendix-d-sha256',
    description: 'sha-256 of {"hello": "world"} without LF (18 bytes).',
    source: 'RFC 9530 Appendix D; RFC 9421 §7.2.8',
    body: HELLO,
    algorithm: 'sha-256',
    want: D_SHA256,
    flags: ['Published', 'TrailingNewline'],
  },
  {
    id: 'rfc9530-b2-sha256-body-with-lf',
    description: 'sha-256 of the 19-byte body with LF, correctly padded.',
    source: 'RFC 9530 Appendix B.2',
    body: HELLO_LF,
    algorithm: 'sha-256',
    want: LF_SHA256_CORRECT,
    flags: ['Published', 'RfcDefect'],
    comment:
      'B.2 prints this value correctly; B.5, B.6, C.1 and the trailer example print it with two "=" (see rfc9530-b5-over-padded-sha256).',
  },
  {
    id: 'rfc9530-brotli-sha256',
    description: 'sha-256 of the brotli-encoded 19-byte body (the real bytes).',
    source: 'RFC 9530 Appendix B.4',
    body: BROTLI,
    algorithm: 'sha-256',
    want: BROTLI_SHA256,
    flags: ['Published', 'RfcDefect'],
    comment: `Known defect of RFC 9530: the hex dump printed in B.4/B.6 (8B 08 80 7B ...) does not decompress; the real encoding is ${BROTLI_HEX}, and the published digests match those bytes.`,
  },
  {
    id: 'rfc9530-b5-over-padded-sha256',
    description:
      'The sha-256 value as printed in B.5/B.6/C.1, "RK/0...Dg==" with two "=" on a 32-byte digest.',
    source: 'RFC 9530 Appendix B.5',
    result: 'invalid',
    flags: ['RfcDefect'],
    code: 'DIGEST_MALFORMED',
    input: {
      mode: 'verify',
      contentDigest: B5_OVER_PADDED,
      algorithms: ['sha-256'],
      ...wireBody(HELLO_LF),
    },
    comment:
      'Known defect of RFC 9530: 32 bytes encode to 43 characters plus one "=". The over-padded text is not valid base64, so a strict parser must reject it; the correct value is RK/0...Dg= (rfc9530-b2-sha256-body-with-lf).',
  },
  {
    id: 'rfc9530-s2-two-members-both-checked',
    description:
      'The §2 two-member example against the LF body, checking both sha-256 and sha-512: the sha-256 member does not match.',
    source: 'RFC 9530 §2',
    result: 'invalid',
    flags: ['RfcDefect', 'MultipleMembers'],
    code: 'DIGEST_MISMATCH',
    input: {
      mode: 'verify',
      contentDigest: S2_TWO_MEMBERS,
      algorithms: ['sha-256', 'sha-512'],
      ...wireBody(HELLO_LF),
    },
    comment:
      'Known defect of RFC 9530 §2: the sha-256 member (d435...) is the digest of the brotli-encoded body, while the sha-512 member is the digest of the unencoded body. Treat the example as syntax only.',
  },
  {
    id: 'rfc9530-s2-two-members-sha512-only',
    description:
      'The §2 two-member example, checking sha-512 only (the profile): the sha-512 member matches, the other is ignored.',
    source: 'RFC 9530 §2',
    result: 'valid',
    flags: ['Published', 'MultipleMembers'],
    input: {
      mode: 'verify',
      contentDigest: S2_TWO_MEMBERS,
      algorithms: ['sha-512'],
      ...wireBody(HELLO_LF),
    },
  },
];

export function buildRfc9530File(): VectorFile {
  const cases = RFC9530_CASES.map((row) =>
    'want' in row ? publishedDigestCase(row) : digestCase(row),
  );
  check(new TextDecoder().decode(utf8(HELLO)).length === 18, 'rfc9530', 'body length');
  return vectorFile(
    'rfc/rfc9530',
    'RFC 9530 published Content-Digest examples',
    'The Content-Digest values printed in RFC 9530, reproduced byte for byte, and its known defects as negative or corrected cases.',
    rfc9530Notes,
    cases,
  );
}
