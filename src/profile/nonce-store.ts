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
 * Eviction is a time-ordered queue: nonces are grouped by expiry time, and a min-heap of those times says which
 * group expires next, so each call only touches what has just expired (never a walk over the whole store).
 */
export class MemoryNonceStore implements NonceStore {
  /** nonce → expiresAt. */
  readonly #entries = new Map<string, number>();
  /** expiresAt → the nonces recorded with that expiry. */
  readonly #groups = new Map<number, string[]>();
  /** Min-heap of the keys of #groups. */
  readonly #expiries: number[] = [];
  readonly #maxEntries: number;

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
      throw new PayconformError('NONCE_STORE_FULL', `nonce store is full (${this.#maxEntries} unexpired nonces)`);
    }
    this.#entries.set(nonce, expiresAt);
    // A NaN expiry is never ">= now" (already expired): its group is evicted on the next call.
    const key = Number.isNaN(expiresAt) ? -Infinity : expiresAt;
    const group = this.#groups.get(key);
    if (group === undefined) {
      this.#groups.set(key, [nonce]);
      heapPush(this.#expiries, key);
    } else {
      group.push(nonce);
    }
    return true;
  }

  /** Drops every group that expired before `now` (entries re-recorded since with a later expiry are kept). */
  #evict(now: number): void {
    const expiries = this.#expiries;
    while (expiries.length > 0 && (expiries[0] as number) < now) {
      const key = heapPop(expiries);
      for (const nonce of this.#groups.get(key) ?? []) {
        const expiresAt = this.#entries.get(nonce);
        if (expiresAt !== undefined && !(expiresAt >= now)) this.#entries.delete(nonce);
      }
      this.#groups.delete(key);
    }
  }
}

function heapPush(heap: number[], value: number): void {
  let i = heap.push(value) - 1;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if ((heap[parent] as number) <= value) break;
    heap[i] = heap[parent] as number;
    i = parent;
  }
  heap[i] = value;
}

function heapPop(heap: number[]): number {
  const top = heap[0] as number;
  const last = heap.pop() as number;
  if (heap.length > 0) {
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && (heap[right] as number) < (heap[left] as number) ? right : left;
      if ((heap[child] as number) >= last) break;
      heap[i] = heap[child] as number;
      i = child;
    }
    heap[i] = last;
  }
  return top;
}
