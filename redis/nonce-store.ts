// A NonceStore shared by every verifier: one Lua script per recorded nonce (atomic in Redis) that records the nonce
// with `SET NX PX` and, in the same step, notices when Redis has lost its data; fails closed (a rejection, never an
// acceptance) when Redis is down, slow or answers an error.
import { PayconformError } from '../src/errors.js';
import type { NonceOwner, NonceStore } from '../src/profile/nonce-store.js';
import { serviceProfile } from '../src/profile/service-profile.js';
import {
  CLUSTER_PARTITIONS,
  defineScript,
  evalScript,
  partitionOf,
  partitionTag,
  withTimeout,
  type RedisCommander,
} from './commander.js';

/**
 * How a `RedisNonceStore` records nonces: the client, the key prefix and the deadline of each
 * command.
 */
export interface RedisNonceStoreOptions {
  /** A connected client (node-redis `createClient`, or `connectRedis` from this module). Not closed by the store. */
  readonly client: RedisCommander;
  /** Prepended to every key (default `payconform:nonce:`); lets several services share one Redis. */
  readonly keyPrefix?: string;
  /** Time allowed for one round trip (default 250 ms); past it the call fails and verification fails closed. */
  readonly timeoutMs?: number;
  /**
   * Seconds added to the moment a loss of data was noticed (default 0): signatures created up to that much later
   * are refused too. Raise it when verifier instances' clocks may differ by more than a second.
   */
  readonly resetToleranceSeconds?: number;
  /** The validity window of a signature (default the profile's 300 s); how long a reset keeps refusing. */
  readonly windowSeconds?: number;
  /**
   * Nonces one application (`owner.applicationId`) may record per two windows (default: no bound): counted in Redis
   * per window of `windowSeconds`, this one and the one before, which covers every nonce still remembered. Past it,
   * `checkAndRecord` throws NONCE_SHARE_FULL (fail closed) for that application alone. Over `partitions` > 1 each
   * partition counts its own share, `maxNoncesPerApplication / partitions` rounded up.
   */
  readonly maxNoncesPerApplication?: number;
  /**
   * Partitions the nonces are spread over by hash tag (`{p<k>}` after the prefix; default 1 on one server, 16 on a
   * cluster client): each partition has its own marker, horizon and share counts, so the one script per nonce
   * touches one slot. A partition whose node lost its data refuses, by its own horizon, the nonces it held.
   */
  readonly partitions?: number;
}

/** The code of a refusal because the signature may be older than a loss of the store's data. */
export const NONCE_STORE_RESET_CODE = 'CREATED_BEFORE_NONCE_STORE_RESET';

/**
 * Thrown by `checkAndRecord` when Redis lost its data (restart without persistence, FLUSHALL, failover to a replica
 * that had not caught up) and the signature was created at or before the moment that was noticed: its nonce may
 * have been recorded and forgotten. `verifyRequest` answers CREATED_BEFORE_NONCE_STORE_RESET.
 */
export class NonceStoreResetError extends PayconformError {
  override name = 'NonceStoreResetError';
  /** Unix seconds: signatures created at or before it are refused until it is `windowSeconds` old. */
  readonly horizon: number;

  constructor(horizon: number, created: number) {
    super(
      NONCE_STORE_RESET_CODE,
      `the nonce store lost its data (noticed at ${horizon}); a signature created at ${created} may be a replay: sign again (created after ${horizon})`,
    );
    this.horizon = horizon;
  }
}

/**
 * KEYS: nonce, marker, horizon, the owner's count for this window and for the one before. ARGV: nonce TTL ms
 * ('' = only check), now, created, tolerance s, window s, the owner's maximum ('' = none).
 * The marker holds the replication id of the Redis that holds the nonces (`master_replid`, new at every start
 * and at every promotion of a replica); a marker that is missing (flush, restart without persistence) or names
 * another replication id (a promoted replica, a restart) means nonces may have been forgotten: the horizon is set
 * to now + tolerance and kept for the window. Returns {status, horizon}: 1 recorded, 0 already recorded,
 * -1 refused (created at or before the horizon), -2 the owner's share is full, 2 only checked.
 * Commands when nothing was lost: INFO, one MGET (marker, horizon and the owner's two counts: all share the
 * partition's hash tag), SET NX and, with a share, INCR (PEXPIRE only on a count's first increment).
 */
