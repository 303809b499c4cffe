// Per-application bounds: one application at its limit of payouts gets 507 while another's payouts still
// succeed, in memory and on Redis (counted across instances, the message saying where); after Redis restarted empty
// the service does not keep answering 507.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningReferenceService } from '../server/index.js';
import type { ApplicationConfig } from '../server/options.js';
import { redisTestsEnabled, startRedisServer, type RunningRedis } from './fixtures/redis-server.js';
import {
  payoutBody,
  send,
  signed,
  startTestService,
  testApplication,
  type RawResponse,
} from './reference-service-client.js';

const other: ApplicationConfig = {
  ...testApplication(),
  applicationId: '7a2d3b45-6c7e-4f80-9bac-1d2e3f4a5b6c',
  applicationSecret: 'test-only-secret-other-0001',
  keyId: 'test-only-key-2',
  merchantId: 'a1b2c3d4-0000-4000-8000-000000000002',
};
const limits = { payoutsPerApplication: 3, payouts: 100 };
const running: RunningReferenceService[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()));
});

async function start(
  redisUrl?: string,
  stateLimits: Record<string, number> = limits,
): Promise<RunningReferenceService> {
  const service = await startTestService({
    applications: [testApplication(), other],
    stateLimits,
    ...(redisUrl !== undefined ? { redisUrl } : {}),
  });
  running.push(service);
  return service;
}

/** A signed payout of the first application (`'first'`) or of the other one. */
function payout(service: RunningReferenceService, who: 'first' | 'other'): Promise<RawResponse> {
  const app = service.applications[who === 'first' ? 0 : 1]!;
  const body = payoutBody(service, {
    applicationId: app.applicationId,
    payInAccountSelector: app.payInAccountSelector,
  });
  const o =
    who === 'first'
      ? {}
      : { applicationId: other.applicationId, secret: other.applicationSecret, keyId: other.keyId };
  return send(service.baseUrl, signed(service, '/api/payouts', body, o));
}

describe('per-application payout bounds, in memory', () => {
  it('the first application at its limit gets 507 saying so; the other application is untouched', async () => {
    const service = await start();
    for (let i = 0; i < 3; i++) expect((await payout(service, 'first')).status).toBe(201);
    const full = await payout(service, 'first');
    expect(full.status).toBe(507);
    expect(full.headers['x-payconform-error-code']).toBe('state_full');
    expect(full.json.errorMessage).toContain('maximum of 3 payouts');
    expect(full.json.errorMessage).toContain(service.applications[0]!.applicationId);
    expect(full.json.errorMessage).toContain('in memory');
    for (let i = 0; i < 3; i++) expect((await payout(service, 'other')).status).toBe(201);
    expect((await payout(service, 'other')).status).toBe(507);
  });
});

describe('per-application nonce bounds, in memory', () => {
  it('the first application at its share of the nonce store gets 503; the other is untouched', async () => {
    const service = await start(undefined, { noncesPerApplication: 3 });
    for (let i = 0; i < 3; i++) expect((await payout(service, 'first')).status).toBe(201);
    const full = await payout(service, 'first');
    expect(full.status).toBe(503);
    expect(full.json.errorMessage).toMatch(/share of the nonce store/);
    expect((await payout(service, 'other')).status).toBe(201);
  });
});

describe.runIf(redisTestsEnabled())('per-application payout bounds, on Redis', () => {
  let redis: RunningRedis;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis?.close();
  });

  it('the bound holds across two instances, the message never says "in memory", and a Redis restarted empty ends the 507s', async () => {
    const a = await start(redis.url);
    const b = await start(redis.url);
    expect((await payout(a, 'first')).status).toBe(201);
    expect((await payout(b, 'first')).status).toBe(201);
    expect((await payout(a, 'first')).status).toBe(201);
    for (const service of [a, b]) {
      const full = await payout(service, 'first');
      expect(full.status).toBe(507);
      expect(full.json.errorMessage).toContain('Redis');
      expect(full.json.errorMessage).not.toContain('in memory');
    }
    expect((await payout(b, 'other')).status).toBe(201);

    // The nonce share holds across instances too.
    await redis.command('FLUSHALL');
    const [c, d] = [
      await start(redis.url, { noncesPerApplication: 2 }),
      await start(redis.url, { noncesPerApplication: 2 }),
    ];
    expect((await payout(c, 'first')).status).toBe(201);
    expect((await payout(d, 'first')).status).toBe(201);
    expect((await payout(c, 'first')).status).toBe(503);
    expect((await payout(d, 'other')).status).toBe(201);

    await redis.restart();
    // Bounded: 50 tries, 100 ms apart (the clients reconnect; requests signed in the second of the restart are refused).
    let answer = await payout(a, 'first').catch(() => undefined);
    for (let i = 0; i < 50 && answer?.status !== 201; i++) {
      expect(answer?.status).not.toBe(507);
      await new Promise((r) => setTimeout(r, 100));
      answer = await payout(a, 'first').catch(() => undefined);
    }
    expect(answer?.status, answer?.text).toBe(201);
  }, 30_000);
});
