// Lifecycle timers in Redis, shared by every instance on it: sorted sets of "kind:id:status" scored by when the next
// automatic step is due. The instance that schedules a step also sets a timer of its own and runs the step on time;
// the sorted set is the backstop: an instance that died leaves its steps there, and every instance looks for steps
// overdue by more than a grace period (one partition per tick, so an idle instance sends a few commands a second),
// claims one atomically (its score moves to now + lease) and runs it. A step names the status it moves on from and is
// a compare-and-set through the state store, so a step run twice (its owner late, a backstop early) happens once.
import {
  defineScript,
  evalScript,
  partitionOf,
  partitionTag,
  type RedisCommander,
} from '../redis/commander.js';
import { RedisBatch } from './redis-batch.js';

/** KEYS[1]: due set; ARGV[1]: due at or before, ARGV[2]: lease end, ARGV[3]: at most. → members claimed. */
const CLAIM = defineScript(`
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, id in ipairs(ids) do redis.call('ZADD', KEYS[1], 'XX', ARGV[2], id) end
return ids`);

/** Steps overdue by more than this are taken by any instance (their owner died or is stuck). */
export const BACKSTOP_GRACE_MS = 1_000;

/** What the Lifecycle needs from shared timers. */
export interface SharedTimers {
  /** Runs `key`'s step in `delayMs` (in this instance, or in another when this one dies first). */
  schedule(key: string, delayMs: number): Promise<void>;
  start(run: (key: string) => Promise<void>): void;
  close(): void;
}

export interface RedisTimersOptions {
  readonly client: RedisCommander;
  readonly keyPrefix: string;
  /** How long a step claimed by the backstop may take before another instance may run it (default 5 s). */
  readonly leaseMs?: number;
  /** Partitions (hash tags; see partitionOf): 1 on one server. */
  readonly partitions?: number;
  /** One backstop pass over every partition takes this long (default 1 s on one partition, else 4 s). */
  readonly backstopMs?: number;
  readonly log: (line: string) => void;
  /** Writes of one turn sent together, pipelined (shared with the webhook queue). */
  readonly batch?: RedisBatch;
}

/** The `kind:id` of a member `kind:id:status` (the resource, which decides the partition). */
const resourceOf = (member: string) => member.split(':').slice(0, 2).join(':');

export class RedisTimers implements SharedTimers {
  readonly #o: RedisTimersOptions;
  readonly #partitions: number;
  readonly #batch: RedisBatch;
  #tick: NodeJS.Timeout | undefined;
  #next = 0;
  #run: ((key: string) => Promise<void>) | undefined;
  #polling = false;
  #closed = false;
  readonly #local = new Set<NodeJS.Timeout>();
  /** Steps running here, by resource: a schedule of the same resource meanwhile replaces the member (ZADD, ZREM). */
  readonly #running = new Map<string, { member: string; replaced: boolean }>();

  constructor(options: RedisTimersOptions) {
    this.#o = options;
    this.#partitions = options.partitions ?? 1;
    this.#batch = options.batch ?? new RedisBatch(options.client);
  }

  #partition(member: string): number {
    return partitionOf(member.split(':')[1] ?? '', this.#partitions);
  }
  #dueOf(k: number): string {
    return `${this.#o.keyPrefix}${partitionTag(k, this.#partitions)}lifecycle:due`;
  }

  async schedule(key: string, delayMs: number): Promise<void> {
    const at = Date.now() + delayMs;
    const running = this.#running.get(resourceOf(key));
    if (running !== undefined && !running.replaced) {
      running.replaced = true;
      await this.#reschedule(running.member, key, at);
    } else {
      await this.#reschedule('', key, at);
    }
    if (this.#closed) return;
    const timer = setTimeout(() => {
      this.#local.delete(timer);
      this.#step(key);
    }, delayMs);
    this.#local.add(timer);
  }

  /**
   * Adds `next` due `at` ('' = none) and removes the member `done`, with the other writes of this turn: in that order,
   * so that when the removal is lost the old step is still there (run again, it moves nothing), never neither.
   */
  #reschedule(done: string, next: string, at: number): Promise<void> {
    const k = this.#partition(done === '' ? next : done);
    const due = this.#dueOf(k);
    return this.#batch.write(k, [
      ...(next !== '' ? [{ command: 'ZADD', key: due, args: [String(at), next] }] : []),
      ...(done !== '' ? [{ command: 'ZREM', key: due, args: [done] }] : []),
    ]);
  }

  start(run: (key: string) => Promise<void>): void {
    this.#run = run;
    const cycle = this.#o.backstopMs ?? (this.#partitions === 1 ? 1_000 : 4_000);
    this.#tick = setInterval(() => this.#backstop(), Math.max(50, cycle / this.#partitions));
    this.#tick.unref();
  }

  /** Runs the step of `member` here, then removes it (or it was replaced by the next step's schedule). */
  #step(member: string): void {
    const run = this.#run;
    if (this.#closed || run === undefined) return;
    const resource = resourceOf(member);
    const entry = { member, replaced: false };
    this.#running.set(resource, entry);
    void run(member)
      .finally(() => {
        if (this.#running.get(resource) === entry) this.#running.delete(resource);
      })
      .then(() => (this.#closed || entry.replaced ? undefined : this.#reschedule(member, '', 0)))
      .catch((error: unknown) =>
        this.#o.log(
          `lifecycle step ${member}: ${error instanceof Error ? error.message : String(error)} (retried by the backstop)`,
        ),
      );
  }

  /** One partition per tick: claims steps overdue by more than the grace period (at most 10) and runs them. */
  #backstop(): void {
    if (this.#polling || this.#closed || this.#run === undefined) return;
    this.#polling = true;
    const k = this.#next;
    this.#next = (k + 1) % this.#partitions;
    const now = Date.now();
    evalScript(
      this.#o.client,
      CLAIM,
      [this.#dueOf(k)],
      [String(now - BACKSTOP_GRACE_MS), String(now + (this.#o.leaseMs ?? 5_000)), '10'],
      2000,
      'claim step',
    )
      .then((members) => {
        for (const member of members as string[]) this.#step(member);
      })
      .catch((error: unknown) => {
        if (!this.#closed)
          this.#o.log(
            `lifecycle timers: ${error instanceof Error ? error.message : String(error)}`,
          );
      })
      .finally(() => {
        this.#polling = false;
      });
  }

  close(): void {
    this.#closed = true;
    this.#batch.flush(); // schedules of this turn reach Redis before the connection closes
    if (this.#tick !== undefined) clearInterval(this.#tick);
    for (const t of this.#local) clearTimeout(t);
    this.#local.clear();
  }
}
