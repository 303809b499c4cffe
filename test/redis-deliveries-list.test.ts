// RedisDeliveries on a real redis-server: finished deliveries stay listed in the due set's finished band, bounded by
// maxRecords and keepFinishedMs although the band is pruned only now and then (no command per queued delivery for
// the listing); a result written by two plain commands whose second (the move to the finished band) was lost is not
// attempted again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis, type RedisConnection } from '../redis/commander.js';
import { RedisDeliveries } from '../server/redis-deliveries.js';
import type { SharedDelivery } from '../server/webhook-delivery.js';
import { redisTestsEnabled, startRedisServer, type RunningRedis } from './fixtures/redis-server.js';

const delivery = (id: number, payloads: unknown[] = []): SharedDelivery => ({
  record: {
    id,
    kind: 'payout',
    url: null,
    resourceId: `payout-${id}`,
    eventStatus: 'IN_PROGRESS',
    state: 'pending',
    attempts: [],
    applicationId: 'app-1',
  } as unknown as SharedDelivery['record'],
  payloads,
  index: 0,
});

describe.runIf(redisTestsEnabled())('RedisDeliveries: the listed deliveries stay bounded', () => {
  let redis: RunningRedis;
  let connection: RedisConnection;
  beforeAll(async () => {
    redis = await startRedisServer();
    connection = await connectRedis(redis.url);
  });
  afterAll(async () => {
    await connection?.close();
    await redis?.close();
  });

  it('lists the due and the last maxRecords finished deliveries; the set is pruned now and then, not at every push', async () => {
    const deliveries = new RedisDeliveries({
      client: connection,
      keyPrefix: 'list:',
      leaseMs: 1000,
      maxRecords: 10,
      keepFinishedMs: 1500,
      log: () => {},
    });
    deliveries.start(async (d) => ({
      record: { ...d.record, state: 'delivered' },
      nextInMs: undefined,
    }));
    const finishedCount = async () =>
      Number((await redis.command('ZCOUNT', 'list:due', '1e15', '+inf')).slice(1));
    const finished = async (id: number) =>
      Number((await redis.command('ZSCORE', 'list:due', String(id))).split('\r\n')[1]) >= 1e15;
    const addAndFinish = async (id: number) => {
      await deliveries.add(delivery(id, [{ n: 0 }]));
      for (let i = 0; i < 100 && !(await finished(id)); i += 1)
        await new Promise((r) => setTimeout(r, 5));
      expect(await finished(id)).toBe(true);
    };
    try {
      const counts: number[] = [];
      for (let id = 1; id <= 130; id += 1) {
        await addAndFinish(id);
        counts.push(await finishedCount());
      }
      // Pruned (to the last 10 finished) when delivery 64, then 128, was queued: one in 64 ids.
      expect(counts[62]).toBe(63);
      expect(counts[63]).toBe(11); // 63 finished pruned to 10, then 64 itself finished
      expect(counts[127]).toBe(11);
      expect(counts[129]).toBe(13);
      expect((await deliveries.list()).map((r) => r.id)).toEqual(
        Array.from({ length: 10 }, (_, i) => 121 + i),
      );
      // Finished longer ago than keepFinishedMs: pruned at the next prune, whatever their number. Each finished
      // delivery's score is FINISHED + when it finished: moved 1.6 s back, as if that time had passed.
      const listed = await redis.command('ZRANGEBYSCORE', 'list:due', '1e15', '+inf');
      const ids = listed.split('\r\n').filter((line) => /^\d+$/.test(line));
      expect(ids).toHaveLength(13);
      for (const id of ids) await redis.command('ZINCRBY', 'list:due', '-1600', id);
      await addAndFinish(192);
      expect(await finishedCount()).toBe(1);
      expect((await deliveries.list()).map((r) => r.id)).toEqual([192]);
    } finally {
      deliveries.close();
    }
  });

  it('a finished delivery left in the due set (its removal lost) is dropped by the backstop, not attempted again', async () => {
    const deliveries = new RedisDeliveries({
      client: connection,
      keyPrefix: 'lost:',
      leaseMs: 1000,
      backstopMs: 50,
      log: () => {},
    });
    let attempts = 0;
    deliveries.start(async (d) => {
      attempts += 1;
      return { record: { ...d.record, state: 'delivered' }, nextInMs: undefined };
    });
    const score = () => redis.command('ZSCORE', 'lost:due', '7');
    try {
      await deliveries.add(delivery(7, [{ n: 0 }, { n: 1 }]));
      const isFinished = async () => Number((await score()).split('\r\n')[1]) >= 1e15;
      for (let i = 0; i < 100 && (attempts === 0 || !(await isFinished())); i += 1)
        await new Promise((r) => setTimeout(r, 20));
      expect(attempts).toBe(1);
      expect(Number((await score()).split('\r\n')[1])).toBeGreaterThanOrEqual(1e15);
      // The result arrived, the move to the finished band did not: due long ago, for any instance's backstop.
      await redis.command('ZADD', 'lost:due', String(Date.now() - 60_000), '7');
      for (let i = 0; i < 100 && !(await isFinished()); i += 1)
        await new Promise((r) => setTimeout(r, 20));
      expect(await isFinished()).toBe(true);
      expect(attempts).toBe(1);
      const [record] = await deliveries.list();
      expect(record).toMatchObject({ id: 7, state: 'delivered' });
    } finally {
      deliveries.close();
    }
  });
});