const RECORD_SCRIPT = `
local replid = string.match(redis.call('INFO', 'replication'), 'master_replid:(%w+)') or ''
local now = tonumber(ARGV[2])
local share = ARGV[6] ~= ''
local got
if share then got = redis.call('MGET', KEYS[2], KEYS[3], KEYS[4], KEYS[5])
else got = redis.call('MGET', KEYS[2], KEYS[3]) end
local horizon = tonumber(got[2])
if got[1] ~= replid then
  local h = now + tonumber(ARGV[4])
  if horizon == nil or h > horizon then horizon = h end
  redis.call('SET', KEYS[3], horizon, 'PX', math.ceil((horizon - now + tonumber(ARGV[5]) + 1) * 1000))
  redis.call('SET', KEYS[2], replid)
end
if ARGV[1] == '' then return {2, tostring(horizon or '')} end
if horizon ~= nil and tonumber(ARGV[3]) <= horizon then return {-1, tostring(horizon)} end
if share and tonumber(got[3] or '0') + tonumber(got[4] or '0') >= tonumber(ARGV[6]) then
  if redis.call('EXISTS', KEYS[1]) == 1 then return {0, ''} end
  return {-2, ''}
end
if redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) then
  -- A count lives two windows from its first nonce, which covers the window it counts and the next.
  if share and redis.call('INCR', KEYS[4]) == 1 then
    redis.call('PEXPIRE', KEYS[4], (2 * tonumber(ARGV[5]) + 1) * 1000)
  end
  return {1, ''}
end
return {0, ''}
`;
const RECORD = defineScript(RECORD_SCRIPT);

/**
 * Redis-backed NonceStore. `checkAndRecord` is one script round trip (EVALSHA, EVAL once after Redis forgot the
 * script): of many concurrent calls with one nonce, from any number of processes on one Redis, exactly one records
 * it. Expiry is Redis's own, so memory is bounded by the validity window. Every failure (unreachable, timeout,
 * error reply) rejects the promise; `verifyRequest` turns that into NONCE_STORE_UNAVAILABLE, so nothing is accepted
 * without a recorded nonce. When Redis lost its data, signatures created at or before the moment it was noticed
 * are refused (NonceStoreResetError) for one validity window: every nonce that may have been forgotten is refused
 * by its `created`.
 *
 * @example
 * ```ts
 * import { connectRedis, RedisNonceStore } from 'payconform/redis';
 * const client = await connectRedis(process.env.REDIS_URL!);
 * const nonceStore = new RedisNonceStore({ client }); // shared by every instance: a nonce is accepted once
 * ```
 */
export class RedisNonceStore implements NonceStore {
  readonly #client: RedisCommander;
  readonly #prefix: string;
  readonly #partitions: number;
  #noticedAt = -Infinity;
  readonly #timeoutMs: number;
  readonly #tolerance: number;
  readonly #window: number;
  readonly #maxPerApplication: number | undefined;

