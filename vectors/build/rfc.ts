// vectors/rfc/rfc9421.json: the published RFC 9421 examples (B.2.6, B.4) and the Content-Digest values of its
// Appendix B.2, verbatim, with their known defects (RFC 9530's are in rfc9530.ts).
// The published strings are written here literally; the generator stops if the library's output differs from them.
import { backends } from '../../src/ed25519/index.js';
import type { HttpRequest } from '../../src/http/message.js';
import { parseEd25519PublicKey } from '../../src/keys/index.js';
import { verifySignatureBase } from '../../src/signatures/create-signature.js';
import { fieldLineValues } from '../../src/signatures/field-values.js';
import { createSignatureBase } from '../../src/signatures/signature-base.js';
import { parseSignature, parseSignatureInput } from '../../src/signatures/signature-fields.js';
import type {
  FlagNote,
  KeyRef,
  KeysFile,
  VectorCase,
  VectorFile,
  VectorResult,
} from '../format.js';
import { check, vectorFile, wireBody } from './common.js';
import { digestCase, type DigestCaseSpec } from './content-digest.js';
import { APP_B } from './keys.js';
import { request, toWire } from './requests.js';

// ---- RFC 9421 (values unwrapped from RFC 8792 folding; a base has no trailing LF) ----

export const HELLO = '{"hello": "world"}';
const B2_DIGEST =
  'sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:';
const B26_INPUT =
  'sig-b26=("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"';
const B26_SIGNATURE =
  'sig-b26=:wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==:';
const B26_BASE = [
  '"date": Tue, 20 Apr 2021 02:07:55 GMT',
  '"@method": POST',
  '"@path": /foo',
  '"@authority": example.com',
  '"content-type": application/json',
  '"content-length": 18',
  '"@signature-params": ("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"',
].join('\n');
const B4_INPUT =
  'transform=("@method" "@path" "@authority" "accept");created=1618884473;keyid="test-key-ed25519"';
const B4_SIGNATURE =
  'transform=:ZT1kooQsEHpZ0I1IjCqtQppOmIqlJPeo7DHR3SoMn0s5JZ1eRGS0A+vyYP9t/LXlh5QMFFQ6cpLt2m0pmj3NDA==:';
const B4_BASE = [
  '"@method": GET',
  '"@path": /demo',
  '"@authority": example.org',
  '"accept": application/json, */*',
  '"@signature-params": ("@method" "@path" "@authority" "accept");created=1618884473;keyid="test-key-ed25519"',
].join('\n');
const RESPONSE_DIGEST_PUBLISHED =
  'sha-512=:JlEy2bfUz7WrWIjc1qV6KVLpdr/7L5/L4h7Sxvh6sNHpDQWDCL+GauFQWcZBvVDhiyOnAQsxzZFYwi0wDH+1pw==:';
const RESPONSE_DIGEST_CORRECT =
  'sha-512=:mEWXIS7MaLRuGgxOBdODa3xqM1XdEvxoYhvlCFJ41QJgJc4GTsPp29l5oGX69wWdXymyU0rjJuahq4l5aGgfLQ==:';

const rfc9421Notes: Record<string, FlagNote> = {
  Published: { description: 'A value printed in the RFC, reproduced byte for byte.' },
  Transformation: {
    description:
      'RFC 9421 Appendix B.4: a change to the message that a verifier must tolerate (valid) or must detect (invalid).',
  },
  FieldCombination: {
    description:
      'Several field lines of one header are combined with ", " in order (RFC 9421 §2.1).',
    effect: 'Joining with "," or re-ordering lines changes the base.',
  },
  SignatureEncoding: {
    description:
      'The signature bytes must be an RFC 8941 byte sequence: standard base64 alphabet (RFC 8941 §4.2.7 parsing fails on any other character).',
  },
  Base64Padding: {
    description:
      'A byte sequence without its "=" padding: RFC 8941 §4.2.7 says parsers SHOULD NOT fail on it, so rejecting and accepting both conform; payconform rejects.',
    effect: 'A verifier that rejects it refuses signatures from signers that drop padding.',
  },
  Tampered: { description: 'A covered component changed: the signature fails.' },
  RfcDefect: {
    description:
      'The published text is wrong here; the case says how, and what the correct value is.',
  },
};

interface RfcSpec {
  readonly id: string;
  readonly op: 'rfc9421-signature-base' | 'rfc9421-verify';
  readonly description: string;
  readonly source: string;
  readonly result: VectorResult;
  readonly flags: readonly string[];
  readonly request: HttpRequest;
  readonly label: string;
  readonly comment?: string;
  /** For signature-base cases: the published base it must equal. */
  readonly publishedBase?: string;
}

