// The one table of the service profile's departures from RFC 9421 / RFC 8941 / RFC 9530, and of the RFC rules it
// applies that generic libraries skip. Read by `profileDeviations` (service-profile.ts), the interop matrix and the
// adapters' `cannotExpress` answers (vectors/adapters/deviations.ts), the vectors' comments (vectors/build/), the
// implementer's guide (vectors/README.md, anchor `dev-<id>`) and docs/profile.md; test/departures.test.ts proves
// they agree. Ids are public and stable.

export interface Departure {
  /** One line: what the profile does. */
  readonly title: string;
  /** `profile`: the spec departs from the RFC; `rfc`: an RFC rule the profile applies and some libraries skip. */
  readonly kind: 'profile' | 'rfc';
  /** The RFC section and its address. */
  readonly section: string;
  readonly url: string;
  /** What the RFC says. */
  readonly rfcRule: string;
  /** What the profile does instead (or how it applies the rule). */
  readonly profileRule: string;
  /** The spec's sentence, or the reason for the choice. */
  readonly why: string;
}

const RFC9421 = 'https://www.rfc-editor.org/rfc/rfc9421';
const RFC8941 = 'https://www.rfc-editor.org/rfc/rfc8941';
const RFC9530 = 'https://www.rfc-editor.org/rfc/rfc9530';

/** Departures that change what is signed: the base and the covered list. */
const BASE_DEPARTURES = {
  'path-query': {
    title: '`@path` keeps the query',
    kind: 'profile',
    section: 'RFC 9421 §2.2.6',
    url: `${RFC9421}#section-2.2.6`,
    rfcRule: '@path is the path only; the query is the separate @query component.',
    profileRule:
      'The @path line carries the path and, when a "?" is present, "?" and the query exactly as sent (not decoded, not re-ordered).',
    why: 'Spec, Authentication, Step 2, row 2: "request path including the query string if present, unmodified".',
  },
  'absent-field-empty': {
    title: 'an absent covered header is signed as empty',
    kind: 'profile',
    section: 'RFC 9421 §2.5',
    url: `${RFC9421}#section-2.5`,
    rfcRule: 'A covered field that is absent is an error.',
    profileRule:
      'An absent covered header gives the line `"name": ` (colon, one space, nothing after).',
    why: 'Spec, Authentication, Step 2 rules: "a missing header gives an empty value (nothing after the colon and one space)".',
  },
  'bodyless-components-covered': {
    title: 'content-digest, content-type and content-length stay covered on bodyless requests',
    kind: 'profile',
    section: 'RFC 9421 §2.5',
    url: `${RFC9421}#section-2.5`,
    rfcRule: 'The signer chooses the covered list; absent fields would not be listed.',
    profileRule:
      'GET and DELETE cover the same eight components; the three body headers are normally absent and give empty values.',
    why: 'Spec, Authentication, "Bodyless requests": the three components are still covered, each with an empty value.',
  },
  'authority-default-ports': {
    title: '`@authority` drops :80 and :443 whatever the scheme',
    kind: 'profile',
    section: 'RFC 9421 §2.2.3',
    url: `${RFC9421}#section-2.2.3`,
    rfcRule:
      'With RFC 9110 §4.2.3: lowercase host, omit the default port of the scheme only (https://h:80 keeps ":80").',
    profileRule:
      'The host is lowercased; ports 80 and 443 are omitted for either scheme; any other port is kept as host:port.',
    why: 'Spec, Authentication, Step 2, row 3: "default ports 80 and 443 omitted, any other port included".',
  },
  'single-label': {
    title: 'exactly one signature, labelled `sig1`',
    kind: 'profile',
    section: 'RFC 9421 §4.2',
    url: `${RFC9421}#section-4.2`,
    rfcRule: 'A message may carry several signatures; the verifier chooses which to verify.',
    profileRule:
      'Exactly one member, labelled sig1, in both fields; any other or additional member is LABEL_UNSUPPORTED, a duplicated one LABEL_DUPLICATED.',
    why: 'Spec, Authentication, Step 4: "the label is always sig1"; a verifier that picks any label can be steered to another signature.',
  },
  'fixed-components': {
    title: 'exactly the eight components, in order',
    kind: 'profile',
    section: 'RFC 9421 §3.2 step 3',
    url: `${RFC9421}#section-3.2`,
    rfcRule: 'The application decides which components it requires; the signer chooses the list.',
    profileRule:
      'The covered list is exactly @method @path @authority content-digest content-type content-length x-application-id x-application-secret, in that order, each once (COMPONENTS_MISMATCH otherwise; an empty list too).',
    why: 'Spec, Authentication, Step 2: the eight components in their fixed order.',
  },
  'fixed-parameters': {
    title: 'exactly `created`, `keyid`, `alg`, `nonce`, in order',
    kind: 'profile',
    section: 'RFC 9421 §2.3',
    url: `${RFC9421}#section-2.3`,
    rfcRule:
      'Every parameter is optional and unordered; a verifier may ignore a parameter it does not know.',
    profileRule:
      'The parameters are exactly created, keyid, alg="ed25519", nonce, in that order; another order, a missing one or an unknown one is PARAMETERS_MISMATCH.',
    why: 'Spec, Authentication, Signature-Input: the @signature-params line is fixed; an ignored parameter is a second reading of the signed text.',
  },
} as const satisfies Record<string, Departure>;

