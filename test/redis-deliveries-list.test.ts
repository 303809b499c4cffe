// RedisDeliveries on a real redis-server: the list of deliveries stays bounded by maxRecords although a push trims it
// only once it has grown a tenth past the bound (one command per push, not RPUSH and LTRIM each time); a result
// written by two plain commands whose second (the removal from the due set) was lost is not attempted again.
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

  it('lists the last maxRecords deliveries; the list in Redis never holds more than a tenth over', async () => {
    const deliveries = new RedisDeliveries({
      client: connection,
      keyPrefix: 'list:',
      leaseMs: 1000,
      maxRecords: 10,
      log: () => {},
    });
    const lengths: number[] = [];
    for (let id = 1; id <= 25; id += 1) {
      await deliveries.add(delivery(id));
      lengths.push(Number((await redis.command('LLEN', 'list:deliveries:all')).slice(1)));
    }
    deliveries.close();
    expect(Math.max(...lengths)).toBe(11);
    // Trimmed back to 10 whenever a push makes it 12.
    expect(lengths.slice(9, 13)).toEqual([10, 11, 10, 11]);
    expect((await deliveries.list()).map((r) => r.id)).toEqual(
      Array.from({ length: 10 }, (_, i) => 16 + i),
    );
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
    const score = () => redis.command('ZSCORE', 'lost:deliveries:due', '7');
    try {
      await deliveries.add(delivery(7, [{ n: 0 }, { n: 1 }]));
      for (let i = 0; i < 100 && (attempts === 0 || !(await score()).startsWith('$-1')); i += 1)
        await new Promise((r) => setTimeout(r, 20));
      expect(attempts).toBe(1);
      expect(await score()).toBe('$-1\r\n');
      // The result arrived, the removal did not: due long ago, for any instance's backstop.
      await redis.command('ZADD', 'lost:deliveries:due', String(Date.now() - 60_000), '7');
      for (let i = 0; i < 100 && !(await score()).startsWith('$-1'); i += 1)
        await new Promise((r) => setTimeout(r, 20));
      expect(await score()).toBe('$-1\r\n');
      expect(attempts).toBe(1);
      const [record] = await deliveries.list();
      expect(record).toMatchObject({ id: 7, state: 'delivered' });
    } finally {
      deliveries.close();
    }
  });
});
