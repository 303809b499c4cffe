// Replay protection state: an interface a shared store (e.g. Redis SET NX EX) can implement, and an in-memory one.
import { PayconformError } from '../errors.js';

/**
 * Nonces are scoped globally (spec step 4: "was not used before"), not per application or key.
 * `checkAndRecord` must be atomic: of many concurrent calls with one nonce, exactly one returns true.
 */
export interface NonceStore {
  /** True when `nonce` is recorded and not yet expired at `now` (unix seconds). */
  has(nonce: string, now: number): boolean | Promise<boolean>;
  /** Records `nonce` until `expiresAt` (unix seconds); false when it was already recorded and not expired. */
  checkAndRecord(nonce: string, now: number, expiresAt: number): boolean | Promise<boolean>;
}

export interface MemoryNonceStoreOptions {
  /** Hard cap on remembered nonces; when full of unexpired nonces, new ones are refused (fail closed). */
  readonly maxEntries?: number;
}

/**
 * In-memory NonceStore. Memory is bounded by the validity window: entries expire at `expiresAt` and are evicted
 * as time moves on; `maxEntries` (default 1,000,000) caps memory under a flood. Single process only.
 */
export class MemoryNonceStore implements NonceStore {
  readonly #entries = new Map<string, number>();
  readonly #maxEntries: number;
  #lastSweep = -Infinity;

  constructor(options: MemoryNonceStoreOptions = {}) {
    const max = options.maxEntries ?? 1_000_000;
    if (!Number.isInteger(max) || max < 1) throw new TypeError('maxEntries must be a positive integer');
    this.#maxEntries = max;
  }

  /** Number of remembered (possibly expired, not yet evicted) nonces. */
  get size(): number {
    return this.#entries.size;
  }

  has(nonce: string, now: number): boolean {
    const expiresAt = this.#entries.get(nonce);
    return expiresAt !== undefined && expiresAt >= now;
  }

  checkAndRecord(nonce: string, now: number, expiresAt: number): boolean {
    this.#evict(now);
    const existing = this.#entries.get(nonce);
    if (existing !== undefined && existing >= now) return false;
    if (existing === undefined && this.#entries.size >= this.#maxEntries) {
      this.#sweep(now);
      if (this.#entries.size >= this.#maxEntries) {
        throw new PayconformError('NONCE_STORE_FULL', `nonce store is full (${this.#maxEntries} unexpired nonces)`);
      }
    }
    // Delete first so the Map's insertion order stays roughly the expiry order.
    this.#entries.delete(nonce);
    this.#entries.set(nonce, expiresAt);
    return true;
  }

  /** Drops expired entries at the front (insertion order is close to expiry order); a full sweep once a second. */
  #evict(now: number): void {
    for (const [nonce, expiresAt] of this.#entries) {
      if (expiresAt >= now) break;
      this.#entries.delete(nonce);
    }
    if (now - this.#lastSweep >= 1) this.#sweep(now);
  }

  #sweep(now: number): void {
    this.#lastSweep = now;
    for (const [nonce, expiresAt] of this.#entries) if (expiresAt < now) this.#entries.delete(nonce);
  }
}
