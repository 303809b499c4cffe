// Where the service keeps what several instances must share: in memory (the default, one process), or in Redis
// (`redisUrl`), loaded only when asked for so the embedded service never needs a Redis client.
import type { NonceStore } from '../src/profile/nonce-store.js';
import type { ServiceState } from './state.js';
import { MemoryStateStore, type StateStore } from './state-store.js';
import type { SharedDeliveries } from './webhook-delivery.js';
import type { SharedTimers } from './redis-timers.js';

export interface SharedBackend {
  /** The nonce store every instance on this backend shares; undefined: a per-process memory store. */
  readonly nonceStore?: NonceStore;
  /** The store of payments, payouts and refunds over this instance's view `state`. */
  createStateStore(state: ServiceState): StateStore;
  /** The webhook queue every instance shares; undefined: this process's own timers. `leaseMs`: see RedisDeliveries. */
  createSharedDeliveries?(leaseMs: number, log: (line: string) => void): SharedDeliveries;
  /** Lifecycle timers every instance shares; undefined: this process's own. */
  createSharedTimers?(log: (line: string) => void): SharedTimers;
  /** Describes the backend for the start-up banner (no secrets). */
  readonly description: string;
  close(): Promise<void>;
}

export interface BackendOptions {
  readonly redisUrl?: string;
  readonly redisKeyPrefix?: string;
  /** Each application's share of the Redis nonce store (RedisNonceStore maxNoncesPerApplication). */
  readonly noncesPerApplication?: number;
  readonly log: (line: string) => void;
}

/** The memory backend, or a connected Redis one. Throws when Redis cannot be reached at start. */
export async function openBackend(options: BackendOptions): Promise<SharedBackend> {
  if (options.redisUrl === undefined) {
    return {
      createStateStore: (state) => new MemoryStateStore(state),
      description: 'in memory (this process only)',
      close: async () => {},
    };
  }
  const modules = await loadRedisModules();
  let lastError = '';
  const connection = await modules.connectRedis(options.redisUrl, {
    onError: (error) => {
      // One line per distinct error: a Redis that stays down would otherwise log every reconnect attempt.
      if (error.message !== lastError) options.log(`redis: ${error.message}`);
      lastError = error.message;
    },
  });
  const nonceStore = await openNonceStore(modules, connection, options);
  return redisBackend(modules, connection, nonceStore, options.redisUrl, options);
}

type RedisModules = Awaited<ReturnType<typeof loadRedisModules>>;
type RedisConnection = Awaited<ReturnType<RedisModules['connectRedis']>>;

const keyPrefixOf = (options: BackendOptions): string => options.redisKeyPrefix ?? 'payconform:';

/**
 * The shared nonce store, opened: it notices before the first request whether Redis lost its data (an empty Redis
 * counts), and waits out the second of that moment, so requests signed after start-up are accepted and older ones
 * are refused. Closes the connection when it cannot open.
 */
async function openNonceStore(
  modules: RedisModules,
  connection: RedisConnection,
  options: BackendOptions,
): Promise<NonceStore> {
  const nonceStore = new modules.RedisNonceStore({
    client: connection,
    keyPrefix: `${keyPrefixOf(options)}nonce:`,
    ...(options.noncesPerApplication !== undefined
      ? { maxNoncesPerApplication: options.noncesPerApplication }
      : {}),
  });
  const horizon = await nonceStore.open().catch(async (error: unknown) => {
    await connection.close();
    throw error;
  });
  if (horizon !== undefined)
    options.log(
      `redis: the nonce store holds no nonces from before ${new Date(horizon * 1000).toISOString()} (empty, restarted, flushed or failed over): signatures created up to then are refused until ${new Date((horizon + 300) * 1000).toISOString()}`,
    );
  return nonceStore;
}

/** The Redis backend over an open connection: its stores, its shared webhook queue and timers. */
function redisBackend(
  modules: RedisModules,
  connection: RedisConnection,
  nonceStore: NonceStore,
  redisUrl: string,
  options: BackendOptions,
): SharedBackend {
  const { RedisStateStore, RedisDeliveries, RedisTimers, RedisBatch, RedisBackstop } = modules;
  const prefix = keyPrefixOf(options);
  // On a cluster every store spreads its keys over the same hash-tagged partitions (a payout, its timers and its
  // webhook deliveries in one), so each script touches one slot.
  const partitions = connection.cluster === true ? modules.CLUSTER_PARTITIONS : 1;
  // The webhook queue and the timers send the writes of one turn together, pipelined in the order written.
  const batch = new RedisBatch(connection);
  // They share one due set per partition and its backstop: one look per partition, a webhook and a step one ZADD.
  const backstop = new RedisBackstop({
    client: connection,
    keyPrefix: prefix,
    partitions,
    log: options.log,
  });
  return {
    nonceStore,
    createStateStore: (state) =>
      new RedisStateStore({ client: connection, keyPrefix: prefix, state, partitions }),
    createSharedDeliveries: (leaseMs, log) =>
      new RedisDeliveries({
        client: connection,
        keyPrefix: prefix,
        leaseMs,
        log,
        partitions,
        batch,
        backstop,
      }),
    createSharedTimers: (log) =>
      new RedisTimers({ client: connection, keyPrefix: prefix, log, partitions, batch, backstop }),
    description: `nonces, payments, payouts, refunds, lifecycle timers and the webhook queue in ${connection.cluster === true ? `a Redis Cluster (${partitions} hash-tagged partitions)` : 'Redis'} at ${modules.redactUrl(redisUrl)} (key prefix "${prefix}")`,
    close: () => connection.close(),
  };
}

/** A package payconform lists as an optional peer dependency is needed for what was asked, and is not installed. */
export class OptionalPeerMissingError extends Error {
  override readonly name = 'OptionalPeerMissingError';
  constructor(
    readonly peer: string,
    what: string,
    options?: ErrorOptions,
  ) {
    super(
      `${what} needs the package "${peer}", an optional peer dependency of payconform that is not installed here: npm install ${peer}`,
      options,
    );
  }
}

/** The Redis backend's modules; `redis` is an optional peer, so its absence is told as such, not as a defect. */
async function loadRedisModules() {
  try {
    const [redis, commander, stateStore, deliveries, timers, batch, backstop] = await Promise.all([
      import('../redis/index.js'),
      import('../redis/commander.js'),
      import('./redis-state-store.js'),
      import('./redis-deliveries.js'),
      import('./redis-timers.js'),
      import('./redis-batch.js'),
      import('./redis-backstop.js'),
    ]);
    return {
      ...redis,
      CLUSTER_PARTITIONS: commander.CLUSTER_PARTITIONS,
      redactUrl: commander.redactUrl,
      ...stateStore,
      ...deliveries,
      ...timers,
      ...batch,
      ...backstop,
    };
  } catch (error) {
    if (
      (error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' &&
      /\bpackage 'redis'/.test((error as Error).message)
    )
      throw new OptionalPeerMissingError('redis', 'a Redis backend (--redis-url)', {
        cause: error,
      });
    throw error;
  }
}
