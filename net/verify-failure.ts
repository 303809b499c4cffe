// How a failed request verification is answered over HTTP, one rule for the reference service and the middleware
// (payconform/node): the client's fault is 401 (the reference service's alt variant: 403); the service's own failure
// (a nonce store or an application lookup that is down: `serviceFailureCodes`) is 503, so a client is never told it
// is wrong during the service's outage. The spec leaves these statuses "not shown" (Errors).
import { serviceFailureCodes, type VerifyErrorCode } from '../src/profile/verify-error-codes.js';
import { HttpError } from './http-error.js';

/** A failed verification as verifyRequest reports it (the reference service adds codes of its own). */
export interface VerificationFailure {
  readonly code: string;
  readonly step: number | string;
  readonly message: string;
}

export interface FailureAnswerOptions {
  /** The status for the client's fault; default 401. */
  readonly clientStatus?: 401 | 403;
  /**
   * Whether the message of a service failure carries the cause (e.g. "connect ECONNREFUSED 10.0.0.7:6379"); default
   * false: a client learns that the service failed and may retry, not how its internals are laid out.
   */
  readonly serviceDetail?: boolean;
}

const SERVICE_FAILURE_MESSAGES: Readonly<Record<string, string>> = {
  NONCE_STORE_UNAVAILABLE: 'the replay check is unavailable, try again later',
  APPLICATION_LOOKUP_FAILED: 'the application lookup is unavailable, try again later',
};

const NONCE_MAYBE_RECORDED =
  'the replay check is unavailable and the nonce may be used up: sign the request again (a new nonce), then retry';

/** Whether the code is the service's own failure (503) rather than the client's (401). */
export function isServiceFailure(code: string): boolean {
  return serviceFailureCodes.has(code as VerifyErrorCode);
}

/** The HttpError (status, stable code, message) that answers a failed verification. */
export function verificationFailureError(
  failure: VerificationFailure,
  options: FailureAnswerOptions = {},
): HttpError {
  if (isServiceFailure(failure.code)) {
    // Step 11's store may have recorded the nonce before it failed to answer (a timeout, a lost reply): the same
    // bytes could then be refused as a replay, so the client is told to sign again (docs/library.md, "Retries").
    const text =
      failure.code === 'NONCE_STORE_UNAVAILABLE' && failure.step === 11
        ? NONCE_MAYBE_RECORDED
        : (SERVICE_FAILURE_MESSAGES[failure.code] ?? 'the service failed, try again later');
    return new HttpError(
      503,
      failure.code,
      options.serviceDetail === true ? `${text}: ${failure.message}` : text,
    );
  }
  return new HttpError(
    options.clientStatus ?? 401,
    failure.code,
    `signature verification failed at step ${failure.step} (${failure.code}): ${failure.message}`,
  );
}
