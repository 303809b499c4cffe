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