/** Generic RFC 9421 verification (no profile): the labelled member, its base, Ed25519 with both backends. */
function verifyGeneric(
  req: HttpRequest,
  label: string,
  publicKeyText: string,
): { ok: boolean; base?: string } {
  const input = parseSignatureInput(fieldLineValues(req.headers, 'signature-input').join(', '));
  const sig = parseSignature(fieldLineValues(req.headers, 'signature').join(', '));
  if (!input.ok || !sig.ok) return { ok: false };
  const member = input.value.get(label);
  const bytes = sig.value.get(label);
  if (!member || !bytes) return { ok: false };
  const base = createSignatureBase(req, member.components, member.params);
  if (!base.ok) return { ok: false };
  const key = parseEd25519PublicKey(publicKeyText);
  const verdicts = backends.map((b) => verifySignatureBase(base.base, bytes, key, b));
  check(
    verdicts.every((v) => v === verdicts[0]),
    label,
    'the Ed25519 backends disagree',
  );
  return { ok: verdicts[0]!, base: base.base };
}

const testRequest = (extra: ReadonlyArray<readonly [string, string]>): HttpRequest =>
  request(
    'POST',
    'https://example.com/foo?param=Value&Pet=dog',
    [
      ['Host', 'example.com'],
      ['Date', 'Tue, 20 Apr 2021 02:07:55 GMT'],
      ['Content-Type', 'application/json'],
      ['Content-Digest', B2_DIGEST],
      ['Content-Length', '18'],
      ...extra,
    ],
    HELLO,
  );
