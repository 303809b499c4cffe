// The one thing this module needs from a Redis client (node-redis's `sendCommand`), a per-call timeout, scripts run
// by EVALSHA, and a connection helper (one server or a Redis Cluster) with fail-fast behaviour while Redis is
// unreachable.
import { createHash } from 'node:crypto';
import { createClient, createCluster } from 'redis';

/** Satisfied by node-redis clients (`createClient()`); replies are RESP values (string, number, null, arrays). */
export interface RedisCommander {
  sendCommand(args: readonly string[]): Promise<unknown>;
  /**
   * True when the commands go to a Redis Cluster (`clusterCommander`, `connectRedis('redis+cluster://…')`): the
   * stores then spread their keys over hash-tagged partitions, each script touching one slot.
   */
  readonly cluster?: boolean;
}

/** What `clusterCommander` needs from node-redis's `createCluster()` client. */
export interface RedisClusterLike {
  sendCommand(
    firstKey: string | undefined,
    isReadonly: boolean | undefined,
    args: string[],
  ): Promise<unknown>;
}

/**
 * A RedisCommander over a node-redis cluster client: each command goes to the node holding the slot of its first
 * key (for EVAL/EVALSHA the first of KEYS; none: any node).
 */
export function clusterCommander(cluster: RedisClusterLike): RedisCommander {
  if (typeof cluster?.sendCommand !== 'function')
    throw new TypeError('clusterCommander needs a node-redis cluster client (createCluster)');
  return {
    cluster: true,
    sendCommand: (args) => cluster.sendCommand(firstKeyOf(args), false, [...args]),
  };
}

/** The first key a command names, for routing in a cluster (the commands the stores send). */
export function firstKeyOf(args: readonly string[]): string | undefined {
  const name = args[0]?.toUpperCase();
  if (name === 'EVAL' || name === 'EVALSHA') return Number(args[2]) > 0 ? args[3] : undefined;
  if (name === 'INFO' || name === 'PING' || name === 'FLUSHALL' || name === 'SCRIPT')
    return undefined;
  return args[1];
}

/** A Lua script and its SHA-1, for EVALSHA. */
export interface RedisScript {
  readonly text: string;
  readonly sha: string;
}

export function defineScript(text: string): RedisScript {
  return { text, sha: createHash('sha1').update(text, 'utf8').digest('hex') };
}

/**
 * Runs `script` by EVALSHA (one short command); when this Redis node has not seen it yet (NOSCRIPT: a restart, a
 * new cluster node) sends the text once by EVAL, which caches it there again.
 */
export async function evalScript(
  client: RedisCommander,
  script: RedisScript,
  keys: readonly string[],
  args: readonly string[],
  timeoutMs: number,
  what: string,
): Promise<unknown> {
  const tail = [String(keys.length), ...keys, ...args];
  try {
    return await withTimeout(
      client.sendCommand(['EVALSHA', script.sha, ...tail]),
      timeoutMs,
      `EVALSHA ${what}`,
    );
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    return withTimeout(
      client.sendCommand(['EVAL', script.text, ...tail]),
      timeoutMs,
      `EVAL ${what}`,
    );
  }
}

/**
 * Spreads ids over `count` partitions (FNV-1a of the id): the stores tag every key of one partition with the same
 * hash tag, so in a Redis Cluster all keys one script touches share a slot. With one partition no tag is added (a
 * single server's key names are unchanged).
 */
export function partitionOf(id: string, count: number): number {
  if (count <= 1) return 0;
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i += 1) {
    hash ^= id.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % count;
}

/** The hash tag of partition `k` (`{p<k>}`), or '' with one partition. */
export function partitionTag(k: number, count: number): string {
  return count <= 1 ? '' : `{p${k}}`;
}

/** Partitions the stores use on a cluster (16: spread over the shards; an idle instance looks at each every 4 s). */
export const CLUSTER_PARTITIONS = 16;

/**
 * How long one command of the reference service's Redis state may take (2 s): its state store, webhook queue,
 * lifecycle timers and their batched writes; past it the command fails (a request is answered 503).
 */
export const REDIS_COMMAND_TIMEOUT_MS = 2000;

/**
 * `promise`, or a rejection naming `what` once `timeoutMs` has passed (the command may still run in Redis).
 * The rejection waits one turn of the event loop (setImmediate) after the timer: when this process itself was busy
 * past the deadline (a long synchronous task), a reply already in the socket buffer is read first and wins, so
 * the timeout measures Redis, not this process's own stalls.
 */
export function withTimeout<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let immediate: NodeJS.Immediate | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      immediate = setImmediate(() =>
        reject(new Error(`redis ${what}: no answer within ${timeoutMs} ms`)),
      );
    }, timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => {
    clearTimeout(timer);
    if (immediate !== undefined) clearImmediate(immediate);
  });
}

/** How `connectRedis` connects: the first connection's deadline, and where connection errors go. */
export interface ConnectRedisOptions {
  /** Time allowed for the first connection (default 2000 ms). */
  readonly connectTimeoutMs?: number;
  /** Called with each connection error (the client reconnects on its own); default: ignored. */
  readonly onError?: (error: Error) => void;
}

