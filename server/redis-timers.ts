// Lifecycle timers in Redis, shared by every instance on it: a sorted set of "kind:id" scored by when the next
// automatic step is due. An instance claims a due step atomically (its score moves to now + lease), runs it (a
// compare-and-set through the state store), then removes it; an instance that dies mid-step leaves the lease to run
// out and another runs it. A step whose resource moved meanwhile does nothing, so a step happens once.
import type { RedisCommander } from '../redis/commander.js';
import { withTimeout } from '../redis/commander.js';

/** KEYS[1]: due set; ARGV[1]: now, ARGV[2]: lease end. → member or nil. */
const CLAIM = `
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, 1)
if #ids == 0 then return false end
redis.call('ZADD', KEYS[1], 'XX', ARGV[2], ids[1])
return ids[1]`;

/** Removes the member only while it still carries the lease this instance set (not a newer schedule of it). */
const DONE = `
if redis.call('ZSCORE', KEYS[1], ARGV[1]) == ARGV[2] then redis.call('ZREM', KEYS[1], ARGV[1]) end
return 1`;

/** What the Lifecycle needs from shared timers. */
export interface SharedTimers {
  /** Runs `key`'s step in `delayMs` (in whichever instance claims it); a later schedule of one key replaces the earlier. */
  schedule(key: string, delayMs: number): Promise<void>;
  start(run: (key: string) => Promise<void>): void;
  close(): void;
}

export interface RedisTimersOptions {
  readonly client: RedisCommander;
  readonly keyPrefix: string;
  /** How long a claimed step may take before another instance may run it (default 5 s). */
  readonly leaseMs?: number;
  readonly pollMs?: number;
  readonly log: (line: string) => void;
}

export class RedisTimers implements SharedTimers {
  readonly #o: RedisTimersOptions;
  readonly #due: string;
  #timer: NodeJS.Timeout | undefined;
  #run: ((key: string) => Promise<void>) | undefined;
  #polling = false;
  #closed = false;

  constructor(options: RedisTimersOptions) {
    this.#o = options;
    this.#due = `${options.keyPrefix}lifecycle:due`;
  }

  #send(args: string[]): Promise<unknown> {
    return withTimeout(this.#o.client.sendCommand(args), 2000, args[0] ?? 'command');
  }

  async schedule(key: string, delayMs: number): Promise<void> {
    await this.#send(['ZADD', this.#due, String(Date.now() + delayMs), key]);
  }

  start(run: (key: string) => Promise<void>): void {
    this.#run = run;
    this.#timer = setInterval(() => this.#poll(), this.#o.pollMs ?? 25);
    this.#timer.unref();
  }

  #poll(): void {
    const run = this.#run;
    if (this.#polling || this.#closed || run === undefined) return;
    this.#polling = true;
    void (async () => {
      try {
        for (let i = 0; i < 100 && !this.#closed; i += 1) {
          const lease = String(Date.now() + (this.#o.leaseMs ?? 5_000));
          const key = (await this.#send([
            'EVAL',
            CLAIM,
            '1',
            this.#due,
            String(Date.now()),
            lease,
          ])) as string | null;
          if (key === null) break;
          void run(key)
            .then(() =>
              this.#closed ? undefined : this.#send(['EVAL', DONE, '1', this.#due, key, lease]),
            )
            .catch((error: unknown) =>
              this.#o.log(
                `lifecycle step ${key}: ${error instanceof Error ? error.message : String(error)} (retried when its lease runs out)`,
              ),
            );
        }
      } catch (error) {
        if (!this.#closed)
          this.#o.log(
            `lifecycle timers: ${error instanceof Error ? error.message : String(error)}`,
          );
      } finally {
        this.#polling = false;
      }
    })();
  }

  close(): void {
    this.#closed = true;
    if (this.#timer !== undefined) clearInterval(this.#timer);
  }
}
