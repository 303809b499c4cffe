// Where the service profile departs from generic RFC 9421 / RFC 9530 (or leans on a rule generic libraries skip):
// the names adapters use in `cannotExpress` answers and the interop matrix uses to explain each non-pass cell.
// Each entry has a section in vectors/README.md ("Implementer's guide", anchor `dev-<id>`) and the RFC section.

export interface Deviation {
  readonly title: string;
  /** `profile`: the spec departs from the RFC; `rfc`: an RFC rule some libraries do not apply; `library`: a gap in the library. */
  readonly kind: 'profile' | 'rfc' | 'library';
  /** The RFC (or spec) section that explains the cell, and its address. */
  readonly section: string;
  readonly url: string;
}

const RFC9421 = 'https://www.rfc-editor.org/rfc/rfc9421';
const RFC8941 = 'https://www.rfc-editor.org/rfc/rfc8941';
const RFC9530 = 'https://www.rfc-editor.org/rfc/rfc9530';

export const DEVIATIONS = {
  'path-query': {
    title: '`@path` keeps the query',
    kind: 'profile',
    section: 'RFC 9421 §2.2.6',
    url: `${RFC9421}#section-2.2.6`,
  },
  'absent-field-empty': {
    title: 'an absent covered header is signed as empty',
    kind: 'profile',
    section: 'RFC 9421 §2.5',
    url: `${RFC9421}#section-2.5`,
  },
  'authority-default-ports': {
    title: '`@authority` drops :80 and :443 whatever the scheme',
    kind: 'profile',
    section: 'RFC 9421 §2.2.3',
    url: `${RFC9421}#section-2.2.3`,
  },
  'single-label': {
    title: 'exactly one signature, labelled `sig1`',
    kind: 'profile',
    section: 'RFC 9421 §4.2',
    url: `${RFC9421}#section-4.2`,
  },
  'fixed-components': {
    title: 'exactly the eight components, in order',
    kind: 'profile',
    section: 'RFC 9421 §3.2 step 3',
    url: `${RFC9421}#section-3.2`,
  },
  'fixed-parameters': {
    title: 'exactly `created`, `keyid`, `alg`, `nonce`, in order',
    kind: 'profile',
    section: 'RFC 9421 §2.3',
    url: `${RFC9421}#section-2.3`,
  },
  'nonce-rules': {
    title: '`nonce` required, at most 50 characters, never reused',
    kind: 'profile',
    section: 'RFC 9421 §7.2.2',
    url: `${RFC9421}#section-7.2.2`,
  },
  'freshness-window': {
    title: '`created` within 300 s, past or future',
    kind: 'profile',
    section: 'RFC 9421 §7.2.4',
    url: `${RFC9421}#section-7.2.4`,
  },
  'duplicate-header': {
    title: 'a single-valued covered header sent on two lines is rejected, not combined',
    kind: 'rfc',
    section: 'RFC 9421 §7.5.6',
    url: `${RFC9421}#section-7.5.6`,
  },
  'duplicate-component': {
    title: 'a covered component listed twice is an error',
    kind: 'rfc',
    section: 'RFC 9421 §2.5',
    url: `${RFC9421}#section-2.5`,
  },
  'non-ascii-base': {
    title: 'a non-ASCII covered value makes the signature base an error',
    kind: 'rfc',
    section: 'RFC 9421 §2.5',
    url: `${RFC9421}#section-2.5`,
  },
  'strict-parameters': {
    title: 'a repeated signature parameter, or `created` written as a Decimal, is refused',
    kind: 'profile',
    section: 'RFC 8941 §4.2.3.2',
    url: `${RFC8941}#section-4.2.3.2`,
  },
  'host-as-written': {
    title: '`@authority` takes the host as written, never read as another IPv4 address',
    kind: 'rfc',
    section: 'RFC 9421 §2.2.3',
    url: `${RFC9421}#section-2.2.3`,
  },
  'byte-sequence': {
    title: 'Signature is padded standard base64 (an RFC 8941 byte sequence)',
    kind: 'rfc',
    section: 'RFC 8941 §4.2.7',
    url: `${RFC8941}#section-4.2.7`,
  },
  'content-digest-profile': {
    title: 'Content-Digest: `sha-512` required on bodies, absent on GET/DELETE',
    kind: 'profile',
    section: 'RFC 9530 §2',
    url: `${RFC9530}#section-2`,
  },
  'no-verification': {
    title: 'the library does not verify RFC 9421 signatures',
    kind: 'library',
    section: 'RFC 9421 §3.2',
    url: `${RFC9421}#section-3.2`,
  },
  'op-not-offered': {
    title:
      'the library has no such operation (not RFC 9421: webhooks, key parsing; or RFC 9530 digests)',
    kind: 'library',
    section: 'vectors/README.md, Ops',
    url: '../vectors/README.md#ops',
  },
} as const satisfies Record<string, Deviation>;

export type DeviationId = keyof typeof DEVIATIONS;

export function isDeviationId(id: string): id is DeviationId {
  return Object.hasOwn(DEVIATIONS, id);
}
