// The vector set's own version history: one entry per release, newest last. The version is written into index.json;
// the fingerprint pins the exact bytes of every file it covers, so test/vectors-release.test.ts fails when a case,
// key or schema changes and no new entry was added (vectors/README.md, "Versions and releases").
import { createHash } from 'node:crypto';

export interface VectorRelease {
  /** Semantic version of the vector set: major for a changed format or verdict, minor for added cases, patch otherwise. */
  readonly version: string;
  /** Release date (UTC, YYYY-MM-DD); also the mtime of every file in the release archive, so it is reproducible. */
  readonly date: string;
  /** fingerprintOf(the `sha256` map of index.json) for exactly this version's files. */
  readonly fingerprint: string;
  /** What changed, for implementers deciding whether to move their pin. */
  readonly changes: string;
}

export const VECTOR_RELEASES: readonly VectorRelease[] = [
  {
    version: '1.0.0',
    date: '2026-11-25',
    fingerprint: '9f3dc89a34ae304ff757734f56da2138553423ee3376ba8c4773438fae2bc3e3',
    changes:
      'First versioned release: 230 signing-profile cases (content digest, signature base, request signing, webhooks, key parsing, RFC 9421 and RFC 9530 examples) and 185 payload cases.',
  },
  {
    version: '1.0.1',
    date: '2026-11-26',
    fingerprint: '0f760e735b26b369e5a6684d7c41d9bdea211c89227098adb64cae5ec3dfa985',
    changes:
      'request-signing.json: the Strictness deviation group is described by what it is ("Strict parsing"), not by an internal work item. No case, input or verdict changed.',
  },
  {
    version: '1.1.0',
    date: '2026-11-27',
    fingerprint: '9c12681d20689c753dfa0eb4665f3715bbb943cb47e07093351fd854fba321fe',
    changes:
      "request-signing.json: 12 cases (flag ShippedBug) for the bug classes other RFC 9421 implementations shipped: an empty covered list, a duplicated covered component, a swapped body whose content-digest is not covered, a covered content-digest with no header signed as \"\", nonces from the whole base64 and base64url alphabets (sign and verify), an unknown signature parameter, and a body on QUERY, a method in neither column of the headers' table (flag OtherMethod: sign and verify); and 5 cases found by differential fuzzing (flag Fuzz): a duplicated label reported before a repeated parameter, a Decimal unknown parameter refused as malformed (also with a zero fraction), x-application-id with a leading tab (valid: not part of the value), and a duplicated label hiding an RFC 9651 Display String (malformed); signature-base.json: base-nonce-empty-string (flag Fuzz); schemas/: the state hook contract (state-hook.schema.json) and the SDK adapter protocol's four message schemas. Verdicts: every refused case now says what the spec requires of a server (src/profile/finding-verdicts.ts): 12 cases that said invalid where either answer conforms (a repeated parameter, a created Decimal with a zero fraction, a second label, a duplicated label, reordered or extra parameters, a duplicated covered header, a created in the future, a Content-Digest or body on GET) are acceptable, with payconform's own answer kept as the expected outcome.",
  },
];

/** The newest release: its version is the one index.json carries. */
export function currentRelease(): VectorRelease {
  return VECTOR_RELEASES[VECTOR_RELEASES.length - 1]!;
}

/**
 * The fingerprint of a set of files: SHA-256 of their `sha256sum` listing (`<hex>  <path>\n`, sorted by path). The
 * same listing an implementer gets from `sha256sum` over the files, so it can be recomputed without Node.
 */
export function fingerprintOf(sha256: Readonly<Record<string, string>>): string {
  const listing = Object.keys(sha256)
    .sort()
    .map((path) => `${sha256[path]}  ${path}\n`)
    .join('');
  return createHash('sha256').update(listing).digest('hex');
}

export function sha256Hex(text: string | Uint8Array): string {
  return createHash('sha256').update(text).digest('hex');
}
