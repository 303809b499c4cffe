// RedisNonceStore when Redis forgets: after a restart without persistence, a FLUSHALL or the promotion of a replica
// that had not caught up, no request accepted before is accepted again (CREATED_BEFORE_NONCE_STORE_RESET), and a
// request signed afresh is accepted within a couple of seconds.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { HttpRequest } from '../src/http/message.js';
import { verifyRequest, type VerifyResult } from '../src/profile/verify-request.js';
import {
  connectRedis,
  NonceStoreResetError,
  RedisNonceStore,
  type RedisCommander,
  type RedisConnection,
} from '../redis/index.js';
import { unusedLoopbackPort } from './fixtures/ports.js';
import { redisTestsEnabled, startRedisServer, type RunningRedis } from './fixtures/redis-server.js';
import {
  nowSeconds,
  resolveTestApplication as resolveApplication,
  signedTestRequest as signedRequest,
} from './fixtures/signed-test-request.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const verify = (request: HttpRequest, nonceStore: RedisNonceStore) =>
  verifyRequest(request, { now: nowSeconds(), nonceStore, resolveApplication });

/** Verifies `request` until the store answers something other than NONCE_STORE_UNAVAILABLE (the client reconnecting); bounded: 50 tries, 100 ms apart. */
async function verifyOnceReachable(
  request: HttpRequest,
  nonceStore: RedisNonceStore,
): Promise<VerifyResult> {
  let result = await verify(request, nonceStore);
  for (let i = 0; i < 50 && !result.ok && result.code === 'NONCE_STORE_UNAVAILABLE'; i += 1) {
    await sleep(100);
    result = await verify(request, nonceStore);
  }
  return result;
}

/**
 * Requests signed afresh (a new nonce each) until one is accepted; bounded: 40 tries, 100 ms apart (the horizon is
 * the second the loss was noticed, so a request signed in the next second is accepted). Returns the codes of the
 * refusals before it and the accepted request.
 */
async function freshUntilAccepted(
  nonceStore: RedisNonceStore,
  tag: string,
): Promise<{ refusals: string[]; accepted?: HttpRequest; ms: number }> {
  const started = Date.now();
  const refusals: string[] = [];
  for (let i = 0; i < 40; i += 1) {
    const request = signedRequest(`${tag}-fresh-${i}`);
    const result = await verify(request, nonceStore);
    if (result.ok) return { refusals, accepted: request, ms: Date.now() - started };
    refusals.push(result.code);
    await sleep(100);
  }
  return { refusals, ms: Date.now() - started };
}

