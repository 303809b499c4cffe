// A deadline on step 5's application lookup: a resolver whose promise does not settle in time is answered as one that
// rejected, which verifyRequest turns into APPLICATION_LOOKUP_FAILED (503, the service's own failure). One stuck
// database call then costs a request its deadline, not a socket and its memory for ever.
import type { VerifyOptions } from './verify-request.js';

/**
 * The lookup deadline payconform/node uses unless told otherwise: 1 s. A lookup is a keyed read (a cache or an
 * index); one that takes longer is failing, and the client is better told to retry (503) than held.
 */
export const DEFAULT_LOOKUP_TIMEOUT_MS = 1_000;

type Resolver = VerifyOptions['resolveApplication'];

/** Why a lookup ended at its deadline; verifyRequest's message then reads `resolveApplication rejected: <message>`. */
export class LookupTimeoutError extends Error {
  override readonly name = 'LookupTimeoutError';
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms (the lookup deadline, lookupTimeoutMs)`);
  }
}

/** Throws a TypeError unless `timeoutMs` is a deadline: a positive finite number of milliseconds. */
export function checkTimeoutMs(name: string, timeoutMs: unknown): number {
  if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0)
    throw new TypeError(`${name} must be a positive finite number of milliseconds`);
  return timeoutMs;
}

/**
 * `resolve` with a deadline: a synchronous answer (or throw) passes through unchanged; a Promise that has not settled
 * after `timeoutMs` rejects with LookupTimeoutError (what it answers later is ignored). Pass the result as
 * `resolveApplication` to verifyRequest or verifyRequestAsync; payconform/node applies it itself.
 */
export function withLookupDeadline(resolve: Resolver, timeoutMs: number): Resolver {
  if (typeof resolve !== 'function') throw new TypeError('resolveApplication must be a function');
  checkTimeoutMs('lookupTimeoutMs', timeoutMs);
  return (applicationId) => {
    const answer = resolve(applicationId);
    if (!(answer instanceof Promise)) return answer;
    return new Promise((settle, reject) => {
      const timer = setTimeout(() => reject(new LookupTimeoutError(timeoutMs)), timeoutMs);
      answer.then(
        (record) => {
          clearTimeout(timer);
          settle(record);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });
  };
}
