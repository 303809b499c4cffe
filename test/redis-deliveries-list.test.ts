// RedisDeliveries' list of deliveries on a real redis-server: bounded by maxRecords although a push trims the list
// only once it has grown a tenth past the bound (one command per push, not RPUSH and LTRIM each time).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis, type RedisConnection } from '../redis/commander.js';
import { RedisDeliveries } from '../server/redis-deliveries.js';
import type { SharedDelivery } from '../server/webhook-delivery.js';
import { redisTestsEnabled, startRedisServer, type RunningRedis } from './fixtures/redis-server.js';

const delivery = (id: number): SharedDelivery => ({
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
  payloads: [],
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
});
