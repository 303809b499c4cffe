// Plain writes to one partition's keys made in the same turn of the event loop, sent as one script (one command,
// atomic): queuing a payout's webhook and scheduling its lifecycle step, or the next webhook and the end of the step,
// cost Redis one command instead of two. Every key is declared, so on a cluster the script touches one slot.
import { defineScript, evalScript, type RedisCommander } from '../redis/commander.js';

/**
 * ARGV: for each command, the index of its key in KEYS, the number of arguments after the key, the command's name,
 * then those arguments. Runs them in order. `ZPRUNE band cutoff keep` prunes a sorted set whose scores from `band`
 * up mark finished members: those scored below `cutoff`, then all but the highest `keep` of them.
 */
const APPLY = defineScript(`
local i = 1
while i <= #ARGV do
  local n = tonumber(ARGV[i + 1])
  local key = KEYS[tonumber(ARGV[i])]
  if ARGV[i + 2] == 'ZPRUNE' then
    local band = ARGV[i + 3]
    redis.call('ZREMRANGEBYSCORE', key, band, '(' .. ARGV[i + 4])
    local over = redis.call('ZCOUNT', key, band, '+inf') - tonumber(ARGV[i + 5])
    if over > 0 then
      local first = redis.call('ZCOUNT', key, '-inf', '(' .. band)
      redis.call('ZREMRANGEBYRANK', key, first, first + over - 1)
    end
  else
    redis.call(ARGV[i + 2], key, unpack(ARGV, i + 3, i + 2 + n))
  end
  i = i + 3 + n
end
return 1`);

/** One write: a command whose first argument is `key`. */
export interface BatchedWrite {
  readonly command: string;
  readonly key: string;
  readonly args: readonly string[];
}

interface Pending {
  readonly writes: BatchedWrite[];
  readonly waiting: Array<{ resolve(): void; reject(error: unknown): void }>;
}

export class RedisBatch {
  readonly #client: RedisCommander;
  /** Writes waiting for the end of this turn, by partition. */
  readonly #pending = new Map<number, Pending>();
  #scheduled = false;

  constructor(client: RedisCommander) {
    this.#client = client;
  }

  /** Runs `writes` (keys of partition `k` only) with the others of this turn; resolves once Redis ran them. */
  write(k: number, writes: readonly BatchedWrite[]): Promise<void> {
    let pending = this.#pending.get(k);
    if (pending === undefined) {
      pending = { writes: [], waiting: [] };
      this.#pending.set(k, pending);
    }
    pending.writes.push(...writes);
    const done = new Promise<void>((resolve, reject) => pending.waiting.push({ resolve, reject }));
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => this.#flush());
    }
    return done;
  }

  /** Sends what is waiting now, not at the end of this turn (an instance closing before its connection closes). */
  flush(): void {
    if (this.#scheduled) this.#flush();
  }

  #flush(): void {
    if (!this.#scheduled) return;
    this.#scheduled = false;
    const all = [...this.#pending.values()];
    this.#pending.clear();
    for (const { writes, waiting } of all) {
      const keys: string[] = [];
      const index = new Map<string, number>();
      const args: string[] = [];
      for (const w of writes) {
        let i = index.get(w.key);
        if (i === undefined) {
          keys.push(w.key);
          i = keys.length;
          index.set(w.key, i);
        }
        args.push(String(i), String(w.args.length), w.command, ...w.args);
      }
      evalScript(this.#client, APPLY, keys, args, 2000, 'batched writes').then(
        () => waiting.forEach((w) => w.resolve()),
        (error: unknown) => waiting.forEach((w) => w.reject(error)),
      );
    }
  }
}
