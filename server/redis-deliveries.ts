// The webhook delivery queue in Redis, shared by every instance on it. A delivery is one key (its record and the
// payload of each attempt) and one member of a sorted set scored by when it is due. An instance claims a due
// delivery atomically (a Lua script moves its score to now + lease), makes the attempt, then writes the result and
// the next due time. So each attempt is made by one instance; an instance that dies mid-attempt leaves the lease to
// run out, and another instance makes that attempt again: a delivery is never lost (at worst an attempt is repeated).
import type { RedisCommander } from '../redis/commander.js';
import { withTimeout } from '../redis/commander.js';
import type { DeliveryRecord, SharedDeliveries, SharedDelivery } from './webhook-delivery.js';

/** KEYS[1]: due set; ARGV[1]: now, ARGV[2]: lease end, ARGV[3]: key prefix of deliveries. → {id, json} or nil. */
const CLAIM = `
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, 1)
if #ids == 0 then return false end
redis.call('ZADD', KEYS[1], 'XX', ARGV[2], ids[1])
return {ids[1], redis.call('GET', ARGV[3] .. ids[1]) or false}`;

/** KEYS[1]: due set, KEYS[2]: the delivery; ARGV[1]: id, ARGV[2]: json, ARGV[3]: next due ('' = done). */
const FINISH = `
redis.call('SET', KEYS[2], ARGV[2])
if ARGV[3] == '' then redis.call('ZREM', KEYS[1], ARGV[1]) else redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1]) end
return 1`;

/** KEYS[1]: due set, KEYS[2]: the delivery, KEYS[3]: the list of all; ARGV[1]: id, ARGV[2]: json, ARGV[3]: now, ARGV[4]: kept. */
const ADD = `
redis.call('SET', KEYS[2], ARGV[2])
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
redis.call('RPUSH', KEYS[3], ARGV[1])
redis.call('LTRIM', KEYS[3], -tonumber(ARGV[4]), -1)
return 1`;

export interface RedisDeliveriesOptions {
  readonly client: RedisCommander;
  readonly keyPrefix: string;
  /** How long a claimed attempt may take before another instance may take it over (the attempt's timeout + margin). */
  readonly leaseMs: number;
  /** How often an idle instance looks for due deliveries (default 25 ms). */
  readonly pollMs?: number;
  readonly log: (line: string) => void;
  /** Deliveries listed by `/sandbox/deliveries` (default 10,000). */
  readonly maxRecords?: number;
}

export class RedisDeliveries implements SharedDeliveries {
  readonly #o: RedisDeliveriesOptions;
  readonly #due: string;
  readonly #all: string;
  readonly #item: string;
  #timer: NodeJS.Timeout | undefined;
  #attempt:
    | ((
        delivery: SharedDelivery,
      ) => Promise<{ readonly record: DeliveryRecord; readonly nextInMs: number | undefined }>)
    | undefined;
  #polling = false;
  #closed = false;
  /** Attempts this instance has under way (each on its own claimed lease). */
  readonly #running = new Set<Promise<void>>();

  constructor(options: RedisDeliveriesOptions) {
    this.#o = options;
    this.#due = `${options.keyPrefix}deliveries:due`;
    this.#all = `${options.keyPrefix}deliveries:all`;
    this.#item = `${options.keyPrefix}delivery:`;
  }

  #send(args: string[]): Promise<unknown> {
    return withTimeout(this.#o.client.sendCommand(args), 2000, args[0] ?? 'command');
  }

  async add(delivery: SharedDelivery): Promise<void> {
    const id = String(delivery.record.id);
    await this.#send([
      'EVAL',
      ADD,
      '3',
      this.#due,
      this.#item + id,
      this.#all,
      id,
      JSON.stringify(delivery),
      String(Date.now()),
      String(this.#o.maxRecords ?? 10_000),
    ]);
    this.#poll();
  }

  start(
    attempt: (
      delivery: SharedDelivery,
    ) => Promise<{ readonly record: DeliveryRecord; readonly nextInMs: number | undefined }>,
  ): void {
    this.#attempt = attempt;
    this.#timer = setInterval(() => this.#poll(), this.#o.pollMs ?? 25);
    this.#timer.unref();
  }

  /** Claims and starts every due delivery (bounded: 100 per call), each attempt running on its own. */
  #poll(): void {
    if (this.#polling || this.#closed || this.#attempt === undefined) return;
    this.#polling = true;
    void (async () => {
      try {
        for (let i = 0; i < 100 && !this.#closed; i += 1) {
          const now = Date.now();
          const reply = (await this.#send([
            'EVAL',
            CLAIM,
            '1',
            this.#due,
            String(now),
            String(now + this.#o.leaseMs),
            this.#item,
          ])) as [string, string | null] | null;
          if (reply === null) break;
          const [id, json] = reply;
          if (typeof json !== 'string') {
            await this.#send(['ZREM', this.#due, id]); // its record was dropped: nothing to deliver
            continue;
          }
          const running = this.#run(id, JSON.parse(json) as SharedDelivery);
          this.#running.add(running);
          void running.finally(() => this.#running.delete(running));
        }
      } catch (error) {
        if (!this.#closed)
          this.#o.log(`webhook queue: ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        this.#polling = false;
      }
    })();
  }

  async #run(id: string, delivery: SharedDelivery): Promise<void> {
    try {
      const { record, nextInMs } = await this.#attempt!(delivery);
      if (this.#closed) return; // dying mid-attempt: the lease runs out and another instance makes it again
      const next: SharedDelivery = {
        record,
        payloads: delivery.payloads,
        index: delivery.index + 1,
      };
      await this.#send([
        'EVAL',
        FINISH,
        '2',
        this.#due,
        this.#item + id,
        id,
        JSON.stringify(next),
        nextInMs === undefined ? '' : String(Date.now() + nextInMs),
      ]);
    } catch (error) {
      if (!this.#closed)
        this.#o.log(
          `webhook delivery ${id}: ${error instanceof Error ? error.message : String(error)} (retried when its lease runs out)`,
        );
    }
  }

  async list(): Promise<DeliveryRecord[]> {
    const ids = (await this.#send(['LRANGE', this.#all, '0', '-1'])) as string[];
    if (ids.length === 0) return [];
    const jsons = (await this.#send(['MGET', ...ids.map((id) => this.#item + id)])) as Array<
      string | null
    >;
    return jsons
      .filter((j): j is string => typeof j === 'string')
      .map((j) => (JSON.parse(j) as SharedDelivery).record);
  }

  close(): void {
    this.#closed = true;
    if (this.#timer !== undefined) clearInterval(this.#timer);
  }
}