/** Departures that change what a verifier accepts: policy, strict parsing, the digest. */
const VERIFY_DEPARTURES = {
  'nonce-rules': {
    title: '`nonce` required, at most 50 characters, never reused',
    kind: 'profile',
    section: 'RFC 9421 §7.2.2',
    url: `${RFC9421}#section-7.2.2`,
    rfcRule: 'Nonce checking is left to the application.',
    profileRule:
      'A nonce (any sf-string, base64 and base64url characters included) is required on every request, at most 50 characters, unique within the 300 s window.',
    why: 'Spec, Authentication, step 4 and Limits.',
  },
  'freshness-window': {
    title: '`created` within 300 s, past or future',
    kind: 'profile',
    section: 'RFC 9421 §7.2.4',
    url: `${RFC9421}#section-7.2.4`,
    rfcRule: 'Time checks are verifier policy (§3.2).',
    profileRule:
      'created at most 300 s in the past (CREATED_EXPIRED) and at most 300 s in the future (CREATED_IN_FUTURE); exactly 300 s either way is valid.',
    why: 'The spec states only the past bound; a future-dated signature stays valid after its nonce has left the replay window and could be replayed.',
  },
  'strict-parameters': {
    title: 'a repeated signature parameter, or `created` written as a Decimal, is refused',
    kind: 'profile',
    section: 'RFC 8941 §4.2.3.2',
    url: `${RFC8941}#section-4.2.3.2`,
    rfcRule:
      'A parameter key seen twice keeps its last value; JavaScript parsers read created=1767225600.0 as the same number.',
    profileRule:
      'A repeated parameter, or any parameter written as a Decimal (created=1767225600.0, x=1.5), is SIGNATURE_INPUT_MALFORMED (leading zeros and a parameter on the Signature member are refused too; those cases are acceptable).',
    why: 'One signature must not verify under several header texts, as with a duplicated label.',
  },
  'content-digest-profile': {
    title: 'Content-Digest: `sha-512` required on bodies, absent on GET/DELETE',
    kind: 'profile',
    section: 'RFC 9530 §2',
    url: `${RFC9530}#section-2`,
    rfcRule:
      'The receiver picks among algorithms; nothing says which methods carry a digest, and a signature need not cover it.',
    profileRule:
      'A body-carrying request (POST, PUT, PATCH, or any other method with body bytes) sends and covers sha-512 over the exact bytes; GET and DELETE (and any other method without body bytes) send none.',
    why: 'Spec, Authentication, the table of headers ("Body-carrying request", "Bodyless request") and Step 1.',
  },
} as const satisfies Record<string, Departure>;

