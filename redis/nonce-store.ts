// A NonceStore shared by every verifier: one Redis `SET key 1 NX PX <ttl>` per recorded nonce (atomic in Redis),
// failing closed (a rejection, never an acceptance) when Redis is down, slow or answers an error.
import type { NonceOwner, NonceStore } from '../src/profile/nonce-store.js';
import { withTimeout, type RedisCommander } from './commander.js';

export interface RedisNonceStoreOptions {
  /** A connected client (node-redis `createClient`, or `connectRedis` from this module). Not closed by the store. */
  readonly client: RedisCommander;
  /** Prepended to every key (default `payconform:nonce:`); lets several services share one Redis. */
  readonly keyPrefix?: string;
  /** Time allowed for one round trip (default 250 ms); past it the call fails and verification fails closed. */
  readonly timeoutMs?: number;
}

/**
 * Redis-backed NonceStore. `checkAndRecord` is one `SET NX PX` round trip: of many concurrent calls with one nonce,
 * from any number of processes on one Redis, exactly one gets `OK`. Expiry is Redis's own, so memory is bounded by
 * the validity window. Every failure (unreachable, timeout, error reply) rejects the promise; `verifyRequest` turns
 * that into NONCE_STORE_UNAVAILABLE, so nothing is accepted without a recorded nonce.
 * @example
 * const client = await connectRedis('redis://127.0.0.1:6379');
 * const nonceStore = new RedisNonceStore({ client });
 * const result = await verifyRequest(request, { nonceStore, resolveApplication });
 */
export class RedisNonceStore implements NonceStore {
  readonly #client: RedisCommander;
  readonly #prefix: string;
  readonly #timeoutMs: number;

  constructor(options: RedisNonceStoreOptions) {
    if (typeof options?.client?.sendCommand !== 'function')
      throw new TypeError('RedisNonceStore needs options.client with sendCommand()');
    const timeoutMs = options.timeoutMs ?? 250;
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
      throw new TypeError('timeoutMs must be a positive number');
    this.#client = options.client;
    this.#prefix = options.keyPrefix ?? 'payconform:nonce:';
    this.#timeoutMs = timeoutMs;
  }

  /** `now` is not needed: Redis drops expired keys itself. */
  async has(nonce: string, _now?: number): Promise<boolean> {
    const reply = await withTimeout(
      this.#client.sendCommand(['EXISTS', this.#prefix + nonce]),
      this.#timeoutMs,
      'EXISTS',
    );
    if (typeof reply !== 'number')
      throw new Error(`unexpected EXISTS reply ${JSON.stringify(reply)}`);
    return reply > 0;
  }

  /**
   * `owner` is not used: Redis's capacity is its `maxmemory` (a full Redis answers an error: fail closed), and this
   * store does not apportion it per application as MemoryNonceStore does.
   */
  async checkAndRecord(
    nonce: string,
    now: number,
    expiresAt: number,
    _owner?: NonceOwner,
  ): Promise<boolean> {
    // A time to live relative to the caller's clock (PX, not PXAT): Redis's clock may differ from the verifier's, and
    // the window is the verifier's. Kept through the whole second `expiresAt` (the memory store keeps a nonce while
    // expiresAt >= now), so never for less than one second.
    const seconds = Math.max(Number.isFinite(expiresAt) ? expiresAt - now : 0, 0) + 1;
    const reply = await withTimeout(
      this.#client.sendCommand([
        'SET',
        this.#prefix + nonce,
        '1',
        'NX',
        'PX',
        String(Math.ceil(seconds * 1000)),
      ]),
      this.#timeoutMs,
      'SET NX',
    );
    if (reply === 'OK') return true;
    if (reply === null) return false;
    throw new Error(`unexpected SET NX reply ${JSON.stringify(reply)}`);
  }
}
