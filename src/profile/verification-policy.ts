// What verifyRequest enforces, as a readonly data object. The default is strict; any weakened copy is explicit.
import type { DigestAlgorithm } from '../digest/content-digest.js';
import { serviceProfile } from './service-profile.js';

/** Which of the spec's checks are enforced. Ed25519 verification itself (step 10) is always enforced. */
export interface PolicyEnforcement {
  /** Step 2: only the `sig1` label, in both fields. */
  readonly label: boolean;
  /** Step 2: exactly the eight covered components, in order, without parameters. */
  readonly components: boolean;
  /** Step 2: exactly `created`, `keyid`, `alg`, `nonce`, in that order, nothing else. */
  readonly parameters: boolean;
  /** Step 2: `alg` must be `ed25519`. */
  readonly alg: boolean;
  /** Step 3: now − created ≤ maxAgeSeconds. */
  readonly createdMaxAge: boolean;
  /** Step 3: created − now ≤ maxFutureSkewSeconds. */
  readonly createdMaxFuture: boolean;
  /** Step 4: a nonce is present and at most nonceMaxLength characters. */
  readonly nonce: boolean;
  /** Steps 4 and 11: the nonce was not used before, and is recorded after a valid signature. */
  readonly replay: boolean;
  /** Step 6: x-application-secret is present and matches. */
  readonly applicationSecret: boolean;
  /** Step 8: Content-Digest required, verified, or forbidden by method. */
  readonly digest: boolean;
}

/**
 * The bounds verification enforces: the signature's age and future skew, the nonce's length, the
 * digest algorithm, and which of the profile's rules apply.
 */
export interface VerificationPolicy {
  readonly maxAgeSeconds: number;
  readonly maxFutureSkewSeconds: number;
  readonly nonceMaxLength: number;
  readonly digestAlgorithm: DigestAlgorithm;
  readonly enforce: PolicyEnforcement;
}

/** The strict policy the spec and the profile define. */
export const defaultVerificationPolicy: VerificationPolicy = Object.freeze({
  maxAgeSeconds: serviceProfile.maxAgeSeconds,
  maxFutureSkewSeconds: serviceProfile.maxFutureSkewSeconds,
  nonceMaxLength: serviceProfile.nonceMaxLength,
  digestAlgorithm: serviceProfile.digestAlgorithm,
  enforce: Object.freeze({
    label: true,
    components: true,
    parameters: true,
    alg: true,
    createdMaxAge: true,
    createdMaxFuture: true,
    nonce: true,
    replay: true,
    applicationSecret: true,
    digest: true,
  }),
});

/** A copy of the default policy with some checks changed (e.g. for a test double that must be deliberately weak). */
export function createVerificationPolicy(
  changes: Partial<Omit<VerificationPolicy, 'enforce'>> & {
    readonly enforce?: Partial<PolicyEnforcement>;
  } = {},
): VerificationPolicy {
  const { enforce, ...rest } = changes;
  return Object.freeze({
    ...defaultVerificationPolicy,
    ...rest,
    enforce: Object.freeze({ ...defaultVerificationPolicy.enforce, ...enforce }),
  });
}
