// net/loopback.ts: the one loopback rule, in its three forms (host, URL, Host header), as each caller uses it.
import { describe, expect, it } from 'vitest';
import {
  isLoopbackAuthority,
  isLoopbackHost,
  isLoopbackTarget,
  reachesLoopback,
} from '../net/loopback.js';

const LOOPBACK = [
  '127.0.0.1',
  '127.255.0.9',
  '::1',
  '[::1]',
  'localhost',
  'LOCALHOST',
  'a.localhost',
];
const LOOPBACK_MAPPED = ['::ffff:127.0.0.1', '[::ffff:7f00:1]'];
const NOT = [
  '128.0.0.1',
  '10.0.0.1',
  '0.0.0.0',
  '::',
  'example.com',
  'localhost.example',
  '127.0.0.256',
  '',
];

describe('net/loopback: one rule for three callers', () => {
  it('host names and addresses', () => {
    for (const h of [...LOOPBACK, ...LOOPBACK_MAPPED]) expect(isLoopbackHost(h), h).toBe(true);
    for (const h of NOT) expect(isLoopbackHost(h), h).toBe(false);
  });

  it('URLs (the audits: mutating checks, test webhooks)', () => {
    expect(isLoopbackTarget('http://127.0.0.1:8080/api')).toBe(true);
    expect(isLoopbackTarget('https://[::1]/')).toBe(true);
    expect(isLoopbackTarget('http://api.localhost:3000')).toBe(true);
    expect(isLoopbackTarget('https://pay.example.com')).toBe(false);
    expect(isLoopbackTarget('not a url')).toBe(false);
  });

  it('Host header values (the portal)', () => {
    for (const a of ['localhost:8080', '127.0.0.1', '[::1]:443', 'app.localhost:1']) {
      expect(isLoopbackAuthority(a), a).toBe(true);
    }
    for (const a of ['evil.com:80', 'localhost:80:80', '::1', 'localhost.evil.com', '']) {
      expect(isLoopbackAuthority(a), a).toBe(false);
    }
  });

  it('by the addresses a name resolves to: a loopback name that resolves elsewhere is not loopback', async () => {
    const to =
      (...addresses: string[]) =>
      () =>
        Promise.resolve(addresses);
    const fails = () => Promise.reject(new Error('ENOTFOUND'));
    expect(await reachesLoopback('http://localhost:8080/', to('127.0.0.1', '::1'))).toBe(true);
    expect(await reachesLoopback('http://localhost:8080/', to('10.0.0.5'))).toBe(false);
    expect(await reachesLoopback('http://api.localhost/', to('127.0.0.1', '192.0.2.7'))).toBe(
      false,
    );
    expect(await reachesLoopback('http://api.localhost/', to())).toBe(false);
    expect(await reachesLoopback('http://api.localhost/', fails)).toBe(false);
    // Address literals are never resolved; other names are not loopback whatever they resolve to.
    expect(await reachesLoopback('http://127.0.0.2:1/', fails)).toBe(true);
    expect(await reachesLoopback('http://[::1]:1/', fails)).toBe(true);
    expect(await reachesLoopback('http://example.test/', to('127.0.0.1'))).toBe(false);
    expect(await reachesLoopback('not a url')).toBe(false);
  });
});
