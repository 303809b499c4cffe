// The stable, documented verification error codes and the spec step (Server verification order, 1-12) of each.
// Every number and name in a description is read from the profile.

import type { ErrorCodeEntry } from '../error-catalogue.js';
import { serviceProfile as P } from './service-profile.js';

const quoted = (names: readonly string[]): string => names.map((n) => `"${n}"`).join(', ');
const or = (names: readonly string[]): string =>
  names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} or ${names.at(-1)!}`;
const BODY_METHODS = or(P.bodyMethods);
const BODYLESS_METHODS = or(P.bodylessMethods);

/**
 * Every code a request verification can fail with, its description and the spec's verification
 * step it belongs to.
 */
export const verifyErrorCodes = Object.freeze({
  REQUEST_MALFORMED: {
    step: 1,
    steps: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
    description:
      'The request is not a well-formed HttpRequest (step 1), or an unexpected failure (a defect) happened at the step given.',
  },
  SIGNATURE_MISSING: { step: 1, steps: [1], description: 'No Signature header.' },
  SIGNATURE_INPUT_MISSING: { step: 1, steps: [1], description: 'No Signature-Input header.' },
  HEADER_DUPLICATED: {
    step: 1,
    steps: [1],
    description: `A covered single-valued header (${(P.signatureBaseOptions.singleValuedFields ?? []).join(', ')}) appears on more than one line.`,
  },
  SIGNATURE_INPUT_MALFORMED: {
    step: 2,
    steps: [2],
    description:
      'Signature-Input is not a valid RFC 8941 Dictionary of Inner Lists of strings with correctly typed parameters.',
  },
  SIGNATURE_MALFORMED: {
    step: 2,
    steps: [2],
    description: `Signature is not a Dictionary of padded standard-base64 byte sequences, has no "${P.label}" member, or the signature is not ${P.signatureLength} bytes.`,
  },
  LABEL_DUPLICATED: {
    step: 2,
    steps: [2],
    description:
      'A label appears twice in Signature-Input or Signature (RFC 8941 would keep the last silently).',
  },
  LABEL_UNSUPPORTED: {
    step: 2,
    steps: [2],
    description: `The label is not "${P.label}", or another label is present.`,
  },
  COMPONENTS_MISMATCH: {
    step: 2,
    steps: [2],
    description: `The covered components are not exactly the ${P.componentNames.length} of the profile (${quoted(P.componentNames)}), in order, without parameters.`,
  },
  ALG_UNSUPPORTED: { step: 2, steps: [2], description: `The "alg" parameter is not "${P.alg}".` },
  CREATED_INVALID: {
    step: 2,
    steps: [2],
    description: 'The "created" parameter is missing (it is an Integer whenever present).',
  },
  KEY_ID_MISSING: {
    step: 2,
    steps: [2],
    description: 'The "keyid" parameter is missing or empty.',
  },
  PARAMETERS_MISMATCH: {
    step: 2,
    steps: [2],
    description: `The parameters are not exactly ${P.parameterOrder.join(', ')} in that order (unknown, missing "alg", or reordered).`,
  },
  CREATED_EXPIRED: {
    step: 3,
    steps: [3],
    description: `now - created is more than ${P.maxAgeSeconds} seconds.`,
  },
  CREATED_IN_FUTURE: {
    step: 3,
    steps: [3],
    description: `created - now is more than ${P.maxFutureSkewSeconds} seconds (profile rule; see deviation freshness-window).`,
  },
  NONCE_MISSING: { step: 4, steps: [4], description: 'The "nonce" parameter is missing or empty.' },
  NONCE_TOO_LONG: {
    step: 4,
    steps: [4],
    description: `The nonce is longer than ${P.nonceMaxLength} characters.`,
  },
  NONCE_REPLAYED: {
    step: 4,
    steps: [4, 11],
    description:
      'The nonce was used before (step 4), or a concurrent request recorded it first (step 11).',
  },
  NONCE_STORE_UNAVAILABLE: {
    step: 4,
    steps: [4, 11],
    description: 'The nonce store failed or is full; the request is rejected (fail closed).',
  },
  CREATED_BEFORE_NONCE_STORE_RESET: {
    step: 11,
    steps: [11],
    description:
      'The nonce store lost its data (e.g. a Redis restarted empty, flushed or failed over) and the signature was created at or before the moment that was noticed: its nonce may have been forgotten, so it is refused for one validity window after the loss; a request signed afresh is accepted.',
  },
  APPLICATION_ID_MISSING: {
    step: 5,
    steps: [5],
    description: 'No x-application-id header, or it is empty.',
  },
  APPLICATION_ID_UNKNOWN: {
    step: 5,
    steps: [5],
    description: 'x-application-id names no known application.',
  },
  APPLICATION_LOOKUP_FAILED: {
    step: 5,
    steps: [5],
    description:
      "resolveApplication threw, rejected or answered something other than a record or undefined: the service's own failure (e.g. its database is down), not the client's; the request is rejected (fail closed).",
  },
  APPLICATION_SECRET_MISSING: {
    step: 6,
    steps: [6],
    description: 'No x-application-secret header, or it is empty.',
  },
  APPLICATION_SECRET_INVALID: {
    step: 6,
    steps: [6],
    description: 'x-application-secret does not match the application (compared in constant time).',
  },
  KEY_UNKNOWN: {
    step: 7,
    steps: [7],
    description: 'keyid names no public key of this application.',
  },
  DIGEST_MISSING: {
    step: 8,
    steps: [8],
    description: `A body-carrying request (${BODY_METHODS}, or another method with a body) has no Content-Digest.`,
  },
  DIGEST_MALFORMED: {
    step: 8,
    steps: [8],
    description:
      'Content-Digest is not a valid Dictionary of padded base64 digests of the right length.',
  },
  DIGEST_ALGORITHM_UNSUPPORTED: {
    step: 8,
    steps: [8],
    description: `Content-Digest has no ${P.digestAlgorithm} member.`,
  },
  DIGEST_MISMATCH: {
    step: 8,
    steps: [8],
    description: `The ${P.digestAlgorithm} digest does not match the exact body bytes.`,
  },
  DIGEST_UNEXPECTED: {
    step: 8,
    steps: [8],
    description: `A bodyless request (${BODYLESS_METHODS}, or another method without a body) carries Content-Digest.`,
  },
  BODY_UNEXPECTED: {
    step: 8,
    steps: [8],
    description: `A ${BODYLESS_METHODS} request carries a body (it would not be covered by any digest).`,
  },
  SIGNATURE_BASE_INVALID: {
    step: 9,
    steps: [9],
    description:
      'The signature base cannot be built (bad target URI, non-ASCII or CR/LF in a covered value).',
  },
  SIGNATURE_INVALID: {
    step: 10,
    steps: [10],
    description: 'The Ed25519 signature does not verify over the rebuilt signature base.',
  },
} as const satisfies Record<string, ErrorCodeEntry & { step: number; steps: readonly number[] }>);

/** A stable code of a failed verification, one of `verifyErrorCodes`. */
export type VerifyErrorCode = keyof typeof verifyErrorCodes;

/**
 * The codes that are the verifying service's own failure (a nonce store or an application lookup that is down): the
 * request is refused all the same (fail closed), but the client is not at fault and may retry (HTTP 503).
 */
export const serviceFailureCodes: ReadonlySet<VerifyErrorCode> = new Set<VerifyErrorCode>([
  'NONCE_STORE_UNAVAILABLE',
  'APPLICATION_LOOKUP_FAILED',
]);
