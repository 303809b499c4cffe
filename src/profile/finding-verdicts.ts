// What the spec requires of a server, beside each finding the profile's rules (and the verifier's later steps) can
// give: must a server refuse the request, naming the requirement (conformance/requirements.json) and the words of its
// quote that make acceptance wrong, or may it answer either way, and why. The server audit fails a server only on
// the first kind (conformance/checks/server/signature-forgeries.ts); docs/verdicts.md lists the table.
import type { FindingCase, ProfileFinding } from './profile-findings.js';

/** Why the spec leaves a server either answer where payconform's verifier refuses. */
export type EitherReason =
  /** An RFC 8941 parser reads the field, and the base rebuilt from what it read is the base that was signed. */
  | 'rfc8941'
  /** The spec does not say (its "not shown", or it states only the client's side). */
  | 'not-shown'
  /** payconform's own strictness: a profile choice, or the service's own failure. */
  | 'strictness';

export type FindingVerdict =
  | {
      readonly verdict: 'must-refuse';
      /** The requirement id acceptance breaks. */
      readonly requirement: string;
      /** Words of that requirement's quote (the spec's text) that make acceptance wrong. */
      readonly words: string;
    }
  | { readonly verdict: 'either'; readonly why: EitherReason; readonly reason: string };

const refuse = (requirement: string, words: string): FindingVerdict => ({
  verdict: 'must-refuse',
  requirement,
  words,
});
const either = (why: EitherReason, reason: string): FindingVerdict => ({
  verdict: 'either',
  why,
  reason,
});

const PARSE = '2. Parse Signature-Input for components, created, keyid, alg, nonce.';
const PARAMS_LINE = 'created=<UNIX_SECONDS>;keyid="<KEY_ID>";alg="ed25519";nonce="<NONCE>"';
const RESOLVE = '7. Resolve the public key from keyid and applicationId.';
const SIG1 = 'The label is always `sig1`.';
const ED25519 = '10. Verify the Ed25519 signature.';
const DIGEST_TABLE = '| Content-Digest | required | must not be sent |';
const FAIL_CLOSED =
  "the service's own failure, not the request's: refusing it (fail closed) is payconform's choice";

