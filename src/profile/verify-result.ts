// What verification is given and what it answers (spec: Server verification order): the options, the result, and the
// typed failures every path through the steps builds with the same few functions.
import type { Ed25519Backend, Ed25519PublicKey } from '../ed25519/backend.js';
import { PayconformError } from '../errors.js';
import type { NonceStore } from './nonce-store.js';
import type { Progress } from './profile-rules.js';
import type { VerificationPolicy } from './verification-policy.js';
import { verifyErrorCodes, type VerifyErrorCode } from './verify-error-codes.js';

/** An application as the verifier knows it: its secret and its public keys by key id. */
export interface ApplicationRecord {
  readonly secret: string;
  /** keyId → public key. */
  readonly publicKeys: ReadonlyMap<string, Ed25519PublicKey>;
}

/**
 * What `verifyRequest` needs: how to resolve an application, the nonce store, and optionally the
 * clock, the Ed25519 backend and the policy.
 */
export interface VerifyOptions {
  /** Unix seconds; default the current time. */
  readonly now?: number;
  readonly nonceStore: NonceStore;
  /**
   * The application's record, or undefined when the id is unknown (APPLICATION_ID_UNKNOWN); may answer with a
   * Promise (a database lookup). A resolver that throws, rejects or answers something else is the service's own
   * failure: APPLICATION_LOOKUP_FAILED (fail closed), never a client-error code.
   */
  readonly resolveApplication: (
    applicationId: string,
  ) => ApplicationRecord | undefined | Promise<ApplicationRecord | undefined>;
  /** Default nodeBackend. */
  readonly backend?: Ed25519Backend;
  /** Default defaultVerificationPolicy (strict). */
  readonly policy?: VerificationPolicy;
}

/**
 * A verified request (the application, key id and nonce), or a typed failure with its code and
 * spec step.
 */
export type VerifyResult =
  | {
      readonly ok: true;
      readonly applicationId: string;
      readonly keyId: string;
      readonly created: number;
      /** Empty only when a weakened policy let a request without nonce through. */
      readonly nonce: string;
      readonly signatureBase: string;
    }
  | {
      readonly ok: false;
      readonly code: VerifyErrorCode;
      readonly step: number;
      readonly message: string;
    };

export type Failure = Extract<VerifyResult, { ok: false }>;

/** A code that one step only gives: its step is read from the catalogue, not written again here. */
type OneStepCode = {
  [K in VerifyErrorCode]: (typeof verifyErrorCodes)[K]['steps'] extends readonly [number]
    ? K
    : never;
}[VerifyErrorCode];

/** A failure of a code several steps can give, at the step that raised it. */
export const failAt = (code: VerifyErrorCode, step: number, message: string): Failure => ({
  ok: false,
  code,
  step,
  message,
});

/** A failure of a one-step code, at its catalogue step. */
export const fail = (code: OneStepCode, message: string): Failure =>
  failAt(code, verifyErrorCodes[code].step, message);

/** What was thrown, as text; never throws itself (a thrown value may have no usable toString). */
export function describeError(error: unknown): string {
  try {
    return error instanceof Error ? String(error.message) : String(error);
  } catch {
    return 'a value that cannot be shown';
  }
}

export function unexpectedFailure(error: unknown, progress: Progress): Failure {
  return failAt(
    'REQUEST_MALFORMED',
    progress.step,
    `unexpected failure at step ${progress.step}: ${describeError(error)}`,
  );
}

export function storeUnavailable(step: number, error: unknown): Failure {
  // A store that lost its data refuses signatures that may predate the loss (e.g. RedisNonceStore).
  if (error instanceof PayconformError && error.code === 'CREATED_BEFORE_NONCE_STORE_RESET')
    return failAt('CREATED_BEFORE_NONCE_STORE_RESET', step, describeError(error));
  return failAt('NONCE_STORE_UNAVAILABLE', step, `nonce store failed: ${describeError(error)}`);
}

export function lookupFailed(message: string): Failure {
  return fail('APPLICATION_LOOKUP_FAILED', message);
}

export function signatureInvalid(): Failure {
  return fail('SIGNATURE_INVALID', 'the Ed25519 signature does not verify');
}
