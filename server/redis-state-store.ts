// The service's resources in Redis, shared by every instance on it. Reads and writes are Lua scripts (each atomic in
// Redis); a change is optimistic: read the resource with its version, apply the rule in TypeScript (the same rule
// code as in memory), write back only if the version is unchanged, else read again and retry. Everything about one
// payment (the payment, its refunds) shares one version, so the refund limits hold across instances. On a Redis
// Cluster the resources are spread over hash-tagged partitions (a payout by its id; a payment and its refunds by the
// payment's id), and every script touches the keys of one partition, so it stays atomic.
import { createHash } from 'node:crypto';
import { HttpError } from './error-body.js';
import {
  newPaymentReference,
  type Payment,
  type Payout,
  type Refund,
  type ServiceState,
  type StateKind,
} from './state.js';
import type { Changed, StateStore, WebhookUrls } from './state-store.js';
import {
  CLUSTER_PARTITIONS,
  defineScript,
  evalScript,
  partitionOf,
  partitionTag,
  REDIS_COMMAND_TIMEOUT_MS,
  withTimeout,
  type RedisCommander,
  type RedisScript,
} from '../redis/commander.js';

/** KEYS[1]: versions hash, KEYS[2]: data hash; ARGV[1]: version field, ARGV[2]: data field. → {version, json} */
const READ_ONE = defineScript(
  `return {redis.call('HGET', KEYS[1], ARGV[1]) or '0', redis.call('HGET', KEYS[2], ARGV[2]) or false}`,
);

/** KEYS[1]: versions, KEYS[2]: payments, KEYS[3]: refunds of the payment; ARGV[1]: guard, ARGV[2]: paymentId. */
const READ_PAYMENT = defineScript(
  `return {redis.call('HGET', KEYS[1], ARGV[1]) or '0', redis.call('HGET', KEYS[2], ARGV[2]) or false, redis.call('HVALS', KEYS[3])}`,
);

/**
 * Compare-and-set: KEYS[1] versions hash, ARGV[1] guard field, ARGV[2] the version read. When unchanged: bump it and
 * HSET KEYS[j] field ARGV[2j-1] = ARGV[2j] for j >= 2; 1. Otherwise nothing; 0.
 */
const WRITE_IF_UNCHANGED = defineScript(`
local v = redis.call('HGET', KEYS[1], ARGV[1]) or '0'
if v ~= ARGV[2] then return 0 end
redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
for j = 2, #KEYS do redis.call('HSET', KEYS[j], ARGV[2 * j - 1], ARGV[2 * j]) end
return 1`);

/**
 * Compare-and-set by content, for an item guarded by itself alone (a payout): KEYS[1] its hash, ARGV[1] its field,
 * ARGV[2] the SHA-1 of the JSON the change was applied to, ARGV[3] the new JSON. Writes when the stored JSON is still
 * that one; 1, else 0. Two commands (HGET, HSET) and no version to keep: what was read is what is compared.
 */
const WRITE_IF_SAME = defineScript(`
local json = redis.call('HGET', KEYS[1], ARGV[1])
if not json or redis.sha1hex(json) ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return 1`);

/** Attempts of one optimistic change before giving up with 503 (only under heavy contention on one resource). */
const MAX_ATTEMPTS = 50;

/** What an attempt of an optimistic change returns when another write came first. */
const CONFLICT = Symbol('conflict');

/**
 * Runs `attempt` until it returns anything but CONFLICT, at most MAX_ATTEMPTS times: at once after a first conflict
 * when `copyFirst` (the first attempt used this instance's copy, and only that copy was stale), else after a short,
 * jittered pause (another instance changed it first); then 503 STATE_CONTENTION with `message`.
 */
async function retryOnConflict<V>(
  message: string,
  copyFirst: boolean,
  attempt: () => Promise<V | typeof CONFLICT>,
): Promise<V> {
  for (let n = 0; n < MAX_ATTEMPTS; n += 1) {
    const outcome = await attempt();
    if (outcome !== CONFLICT) return outcome;
    if (n === 0 && copyFirst) continue;
    await new Promise((r) => setTimeout(r, Math.random() * Math.min(20, 2 + n)));
  }
  throw new HttpError(503, 'STATE_CONTENTION', message);
}

