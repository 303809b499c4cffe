// Several instances of the reference service as one service: behind a round-robin TCP proxy (a load balancer on
// loopback), per-instance memory stores accept a replayed request once per instance, and the audit's
// nonce-concurrent-once check shows it; on one shared redis-server exactly one of 50 identical requests is accepted.
// A Redis that stops mid-run gives 503 with the spec's error body and nothing accepted, and the service recovers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditTarget } from '../cli/commands/audit-server.js';
import { auditTarget, EMBEDDED_TIMERS } from '../cli/commands/audit-server.js';
import type { ServerAuditContext } from '../conformance/checks/server/index.js';
import { createRedactor } from '../conformance/redact.js';
import { startWebhookListener } from '../conformance/webhook-listener.js';
import type { RunningReferenceService } from '../server/index.js';
import { loadTestKeys } from './fixtures/keys.js';
import { redisTestsEnabled, startRedisServer, type RunningRedis } from './fixtures/redis-server.js';
import { startRoundRobinProxy } from './fixtures/round-robin-proxy.js';
import { payoutBody, send, signed, startTestService, testApplication } from './reference-service-client.js';

const webhookSigningKey = loadTestKeys().webhookRsa.privatePem;

/** Two instances with the same credentials and keys (as a deployment behind a load balancer), and a proxy before them. */
async function twoInstancesBehindProxy(redisUrl?: string): Promise<AuditTarget & { readonly instances: readonly RunningReferenceService[] }> {
  const listener = await startWebhookListener();
  const options = {
    webhookSigningKey,
    webhookUrls: { payment: listener.urlFor('payment'), payout: listener.urlFor('payout'), refund: listener.urlFor('refund') },
    lifecycleDelayMs: EMBEDDED_TIMERS.lifecycleDelayMs,
    retry: EMBEDDED_TIMERS.retry,
    ...(redisUrl !== undefined ? { redisUrl } : {}),
  };
  const instances = await Promise.all([startTestService(options), startTestService(options)]);
  const proxy = await startRoundRobinProxy(instances.map((s) => ({ host: s.host, port: s.port })));
  const app = testApplication();
  const first = instances[0]!;
  const context: ServerAuditContext = {
    baseUrl: proxy.baseUrl,
    credentials: { applicationId: app.applicationId, applicationSecret: app.applicationSecret, keyId: app.keyId, privateKey: app.privateKey! },
    applicationId: app.applicationId,
    applicationSecret: app.applicationSecret,
    merchantId: app.merchantId,
    payInAccountSelector: first.credentials.payInAccountSelector,
    copDestinations: first.copDestinations,
    payments: first.seededPayments,
    webhooks: listener,
    requestTimeoutMs: 5_000,
    webhookWaitMs: 2_000,
    quietWaitMs: 300,
    sandbox: true,
    redactor: createRedactor({ applicationSecret: app.applicationSecret }),
  };
  return {
    context,
    instances,
    label: `${proxy.baseUrl} (two instances, round robin)`,
    isAvailable: () => true,
    checkTimeoutMs: 30_000,
    close: async () => {
      await proxy.close();
      await Promise.all(instances.map((s) => s.close()));
      await listener.close();
    },
  };
}

async function concurrentOnce(target: AuditTarget) {
  const summary = await auditTarget(target, { only: ['nonce-concurrent-once'] });
  const result = summary.results.find((r) => r.id === 'nonce-concurrent-once');
  return { result, explain: `${result?.outcome}: ${result?.findings.map((f) => `${f.outcome} ${f.message}`).join(' | ')}` };
}

describe('two instances with per-instance (memory) nonce stores behind a round-robin proxy', () => {
  it('nonce-concurrent-once fails: a request is accepted once per instance', async () => {
    const target = await twoInstancesBehindProxy();
    try {
      const { result, explain } = await concurrentOnce(target);
      expect(result?.outcome, explain).toBe('fail');
      expect(result?.findings.find((f) => f.outcome === 'fail')?.message).toMatch(/^2 of 50 identical requests were accepted/);
    } finally {
      await target.close();
    }
  }, 60_000);
});

describe.runIf(redisTestsEnabled())('instances sharing one redis-server', () => {
  let redis: RunningRedis;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis?.close();
  });

  it('nonce-concurrent-once passes through the round-robin proxy', async () => {
    const target = await twoInstancesBehindProxy(redis.url);
    try {
      const { result, explain } = await concurrentOnce(target);
      expect(result?.outcome, explain).toBe('pass');
    } finally {
      await target.close();
    }
  }, 60_000);

  it('of 50 identical signed requests sent to two instances in turn, exactly one is accepted', async () => {
    const a = await startTestService({ redisUrl: redis.url, webhookSigningKey });
    const b = await startTestService({ redisUrl: redis.url, webhookSigningKey });
    try {
      // Signed once for the authority both instances are reached by (as behind a load balancer).
      const request = signed({ ...a, baseUrl: 'http://payments.test' }, '/api/payouts', payoutBody(a, { reference: 'SCALE-50' }));
      const withHost = { ...request, headers: [['host', 'payments.test'] as const, ...(request.headers ?? [])] };
      const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => send((i % 2 === 0 ? a : b).baseUrl, withHost)));
      const statuses = answers.map((r) => r.status);
      expect(statuses.filter((s) => s === 201), statuses.join(',')).toHaveLength(1);
      expect(statuses.filter((s) => s === 401)).toHaveLength(49);
      expect(answers.find((r) => r.status === 401)?.json).toMatchObject({ statusCode: 401, statusName: 'UNAUTHORIZED' });
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }, 60_000);

  it('Redis stopped mid-run: 503 with the error body and no payout; the service recovers when Redis returns', async () => {
    const service = await startTestService({ redisUrl: redis.url, webhookSigningKey });
    try {
      expect((await send(service.baseUrl, signed(service, '/api/payouts', payoutBody(service, { reference: 'BEFORE' })))).status).toBe(201);
      await redis.stop();
      let down;
      try {
        down = await send(service.baseUrl, signed(service, '/api/payouts', payoutBody(service, { reference: 'WHILE-DOWN' })));
      } finally {
        await redis.restart();
      }
      expect(down.status).toBe(503);
      expect(down.json).toMatchObject({ statusCode: 503, statusName: 'SERVICE_UNAVAILABLE', source: 'SERVICE' });
      expect(down.headers['x-payconform-error-code']).toBe('NONCE_STORE_UNAVAILABLE');
      const list = await send(service.baseUrl, { method: 'GET', path: '/sandbox/payouts' });
      expect(list.text).toContain('BEFORE');
      expect(list.text).not.toContain('WHILE-DOWN');
      // Bounded wait for the reconnect: 40 tries, 100 ms apart, each with a fresh nonce.
      let status = 0;
      for (let i = 0; i < 40 && status !== 201; i += 1) {
        status = (await send(service.baseUrl, signed(service, '/api/payouts', payoutBody(service, { reference: `AFTER-${i}` })))).status;
        if (status !== 201) await new Promise((r) => setTimeout(r, 100));
      }
      expect(status).toBe(201);
    } finally {
      await service.close();
    }
  }, 60_000);
});
