// Server-side verification following the spec's "Server verification order" (steps 1-12) literally.
// Returns a typed result for every hostile input; never throws. The steps are written once (verify-steps.ts) and take
// an engine for step 10: verifyRequest runs it on the calling thread; the Node runtime's verifyRequestAsync
// (net/verify-pool/) runs it on libuv's thread pool or in a pool of worker threads, through the same steps.
import { indexCheckedFieldLines } from '../signatures/field-values.js';
import type { HttpRequest } from '../http/message.js';
import type { Progress } from './profile-rules.js';
import { defaultVerificationPolicy } from './verification-policy.js';
import {
  checkSignatureFields,
  fromStep4,
  signatureOnThisThread,
  StepsHere,
  type Outcome,
  type SignatureCheck,
} from './verify-steps.js';
import {
  failAt,
  unexpectedFailure,
  type VerifyOptions,
  type VerifyResult,
} from './verify-result.js';

export type { Progress, SignedFields } from './profile-rules.js';
export type { ApplicationRecord, Failure, VerifyOptions, VerifyResult } from './verify-result.js';

/** The request's shape apart from its field lines, which step 1 checks while indexing them (one pass). */
export function isWellFormedRequest(request: unknown): request is HttpRequest {
  if (typeof request !== 'object' || request === null) return false;
  const r = request as Partial<HttpRequest>;
  return (
    typeof r.method === 'string' &&
    typeof r.url === 'string' &&
    Array.isArray(r.headers) &&
    r.body instanceof Uint8Array
  );
}

/** The options the steps call into. */
export function hasStepFunctions(options: VerifyOptions): boolean {
  return (
    typeof options?.resolveApplication === 'function' &&
    typeof options.nonceStore?.checkAndRecord === 'function'
  );
}

/**
 * Verifies a signed request under the profile and the policy. Records the nonce only after the signature verified.
 * The steps run synchronously; only a nonce store that answers with a Promise makes the rest wait for it (a
 * synchronous store such as MemoryNonceStore costs no microtask). The hot path creates no closures.
 *
 * @example
 * ```ts
 * const nonceStore = new MemoryNonceStore();
 * const result = await verifyRequest(request, {
 *   nonceStore,
 *   resolveApplication: (id) => (id === applicationId ? { secret, publicKeys: new Map([[keyId, publicKey]]) } : undefined),
 * });
 * if (!result.ok) console.log(result.code, result.step, result.message); // e.g. a code of step 3: too old
 * ```
 */
export function verifyRequest(request: HttpRequest, options: VerifyOptions): Promise<VerifyResult> {
  return verifyWith(request, options, signatureOnThisThread);
}

/**
 * The twelve steps with `check` as step 10's engine, every step on this thread but that check. Never rejects: every
 * promise the steps return settles with a VerifyResult, and an exception becomes the typed failure of its step.
 */
export function verifyWith(
  request: HttpRequest,
  options: VerifyOptions,
  check: SignatureCheck,
): Promise<VerifyResult> {
  const progress: Progress = { step: 1 };
  try {
    const result = verifySteps(request, options, check, progress);
    return result instanceof Promise ? result : Promise.resolve(result);
  } catch (error) {
    return Promise.resolve(unexpectedFailure(error, progress));
  }
}

function verifySteps(
  request: HttpRequest,
  options: VerifyOptions,
  check: SignatureCheck,
  progress: Progress,
): Outcome {
  const policy = options.policy ?? defaultVerificationPolicy;
  const now = options.now ?? Math.floor(Date.now() / 1000);

  // Step 1: extract the signature headers.
  progress.step = 1;
  const fields = isWellFormedRequest(request) ? indexCheckedFieldLines(request.headers) : undefined;
  if (fields === undefined)
    return failAt(
      'REQUEST_MALFORMED',
      progress.step,
      'request is not an HttpRequest { method, url, headers, body: Uint8Array }',
    );
  if (!hasStepFunctions(options)) {
    return failAt(
      'REQUEST_MALFORMED',
      progress.step,
      'verifyRequest needs options.resolveApplication and options.nonceStore',
    );
  }
  const signed = checkSignatureFields(fields, policy, now, progress);
  if (!signed.ok) return signed;
  const engine = new StepsHere(fields, signed.input, signed.signature, check);
  return fromStep4({ request, options, policy, now, facts: signed, engine, progress });
}