/** RFC rules the profile applies that generic libraries skip: not departures, but where the libraries differ. */
const RFC_RULES = {
  'duplicate-header': {
    title: 'a single-valued covered header sent on two lines is rejected, not combined',
    kind: 'rfc',
    section: 'RFC 9421 §7.5.6',
    url: `${RFC9421}#section-7.5.6`,
    rfcRule:
      '§2.1 combines field lines with ", "; §7.5.6 warns this is ambiguous for non-list fields, and RFC 9110 §5.3 forbids sending them twice.',
    profileRule: 'A covered single-valued header on two lines is HEADER_DUPLICATED.',
    why: 'Frameworks keep the first, the last, or join them: the verifier and the application would read different values.',
  },
  'duplicate-component': {
    title: 'a covered component listed twice is an error',
    kind: 'rfc',
    section: 'RFC 9421 §2.5',
    url: `${RFC9421}#section-2.5`,
    rfcRule: 'A component identifier that occurs more than once in the covered list is an error.',
    profileRule: 'A repeated component is COMPONENTS_MISMATCH at step 2.',
    why: 'A base with a repeated line signs nothing more; shipped verifiers accepted it (Gitlawb/node#306).',
  },
  'non-ascii-base': {
    title: 'a non-ASCII covered value makes the signature base an error',
    kind: 'rfc',
    section: 'RFC 9421 §2.5',
    url: `${RFC9421}#section-2.5`,
    rfcRule: 'The signature base is ASCII; a non-ASCII component value is an error.',
    profileRule: 'No base is built (SIGNATURE_BASE_INVALID at step 9).',
    why: 'A re-encoded value signs other bytes than the ones sent.',
  },
  'host-as-written': {
    title: '`@authority` takes the host as written, never read as another IPv4 address',
    kind: 'rfc',
    section: 'RFC 9421 §2.2.3',
    url: `${RFC9421}#section-2.2.3`,
    rfcRule:
      'With RFC 9110 §4.2.3: the authority is lowercased and the default port dropped, nothing else.',
    profileRule:
      'A host that is not an RFC 3986 host, or that WHATWG URL parsing reads as another IPv4 address, is SIGNATURE_BASE_INVALID.',
    why: 'WHATWG parsing reads 127.0.01, 0x7f.1 and 2130706433 as 127.0.0.1: one signature would verify for several hosts.',
  },
  'byte-sequence': {
    title: 'Signature is padded standard base64 (an RFC 8941 byte sequence)',
    kind: 'rfc',
    section: 'RFC 8941 §4.2.7',
    url: `${RFC8941}#section-4.2.7`,
    rfcRule: 'A character outside the base64 alphabet fails; missing padding SHOULD be accepted.',
    profileRule:
      'The Signature is 64 bytes in padded standard base64; missing padding is refused (acceptable cases).',
    why: 'Spec, Authentication, Signature: the 88-character padded form.',
  },
  'rfc8941-types': {
    title: 'the signature fields are RFC 8941: RFC 9651 Dates and Display Strings are refused',
    kind: 'rfc',
    section: 'RFC 8941 §3.3',
    url: `${RFC8941}#section-3.3`,
    rfcRule:
      'RFC 9421 §4.1 and §4.2 define Signature-Input and Signature as RFC 8941 Dictionaries; RFC 9651 (which obsoletes RFC 8941) adds Date (@) and Display String (%"") items, and parsers of RFC 9651 such as structured-headers 2 return them.',
    profileRule:
      'A Date or Display String anywhere in Signature-Input or Signature is SIGNATURE_INPUT_MALFORMED or SIGNATURE_MALFORMED.',
    why: 'RFC 9421 cites RFC 8941; no profile field carries those types, and a verifier that admits them reads texts the signer could not have written.',
  },
} as const satisfies Record<string, Departure>;

export const PROFILE_DEPARTURES = {
  ...BASE_DEPARTURES,
  ...VERIFY_DEPARTURES,
  ...RFC_RULES,
} as const satisfies Record<string, Departure>;

export type DepartureId = keyof typeof PROFILE_DEPARTURES;
