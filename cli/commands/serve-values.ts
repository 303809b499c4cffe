// `payconform serve`'s option values read and checked: integers, the Redis URL (a password only from the
// environment), HTTP URLs, the application's credentials from the environment, the /sandbox/ path.
import { type CliIo, applicationSecretFromEnv, UsageError } from '../io.js';
import type { ApplicationConfig } from '../../server/index.js';

const ENV_CREDENTIALS = [
  'PAYCONFORM_APPLICATION_ID',
  'PAYCONFORM_APPLICATION_SECRET',
  'PAYCONFORM_KEY_ID',
  'PAYCONFORM_PUBLIC_KEY',
  'PAYCONFORM_MERCHANT_ID',
] as const;

export function integer(text: string | undefined, flag: string, max: number): number | undefined {
  if (text === undefined) return undefined;
  if (!/^[0-9]{1,10}$/.test(text) || Number(text) > max)
    throw new UsageError(`${flag} must be an integer from 0 to ${max}`);
  return Number(text);
}

/** The Redis URL from the flag or PAYCONFORM_REDIS_URL; a password is accepted only from the environment. */
export function redisUrlOption(
  flag: string | undefined,
  env: string | undefined,
): string | undefined {
  const text = flag ?? (env?.trim() === '' ? undefined : env?.trim());
  if (text === undefined) return undefined;
  const name = flag !== undefined ? '--redis-url' : 'PAYCONFORM_REDIS_URL';
  // A Redis Cluster: redis+cluster://host:port,host:port (some of its nodes; the rest are discovered).
  const cluster = /^rediss?\+cluster:\/\/(?:([^@/]*)@)?([^/?#@]+)\/?$/i.exec(text);
  if (cluster !== null) {
    if (!cluster[2]!.split(',').every((node) => /^[^\s:,]+:[0-9]{1,5}$/.test(node)))
      throw new UsageError(`${name}: redis+cluster:// takes host:port,host:port`);
    if (flag !== undefined && (cluster[1] ?? '').includes(':'))
      throw new UsageError(
        '--redis-url must not carry a password (command lines are visible to other users); set PAYCONFORM_REDIS_URL instead',
      );
    return text;
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(
      `${name}: not a URL (redis://host:port, rediss://host:port or unix:///path/redis.sock)`,
    );
  }
  if (!['redis:', 'rediss:', 'unix:'].includes(url.protocol))
    throw new UsageError(
      `${name}: only redis://, rediss://, unix:// and redis+cluster://host:port,host:port URLs`,
    );
  if (flag !== undefined && url.password !== '') {
    throw new UsageError(
      '--redis-url must not carry a password (command lines are visible to other users); set PAYCONFORM_REDIS_URL instead',
    );
  }
  return text;
}

export function httpUrl(text: string | undefined, flag: string): string | undefined {
  if (text === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`${flag}: not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`${flag}: only http and https URLs`);
  return text;
}

/** The application from PAYCONFORM_* variables: all five, or none (then undefined). */
export function applicationFromEnv(io: CliIo): ApplicationConfig | undefined {
  const set = ENV_CREDENTIALS.filter((n) => (io.env[n] ?? '').trim() !== '');
  if (set.length === 0) return undefined;
  if (set.length < ENV_CREDENTIALS.length) {
    throw new UsageError(
      `incomplete credentials in the environment: set ${ENV_CREDENTIALS.filter((n) => !set.includes(n)).join(', ')} too (or none of them)`,
    );
  }
  const env = (n: (typeof ENV_CREDENTIALS)[number]) => io.env[n]!.trim();
  return {
    applicationId: env('PAYCONFORM_APPLICATION_ID'),
    // Never trimmed: a secret with surrounding whitespace is refused by the one rule instead.
    applicationSecret: applicationSecretFromEnv(io, true)!,
    keyId: env('PAYCONFORM_KEY_ID'),
    publicKey: env('PAYCONFORM_PUBLIC_KEY'),
    merchantId: env('PAYCONFORM_MERCHANT_ID'),
  };
}

/** --sandbox-path PATH|off: where /sandbox/ is served; a usage error for anything but a plain path or `off`. */
export function sandboxPathOption(text: string | undefined): string | false | undefined {
  if (text === undefined) return undefined;
  if (text === 'off') return false;
  const path = text.replace(/\/+$/, '');
  if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(path))
    throw new UsageError('--sandbox-path takes a path such as /private/helpers, or off');
  return path;
}
