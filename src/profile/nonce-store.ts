// Replay protection state: an interface a shared store (e.g. Redis SET NX EX) can implement, and an in-memory one.
import { PayconformError } from '../errors.js';

/**
 * Who records a nonce. A nonce's uniqueness stays global (spec step 4: "was not used before"); the owner only lets
 * a store give each application its own share of capacity, so one client cannot fill the store and lock others out.
 */
export interface NonceOwner {
  readonly applicationId: string;
  readonly keyId: string;
}

/**
 * Nonces are scoped globally (spec step 4: "was not used before"), not per application or key.
 * `checkAndRecord` must be atomic: of many concurrent calls with one nonce, exactly one returns true.
 */
export interface NonceStore {
  /** True when `nonce` is recorded and not yet expired at `now` (unix seconds). */
  has(nonce: string, now: number): boolean | Promise<boolean>;
  /**
   * Records `nonce` until `expiresAt` (unix seconds); false when it was already recorded and not expired.
   * `verifyRequest` always passes `owner` (a store may ignore it); a store that apportions capacity throws (fail
   * closed) when the owner's share is full, as it does when the whole store is full.
   */
  checkAndRecord(
    nonce: string,
    now: number,
    expiresAt: number,
    owner?: NonceOwner,
  ): boolean | Promise<boolean>;
}

/** How many nonces a `MemoryNonceStore` remembers, in all and per application (when full, new ones are refused). */
export interface MemoryNonceStoreOptions {
  /** Hard cap on remembered nonces; when full of unexpired nonces, new ones are refused (fail closed). */
  readonly maxEntries?: number;
  /**
   * Cap on the unexpired nonces one application (`owner.applicationId`) may hold; default a tenth of `maxEntries`.
   * Nonces recorded without an owner count only against `maxEntries`.
   */
  readonly maxEntriesPerApplication?: number;
}

/** One application's count of remembered nonces. */
interface Share {
  readonly applicationId: string;
  held: number;
}

/** The nonces recorded with one expiry time, and how many of them each application holds. */
interface ExpiryGroup {
  readonly nonces: string[];
  readonly shares: Map<Share, number>;
}

/**
 * In-memory NonceStore. Memory is bounded by the validity window: entries expire at `expiresAt` and are evicted
 * as time moves on; `maxEntries` (default 1,000,000) caps memory under a flood, and `maxEntriesPerApplication`
 * (default 100,000) caps what one application can hold, so a single client that fills its share is refused alone.
 * Single process only. Eviction is a time-ordered queue: nonces are grouped by expiry time, and a min-heap of those
 * times says which group expires next, so each call only touches what has just expired (never a walk over the store).
 * Each nonce is copied before it is kept: a nonce sliced out of a Signature-Input header would otherwise keep the
 * whole header alive (about 100 bytes per nonce instead of over 300; `npm run bench:nonce-memory`).
 *
 * @example
 * ```ts
 * const nonceStore = new MemoryNonceStore({ maxEntries: 1_000_000 });
 * await verifyRequest(request, { nonceStore, resolveApplication });
 * ```
 */
export class MemoryNonceStore implements NonceStore {
  /** nonce → expiresAt. */
  readonly #entries = new Map<string, number>();
  /** expiresAt → the nonces recorded with that expiry. */
  readonly #groups = new Map<number, ExpiryGroup>();
  /** Min-heap of the keys of #groups. */
  readonly #expiries: number[] = [];
  /** applicationId → its share; only applications holding unexpired nonces. */
  readonly #shares = new Map<string, Share>();
  readonly #maxEntries: number;
  readonly #maxPerApplication: number;

  constructor(options: MemoryNonceStoreOptions = {}) {
    const max = options.maxEntries ?? 1_000_000;
    if (!Number.isInteger(max) || max < 1)
      throw new TypeError('maxEntries must be a positive integer');
    const perApplication = options.maxEntriesPerApplication ?? Math.max(1, Math.floor(max / 10));
    if (!Number.isInteger(perApplication) || perApplication < 1)
      throw new TypeError('maxEntriesPerApplication must be a positive integer');
    this.#maxEntries = max;
    this.#maxPerApplication = perApplication;
  }

