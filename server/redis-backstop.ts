// The due set shared by the webhook queue and the lifecycle timers: one sorted set per partition (`<prefix>due`)
// holds both, a webhook delivery by its numeric id and a lifecycle step by `kind:id:status`, each scored by when it
// is due. A payout's first webhook and its first step are then queued by one ZADD (RedisBatch joins them), and the
// backstop looks at one set per partition, not two: every instance claims what is overdue by more than a grace
// period (one partition per tick) and hands steps to the timers, deliveries to the queue.
import {
  defineScript,
  evalScript,
  partitionTag,
  REDIS_COMMAND_TIMEOUT_MS,
  type RedisCommander,
} from '../redis/commander.js';

/** Entries overdue by more than this are taken by any instance (their owner died or is stuck). */
export const BACKSTOP_GRACE_MS = 1_000;

/** Entries one look claims: 20, the 10 steps and 10 deliveries the two due sets this one replaced each allowed. */
const CLAIM_AT_MOST = 20;

/**
 * KEYS[1]: due set; ARGV[1]: due at or before, ARGV[2]: a delivery's lease end ('' = leave deliveries), ARGV[3]: a
 * step's lease end ('' = leave steps), ARGV[4]: key prefix of delivery records, ARGV[5]: at most, ARGV[6]: one
 * member ('' = any). Moves the score of each entry claimed to its lease end. → {member, json, member, json, …}: a
 * delivery with its record, a step with ''. A delivery whose record is gone is dropped.
 */
const CLAIM = defineScript(`
local ids
if ARGV[6] ~= '' then
  local score = redis.call('ZSCORE', KEYS[1], ARGV[6])
  if not score or tonumber(score) > tonumber(ARGV[1]) then return {} end
  ids = {ARGV[6]}
else
  ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[5]))
end
local out = {}
for _, id in ipairs(ids) do
  if string.find(id, ':', 1, true) then
    if ARGV[3] ~= '' then
      redis.call('ZADD', KEYS[1], 'XX', ARGV[3], id)
      out[#out + 1] = id
      out[#out + 1] = ''
    end
  elseif ARGV[2] ~= '' then
    local json = redis.call('GET', ARGV[4] .. id)
    if json then
      redis.call('ZADD', KEYS[1], 'XX', ARGV[2], id)
      out[#out + 1] = id
      out[#out + 1] = json
    else
      redis.call('ZREM', KEYS[1], id)
    end
  end
end
return out`);

export interface RedisBackstopOptions {
  readonly client: RedisCommander;
  readonly keyPrefix: string;
  /** Partitions (hash tags; see partitionOf): 1 on one server. */
  readonly partitions?: number;
  /** One pass over every partition takes this long (default 1 s on one partition, else 4 s). */
  readonly backstopMs?: number;
  readonly log: (line: string) => void;
}

/**
 * The backstop a store was given (shared by the deliveries and the timers of one instance), or one of its own over
 * the same client and prefix (a store used alone, as in tests).
 */
export function givenOrOwnBackstop(
  options: RedisBackstopOptions & { readonly backstop?: RedisBackstop | undefined },
): RedisBackstop {
  return options.backstop ?? new RedisBackstop(options);
}

interface Handlers {
  steps?: { readonly leaseMs: number; run(member: string): void };
  deliveries?: { readonly leaseMs: number; start(k: number, id: string, json: string): void };
}

export class RedisBackstop {
  readonly #o: RedisBackstopOptions;
  readonly partitions: number;
  readonly #handlers: Handlers = {};
  #tick: NodeJS.Timeout | undefined;
  #next = 0;
  #polling = false;
  #closed = false;

  constructor(options: RedisBackstopOptions) {
    this.#o = options;
    this.partitions = options.partitions ?? 1;
  }

  /** The due set of partition `k`. */
  dueKey(k: number): string {
    return `${this.#o.keyPrefix}${partitionTag(k, this.partitions)}due`;
  }

  /** The key of delivery `id`'s record in partition `k`. */
  deliveryKey(k: number, id: string): string {
    return `${this.#o.keyPrefix}${partitionTag(k, this.partitions)}delivery:${id}`;
  }

  /** Overdue steps go to `run` (claimed for `leaseMs`). */
  onSteps(leaseMs: number, run: (member: string) => void): void {
    this.#handlers.steps = { leaseMs, run };
    this.#startTicking();
  }

  /** Overdue deliveries go to `start` (claimed for `leaseMs`). */
  onDeliveries(leaseMs: number, start: (k: number, id: string, json: string) => void): void {
    this.#handlers.deliveries = { leaseMs, start };
    this.#startTicking();
  }

  /**
   * Claims delivery `id` of partition `k` for `leaseMs` when it is due by `dueBy` (this instance's own timer for its
   * next attempt); its record, or undefined when it was not due (another instance took it over) or is gone.
   */
  async claimDelivery(
    k: number,
    id: string,
    dueBy: number,
    leaseMs: number,
  ): Promise<string | undefined> {
    const reply = await this.#claim(k, dueBy, id, String(Date.now() + leaseMs), '');
    return reply.length === 2 ? reply[1] : undefined;
  }

  #startTicking(): void {
    if (this.#tick !== undefined || this.#closed) return;
    const cycle = this.#o.backstopMs ?? (this.partitions === 1 ? 1_000 : 4_000);
    this.#tick = setInterval(() => this.#backstop(), Math.max(50, cycle / this.partitions));
    this.#tick.unref();
  }

  /** Runs CLAIM on partition `k` (see its ARGV): each kind is claimed only with its lease end given. */
  async #claim(
    k: number,
    dueBy: number,
    one: string,
    deliveryLeaseEnd: string,
    stepLeaseEnd: string,
  ): Promise<string[]> {
    return (await evalScript(
      this.#o.client,
      CLAIM,
      [this.dueKey(k)],
      [
        String(dueBy),
        deliveryLeaseEnd,
        stepLeaseEnd,
        this.deliveryKey(k, ''),
        String(CLAIM_AT_MOST),
        one,
      ],
      REDIS_COMMAND_TIMEOUT_MS,
      one === '' ? 'claim due' : `claim webhook ${one}`,
    )) as string[];
  }

  /** One partition per tick: claims entries overdue by more than the grace period (at most CLAIM_AT_MOST) and hands them on. */
  #backstop(): void {
    if (this.#polling || this.#closed) return;
    this.#polling = true;
    const k = this.#next;
    this.#next = (k + 1) % this.partitions;
    const now = Date.now();
    const { steps, deliveries } = this.#handlers;
    this.#claim(
      k,
      now - BACKSTOP_GRACE_MS,
      '',
      deliveries !== undefined ? String(now + deliveries.leaseMs) : '',
      steps !== undefined ? String(now + steps.leaseMs) : '',
    )
      .then((reply) => {
        for (let i = 0; i + 1 < reply.length && !this.#closed; i += 2) {
          const member = reply[i]!;
          if (member.includes(':')) steps?.run(member);
          else deliveries?.start(k, member, reply[i + 1]!);
        }
      })
      .catch((error: unknown) => {
        if (!this.#closed)
          this.#o.log(`backstop: ${error instanceof Error ? error.message : String(error)}`);
      })
      .finally(() => {
        this.#polling = false;
      });
  }

  close(): void {
    this.#closed = true;
    if (this.#tick !== undefined) clearInterval(this.#tick);
  }
}