const b26 = testRequest([
  ['Signature-Input', B26_INPUT],
  ['Signature', B26_SIGNATURE],
]);
const b4Lines: ReadonlyArray<readonly [string, string]> = [
  ['Host', 'example.org'],
  ['Date', 'Fri, 15 Jul 2022 14:24:55 GMT'],
  ['Accept', 'application/json'],
  ['Accept', '*/*'],
  ['Signature-Input', B4_INPUT],
  ['Signature', B4_SIGNATURE],
];
const b4 = request('GET', 'https://example.org/demo?name1=Value1&Name2=value2', b4Lines);
const B26 = 'RFC 9421 Appendix B.2.6';
const B4 = 'RFC 9421 Appendix B.4';
const b64url = B26_SIGNATURE.replace(/\+/g, '-').replace(/\//g, '_').replace('==:', ':');

/** The RFC 9421 cases, in file order: B.2.6, B.4 and their variants, then the Appendix B.2 Content-Digest values. */
const RFC9421_CASES: readonly (RfcSpec | DigestCaseSpec)[] = [
  {
    id: 'rfc9421-b26-signature-base',
    op: 'rfc9421-signature-base',
    description:
      'The B.2.6 signature base rebuilt from test-request and its Signature-Input (label sig-b26).',
    source: B26,
    result: 'valid',
    flags: ['Published'],
    request: b26,
    label: 'sig-b26',
    publishedBase: B26_BASE,
    comment:
      'Generic RFC 9421: @path is "/foo" without the query. 284 bytes; SHA-256 of the base is e6402577f54303accfda63dfbde1a7b8c5e5e6f3f7898637b7d78dc07ee1896a.',
  },
  {
    id: 'rfc9421-b26-verify',
    op: 'rfc9421-verify',
    description:
      'The published B.2.6 Ed25519 signature verifies with test-key-ed25519 (deterministic: re-signing gives the same bytes).',
    source: B26,
    result: 'valid',
    flags: ['Published'],
    request: b26,
    label: 'sig-b26',
  },
  {
    id: 'rfc9421-b26-signature-base64url',
    op: 'rfc9421-verify',
    description:
      'The same signature bytes in base64url without padding. They contain no "+" or "/", so this text is also standard base64 without its "==" padding, which parsers SHOULD accept.',
    source: `${B26}; RFC 8941 §4.2.7`,
    result: 'acceptable',
    flags: ['Base64Padding'],
    request: testRequest([
      ['Signature-Input', B26_INPUT],
      ['Signature', b64url],
    ]),
    label: 'sig-b26',
    comment:
      'Marked invalid until the interop matrix (docs/interop.md) showed independent RFC 9421 libraries accepting it: RFC 8941 §4.2.7 (parsing a Byte Sequence) says parsers SHOULD NOT fail when "=" padding is absent, and this text has no character outside the standard alphabet. payconform rejects it (expected), as it rejects missing padding on the profile\'s Signature. rfc9421-b4-signature-base64url is the real base64url case.',
  },
  {
    id: 'rfc9421-b4-signature-base64url',
    op: 'rfc9421-verify',
    description:
      'The B.4 signature (whose standard base64 contains "+" and "/") sent in base64url: "-" and "_" are outside the base64 alphabet of an RFC 8941 byte sequence.',
    source: `${B4}; RFC 8941 §4.2.7`,
    result: 'invalid',
    flags: ['SignatureEncoding'],
    request: request(
      'GET',
      b4.url,
      b4Lines.map(
        ([k, v]) =>
          [
            k,
            k === 'Signature' ? B4_SIGNATURE.replace(/\+/g, '-').replace(/\//g, '_') : v,
          ] as const,
      ),
    ),
    label: 'transform',
    comment:
      'RFC 8941 §4.2.7 step 3: a character not in the base64 alphabet (RFC 4648 §4) or "=" fails parsing. Padding is kept, so only the alphabet is wrong.',
  },
  {
    id: 'rfc9421-b26-date-changed',
    op: 'rfc9421-verify',
    description: 'The covered Date header one second later.',
    source: B26,
    result: 'invalid',
    flags: ['Tampered'],
    request: request(
      'POST',
      b26.url,
      b26.headers.map(([k, v]) => [k, k === 'Date' ? 'Tue, 20 Apr 2021 02:07:56 GMT' : v] as const),
      HELLO,
    ),
    label: 'sig-b26',
  },
  {
    id: 'rfc9421-b4-signature-base',
    op: 'rfc9421-signature-base',
    description: 'The B.4 base: two Accept lines combined as "application/json, */*".',
    source: B4,
    result: 'valid',
    flags: ['Published', 'FieldCombination'],
    request: b4,
    label: 'transform',
    publishedBase: B4_BASE,
    comment:
      'In the RFC source this base block uses a "\\" continuation without the RFC 8792 note; the base here is unwrapped.',
  },
  {
    id: 'rfc9421-b4-verify',
    op: 'rfc9421-verify',
    description: 'The published B.4 signature verifies.',
    source: B4,
    result: 'valid',
    flags: ['Published'],
    request: b4,
    label: 'transform',
  },
  {
    id: 'rfc9421-b4-uncovered-parts-added',
    op: 'rfc9421-verify',
    description: 'An uncovered query parameter and an Accept-Language header added: still valid.',
    source: B4,
    result: 'valid',
    flags: ['Transformation'],
    request: request('GET', 'https://example.org/demo?name1=Value1&Name2=value2&param=added', [
      ...b4Lines,
      ['Accept-Language', 'en-US,en;q=0.5'],
    ]),
    label: 'transform',
  },
  {
    id: 'rfc9421-b4-date-dropped-accept-one-line',
    op: 'rfc9421-verify',
    description: 'Date dropped, Referer added, the two Accept lines sent as one: still valid.',
    source: B4,
    result: 'valid',
    flags: ['Transformation', 'FieldCombination'],
    request: request('GET', b4.url, [
      ['Host', 'example.org'],
      ['Referer', 'https://developer.example.org/demo'],
      ['Accept', 'application/json, */*'],
      ['Signature-Input', B4_INPUT],
      ['Signature', B4_SIGNATURE],
    ]),
    label: 'transform',
  },
  {
    id: 'rfc9421-b4-field-lines-reordered',
    op: 'rfc9421-verify',
    description:
      'Field lines reordered, the two Accept lines keeping their relative order: still valid.',
    source: B4,
    result: 'valid',
    flags: ['Transformation', 'FieldCombination'],
    request: request('GET', b4.url, [
      ['Signature', B4_SIGNATURE],
      ['Accept', 'application/json'],
      ['Signature-Input', B4_INPUT],
      ['Date', 'Fri, 15 Jul 2022 14:24:55 GMT'],
      ['Accept', '*/*'],
      ['Host', 'example.org'],
    ]),
    label: 'transform',
  },
  {
    id: 'rfc9421-b4-method-and-host-changed',
    op: 'rfc9421-verify',
    description: 'Sent as POST to example.com: invalid.',
    source: B4,
    result: 'invalid',
    flags: ['Transformation', 'Tampered'],
    request: request(
      'POST',
      'https://example.com/demo?name1=Value1&Name2=value2',
      b4Lines.map(([k, v]) => [k, k === 'Host' ? 'example.com' : v] as const),
    ),
    label: 'transform',
  },
  {
    id: 'rfc9421-b4-accept-lines-swapped',
    op: 'rfc9421-verify',
    description:
      'The two Accept lines swapped: the combined value becomes "*/*, application/json": invalid.',
    source: B4,
    result: 'invalid',
    flags: ['Transformation', 'FieldCombination'],
    request: request('GET', b4.url, [
      ['Host', 'example.org'],
      ['Date', 'Fri, 15 Jul 2022 14:24:55 GMT'],
      ['Accept', '*/*'],
      ['Accept', 'application/json'],
      ['Signature-Input', B4_INPUT],
      ['Signature', B4_SIGNATURE],
    ]),
    label: 'transform',
  },
  {
    id: 'rfc9421-b2-test-request-content-digest',
    description: "test-request's Content-Digest matches its 18-byte body (no trailing LF).",
    source: 'RFC 9421 Appendix B.2 (test-request)',
    result: 'valid',
    flags: ['Published'],
    input: {
      mode: 'verify',
      contentDigest: B2_DIGEST,
      algorithms: ['sha-512'],
      ...wireBody(HELLO),
    },
  },
  {
    id: 'rfc9421-b2-test-response-content-digest-published',
    description:
      'test-response\'s published Content-Digest against its body {"message": "good dog"}: it does not match.',
    source: 'RFC 9421 Appendix B.2 (test-response)',
    result: 'invalid',
    flags: ['RfcDefect'],
    code: 'DIGEST_MISMATCH',
    input: {
      mode: 'verify',
      contentDigest: RESPONSE_DIGEST_PUBLISHED,
      algorithms: ['sha-512'],
      ...wireBody('{"message": "good dog"}'),
    },
    comment:
      'Known defect of RFC 9421: the Content-Digest header printed on test-response (JlEy2b...) is not the sha-512 of {"message": "good dog"}. The correct value, mEWXIS7M..., is the one the B.2.4 signature base uses (fixed there by httpwg/http-extensions PR #2049; the fix for the header block, PR #2669, was never merged).',
  },
  {
    id: 'rfc9421-b2-test-response-content-digest-corrected',
    description: 'The corrected test-response Content-Digest (as used in the B.2.4 base) matches.',
    source: 'RFC 9421 Appendix B.2.4',
    result: 'valid',
    flags: ['RfcDefect'],
    input: {
      mode: 'verify',
      contentDigest: RESPONSE_DIGEST_CORRECT,
      algorithms: ['sha-512'],
      ...wireBody('{"message": "good dog"}'),
    },
    comment:
      'The value RFC 9421 should print on test-response; see rfc9421-b2-test-response-content-digest-published.',
  },
];

export function buildRfc9421File(keys: KeysFile): VectorFile {
  const keyRef: KeyRef = { key: APP_B.key, format: 'spki-pem' };
  const entry = keys.keys[APP_B.key]!;
  const publicPem = entry.public['spki-pem'];
  const rfcCase = (spec: RfcSpec): VectorCase => {
    const outcome = verifyGeneric(spec.request, spec.label, publicPem);
    const common = {
      id: spec.id,
      description: spec.description,
      source: spec.source,
      result: spec.result,
      flags: spec.flags,
      ...(spec.comment ? { comment: spec.comment } : {}),
    };
    const input = { request: toWire(spec.request), label: spec.label, publicKey: keyRef };
    if (spec.op === 'rfc9421-signature-base') {
      check(outcome.base !== undefined, spec.id, 'no base');
      if (spec.publishedBase !== undefined)
        check(outcome.base === spec.publishedBase, spec.id, "the base differs from the RFC's");
      return {
        ...common,
        op: 'rfc9421-signature-base',
        input: { request: input.request, label: spec.label },
        expected: { signatureBase: outcome.base! },
      };
    }
    check(
      outcome.ok === (spec.result === 'valid'),
      spec.id,
      `declared ${spec.result}, library says ${outcome.ok ? 'valid' : 'invalid'}`,
    );
    return { ...common, op: 'rfc9421-verify', input, expected: { ok: outcome.ok } };
  };

  const cases = RFC9421_CASES.map((row) => ('request' in row ? rfcCase(row) : digestCase(row)));
  return vectorFile(
    'rfc/rfc9421',
    'RFC 9421 published examples (generic RFC 9421, no service profile)',
    'Appendix B.2.6 (Ed25519, label sig-b26) and B.4 (transformations, label transform) with key test-key-ed25519 (keys.json "rfc9421-test-key-ed25519"), and the Appendix B.2 Content-Digest values. These use generic RFC 9421 rules (@path without the query, missing fields are errors), not the service profile; an implementation of the profile only may answer "unsupported" to the rfc9421-* ops.',
    rfc9421Notes,
    cases,
  );
}
