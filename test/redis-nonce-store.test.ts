// RedisNonceStore against a real redis-server: atomic once-only recording across clients, expiry, key prefix, and
// failing closed (NONCE_STORE_UNAVAILABLE, nothing accepted) when Redis is stopped, slow or answers an error.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { verifyRequest } from '../src/profile/verify-request.js';
import { connectRedis, RedisNonceStore, type RedisConnection } from '../redis/index.js';
import { redisTestsEnabled, startRedisServer, type RunningRedis } from './fixtures/redis-server.js';
import {
  nowSeconds,
  resolveTestApplication as resolveApplication,
  signedTestRequest as signedRequest,
} from './fixtures/signed-test-request.js';

describe.runIf(redisTestsEnabled())('RedisNonceStore on a real redis-server', () => {
  let redis: RunningRedis;
  const connections: RedisConnection[] = [];
  const connect = async () => {
    const c = await connectRedis(redis.url);
    connections.push(c);
    return c;
  };

  beforeAll(async () => {
    redis = await startRedisServer();
    // An empty Redis counts as one that lost its data: open() notices it before the first nonce and waits out that
    // second (redis-nonce-reset.test.ts tests what follows a loss).
    await Promise.all(
      [undefined, 'svc-a:', 'svc-b:', 'share:'].map(async (keyPrefix) => {
        const c = await connectRedis(redis.url);
        await new RedisNonceStore({ client: c, keyPrefix }).open();
        await c.close();
      }),
    );
  });
  afterEach(async () => {
    await Promise.all(connections.splice(0).map((c) => c.close()));
  });
  afterAll(async () => {
    await redis?.close();
  });

  it('records a nonce once: true, then false; has() sees it', async () => {
    const store = new RedisNonceStore({ client: await connect() });
    const now = nowSeconds();
    expect(await store.has('n-1', now)).toBe(false);
    expect(await store.checkAndRecord('n-1', now, now + 300)).toBe(true);
    expect(await store.has('n-1', now)).toBe(true);
    expect(await store.checkAndRecord('n-1', now, now + 300)).toBe(false);
  });

  it('of 200 concurrent calls with one nonce from four connections, exactly one records it', async () => {
    const stores = await Promise.all(
      [1, 2, 3, 4].map(async () => new RedisNonceStore({ client: await connect() })),
    );
    const now = nowSeconds();
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        stores[i % 4]!.checkAndRecord('race-1', now, now + 300),
      ),
    );
    expect(answers.filter(Boolean)).toHaveLength(1);
  });

  it("keys carry the prefix and expire with the window (relative TTL from the caller's clock)", async () => {
    const store = new RedisNonceStore({ client: await connect(), keyPrefix: 'svc-a:' });
    const now = nowSeconds();
    expect(await store.checkAndRecord('n-ttl', now, now + 300)).toBe(true);
    const ttl = Number((await redis.command('PTTL', 'svc-a:n-ttl')).slice(1));
    expect(ttl).toBeGreaterThan(299_000);
    expect(ttl).toBeLessThanOrEqual(301_000);
    // Another prefix is another store.
    expect(
      await new RedisNonceStore({ client: await connect(), keyPrefix: 'svc-b:' }).checkAndRecord(
        'n-ttl',
        now,
        now + 300,
      ),
    ).toBe(true);
    // An expiry already past still keeps the nonce for a second (never recorded and dropped at once). Such an
    // expiry stands for a signature created before start-up, refused while the start-up horizon holds: end it.
    await redis.command('DEL', 'svc-a:\u0000reset-horizon');
    expect(await store.checkAndRecord('n-past', now, now - 10)).toBe(true);
    expect(await store.checkAndRecord('n-past', now, now - 10)).toBe(false);
  });

  it('maxNoncesPerApplication: one application at its share is refused (NONCE_SHARE_FULL), another is not', async () => {
    const store = new RedisNonceStore({
      client: await connect(),
      keyPrefix: 'share:',
      maxNoncesPerApplication: 3,
    });
    const now = nowSeconds();
    const a = { applicationId: 'app-a', keyId: 'k' };
    for (let i = 0; i < 3; i++)
      expect(await store.checkAndRecord(`a-${i}`, now, now + 300, a)).toBe(true);
    await expect(store.checkAndRecord('a-3', now, now + 300, a)).rejects.toMatchObject({
      code: 'NONCE_SHARE_FULL',
    });
    // A replay is still a replay, not a full share.
    expect(await store.checkAndRecord('a-0', now, now + 300, a)).toBe(false);
    // The count expires two windows (and a second) after its first nonce: it covers the window it counts and the
    // next, where it is still read.
    const countKey = `share:\u0000share:app-a:${Math.floor(now / 300)}`;
    expect(await redis.command('GET', countKey)).toBe('$1\r\n3\r\n');
    const ttl = Number((await redis.command('PTTL', countKey)).slice(1));
    expect(ttl).toBeGreaterThan(595_000);
    expect(ttl).toBeLessThanOrEqual(601_000);
    expect(
      await store.checkAndRecord('b-0', now, now + 300, { applicationId: 'app-b', keyId: 'k' }),
    ).toBe(true);
    // Without an owner only Redis's own capacity bounds it.
    expect(await store.checkAndRecord('no-owner', now, now + 300)).toBe(true);
  });

  it('verifyRequest with the store accepts a request once and rejects its replay', async () => {
    const nonceStore = new RedisNonceStore({ client: await connect() });
    const request = signedRequest('verify-once-1');
    expect(
      await verifyRequest(request, { now: nowSeconds(), nonceStore, resolveApplication }),
    ).toMatchObject({ ok: true });
    expect(
      await verifyRequest(request, { now: nowSeconds(), nonceStore, resolveApplication }),
    ).toMatchObject({ ok: false, code: 'NONCE_REPLAYED', step: 4 });
  });

  it('fails closed while Redis is stopped, and recovers when it returns', async () => {
    const nonceStore = new RedisNonceStore({ client: await connect(), timeoutMs: 300 });
    await redis.stop();
    try {
      const result = await verifyRequest(signedRequest('down-1'), {
        now: nowSeconds(),
        nonceStore,
        resolveApplication,
      });
      expect(result).toMatchObject({ ok: false, code: 'NONCE_STORE_UNAVAILABLE' });
    } finally {
      await redis.restart();
    }
    // The client reconnects on its own (capped backoff); bounded wait: 40 tries, 100 ms apart.
    let last: Awaited<ReturnType<typeof verifyRequest>> | undefined;
    for (let i = 0; i < 40; i += 1) {
      last = await verifyRequest(signedRequest(`up-${i}`), {
        now: nowSeconds(),
        nonceStore,
        resolveApplication,
      });
      if (last.ok) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(last).toMatchObject({ ok: true });
  });

  it('fails closed when Redis answers slower than the timeout (CLIENT PAUSE)', async () => {
    const nonceStore = new RedisNonceStore({ client: await connect(), timeoutMs: 100 });
    expect(await redis.command('CLIENT', 'PAUSE', '1500', 'ALL')).toBe('+OK\r\n');
    try {
      const result = await verifyRequest(signedRequest('slow-1'), {
        now: nowSeconds(),
        nonceStore,
        resolveApplication,
      });
      expect(result).toMatchObject({ ok: false, code: 'NONCE_STORE_UNAVAILABLE' });
      expect(result.ok ? '' : result.message).toMatch(/no answer within 100 ms/);
    } finally {
      await redis.command('CLIENT', 'UNPAUSE');
    }
  });

  it('fails closed when Redis answers an error (out of memory under noeviction)', async () => {
    const nonceStore = new RedisNonceStore({ client: await connect() });
    await redis.command('CONFIG', 'SET', 'maxmemory-policy', 'noeviction');
    await redis.command('CONFIG', 'SET', 'maxmemory', '1');
    try {
      const result = await verifyRequest(signedRequest('oom-1'), {
        now: nowSeconds(),
        nonceStore,
        resolveApplication,
      });
      expect(result).toMatchObject({ ok: false, code: 'NONCE_STORE_UNAVAILABLE', step: 11 });
      expect(result.ok ? '' : result.message).toMatch(/OOM/);
    } finally {
      await redis.command('CONFIG', 'SET', 'maxmemory', '0');
    }
  });

  it('refuses a client without sendCommand (TypeError) and a bad timeout', () => {
    expect(() => new RedisNonceStore({ client: {} as never })).toThrow(TypeError);
    expect(
      () => new RedisNonceStore({ client: { sendCommand: async () => null }, timeoutMs: 0 }),
    ).toThrow(TypeError);
  });
});