/** A connected client; closing it is the caller's job. */
export interface RedisConnection extends RedisCommander {
  close(): Promise<void>;
}

/** The seed nodes of `redis+cluster://[user:pass@]host:port,host:port` (or `rediss+cluster://`), else undefined. */
export function parseClusterUrl(
  url: string,
): { readonly tls: boolean; readonly nodes: readonly string[]; readonly auth: string } | undefined {
  const m = /^(rediss?)\+cluster:\/\/(?:([^@/]*)@)?([^/?#]+)\/?$/i.exec(url);
  if (m === null) return undefined;
  const nodes = m[3]!.split(',').filter((n) => n !== '');
  if (nodes.length === 0) return undefined;
  return { tls: m[1]!.toLowerCase() === 'rediss', nodes, auth: m[2] ?? '' };
}

/** How long the first connection may take when `connectTimeoutMs` is not given. */
const CONNECT_TIMEOUT_MS = 2000;

/** Reconnection after a lost connection, for a single node and a cluster alike: 50 ms doubling to 1 s, forever. */
function reconnectStrategy(retries: number): number {
  return Math.min(50 * 2 ** Math.min(retries, 5), 1000);
}

/**
 * Connects to `url` (`redis://host:port`, `redis://user:pass@host`, `rediss://…`, `unix:///path/redis.sock`, or a
 * Redis Cluster: `redis+cluster://host:port,host:port`, any nodes of it, the rest discovered).
 * While the connection is down, commands fail at once (no offline queue) and the client reconnects in the
 * background with capped backoff, so callers fail closed quickly and recover when Redis returns.
 */
export async function connectRedis(
  url: string,
  options: ConnectRedisOptions = {},
): Promise<RedisConnection> {
  if (parseClusterUrl(url) !== undefined) return connectCluster(url, options);
  const parsed = new URL(url);
  const socketPath = parsed.protocol === 'unix:' ? decodeURIComponent(parsed.pathname) : undefined;
  const connectTimeout = options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
  const client = createClient({
    ...(socketPath !== undefined
      ? { socket: { path: socketPath, connectTimeout, reconnectStrategy } }
      : { url, socket: { connectTimeout, reconnectStrategy } }),
    disableOfflineQueue: true,
  });
  const onError = options.onError ?? (() => {});
  client.on('error', (error: unknown) =>
    onError(error instanceof Error ? error : new Error(String(error))),
  );
  let first: Error | undefined;
  const firstError = (error: Error) => {
    first ??= error;
  };
  client.on('error', firstError);
  try {
    await withTimeout(client.connect(), connectTimeout, `connect ${redactUrl(url)}`);
  } catch (error) {
    client.destroy();
    throw new Error(
      `cannot connect to Redis at ${redactUrl(url)}: ${(first ?? (error as Error)).message}`,
    );
  } finally {
    client.off('error', firstError);
  }
  return {
    sendCommand: (args) => client.sendCommand([...args]),
    close: async () => {
      if (client.isOpen) await client.close().catch(() => client.destroy());
      else client.destroy();
    },
  };
}

async function connectCluster(url: string, options: ConnectRedisOptions): Promise<RedisConnection> {
  const { tls, nodes, auth } = parseClusterUrl(url)!;
  const connectTimeout = options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
  const scheme = tls ? 'rediss' : 'redis';
  const userInfo = auth === '' ? '' : `${auth}@`;
  const cluster = createCluster({
    rootNodes: nodes.map((node) => ({ url: `${scheme}://${userInfo}${node}` })),
    defaults: {
      ...(auth !== '' ? credentialsOf(auth) : {}),
      socket: { connectTimeout, reconnectStrategy, ...(tls ? { tls: true as const } : {}) },
      disableOfflineQueue: true,
    },
    maxCommandRedirections: 4,
  });
  const onError = options.onError ?? (() => {});
  cluster.on('error', (error: unknown) =>
    onError(error instanceof Error ? error : new Error(String(error))),
  );
  try {
    await withTimeout(cluster.connect(), connectTimeout, `connect ${redactUrl(url)}`);
  } catch (error) {
    void cluster.destroy();
    throw new Error(`cannot connect to Redis at ${redactUrl(url)}: ${(error as Error).message}`);
  }
  const commander = clusterCommander(cluster as unknown as RedisClusterLike);
  return {
    ...commander,
    close: async () => {
      await cluster.close().catch(() => cluster.destroy());
    },
  };
}

function credentialsOf(auth: string): { username?: string; password?: string } {
  const [user = '', pass] = auth.split(':');
  return {
    ...(user !== '' ? { username: decodeURIComponent(user) } : {}),
    ...(pass !== undefined ? { password: decodeURIComponent(pass) } : {}),
  };
}

/** The URL without its password (for messages and logs). */
export function redactUrl(url: string): string {
  const cluster = parseClusterUrl(url);
  if (cluster !== undefined) {
    const user = cluster.auth.split(':')[0] ?? '';
    const auth =
      cluster.auth === '' ? '' : cluster.auth.includes(':') ? `${user}:***@` : `${user}@`;
    return `${cluster.tls ? 'rediss' : 'redis'}+cluster://${auth}${cluster.nodes.join(',')}`;
  }
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    return u.toString();
  } catch {
    return '(unparseable URL)';
  }
}
