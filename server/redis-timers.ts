// Lifecycle timers in Redis, shared by every instance on it: members "kind:id:status" of the due set they share with
// the webhook queue (RedisBackstop), scored by when the next automatic step is due. The instance that schedules a
// step also sets a timer of its own and runs the step on time; the due set is the backstop: an instance that died
// leaves its steps there, and every instance looks for steps overdue by more than a grace period, claims one
// atomically (its score moves to now + lease) and runs it. A step names the status it moves on from and is a
// compare-and-set through the state store, so a step run twice (its owner late, a backstop early) happens once.
import { partitionOf, type RedisCommander } from '../redis/commander.js';
import { givenOrOwnBackstop, type RedisBackstop } from './redis-backstop.js';
import { RedisBatch } from './redis-batch.js';

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
  /** Partitions (hash tags; see partitionOf): 1 on one server. A given backstop brings its own (the two agree). */
  readonly partitions?: number;
  /** One backstop pass over every partition takes this long (default 1 s on one partition, else 4 s). */
  readonly backstopMs?: number;
  readonly log: (line: string) => void;
  /** Writes of one turn sent together, pipelined (shared with the webhook queue). */
  readonly batch?: RedisBatch;
  /** The due set and its backstop (shared with the webhook queue; else one of its own). */
  readonly backstop?: RedisBackstop;
}

/** The `kind:id` of a member `kind:id:status` (the resource, which decides the partition). */
const resourceOf = (member: string) => member.split(':').slice(0, 2).join(':');

export class RedisTimers implements SharedTimers {
  readonly #o: RedisTimersOptions;
  readonly #batch: RedisBatch;
  readonly #backstop: RedisBackstop;
  #run: ((key: string) => Promise<void>) | undefined;
  #closed = false;
  readonly #local = new Set<NodeJS.Timeout>();
  /** Steps running here, by resource: a schedule of the same resource meanwhile replaces the member (ZADD, ZREM). */
  readonly #running = new Map<string, { member: string; replaced: boolean }>();

  constructor(options: RedisTimersOptions) {
    this.#o = options;
    this.#batch = options.batch ?? new RedisBatch(options.client);
    this.#backstop = givenOrOwnBackstop(options);
  }

  #partition(member: string): number {
    return partitionOf(member.split(':')[1] ?? '', this.#backstop.partitions);
  }
  #dueOf(k: number): string {
    return this.#backstop.dueKey(k);
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
    return this.#batch.write([
      ...(next !== '' ? [{ command: 'ZADD', key: due, args: [String(at), next] }] : []),
      ...(done !== '' ? [{ command: 'ZREM', key: due, args: [done] }] : []),
    ]);
  }

  start(run: (key: string) => Promise<void>): void {
    this.#run = run;
    this.#backstop.onSteps(this.#o.leaseMs ?? 5_000, (member) => this.#step(member));
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

  close(): void {
    this.#closed = true;
    this.#batch.flush(); // schedules of this turn reach Redis before the connection closes
    this.#backstop.close();
    for (const t of this.#local) clearTimeout(t);
    this.#local.clear();
  }
}
