// Plain writes made in the same turn of the event loop, pipelined: sent together at the end of the turn on one
// connection, each as its own command, in the order written (no script around them: a script costs Redis one more
// command, EVALSHA, for every group). Callers order a group so that losing its tail is safe (a due entry before the
// record it points to; a new schedule before the removal of the old one). ZPRUNE, a conditional prune, is the one
// write run as a script; plain ZADDs of one key in a turn are joined into one.
import {
  defineScript,
  evalScript,
  REDIS_COMMAND_TIMEOUT_MS,
  withTimeout,
  type RedisCommander,
} from '../redis/commander.js';

/**
 * KEYS[1]: a sorted set whose scores from ARGV[1] up mark finished members. Removes those scored below ARGV[2], then
 * all but the highest ARGV[3] of them.
 */
const PRUNE = defineScript(`
local band = ARGV[1]
redis.call('ZREMRANGEBYSCORE', KEYS[1], band, '(' .. ARGV[2])
local over = redis.call('ZCOUNT', KEYS[1], band, '+inf') - tonumber(ARGV[3])
if over > 0 then
  local first = redis.call('ZCOUNT', KEYS[1], '-inf', '(' .. band)
  redis.call('ZREMRANGEBYRANK', KEYS[1], first, first + over - 1)
end
return 1`);

/** One write: a command whose first argument is `key`. */
export interface BatchedWrite {
  readonly command: string;
  readonly key: string;
  readonly args: readonly string[];
}

/** A group of writes waiting for the end of the turn, and its caller. */
interface Group {
  readonly writes: readonly BatchedWrite[];
  resolve(): void;
  reject(error: unknown): void;
}

export class RedisBatch {
  readonly #client: RedisCommander;
  /** Groups waiting for the end of this turn, in the order written. */
  #pending: Group[] = [];
  #scheduled = false;

  constructor(client: RedisCommander) {
    this.#client = client;
  }

  /**
   * Sends `writes` (in a cluster each goes to its key's node), in order, with the others of this turn; resolves once
   * Redis ran them all, rejects when any failed.
   */
  write(writes: readonly BatchedWrite[]): Promise<void> {
    const done = new Promise<void>((resolve, reject) =>
      this.#pending.push({ writes, resolve, reject }),
    );
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
    const groups = this.#pending;
    this.#pending = [];
    // Every command is sent now, in order (one connection pipelines them); each group waits for its own. Plain ZADDs
    // of one key (a score and a member: a payout's first webhook and its first step) join the first of them, one
    // command, unless another write to that key comes between.
    const commands: BatchedWrite[] = [];
    const open = new Map<string, number>();
    const of = groups.map((group) =>
      group.writes.map((w) => {
        const at = open.get(w.key);
        const plainZadd =
          w.command === 'ZADD' && w.args.length === 2 && !/^[A-Za-z]/.test(w.args[0]!);
        if (plainZadd && at !== undefined) {
          const joined = commands[at]!;
          commands[at] = { ...joined, args: [...joined.args, ...w.args] };
          return at;
        }
        commands.push(w);
        if (plainZadd) open.set(w.key, commands.length - 1);
        else open.delete(w.key);
        return commands.length - 1;
      }),
    );
    const sent = commands.map((w) => this.#send(w));
    groups.forEach((group, g) =>
      Promise.all(of[g]!.map((i) => sent[i])).then(
        () => group.resolve(),
        (error: unknown) => group.reject(error),
      ),
    );
  }

  #send(w: BatchedWrite): Promise<unknown> {
    if (w.command === 'ZPRUNE')
      return evalScript(this.#client, PRUNE, [w.key], w.args, REDIS_COMMAND_TIMEOUT_MS, 'prune');
    const command = this.#client.sendCommand([w.command, w.key, ...w.args]);
    return withTimeout(command, REDIS_COMMAND_TIMEOUT_MS, w.command);
  }
}
