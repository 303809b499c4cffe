// The webhook delivery queue in Redis, shared by every instance on it. A delivery is one key (its record and the
// payload of each attempt) and one member of the due set it shares with the lifecycle steps (RedisBackstop), scored
// by when it is due, or, once finished, by when it finished in a band of scores far above any due time (FINISHED):
// the same set lists the deliveries for `/sandbox/deliveries`, and the backstop, which reads only due times, never
// sees the finished. The instance that queues a delivery writes it already claimed (due at now + lease) and makes the
// first attempt at once; it writes each result with the next due time and, on its own timer, claims and makes the
// next attempt (a Lua script moves the score to now + lease only when it is due and not leased). The due set is the
// backstop: every instance looks for attempts overdue by more than a grace period and claims them. So each attempt is made by one
// instance; an instance that dies mid-attempt leaves the lease to run out, and another instance makes that attempt
// again: a delivery is never lost (at worst an attempt is repeated). On a cluster a delivery lives in the partition
// of its resource (the payout's, the payment's).
import {
  partitionOf,
  REDIS_COMMAND_TIMEOUT_MS,
  withTimeout,
  type RedisCommander,
} from '../redis/commander.js';
import { DecimalNumber } from './json-writer.js';
import { BACKSTOP_GRACE_MS, givenOrOwnBackstop, type RedisBackstop } from './redis-backstop.js';
import { RedisBatch } from './redis-batch.js';
import type { DeliveryRecord, SharedDeliveries, SharedDelivery } from './webhook-delivery.js';

/**
 * Scores at or above this mark finished deliveries (FINISHED + the time they finished, ms): far above any due time
 * (ms since 1970), and exact in a double.
 */
const FINISHED = 1e15;

/** A queued delivery prunes its partition's finished ones about once in this many (ids are random). */
const PRUNE_EVERY = 64;

export interface RedisDeliveriesOptions {
  readonly client: RedisCommander;
  readonly keyPrefix: string;
  /** How long a claimed attempt may take before another instance may take it over (the attempt's timeout + margin). */
  readonly leaseMs: number;
  /** Partitions (hash tags; see partitionOf): 1 on one server. A given backstop brings its own (the two agree). */
  readonly partitions?: number;
  /** One backstop pass over every partition takes this long (default 1 s on one partition, else 4 s). */
  readonly backstopMs?: number;
  readonly log: (line: string) => void;
  /** Deliveries listed by `/sandbox/deliveries` (default 10,000, shared out over the partitions). */
  readonly maxRecords?: number;
  /** How long a finished delivery's record stays listed (default 10 minutes). */
  readonly keepFinishedMs?: number;
  /** Writes of one turn sent together (shared with the lifecycle timers). */
  readonly batch?: RedisBatch;
  /** The due set and its backstop (shared with the lifecycle timers; else one of its own). */
  readonly backstop?: RedisBackstop;
}

type Attempt = (
  delivery: SharedDelivery,
) => Promise<{ readonly record: DeliveryRecord; readonly nextInMs: number | undefined }>;

export class RedisDeliveries implements SharedDeliveries {
  readonly #o: RedisDeliveriesOptions;
  readonly #batch: RedisBatch;
  readonly #backstop: RedisBackstop;
  /** Finished deliveries listed per partition. */
  readonly #keptPerPartition: number;
  readonly #keepFinishedMs: number;
  #attempt: Attempt | undefined;
  #closed = false;
  readonly #local = new Set<NodeJS.Timeout>();
  /** Attempts under way here (id → partition): handed back when this instance closes. */
  readonly #running = new Map<string, number>();

  constructor(options: RedisDeliveriesOptions) {
    this.#o = options;
    this.#batch = options.batch ?? new RedisBatch(options.client);
    this.#backstop = givenOrOwnBackstop(options);
    this.#keptPerPartition = Math.ceil((options.maxRecords ?? 10_000) / this.#backstop.partitions);
    this.#keepFinishedMs = options.keepFinishedMs ?? 600_000;
  }

  /** One command on the shared connection, bounded to REDIS_COMMAND_TIMEOUT_MS. */
  #send(args: string[], what: string): Promise<unknown> {
    return withTimeout(this.#o.client.sendCommand(args), REDIS_COMMAND_TIMEOUT_MS, what);
  }

