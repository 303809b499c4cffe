// What explains a non-pass cell of the interop matrix and a `cannotExpress` answer: the profile's departures from
// the RFCs (the one table, PROFILE_DEPARTURES in src/profile/departures.ts) and the libraries' own gaps. Each has a
// section in vectors/README.md ("Implementer's guide", anchor `dev-<id>`) and the RFC section.
import { PROFILE_DEPARTURES } from '../../src/profile/departures.js';

export interface Deviation {
  readonly title: string;
  /** `profile`: the spec departs from the RFC; `rfc`: an RFC rule some libraries do not apply; `library`: a gap in the library. */
  readonly kind: 'profile' | 'rfc' | 'library';
  /** The RFC (or spec) section that explains the cell, and its address. */
  readonly section: string;
  readonly url: string;
}

/** Gaps of a library, not of the profile: an operation it does not offer. */
const LIBRARY_GAPS = {
  'no-verification': {
    title: 'the library does not verify RFC 9421 signatures',
    kind: 'library',
    section: 'RFC 9421 §3.2',
    url: 'https://www.rfc-editor.org/rfc/rfc9421#section-3.2',
  },
  'op-not-offered': {
    title:
      'the library has no such operation (not RFC 9421: webhooks, key parsing; or RFC 9530 digests)',
    kind: 'library',
    section: 'vectors/README.md, Ops',
    url: '../vectors/README.md#ops',
  },
} as const satisfies Record<string, Deviation>;

export const DEVIATIONS = {
  ...PROFILE_DEPARTURES,
  ...LIBRARY_GAPS,
} as const satisfies Record<string, Deviation>;

export type DeviationId = keyof typeof DEVIATIONS;

export function isDeviationId(id: string): id is DeviationId {
  return Object.hasOwn(DEVIATIONS, id);
}