/** Every finding case, classified: a new code or detail does not compile without its line here. */
export const findingVerdicts = {
  REQUEST_MALFORMED: either(
    'strictness',
    'a header line that is not a pair of strings: an in-memory shape no HTTP message carries',
  ),
  SIGNATURE_MISSING: refuse('SIG-VERIFY-EXTRACT', '| Signature | required | required |'),
  SIGNATURE_INPUT_MISSING: refuse(
    'SIG-VERIFY-EXTRACT',
    '| Signature-Input | required | required |',
  ),
  HEADER_DUPLICATED: either(
    'not-shown',
    'a covered header on several lines: RFC 9421 §2.1 combines the lines with ", "; the spec says nothing of it',
  ),
  SIGNATURE_INPUT_MALFORMED: refuse('SIG-VERIFY-PARSE', PARSE),
  'parameter-repeated': either(
    'rfc8941',
    'RFC 8941 §4.2.3.2: a parameter key written twice keeps its last value; the base rebuilt from what was parsed is the one signed',
  ),
  'integer-as-decimal': either(
    'rfc8941',
    'RFC 8941 reads an Integer written as a Decimal with a zero fraction (…181.0) as the same number; neither the spec ("created = current Unix time in seconds") nor RFC 9421 says a verifier must refuse it, and written back as an Integer it gives the base signed (a fraction, …181.5, is another value: parameter-type)',
  ),
  'integer-leading-zeros': either(
    'rfc8941',
    'RFC 8941 §4.2.4 reads 0181… as the Integer 181…; written back, the base is the one signed (vector verify-created-leading-zero)',
  ),
  'parameter-type': refuse('SIG-BASE-PARAMS-LINE', PARAMS_LINE),
  SIGNATURE_MALFORMED: refuse('SIG-PROFILE-STRUCTURED-FIELDS', '(RFC 8941 byte-sequence form)'),
  'signature-unpadded': either(
    'rfc8941',
    'RFC 8941 §4.2.7: parsers SHOULD NOT fail when "=" padding is not present (vector verify-signature-missing-padding)',
  ),
  'signature-parameter': either(
    'rfc8941',
    'RFC 8941 reads a parameter on a Dictionary member and RFC 9421 §4.2 defines none: a verifier may ignore it (vector verify-signature-member-parameter)',
  ),
  'signature-no-label': refuse('SIG-LABEL-SIG1', SIG1),
  'signature-length': refuse('SIG-VERIFY-SIGNATURE', ED25519),
  LABEL_DUPLICATED: either(
    'rfc8941',
    'RFC 8941 §4.2.2: a Dictionary key written twice keeps its last value',
  ),
  LABEL_UNSUPPORTED: refuse('SIG-LABEL-SIG1', SIG1),
  'label-beside': either(
    'strictness',
    "the spec fixes the signer's label; RFC 9421 §7.2.7 lets a verifier choose which signatures it processes, so another label beside a valid sig1 may be ignored",
  ),
  COMPONENTS_MISMATCH: refuse(
    'SIG-BASE-COMPONENTS-ORDER',
    'Covered components, in this fixed order',
  ),
  ALG_UNSUPPORTED: refuse('SIG-PARAM-ALG', '`alg` is always `ed25519`'),
  'alg-absent': refuse('SIG-PARAM-ALG', '`alg` is always `ed25519`'),
  CREATED_INVALID: refuse('SIG-VERIFY-PARSE', PARSE),
  KEY_ID_MISSING: refuse('SIG-VERIFY-KEY-RESOLVE', RESOLVE),
  PARAMETERS_MISMATCH: either(
    'strictness',
    "the parameters are inside the signed @signature-params line: a server rebuilding the base from the received Signature-Input verifies any order (SIG-PROFILE-PARAM-ORDER is payconform's SHOULD for clients)",
  ),
  'parameter-unknown': either(
    'strictness',
    'the spec shows four parameters but does not say a server refuses another; RFC 9421 §2.3 defines expires and tag, and the extra one is signed in @signature-params all the same',
  ),
  CREATED_EXPIRED: refuse(
    'SIG-VERIFY-CREATED-WINDOW',
    '3. Check now minus created is at most 300 seconds.',
  ),
  CREATED_IN_FUTURE: either(
    'not-shown',
    'only the age is stated ("now minus created is at most 300 seconds"); the future bound is payconform\'s SHOULD (SIG-PROFILE-FUTURE-CREATED)',
  ),
  NONCE_MISSING: refuse('SIG-VERIFY-NONCE-PRESENT', '4. Check the nonce is present'),
  NONCE_TOO_LONG: refuse('LIMIT-NONCE', 'at most 50 characters'),
  NONCE_REPLAYED: refuse('SIG-VERIFY-NONCE-UNUSED', 'was not used before'),
  NONCE_STORE_UNAVAILABLE: either('strictness', FAIL_CLOSED),
  CREATED_BEFORE_NONCE_STORE_RESET: either('strictness', FAIL_CLOSED),
  APPLICATION_ID_MISSING: refuse(
    'SIG-VERIFY-APPLICATION-ID',
    '5. Check `x-application-id` is present and valid.',
  ),
  APPLICATION_ID_UNKNOWN: refuse(
    'SIG-VERIFY-APPLICATION-ID',
    '5. Check `x-application-id` is present and valid.',
  ),
  APPLICATION_LOOKUP_FAILED: either('strictness', FAIL_CLOSED),
  APPLICATION_SECRET_MISSING: refuse(
    'SIG-VERIFY-APPLICATION-SECRET',
    '6. Check `x-application-secret` is present and valid.',
  ),
  APPLICATION_SECRET_INVALID: refuse(
    'SIG-VERIFY-APPLICATION-SECRET',
    '6. Check `x-application-secret` is present and valid.',
  ),
  KEY_UNKNOWN: refuse('SIG-VERIFY-KEY-RESOLVE', RESOLVE),
  DIGEST_MISSING: refuse('SIG-HEADERS-BODY', DIGEST_TABLE),
  DIGEST_MALFORMED: refuse('DIGEST-SHA512', 'send `Content-Digest: sha-512=:<BASE64_DIGEST>:`'),
  'digest-unpadded': either(
    'rfc8941',
    'RFC 8941 §4.2.7: parsers SHOULD NOT fail when "=" padding is not present; the digest read matches the body',
  ),
  DIGEST_ALGORITHM_UNSUPPORTED: refuse(
    'DIGEST-SHA512',
    'Compute SHA-512 over the exact body bytes',
  ),
  DIGEST_MISMATCH: refuse(
    'SIG-VERIFY-DIGEST',
    '8. Check Content-Digest against the body, when present.',
  ),
  DIGEST_UNEXPECTED: either(
    'not-shown',
    'the spec tells the client not to send it on a bodyless request; step 8 checks Content-Digest "when present", so a server may check it instead of refusing',
  ),
  BODY_UNEXPECTED: either('not-shown', 'what a server does with a GET or DELETE body is not shown'),
  SIGNATURE_BASE_INVALID: refuse(
    'SIG-VERIFY-REBUILD-BASE',
    '9. Rebuild the signature base, including the nonce in the signature parameters.',
  ),
  SIGNATURE_INVALID: refuse('SIG-VERIFY-SIGNATURE', ED25519),
} satisfies Record<FindingCase, FindingVerdict>;

/** The classification of `finding`'s case. */
export const verdictOf = (finding: Pick<ProfileFinding, 'case'>): FindingVerdict =>
  findingVerdicts[finding.case];

export type MustRefuse = Extract<FindingVerdict, { readonly verdict: 'must-refuse' }>;

/** The first finding a server must refuse the request on, with its classification; undefined when there is none. */
export function firstMustRefuse(
  findings: readonly ProfileFinding[],
): { readonly finding: ProfileFinding; readonly verdict: MustRefuse } | undefined {
  for (const finding of findings) {
    const verdict = verdictOf(finding);
    if (verdict.verdict === 'must-refuse') return { finding, verdict };
  }
  return undefined;
}