  /** Number of remembered (possibly expired, not yet evicted) nonces. */
  get size(): number {
    return this.#entries.size;
  }

  /** Number of remembered (possibly expired, not yet evicted) nonces recorded by `applicationId`. */
  heldBy(applicationId: string): number {
    return this.#shares.get(applicationId)?.held ?? 0;
  }

  has(nonce: string, now: number): boolean {
    const expiresAt = this.#entries.get(nonce);
    return expiresAt !== undefined && expiresAt >= now;
  }

  checkAndRecord(nonce: string, now: number, expiresAt: number, owner?: NonceOwner): boolean {
    this.#evict(now);
    const existing = this.#entries.get(nonce);
    if (existing !== undefined && existing >= now) return false;
    if (existing === undefined && this.#entries.size >= this.#maxEntries) {
      throw new PayconformError(
        'NONCE_STORE_FULL',
        `nonce store is full (${this.#maxEntries} unexpired nonces)`,
      );
    }
    let share: Share | undefined;
    if (owner !== undefined) {
      share = this.#shares.get(owner.applicationId);
      if (share !== undefined && share.held >= this.#maxPerApplication) {
        throw new PayconformError(
          'NONCE_SHARE_FULL',
          `application ${JSON.stringify(owner.applicationId)} holds its whole share of the nonce store (${this.#maxPerApplication} unexpired nonces)`,
        );
      }
      if (share === undefined) {
        share = { applicationId: ownCopy(owner.applicationId), held: 0 };
        this.#shares.set(share.applicationId, share);
      }
    }
    const kept = ownCopy(nonce);
    this.#entries.set(kept, expiresAt);
    // A NaN expiry is never ">= now" (already expired): its group is evicted on the next call.
    const key = Number.isNaN(expiresAt) ? -Infinity : expiresAt;
    let group = this.#groups.get(key);
    if (group === undefined) {
      group = { nonces: [], shares: new Map() };
      this.#groups.set(key, group);
      heapPush(this.#expiries, key);
    }
    group.nonces.push(kept);
    if (share !== undefined) {
      share.held++;
      group.shares.set(share, (group.shares.get(share) ?? 0) + 1);
    }
    return true;
  }

  /** Drops every group that expired before `now` (entries re-recorded since with a later expiry are kept). */
  #evict(now: number): void {
    const expiries = this.#expiries;
    while (expiries.length > 0 && (expiries[0] as number) < now) {
      const key = heapPop(expiries);
      const group = this.#groups.get(key);
      if (group === undefined) continue;
      for (const nonce of group.nonces) {
        const expiresAt = this.#entries.get(nonce);
        if (expiresAt !== undefined && !(expiresAt >= now)) this.#entries.delete(nonce);
      }
      // A nonce is re-recorded only once its old group was evicted (both happen at the same `now`), so each
      // group's counts are exactly what its eviction releases.
      for (const [share, count] of group.shares) {
        share.held -= count;
        if (share.held <= 0) this.#shares.delete(share.applicationId);
      }
      this.#groups.delete(key);
    }
  }
}

/**
 * A copy of `text` that shares no memory with the string it came from. V8 represents a substring of 13 or more
 * characters as a slice that keeps its whole parent alive; a nonce parsed out of a Signature-Input header would
 * keep that header (about 300 bytes) for as long as the nonce is remembered (from the worker pool: a whole batch's
 * answer). Prepending a character makes a pair of strings; slicing it flattens that pair into a new string of
 * its own (a copy) and slices that: about 65 ns, against about 550 ns for a JSON round trip.
 */
function ownCopy(text: string): string {
  return (' ' + text).slice(1);
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
      const child =
        right < heap.length && (heap[right] as number) < (heap[left] as number) ? right : left;
      if ((heap[child] as number) >= last) break;
      heap[i] = heap[child] as number;
      i = child;
    }
    heap[i] = last;
  }
  return top;
}
