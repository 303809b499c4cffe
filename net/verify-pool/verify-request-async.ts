// verifyRequestAsync: the twelve steps (src/profile/verify-steps.ts) with step 10 off the event loop, in the worker
// pool where it runs (pool.ts, on by default from POOL_MIN_CORES cores) or else on libuv's thread pool.
import { nodeBackend } from '../../src/ed25519/node-backend.js';
import type { HttpRequest } from '../../src/http/message.js';
import { defaultVerificationPolicy } from '../../src/profile/verification-policy.js';
import {
  hasStepFunctions,
  isWellFormedRequest,
  verifyWith,
} from '../../src/profile/verify-request.js';
import type { VerifyOptions, VerifyResult } from '../../src/profile/verify-result.js';
import { signatureOnThreadPool } from '../../src/profile/verify-steps.js';
import { runningVerifyPool, verifyPool, verifyPoolStartable } from './config.js';
import { PooledVerification } from './pooled-verification.js';

/**
 * verifyRequest with step 10's Ed25519 verification off the event loop, so a server that has many requests in flight
 * uses every core for the signatures while its event loop runs the other steps. Same steps, same results, same codes;
 * the nonce is still recorded (atomically, step 11) only after the signature verified. With the noble backend the
 * signature is checked on the calling thread (the portable fallback).
 *
 * @example
 * ```ts
 * // Same options and result as verifyRequest; the Ed25519 check leaves the event loop.
 * const result = await verifyRequestAsync(request, { nonceStore, resolveApplication });
 * ```
 */
export function verifyRequestAsync(
  request: HttpRequest,
  options: VerifyOptions,
): Promise<VerifyResult> {
  const pooled = verifyInPool(request, options);
  if (pooled !== undefined) return pooled;
  const result = verifyWith(request, options, signatureOnThreadPool);
  if (!verifyPoolStartable()) return result;
  // Until the pool starts, count the verifications in flight: enough of them at once start it.
  verificationsBeforePool++;
  return result.then((answer) => {
    verificationsBeforePool--;
    return answer;
  });
}

/**
 * verifyRequestAsync starts its worker pool once this many verifications are in flight at once (or on
 * startVerifyPool()): one request at a time gains nothing from the pool, and a process that verifies little never
 * loads its workers.
 */
const POOL_DEMAND = 4;
let verificationsBeforePool = 0;

/**
 * verifyRequestAsync through the worker pool, or undefined when this request goes the other way: the pool is off or
 * failed, another backend is asked for, or the input is odd enough that the calling thread should read it (a field
 * line that is not a pair of strings, missing options, a policy that is not frozen).
 */
function verifyInPool(
  request: HttpRequest,
  options: VerifyOptions,
): Promise<VerifyResult> | undefined {
  try {
    const pool = verificationsBeforePool >= POOL_DEMAND - 1 ? verifyPool() : runningVerifyPool();
    if (pool === undefined) return undefined;
    if (!isWellFormedRequest(request) || !hasStepFunctions(options)) return undefined;
    if (options.backend !== undefined && options.backend !== nodeBackend) return undefined;
    const now = options.now ?? Math.floor(Date.now() / 1000);
    if (typeof now !== 'number') return undefined;
    const policy = options.policy ?? defaultVerificationPolicy;
    const job = new PooledVerification(pool, request, options, policy, now);
    if (!pool.submit(job)) return undefined;
    const promise = job.promise!;
    job.promise = undefined;
    return promise;
  } catch {
    return undefined;
  }
}