  #keys(k: number) {
    return { due: this.#backstop.dueKey(k), item: this.#backstop.deliveryKey(k, '') };
  }

  async add(delivery: SharedDelivery): Promise<void> {
    const id = String(delivery.record.id);
    const k = partitionOf(delivery.record.resourceId, this.#backstop.partitions);
    const keys = this.#keys(k);
    // The record and its due time (already claimed: now + lease). Held by this instance from now on: a close before
    // the attempt hands it back too. About once in PRUNE_EVERY, finished deliveries past keepFinishedMs (their
    // records are gone) or beyond the last maxRecords leave the set.
    this.#running.set(id, k);
    const now = Date.now();
    await this.#batch.write([
      // The due entry first: when the record does not follow, the backstop drops the entry (RedisBackstop).
      { command: 'ZADD', key: keys.due, args: [String(now + this.#o.leaseMs), id] },
      { command: 'SET', key: keys.item + id, args: [encode(delivery)] },
      ...(delivery.record.id % PRUNE_EVERY === 0
        ? [
            {
              command: 'ZPRUNE',
              key: keys.due,
              args: [
                String(FINISHED),
                String(FINISHED + now - this.#keepFinishedMs),
                String(this.#keptPerPartition),
              ],
            },
          ]
        : []),
    ]);
    // Queued already claimed by this instance: the first attempt at once.
    if (this.#attempt !== undefined && !this.#closed) this.#start(k, id, delivery);
    else if (!this.#closed) this.#running.delete(id);
  }

  start(attempt: Attempt): void {
    this.#attempt = attempt;
    this.#backstop.onDeliveries(this.#o.leaseMs, (k, id, json) => {
      if (!this.#closed) void this.#resume(k, id, json);
    });
  }

  /** This instance's timer for the next attempt of `id`: claimed here unless another instance took it over. */
  async #claim(k: number, id: string, dueBy: number): Promise<void> {
    const json = await this.#backstop.claimDelivery(k, id, dueBy, this.#o.leaseMs);
    if (json !== undefined && !this.#closed) await this.#resume(k, id, json);
  }

  /** Starts the next attempt of a claimed delivery. */
  async #resume(k: number, id: string, json: string): Promise<void> {
    const delivery = decode(json);
    // Finished (no attempt left) but still due: its result was written and the move to the finished band was lost.
    // Moved now, not attempted again.
    if (delivery.index >= delivery.payloads.length) {
      await this.#send(
        ['ZADD', this.#keys(k).due, String(FINISHED + Date.now()), id],
        'ZADD finished',
      ).catch((error: unknown) => this.#logError(`webhook ${id}`, error));
      return;
    }
    this.#start(k, id, delivery);
  }

  #start(k: number, id: string, delivery: SharedDelivery): void {
    this.#running.set(id, k);
    void this.#run(k, id, delivery).finally(() => this.#running.delete(id));
  }

  async #run(k: number, id: string, delivery: SharedDelivery): Promise<void> {
    try {
      const { record, nextInMs } = await this.#attempt!(delivery);
      if (this.#closed) return; // dying mid-attempt: the lease runs out and another instance makes it again
      // A finished delivery keeps its record (the bytes of every attempt made), not the payloads of attempts it
      // will never make.
      const next: SharedDelivery = {
        record,
        payloads: nextInMs === undefined ? [] : delivery.payloads,
        index: delivery.index + 1,
      };
      // The result, and the next attempt's due time (or the finished band); a finished record is kept for
      // keepFinishedMs. Two plain commands, in this order on one connection (no script around them): when only the
      // first arrives, the delivery is still due at its lease's end, and the backstop then makes the next attempt,
      // or moves one that is finished to the band (see #resume).
      const keys = this.#keys(k);
      const send = (args: string[]) => this.#send(args, `${args[0]} webhook result`);
      await Promise.all(
        nextInMs === undefined
          ? [
              send(['SET', keys.item + id, encode(next), 'PX', String(this.#keepFinishedMs)]),
              send(['ZADD', keys.due, String(FINISHED + Date.now()), id]),
            ]
          : [
              send(['SET', keys.item + id, encode(next)]),
              send(['ZADD', keys.due, String(Date.now() + nextInMs), id]),
            ],
      );
      if (nextInMs !== undefined && !this.#closed) {
        // This instance makes the next attempt on time (unless another took it over meanwhile); a few ms of slack:
        // the timer's clock and Date.now() may disagree by a millisecond.
        const timer = setTimeout(() => {
          this.#local.delete(timer);
          if (!this.#closed)
            this.#claim(k, id, Date.now() + 5).catch((e: unknown) =>
              this.#logError(`webhook ${id}`, e),
            );
        }, nextInMs);
        this.#local.add(timer);
      }
    } catch (error) {
      this.#logError(`webhook delivery ${id}`, error, ' (retried when its lease runs out)');
    }
  }

  #logError(what: string, error: unknown, tail = ''): void {
    if (!this.#closed)
      this.#o.log(`${what}: ${error instanceof Error ? error.message : String(error)}${tail}`);
  }

  async list(): Promise<DeliveryRecord[]> {
    const parts = await Promise.all(
      Array.from({ length: this.#backstop.partitions }, async (_, k) => {
        const keys = this.#keys(k);
        const send = (args: string[]) => this.#send(args, args[0] ?? 'command');
        // The deliveries still due (by due time), then the last kept finished ones (by when they finished).
        const [due, finished] = (await Promise.all([
          send(['ZRANGEBYSCORE', keys.due, '-inf', `(${FINISHED}`]),
          send([
            'ZREVRANGEBYSCORE',
            keys.due,
            '+inf',
            String(FINISHED),
            'LIMIT',
            '0',
            String(this.#keptPerPartition),
          ]),
        ])) as [string[], string[]];
        // The due entries of lifecycle steps (`kind:id:status`) share the set: not deliveries.
        const ids = [...finished.reverse(), ...due.filter((id) => !id.includes(':'))];
        if (ids.length === 0) return [];
        const jsons = (await send(['MGET', ...ids.map((id) => keys.item + id)])) as Array<
          string | null
        >;
        return jsons
          .filter((j): j is string => typeof j === 'string')
          .map((j) => (JSON.parse(j) as SharedDelivery).record);
      }),
    );
    // Newest last, as one queue lists them: by the first attempt's start (sort is stable: one not yet attempted
    // keeps its place among the due, ordered by when they were queued).
    return parts.flat().sort((a, b) => startOf(a) - startOf(b));
  }

  close(): void {
    this.#closed = true;
    this.#backstop.close();
    // Attempts cut short by the close are handed back: overdue at once, so another instance's backstop takes them
    // without waiting for the lease (an instance that is killed cannot, and leaves the lease to run out).
    // Through the batch: after a queuing of this turn that has not reached Redis yet.
    const overdue = String(Date.now() - BACKSTOP_GRACE_MS - 1);
    for (const [id, k] of this.#running)
      this.#batch
        .write([{ command: 'ZADD', key: this.#keys(k).due, args: ['XX', overdue, id] }])
        .catch(() => {});
    this.#batch.flush();
    for (const t of this.#local) clearTimeout(t);
    this.#local.clear();
  }
}

/**
 * A delivery as JSON, its decimal amounts kept as written (`{"$decimal":"10.50"}`), so an attempt made from Redis
 * sends the same bytes as one made from this process's copy (`10.50`, not the float `10.5`).
 */
function encode(delivery: SharedDelivery): string {
  return JSON.stringify(delivery, function (this: Record<string, unknown>, key, value: unknown) {
    const raw = this[key];
    return raw instanceof DecimalNumber ? { $decimal: raw.text } : value;
  });
}

function decode(json: string): SharedDelivery {
  return JSON.parse(json, (_key, value: unknown) => {
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const text = (value as { $decimal?: unknown }).$decimal;
      if (typeof text === 'string' && Object.keys(value).length === 1)
        return new DecimalNumber(text);
    }
    return value;
  }) as SharedDelivery;
}

function startOf(record: DeliveryRecord): number {
  const first = record.attempts[0]?.startedAt;
  return first === undefined ? Number.MAX_SAFE_INTEGER : Date.parse(first);
}