  constructor(options: RedisNonceStoreOptions) {
    if (typeof options?.client?.sendCommand !== 'function')
      throw new TypeError('RedisNonceStore needs options.client with sendCommand()');
    const timeoutMs = options.timeoutMs ?? 250;
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
      throw new TypeError('timeoutMs must be a positive number');
    const tolerance = options.resetToleranceSeconds ?? 0;
    if (!Number.isInteger(tolerance) || tolerance < 0)
      throw new TypeError('resetToleranceSeconds must be a non-negative integer');
    const window = options.windowSeconds ?? serviceProfile.maxAgeSeconds;
    if (!Number.isInteger(window) || window < 1)
      throw new TypeError('windowSeconds must be a positive integer');
    this.#client = options.client;
    this.#prefix = options.keyPrefix ?? 'payconform:nonce:';
    const partitions =
      options.partitions ?? (options.client.cluster === true ? CLUSTER_PARTITIONS : 1);
    if (!Number.isInteger(partitions) || partitions < 1 || partitions > 1024)
      throw new TypeError('partitions must be an integer from 1 to 1024');
    // The partition's hash tag must be the first braces of every key: none in the prefix.
    if (partitions > 1 && /[{}]/.test(this.#prefix))
      throw new TypeError('keyPrefix must not contain "{" or "}" with more than one partition');
    this.#partitions = partitions;
    this.#timeoutMs = timeoutMs;
    this.#tolerance = tolerance;
    this.#window = window;
    const perApplication = options.maxNoncesPerApplication;
    if (perApplication !== undefined && (!Number.isInteger(perApplication) || perApplication < 1))
      throw new TypeError('maxNoncesPerApplication must be a positive integer');
    this.#maxPerApplication = perApplication;
  }

  /** `now` is not needed: Redis drops expired keys itself. */
  async has(nonce: string, _now?: number): Promise<boolean> {
    const reply = await withTimeout(
      this.#client.sendCommand(['EXISTS', this.#nonceKey(nonce)]),
      this.#timeoutMs,
      'EXISTS',
    );
    if (typeof reply !== 'number')
      throw new Error(`unexpected EXISTS reply ${JSON.stringify(reply)}`);
    return reply > 0;
  }

  /**
   * Checks, before any request is served, whether Redis lost its data (a first start counts: an empty Redis cannot
   * be told from one that forgot), then waits until the clock has passed a horizon set just now (at most
   * `resetToleranceSeconds` + 1 s) so that requests signed after start-up are not refused. Returns the horizon in
   * force (unix seconds), or undefined when none is.
   */
  async open(now: () => number = () => Date.now() / 1000): Promise<number | undefined> {
    const at = Math.floor(now());
    // Every partition (each may sit on another node): the latest horizon in force is the one to wait out.
    const replies = await Promise.all(
      Array.from({ length: this.#partitions }, (_, k) =>
        this.#run(k, `${this.#base(k)}\u0000probe`, '', at, 0, undefined),
      ),
    );
    let value: number | undefined;
    for (const [status, horizon] of replies) {
      if (status !== 2) throw new Error(`unexpected nonce script status ${status}`);
      if (horizon !== '') value = Math.max(value ?? -Infinity, Number(horizon));
    }
    if (value !== undefined && value >= at && value - at <= this.#tolerance) {
      const waitMs = (value + 1) * 1000 - now() * 1000;
      if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(waitMs, 60_000)));
    }
    return value;
  }

  /**
   * Redis's capacity is its `maxmemory` (a full Redis answers an error: fail closed); with `maxNoncesPerApplication`
   * each `owner.applicationId` has its own share. The signature's `created` is taken as `expiresAt` minus the window
   * (what `verifyRequest` passes once step 3 held).
   */
  async checkAndRecord(
    nonce: string,
    now: number,
    expiresAt: number,
    owner?: NonceOwner,
  ): Promise<boolean> {
    // A time to live relative to the caller's clock (PX, not PXAT): Redis's clock may differ from the verifier's, and
    // the window is the verifier's. Kept through the whole second `expiresAt` (the memory store keeps a nonce while
    // expiresAt >= now), so never for less than one second.
    const seconds = Math.max(Number.isFinite(expiresAt) ? expiresAt - now : 0, 0) + 1;
    const created = Number.isFinite(expiresAt)
      ? Math.floor(expiresAt) - this.#window
      : Math.floor(now);
    const k = partitionOf(nonce, this.#partitions);
    const [status, horizon] = await this.#run(
      k,
      this.#nonceKey(nonce),
      String(Math.ceil(seconds * 1000)),
      now,
      created,
      owner?.applicationId,
    );
    if (status === 1) return true;
    if (status === 0) return false;
    if (status === -1) {
      this.#noticeEverywhere(now);
      throw new NonceStoreResetError(Number(horizon), created);
    }
    if (status === -2)
      throw new PayconformError(
        'NONCE_SHARE_FULL',
        `application ${JSON.stringify(owner?.applicationId)} holds its whole share of the nonce store (${this.#maxPerApplication} nonces per ${2 * this.#window} s${this.#partitions > 1 ? `, ${this.#sharePerPartition()} in each of ${this.#partitions} partitions` : ''})`,
      );
    throw new Error(`unexpected nonce script status ${status}`);
  }

  /**
   * With several partitions each notices a loss when it is first used: a partition first used long after its node
   * restarted would set its horizon late and refuse requests signed well after the loss. So a refusal makes every
   * partition check at once (in the background, at most once a second), and they all set their horizon now.
   */
  #noticeEverywhere(now: number): void {
    if (this.#partitions === 1 || now < this.#noticedAt + 1) return;
    this.#noticedAt = now;
    for (let k = 0; k < this.#partitions; k += 1)
      this.#run(k, `${this.#base(k)}\u0000probe`, '', Math.floor(now), 0, undefined).catch(
        () => {},
      );
  }

  /** The prefix of partition `k`'s keys: the key prefix, then its hash tag (none with one partition). */
  #base(k: number): string {
    return this.#prefix + partitionTag(k, this.#partitions);
  }

  #nonceKey(nonce: string): string {
    return this.#base(partitionOf(nonce, this.#partitions)) + nonce;
  }

  #sharePerPartition(): number {
    return Math.ceil((this.#maxPerApplication ?? 0) / this.#partitions);
  }

  async #run(
    k: number,
    nonceKey: string,
    ttlMs: string,
    now: number,
    created: number,
    applicationId: string | undefined,
  ): Promise<readonly [number, string]> {
    // The owner's counts: this window's and the one before (a nonce lives at most two windows: created may be one
    // window ahead).
    const bucket = Math.floor(now / this.#window);
    const share = this.#maxPerApplication !== undefined && applicationId !== undefined;
    const base = this.#base(k);
    // A NUL cannot appear in a nonce taken from a Signature-Input (an sf-string), so no nonce key collides.
    const countKey = (b: number) => `${base}\u0000share:${applicationId ?? ''}:${b}`;
    const keys = [
      nonceKey,
      `${base}\u0000epoch`,
      `${base}\u0000reset-horizon`,
      countKey(bucket),
      countKey(bucket - 1),
    ];
    const args = [
      ttlMs,
      String(Math.floor(now)),
      String(created),
      String(this.#tolerance),
      String(this.#window),
      share ? String(this.#sharePerPartition()) : '',
    ];
    // Redis forgets scripts when it restarts: evalScript then sends the text once (cached again from then on).
    const reply = await evalScript(this.#client, RECORD, keys, args, this.#timeoutMs, 'nonce');
    if (
      !Array.isArray(reply) ||
      reply.length !== 2 ||
      typeof reply[0] !== 'number' ||
      typeof reply[1] !== 'string'
    )
      throw new Error(`unexpected nonce script reply ${JSON.stringify(reply)}`);
    return [reply[0], reply[1]];
  }
}
