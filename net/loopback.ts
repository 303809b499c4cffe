// The one rule for "is this loopback?", used wherever the answer decides something: mutating checks without
// --allow-live, receivers of test webhooks, a faulty service's bind address, the portal's Host header.
// Loopback is 127.0.0.0/8, ::1 (and its IPv4-mapped form ::ffff:127.x.x.x), `localhost` and any `*.localhost`
// name (RFC 6761 §6.3: such names resolve to loopback).
import { isIP } from 'node:net';

/** True for a loopback host name or address; IPv6 may be given in brackets. */
export function isLoopbackHost(host: string): boolean {
  let h = host.toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  const v4mapped =
    /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(h)?.[1] ??
    (/^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(h) ? '127.0.0.1' : undefined);
  const v4 = v4mapped ?? h;
  return isIP(v4) === 4 && v4.startsWith('127.');
}

/** True for a URL whose host is loopback; false for anything that is not a URL. */
export function isLoopbackTarget(target: string): boolean {
  let host: string;
  try {
    host = new URL(target).hostname;
  } catch {
    return false;
  }
  return isLoopbackHost(host);
}

/** True for a Host header value (`host[:port]`, IPv6 in brackets) that names loopback. */
export function isLoopbackAuthority(authority: string): boolean {
  const m = /^(\[[^\]]*\]|[^:[\]]*)(?::\d{1,5})?$/.exec(authority);
  return m !== null && isLoopbackHost(m[1]!);
}

/** Resolves a host name to its addresses (node:dns `lookup` with `all`); replaceable in tests. */
export type HostResolver = (host: string) => Promise<readonly string[]>;

const systemResolver: HostResolver = async (host) => {
  const { lookup } = await import('node:dns/promises');
  return (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
};

/**
 * True when a URL's host is loopback by the addresses it is reached at: an address literal by the rule above; a name
 * (`localhost`, `*.localhost` included) only when every address it resolves to is loopback, since a name may resolve
 * elsewhere (a hosts file, a resolver). A name that does not resolve, or a URL that is not one, is not loopback.
 */
export async function reachesLoopback(
  target: string,
  resolve: HostResolver = systemResolver,
): Promise<boolean> {
  let host: string;
  try {
    host = new URL(target).hostname;
  } catch {
    return false;
  }
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (isIP(bare) !== 0) return isLoopbackHost(bare);
  if (!isLoopbackHost(bare)) return false;
  try {
    const addresses = await resolve(bare);
    return addresses.length > 0 && addresses.every((a) => isLoopbackHost(a));
  } catch {
    return false;
  }
}