export interface RedisStateStoreOptions {
  readonly client: RedisCommander;
  /** Prefix of every key (e.g. `payconform:`); the store adds `state:`. */
  readonly keyPrefix: string;
  /** This instance's view, kept up to date with what it reads and writes (the portal reads it). */
  readonly state: ServiceState;
  /** Time allowed for one round trip (default REDIS_COMMAND_TIMEOUT_MS); past it the request fails with 503. */
  readonly timeoutMs?: number;
  /** Hash-tagged partitions (default 1 on one server, 16 on a cluster client; see partitionOf). */
  readonly partitions?: number;
}

/** The keys of one partition (a hash tag after the prefix on a cluster, none on one server). */
interface PartitionKeys {
  readonly versions: string;
  readonly payments: string;
  readonly payouts: string;
  readonly refunds: string;
  /** Prefix of the per-payment refund hashes and of the counts. */
  readonly base: string;
}

export class RedisStateStore implements StateStore {
  readonly shared = true;
  readonly #client: RedisCommander;
  readonly #state: ServiceState;
  readonly #timeoutMs: number;
  readonly #partitions: readonly PartitionKeys[];
  /** Keys outside the partitions (each used alone, so any slot will do). */
  readonly #keys: {
    readonly references: string;
    readonly webhookUrls: string;
    /** refundId → paymentId (only with several partitions: where a refund's payment partition is). */
    readonly refundPayments: string;
    readonly prefix: string;
  };
  /**
   * The version this instance last read or wrote of each guard: a change of an item it knows is tried first on its
   * own copy (one round trip when nothing changed it meanwhile; the compare-and-set says when something did).
   */
  readonly #versions = new Map<string, string>();

  constructor(options: RedisStateStoreOptions) {
    this.#client = options.client;
    this.#state = options.state;
    this.#timeoutMs = options.timeoutMs ?? REDIS_COMMAND_TIMEOUT_MS;
    const p = `${options.keyPrefix}state:`;
    const count = options.partitions ?? (options.client.cluster === true ? CLUSTER_PARTITIONS : 1);
    if (count > 1 && /[{}]/.test(options.keyPrefix))
      throw new TypeError('keyPrefix must not contain "{" or "}" with more than one partition');
    this.#partitions = Array.from({ length: count }, (_, k) => {
      const base = `${options.keyPrefix}${partitionTag(k, count)}state:`;
      return {
        base,
        versions: `${base}versions`,
        payments: `${base}payments`,
        payouts: `${base}payouts`,
        refunds: `${base}refunds`,
      };
    });
    this.#keys = {
      prefix: p,
      references: `${p}references`,
      webhookUrls: `${p}webhook-urls`,
      refundPayments: `${p}refund-payments`,
    };
  }

  /** The partition of a payout (by its id) or of a payment and its refunds (by the payment's id). */
  #at(id: string): PartitionKeys {
    return this.#partitions[partitionOf(id, this.#partitions.length)]!;
  }

  #refundsOf(paymentId: string): string {
    return `${this.#at(paymentId).base}refunds-of:${paymentId}`;
  }

  async #send(args: string[], what: string): Promise<unknown> {
    try {
      return await withTimeout(this.#client.sendCommand(args), this.#timeoutMs, what);
    } catch (error) {
      throw new HttpError(
        503,
        'STATE_STORE_UNAVAILABLE',
        `the service's state store is unavailable, try again later: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  async #eval(
    script: RedisScript,
    keys: readonly string[],
    args: readonly string[],
    what: string,
  ): Promise<unknown> {
    try {
      return await evalScript(this.#client, script, keys, args, this.#timeoutMs, what);
    } catch (error) {
      throw new HttpError(
        503,
        'STATE_STORE_UNAVAILABLE',
        `the service's state store is unavailable, try again later: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  // --- the local view ---

  #remember<T extends object>(map: Map<string, T>, id: string, fresh: T): T {
    const known = map.get(id);
    if (known === undefined) {
      map.set(id, fresh);
      return fresh;
    }
    Object.assign(known, fresh);
    return known;
  }
  #payment = (p: Payment) => this.#remember(this.#state.payments, p.paymentId, p);
  #payout = (p: Payout) => this.#remember(this.#state.payouts, p.payoutId, p);
  #refund = (r: Refund) => this.#remember(this.#state.refunds, r.refundId, r);

  // --- reads ---

  async #readOne(
    versions: string,
    hash: string,
    guard: string,
    id: string,
  ): Promise<{ version: string; json: string | undefined }> {
    const reply = (await this.#eval(READ_ONE, [versions, hash], [guard, id], `read ${guard}`)) as [
      string,
      string | null,
    ];
    return { version: String(reply[0]), json: typeof reply[1] === 'string' ? reply[1] : undefined };
  }

  async getPayment(id: string) {
    const json = (await this.#send(['HGET', this.#at(id).payments, id], 'HGET payment')) as
      string | null;
    return typeof json === 'string' ? this.#payment(JSON.parse(json) as Payment) : undefined;
  }
  async getPayout(id: string) {
    const json = (await this.#send(['HGET', this.#at(id).payouts, id], 'HGET payout')) as
      string | null;
    return typeof json === 'string' ? this.#payout(JSON.parse(json) as Payout) : undefined;
  }
  async getRefund(id: string) {
    const paymentId = await this.#paymentOfRefund(id);
    if (paymentId === undefined) return undefined;
    const json = (await this.#send(['HGET', this.#at(paymentId).refunds, id], 'HGET refund')) as
      string | null;
    return typeof json === 'string' ? this.#refund(JSON.parse(json) as Refund) : undefined;
  }

  /** The payment a refund belongs to (its partition's key): this instance's view, else the store's index. */
  async #paymentOfRefund(id: string): Promise<string | undefined> {
    if (this.#partitions.length === 1) return '';
    const known = this.#state.refunds.get(id)?.paymentId;
    if (known !== undefined) return known;
    const reply = (await this.#send(['HGET', this.#keys.refundPayments, id], 'HGET refund')) as
      string | null;
    return typeof reply === 'string' ? reply : undefined;
  }
  async refundsOf(paymentId: string) {
    const all = (await this.#send(
      ['HVALS', this.#refundsOf(paymentId)],
      'HVALS refunds',
    )) as string[];
    return all
      .map((j) => this.#refund(JSON.parse(j) as Refund))
      .sort((a, b) => a.createdAt - b.createdAt);
  }
  /** Every partition's hash `which` (the portal and /sandbox/ lists; one HVALS per partition). */
  async #list<T>(
    which: 'payments' | 'payouts' | 'refunds',
    keep: (item: T) => T,
    by: (item: T) => number,
  ): Promise<T[]> {
    const parts = await Promise.all(
      this.#partitions.map((p) => this.#send(['HVALS', p[which]], 'HVALS') as Promise<string[]>),
    );
    return parts
      .flat()
      .map((j) => keep(JSON.parse(j) as T))
      .sort((a, b) => by(a) - by(b));
  }
  listPayments() {
    return this.#list('payments', this.#payment, (p) => p.createdAt);
  }
  listPayouts() {
    return this.#list('payouts', this.#payout, (p) => p.createdAt);
  }
  listRefunds() {
    return this.#list('refunds', this.#refund, (r) => r.createdAt);
  }

  // --- writes ---

  async newPaymentReference(): Promise<string> {
    // SADD answers 1 only to the one caller that added it, in any instance: the reference is reserved.
    for (let i = 0; i < 16; i += 1) {
      const reference = newPaymentReference();
      if ((await this.#send(['SADD', this.#keys.references, reference], 'SADD reference')) === 1)
        return reference;
    }
    throw new Error('could not assign a unique payment reference');
  }

  async reserve(kind: StateKind, applicationId: string) {
    // Payments and refunds are counted in the first partition with the whole limits (the count is a step of its own
    // before the object is stored); payouts, counted in the script that stores them, see addPayout.
    const keys = this.#countKeys(this.#partitions[0]!, kind, applicationId);
    const reply = await this.#eval(
      RESERVE,
      keys,
      [String(this.#state.limits[`${kind}PerApplication`]), String(this.#state.limits[kind])],
      `reserve ${kind}`,
    );
    this.#checkRoom(reply, kind, applicationId);
    let given = false;
    return async () => {
      if (given) return;
      given = true;
      await this.#eval(RELEASE, keys, [], `release ${kind}`);
    };
  }

  async addPayment(payment: Payment) {
    await this.#send(
      ['HSET', this.#at(payment.paymentId).payments, payment.paymentId, JSON.stringify(payment)],
      'HSET payment',
    );
    this.#versions.set(`payment:${payment.paymentId}`, '0');
    this.#payment(payment);
  }
  /**
   * One script: the counts of RESERVE, then the HSET (one round trip, as the HSET alone was). With several partitions
   * the counts are the payout's partition's, each holding the limits divided by the partitions (rounded up): an
   * application is refused when the partition its new payout falls in is full, at most at its whole limit.
   */
  async addPayout(payout: Payout) {
    const at = this.#at(payout.payoutId);
    const n = this.#partitions.length;
    const reply = await this.#eval(
      ADD_COUNTED,
      [...this.#countKeys(at, 'payouts', payout.applicationId), at.payouts],
      [
        String(Math.ceil(this.#state.limits.payoutsPerApplication / n)),
        String(Math.ceil(this.#state.limits.payouts / n)),
        payout.payoutId,
        JSON.stringify(payout),
      ],
      'add payout',
    );
    this.#checkRoom(reply, 'payouts', payout.applicationId);
    this.#payout(payout);
  }

  #countKeys(at: PartitionKeys, kind: StateKind, applicationId: string): [string, string] {
    // The single-server names are unchanged (`<prefix>state:count:…`).
    return [`${at.base}count:${kind}:${applicationId}`, `${at.base}count:${kind}`];
  }

  #checkRoom(reply: unknown, kind: StateKind, applicationId: string): void {
    if (reply === 1) throw this.#state.fullError(kind, 'application', applicationId, 'redis');
    if (reply === 2) throw this.#state.fullError(kind, 'service', applicationId, 'redis');
    if (reply !== 0)
      throw new HttpError(
        503,
        'STATE_STORE_UNAVAILABLE',
        `unexpected reply to the ${kind} count: ${JSON.stringify(reply)}`,
      );
  }

  /**
   * The optimistic loop on the item `id` of `hash` in partition `at`: `apply` on a fresh copy read with the version
   * of `guard` (or, first, on this instance's own copy at the version it last saw), write it to every place `writes`
   * names only if the version is unchanged, else read again.
   */
  async #change<T extends object, R>(
    at: PartitionKeys,
    hash: string,
    id: string,
    guard: string,
    writes: (item: T) => ReadonlyArray<readonly [hash: string, field: string]>,
    apply: (item: T) => R,
    keep: (item: T) => T,
    known: T | undefined,
  ): Promise<Changed<T, R>> {
    let cached = known !== undefined ? this.#versions.get(guard) : undefined;
    return retryOnConflict(
      `${guard} is being changed by too many requests at once, try again`,
      known !== undefined,
      async () => {
        let version: string;
        let item: T;
        if (cached !== undefined && known !== undefined) {
          [version, item] = [cached, JSON.parse(JSON.stringify(known)) as T];
          cached = undefined; // once: a conflict reads the stored item
        } else {
          const read = await this.#readOne(at.versions, hash, guard, id);
          if (read.json === undefined) return undefined;
          [version, item] = [read.version, JSON.parse(read.json) as T];
          this.#versions.set(guard, version);
        }
        const result = apply(item);
        const targets = writes(item);
        const written = await this.#eval(
          WRITE_IF_UNCHANGED,
          [at.versions, ...targets.map(([h]) => h)],
          [guard, version, ...targets.flatMap(([, field]) => [field, JSON.stringify(item)])],
          `write ${guard}`,
        );
        if (written !== 1) return CONFLICT;
        this.#versions.set(guard, String(Number(version) + 1));
        return { item: keep(item), result };
      },
    );
  }

  /**
   * A payout is guarded by its own content (WRITE_IF_SAME): the change is applied first to this instance's copy, and
   * the stored payout is read only when the copy was not the stored one.
   */
  async changePayout<R>(id: string, change: (payout: Payout) => R): Promise<Changed<Payout, R>> {
    const at = this.#at(id);
    const known = this.#state.payouts.get(id);
    let json = known !== undefined ? JSON.stringify(known) : undefined;
    return retryOnConflict(
      `payout:${id} is being changed by too many requests at once, try again`,
      known !== undefined,
      async () => {
        if (json === undefined) {
          const read = (await this.#send(['HGET', at.payouts, id], 'HGET payout')) as string | null;
          if (typeof read !== 'string') return undefined;
          json = read;
        }
        const item = JSON.parse(json) as Payout;
        const result = change(item);
        const written = await this.#eval(
          WRITE_IF_SAME,
          [at.payouts],
          [id, createHash('sha1').update(json, 'utf8').digest('hex'), JSON.stringify(item)],
          `write payout:${id}`,
        );
        if (written === 1) return { item: this.#payout(item), result };
        json = undefined;
        return CONFLICT;
      },
    );
  }

  async changeRefund<R>(id: string, change: (refund: Refund) => R) {
    const current = this.#state.refunds.get(id) ?? (await this.getRefund(id));
    if (current === undefined) return undefined;
    const at = this.#at(current.paymentId);
    // One guard per payment: its refunds and the payment change one at a time (the refund limits read them all).
    const writes = (r: Refund) =>
      [
        [at.refunds, r.refundId],
        [this.#refundsOf(r.paymentId), r.refundId],
      ] as const;
    return this.#change<Refund, R>(
      at,
      at.refunds,
      id,
      `payment:${current.paymentId}`,
      writes,
      change,
      this.#refund,
      // The guard covers the payment and all its refunds: our copy of this one refund is not enough to skip the read.
      undefined,
    );
  }

  changePayment<R>(id: string, change: (payment: Payment) => R) {
    const at = this.#at(id);
    return this.#change<Payment, R>(
      at,
      at.payments,
      id,
      `payment:${id}`,
      () => [[at.payments, id]],
      change,
      this.#payment,
      undefined,
    );
  }

  async createRefund(
    paymentId: string,
    decide: (payment: Payment, earlier: readonly Refund[]) => Refund,
  ): Promise<Refund | undefined> {
    const guard = `payment:${paymentId}`;
    const at = this.#at(paymentId);
    return retryOnConflict(
      `refunds of payment ${paymentId} are being created by too many requests at once, try again`,
      false,
      async () => {
        const reply = (await this.#eval(
          READ_PAYMENT,
          [at.versions, at.payments, this.#refundsOf(paymentId)],
          [guard, paymentId],
          'read payment',
        )) as [string, string | null, string[]];
        if (typeof reply[1] !== 'string') return undefined;
        const payment = this.#payment(JSON.parse(reply[1]) as Payment);
        const earlier = reply[2]
          .map((j) => this.#refund(JSON.parse(j) as Refund))
          .sort((a, b) => a.createdAt - b.createdAt);
        const refund = decide(payment, earlier);
        const json = JSON.stringify(refund);
        // With several partitions, where the refund is: written first (a refund id nobody knows yet is harmless).
        if (this.#partitions.length > 1)
          await this.#send(
            ['HSET', this.#keys.refundPayments, refund.refundId, paymentId],
            'HSET refund',
          );
        const written = await this.#eval(
          WRITE_IF_UNCHANGED,
          [at.versions, at.refunds, this.#refundsOf(paymentId)],
          [guard, String(reply[0]), refund.refundId, json, refund.refundId, json],
          'write refund',
        );
        return written === 1 ? this.#refund(refund) : CONFLICT;
      },
    );
  }

  async seedOnce<T>(name: string, seed: () => Promise<T> | T): Promise<T> {
    const done = `${this.#keys.prefix}seed:${name}`;
    const claim = `${this.#keys.prefix}seed-claim:${name}`;
    // Bounded: 200 rounds of 50 ms (10 s) waiting for the instance that claimed the seeding to finish it.
    for (let round = 0; round < 200; round += 1) {
      const existing = (await this.#send(['GET', done], 'GET seed')) as string | null;
      if (typeof existing === 'string') return JSON.parse(existing) as T;
      if ((await this.#send(['SET', claim, '1', 'NX', 'PX', '30000'], 'SET seed claim')) === 'OK') {
        const value = await seed();
        await this.#send(['SET', done, JSON.stringify(value)], 'SET seed');
        return value;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(
      `seeding "${name}" was claimed by another instance that did not finish it within 10 s`,
    );
  }

  async setWebhookUrls(applicationId: string, urls: WebhookUrls) {
    await this.#send(
      ['HSET', this.#keys.webhookUrls, applicationId, JSON.stringify(urls)],
      'HSET webhook URLs',
    );
    this.#state.webhookUrls.set(applicationId, { ...urls });
  }

  async loadWebhookUrls() {
    const flat = (await this.#send(
      ['HGETALL', this.#keys.webhookUrls],
      'HGETALL webhook URLs',
    )) as unknown;
    // node-redis answers HGETALL as an object; a RESP2 client as a flat [field, value, ...] list: both are read.
    const entries: Array<[string, string]> = Array.isArray(flat)
      ? Array.from(
          { length: flat.length >> 1 },
          (_, k) => [String(flat[2 * k]), String(flat[2 * k + 1])] as [string, string],
        )
      : flat !== null && typeof flat === 'object'
        ? Object.entries(flat as Record<string, unknown>).map(
            ([k, v]) => [k, String(v)] as [string, string],
          )
        : [];
    const view = this.#state.webhookUrls;
    view.clear();
    for (const [applicationId, json] of entries) {
      try {
        view.set(applicationId, JSON.parse(json) as WebhookUrls);
      } catch {
        // A value this service did not write: ignored (the application keeps the defaults).
      }
    }
    return view;
  }

  async close() {}
}

/**
 * KEYS: the application's count of one kind, the service's count of it. ARGV: the application's maximum, the
 * service's. Takes one of each, or none: 1 when the application's share is full, 2 when the service is full.
 * Counts live as long as the objects they count (no expiry); a Redis that restarted empty starts from zero.
 * Each count is taken first and given back when it went past its maximum (atomic in the script): two INCR when
 * there is room, instead of reading both counts and then taking them.
 */
const RESERVE_TEXT = `
if redis.call('INCR', KEYS[1]) > tonumber(ARGV[1]) then
  redis.call('DECR', KEYS[1])
  return 1
end
if redis.call('INCR', KEYS[2]) > tonumber(ARGV[2]) then
  redis.call('DECR', KEYS[2])
  redis.call('DECR', KEYS[1])
  return 2
end
return 0
`;

const RESERVE = defineScript(RESERVE_TEXT);

/** RESERVE, then (when it took room) HSET KEYS[3] ARGV[3] ARGV[4]. */
const ADD_COUNTED = defineScript(
  RESERVE_TEXT.replace(/return 0\n$/, "redis.call('HSET', KEYS[3], ARGV[3], ARGV[4])\nreturn 0\n"),
);

/** Gives back what RESERVE took (never below zero). */
const RELEASE = defineScript(`
for _, key in ipairs(KEYS) do
  if tonumber(redis.call('GET', key) or '0') > 0 then redis.call('DECR', key) end
end
return 0
`);
