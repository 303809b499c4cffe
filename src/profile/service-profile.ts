// The payments service's signing profile as data: it configures the generic RFC 9421 engine, the way a curve
// file configures a generic elliptic-curve engine. Every departure from the RFCs is in the one table, departures.ts.
import type { DigestAlgorithm } from '../digest/content-digest.js';
import { PROFILE_DEPARTURES, type DepartureId } from './departures.js';
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
  readonly id: DepartureId;
  readonly title: string;
  readonly rfcRule: string;
  readonly profileRule: string;
  readonly why: string;
}

/**
 * Where the profile departs from the RFCs (the `profile` entries of the one table, `PROFILE_DEPARTURES` in
 * departures.ts; its `rfc` entries are RFC rules the profile applies). Public, stable ids.
 */
export const profileDeviations: readonly ProfileDeviation[] = Object.freeze(
  Object.entries(PROFILE_DEPARTURES)
    .filter(([, d]) => d.kind === 'profile')
    .map(([id, d]) =>
      Object.freeze({
        id: id as DepartureId,
        title: d.title,
        rfcRule: `${d.section}: ${d.rfcRule}`,
        profileRule: d.profileRule,
        why: d.why,
      }),
    ),
);
