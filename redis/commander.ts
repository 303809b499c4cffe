// The one thing this module needs from a Redis client (node-redis's `sendCommand`), a per-call timeout, and a
// connection helper with fail-fast behaviour while Redis is unreachable.
import { createClient } from 'redis';

/** Satisfied by node-redis clients (`createClient()`); replies are RESP values (string, number, null, arrays). */
export interface RedisCommander {
  sendCommand(args: readonly string[]): Promise<unknown>;
}

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

/**
 * Connects to `url` (`redis://host:port`, `redis://user:pass@host`, `rediss://…`, `unix:///path/redis.sock`).
 * While the connection is down, commands fail at once (no offline queue) and the client reconnects in the
 * background with capped backoff, so callers fail closed quickly and recover when Redis returns.
 */
export async function connectRedis(
  url: string,
  options: ConnectRedisOptions = {},
): Promise<RedisConnection> {
  const parsed = new URL(url);
  const socketPath = parsed.protocol === 'unix:' ? decodeURIComponent(parsed.pathname) : undefined;
  const connectTimeout = options.connectTimeoutMs ?? 2000;
  const reconnectStrategy = (retries: number) => Math.min(50 * 2 ** Math.min(retries, 5), 1000);
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

/** The URL without its password (for messages and logs). */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    return u.toString();
  } catch {
    return '(unparseable URL)';
  }
}