describe.runIf(redisTestsEnabled())('RedisNonceStore after Redis lost its data', () => {
  let redis: RunningRedis;
  let masterPort: number;
  const connections: RedisConnection[] = [];
  const servers: RunningRedis[] = [];
  const connect = async (url = redis.url) => {
    const c = await connectRedis(url);
    connections.push(c);
    return c;
  };

  beforeAll(async () => {
    masterPort = await unusedLoopbackPort();
    redis = await startRedisServer({
      tcpPort: masterPort,
      args: ['--repl-diskless-sync-delay', '0'],
    });
  });
  afterEach(async () => {
    await Promise.all(connections.splice(0).map((c) => c.close()));
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  afterAll(async () => {
    await redis?.close();
  });

  it('an empty Redis at start counts as a loss: open() sets the horizon and waits out its second', async () => {
    await redis.command('FLUSHALL');
    const store = new RedisNonceStore({ client: await connect(), keyPrefix: 'open:' });
    const horizon = await store.open();
    expect(horizon).toBeTypeOf('number');
    expect(nowSeconds()).toBeGreaterThan(horizon!);
    // Kept for one validity window (300 s) past the horizon, then the refusals stop.
    const ttl = Number((await redis.command('PTTL', 'open:\u0000reset-horizon')).slice(1));
    expect(ttl).toBeGreaterThan(298_000);
    expect(ttl).toBeLessThanOrEqual(302_000);
    // A second open() on the same Redis finds it whole: the same horizon, no new one.
    expect(await new RedisNonceStore({ client: await connect(), keyPrefix: 'open:' }).open()).toBe(
      horizon,
    );
    expect(await verify(signedRequest('open-fresh'), store)).toMatchObject({ ok: true });
  });

  for (const [name, lose] of [
    ['a restart without persistence', () => redis.restart()],
    ['FLUSHALL', async () => void (await redis.command('FLUSHALL'))],
  ] as const) {
    it(`after ${name}: accepted before is refused after, a fresh request is accepted`, async () => {
      const store = new RedisNonceStore({ client: await connect() });
      await store.open();
      const before = signedRequest(`before-${name}`);
      expect(await verify(before, store)).toMatchObject({ ok: true });
      expect(await verify(before, store)).toMatchObject({ ok: false, code: 'NONCE_REPLAYED' });

      await lose();
      const replay = await verifyOnceReachable(before, store);
      expect(replay).toMatchObject({
        ok: false,
        code: 'CREATED_BEFORE_NONCE_STORE_RESET',
        step: 11,
      });

      const fresh = await freshUntilAccepted(store, name);
      expect(fresh.accepted, `refusals: ${fresh.refusals.join(', ')}`).toBeDefined();
      expect(fresh.ms).toBeLessThan(2_500);
      for (const code of fresh.refusals) expect(code).toBe('CREATED_BEFORE_NONCE_STORE_RESET');
      // The fresh one is recorded as usual, and the old one stays refused.
      expect(await verify(fresh.accepted!, store)).toMatchObject({
        ok: false,
        code: 'NONCE_REPLAYED',
      });
      expect(await verify(before, store)).toMatchObject({
        ok: false,
        code: 'CREATED_BEFORE_NONCE_STORE_RESET',
      });
    });
  }

  it('after a replica that had not caught up is promoted: the forgotten nonce is refused', async () => {
    const replica = await startRedisServer({
      args: ['--replicaof', '127.0.0.1', String(masterPort)],
    });
    servers.push(replica);
    // Bounded wait for the replica's first sync: 100 tries, 50 ms apart.
    for (let i = 0; i < 100; i += 1) {
      if ((await replica.command('INFO', 'replication')).includes('master_link_status:up')) break;
      await sleep(50);
    }
    expect(await replica.command('INFO', 'replication')).toContain('master_link_status:up');

    // The store talks to whichever server is the master now (what a Sentinel-aware client or a proxy does).
    const master = await connect();
    const promoted = await connect(replica.url);
    let current: RedisCommander = master;
    const store = new RedisNonceStore({
      client: { sendCommand: (args) => current.sendCommand(args) },
      keyPrefix: 'failover:',
    });
    await store.open();
    const replicated = signedRequest('failover-replicated');
    expect(await verify(replicated, store)).toMatchObject({ ok: true });
    // WAIT would not do: it waits for this connection's own writes, and the store wrote through another. So the
    // replica is asked until it holds the nonce (bounded: 100 tries, 20 ms apart).
    for (let i = 0; i < 100; i += 1) {
      if ((await replica.command('EXISTS', 'failover:failover-replicated')) === ':1\r\n') break;
      await sleep(20);
    }
    expect(await replica.command('EXISTS', 'failover:failover-replicated')).toBe(':1\r\n');

    // Replication stops (the replica follows a master that is not there), then one more nonce is recorded.
    const deadPort = await unusedLoopbackPort();
    expect(await replica.command('REPLICAOF', '127.0.0.1', String(deadPort))).toBe('+OK\r\n');
    const lost = signedRequest('failover-lost');
    expect(await verify(lost, store)).toMatchObject({ ok: true });
    expect(await replica.command('REPLICAOF', 'NO', 'ONE')).toBe('+OK\r\n');
    current = promoted;
    // The promoted replica never got it: a store that only did SET NX would accept it again.
    expect(await replica.command('EXISTS', 'failover:failover-lost')).toBe(':0\r\n');
    expect(await replica.command('EXISTS', 'failover:failover-replicated')).toBe(':1\r\n');

    expect(await verify(lost, store)).toMatchObject({
      ok: false,
      code: 'CREATED_BEFORE_NONCE_STORE_RESET',
    });
    expect(await verify(replicated, store)).toMatchObject({ ok: false });
    const fresh = await freshUntilAccepted(store, 'failover');
    expect(fresh.accepted, `refusals: ${fresh.refusals.join(', ')}`).toBeDefined();
    for (const code of fresh.refusals) expect(code).toBe('CREATED_BEFORE_NONCE_STORE_RESET');
  });

  it('checkAndRecord throws NonceStoreResetError (a PayconformError with the code and the horizon)', async () => {
    await redis.command('FLUSHALL');
    const store = new RedisNonceStore({ client: await connect(), keyPrefix: 'direct:' });
    const now = nowSeconds();
    const error = await store.checkAndRecord('direct-1', now, now + 300).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NonceStoreResetError);
    expect(error).toMatchObject({ code: 'CREATED_BEFORE_NONCE_STORE_RESET' });
    expect((error as NonceStoreResetError).horizon).toBeGreaterThanOrEqual(now);
    // A signature created after the horizon is recorded.
    const later = (error as NonceStoreResetError).horizon + 1;
    expect(await store.checkAndRecord('direct-1', later, later + 300)).toBe(true);
  });
});
