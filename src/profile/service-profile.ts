// The payments service's signing profile as data: it configures the generic RFC 9421 engine, the way a curve
// file configures a generic elliptic-curve engine. Every departure from RFC 9421 is listed in `profileDeviations`.
import type { DigestAlgorithm } from '../digest/content-digest.js';
import {
  componentIdentifiers,
  type ComponentIdentifier,
} from '../signatures/component-identifier.js';
import type { SignatureBaseOptions } from '../signatures/signature-base.js';

/** Spec, Authentication, Step 2: the covered components in their fixed order. */
const COMPONENT_NAMES = [
  '@method',
  '@path',
  '@authority',
  'content-digest',
  'content-type',
  'content-length',
  'x-application-id',
  'x-application-secret',
] as const;

/**
 * The service's fixed signing profile: label, covered components in order, algorithm and signature
 * parameters.
 */
export interface ServiceProfile {
  readonly label: string;
  readonly componentNames: readonly string[];
  readonly coveredComponents: readonly ComponentIdentifier[];
  /** Signature parameters in the order they are written. */
  readonly parameterOrder: readonly string[];
  readonly alg: string;
  readonly maxAgeSeconds: number;
  readonly maxFutureSkewSeconds: number;
  readonly nonceMaxLength: number;
  readonly digestAlgorithm: DigestAlgorithm;
  /** Methods whose requests carry a body: Content-Digest required. */
  readonly bodyMethods: readonly string[];
  /** Methods whose requests carry no body: Content-Digest must not be sent. */
  readonly bodylessMethods: readonly string[];
  readonly signatureLength: number;
  readonly signatureBaseOptions: SignatureBaseOptions;
}

/**
 * The profile the spec fixes (Authentication, Signed requests): `sig1`, the eight components,
 * Ed25519.
 */
export const serviceProfile: ServiceProfile = Object.freeze({
  label: 'sig1',
  componentNames: Object.freeze([...COMPONENT_NAMES]),
  coveredComponents: componentIdentifiers(COMPONENT_NAMES),
  parameterOrder: Object.freeze(['created', 'keyid', 'alg', 'nonce']),
  alg: 'ed25519',
  maxAgeSeconds: 300,
  maxFutureSkewSeconds: 300,
  nonceMaxLength: 50,
  digestAlgorithm: 'sha-512',
  bodyMethods: Object.freeze(['POST', 'PUT', 'PATCH']),
  bodylessMethods: Object.freeze(['GET', 'DELETE']),
  signatureLength: 64,
  signatureBaseOptions: Object.freeze({
    missingField: 'empty',
    pathValue: 'path-and-query',
    authorityPorts: 'omit-80-and-443',
    singleValuedFields: Object.freeze([
      'content-digest',
      'content-type',
      'content-length',
      'x-application-id',
      'x-application-secret',
    ]),
  }),
} satisfies ServiceProfile);

/** One place where the profile departs from the RFC it configures, with its reason. */
export interface ProfileDeviation {
  readonly id: string;
  readonly title: string;
  readonly rfcRule: string;
  readonly profileRule: string;
  readonly why: string;
}

/** Where the profile departs from RFC 9421 (or adds a rule the spec does not state). Public, stable ids. */
export const profileDeviations: readonly ProfileDeviation[] = Object.freeze([
  {
    id: 'path-includes-query',
    title: '@path includes the query string',
    rfcRule: 'RFC 9421 §2.2.6: @path is the path only; the query is the separate @query component.',
    profileRule:
      'The @path line carries the path and, when a "?" is present, "?" and the query exactly as sent (not decoded, not re-ordered).',
    why: 'Spec, Authentication, Step 2, row 2: "request path including the query string if present, unmodified".',
  },
  {
    id: 'missing-field-empty',
    title: 'A missing covered header gives an empty value',
    rfcRule: 'RFC 9421 §2.5: a covered field that is absent is an error.',
    profileRule:
      'An absent covered header gives the line `"name": ` (colon, one space, nothing after).',
    why: 'Spec, Authentication, Step 2 rules: "a missing header gives an empty value (nothing after the colon and one space)".',
  },
  {
    id: 'bodyless-components-covered',
    title: 'content-digest, content-type and content-length stay covered on bodyless requests',
    rfcRule: 'RFC 9421 leaves the covered list to the signer; absent fields would not be listed.',
    profileRule:
      'GET and DELETE cover the same eight components; the three body headers are normally absent and give empty values.',
    why: 'Spec, Authentication, "Bodyless requests": the three components are still covered, each with an empty value.',
  },
  {
    id: 'authority-ports',
    title: '@authority omits ports 80 and 443 whatever the scheme',
    rfcRule:
      'RFC 9421 §2.2.3 with RFC 9110 §4.2.3: lowercase host, omit the default port of the scheme only (https://h:80 keeps ":80").',
    profileRule:
      'The host is lowercased; ports 80 and 443 are omitted for either scheme; any other port is kept as host:port.',
    why: 'Spec, Authentication, Step 2, row 3: "default ports 80 and 443 omitted, any other port included".',
  },
  {
    id: 'created-future-bound',
    title: 'A created time more than 300 s in the future is rejected',
    rfcRule: 'RFC 9421 §3.2 leaves time checks to verifier policy.',
    profileRule:
      'created may be at most 300 s in the future (CREATED_IN_FUTURE), besides at most 300 s in the past (CREATED_EXPIRED).',
    why: 'The spec states only the past bound; a future-dated signature stays valid after its nonce has left the replay window and could be replayed.',
  },
] satisfies readonly ProfileDeviation[]);
