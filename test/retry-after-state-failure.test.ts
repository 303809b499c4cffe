// What a retry of the same bytes gets when the reference service's state store fails between the nonce and the state
// write (docs/node-adapters.md, "Retries"): 503 STATE_STORE_UNAVAILABLE after the nonce was recorded, so the same
// bytes are then a replay (401 NONCE_REPLAYED) and the client must sign again; the re-signed request is accepted. The
// fault is a real redis-server whose payouts hash is made the wrong type (the nonce keys untouched): every state write
// fails while the replay check works.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis, type RedisConnection } from '../redis/commander.js';
import { loadTestKeys } from './fixtures/keys.js';
import { redisTestsEnabled, startRedisServer, type RunningRedis } from './fixtures/redis-server.js';
import { payoutBody, send, signed, startTestService } from './reference-service-client.js';

const webhookSigningKey = loadTestKeys().webhookRsa.privatePem;

describe.runIf(redisTestsEnabled())(
  'retry after STATE_STORE_UNAVAILABLE (one redis-server)',
  () => {
    let redis: RunningRedis;
    let client: RedisConnection;
    beforeAll(async () => {
      redis = await startRedisServer();
      client = await connectRedis(redis.url);
    }, 30_000);
    afterAll(async () => {
      await client?.close();
      await redis?.stop();
    });

    it('the nonce is spent: the same bytes get 401 NONCE_REPLAYED, a re-signed copy 201', async () => {
      const service = await startTestService({ redisUrl: redis.url, webhookSigningKey });
      try {
        const first = signed(service, '/api/payouts', payoutBody(service, { reference: 'FIRST' }));
        expect((await send(service.baseUrl, first)).status).toBe(201);
        const keys = (await client.sendCommand(['KEYS', '*state:payouts'])) as string[];
        expect(keys.length).toBe(1);
        const payouts = keys[0]!;
        await client.sendCommand(['RENAME', payouts, `${payouts}-aside`]);
        await client.sendCommand(['SET', payouts, 'not a hash']); // every state write: WRONGTYPE

        const request = signed(
          service,
          '/api/payouts',
          payoutBody(service, { reference: 'RETRY' }),
        );
        const failed = await send(service.baseUrl, request);
        expect(failed.status).toBe(503);
        expect(failed.headers['x-payconform-error-code']).toBe('STATE_STORE_UNAVAILABLE');

        await client.sendCommand(['DEL', payouts]);
        await client.sendCommand(['RENAME', `${payouts}-aside`, payouts]);
        const retried = await send(service.baseUrl, request);
        expect(retried.status).toBe(401);
        expect(retried.headers['x-payconform-error-code']).toBe('NONCE_REPLAYED');
        const resigned = signed(
          service,
          '/api/payouts',
          payoutBody(service, { reference: 'RETRY' }),
        );
        expect((await send(service.baseUrl, resigned)).status).toBe(201);
      } finally {
        await service.close();
      }
    }, 60_000);
  },
);
