// Several instances of the reference service as one service: behind a round-robin TCP proxy (a load balancer on
// loopback), per-instance memory stores accept a replayed request once per instance, and the audit's
// nonce-concurrent-once check shows it; on one shared redis-server exactly one of 50 identical requests is accepted.
// A Redis that stops mid-run gives 503 with the spec's error body and nothing accepted, and the service recovers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditTarget } from '../cli/commands/audit-server.js';
import { auditTarget, EMBEDDED_TIMERS } from '../cli/commands/audit-server.js';
import type { ServerAuditContext } from '../conformance/checks/server/index.js';
import { createRedactor } from '../conformance/report/redact.js';
import { startWebhookListener } from '../conformance/http/webhook-listener.js';
import type { RunningReferenceService } from '../server/index.js';
import { expectHeldPayoutCommittedOnce } from './fixtures/cross-instance.js';
import { loadTestKeys } from './fixtures/keys.js';
import { withLightForgeries } from './fixtures/light-forgeries.js';
import { redisTestsEnabled, startRedisServer, type RunningRedis } from './fixtures/redis-server.js';
import { startRoundRobinProxy } from './fixtures/round-robin-proxy.js';
import { until } from './fixtures/until.js';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  payoutBody,
  send,
  signed,
  startReceiver,
  startTestService,
  testApplication,
} from './reference-service-client.js';

const webhookSigningKey = loadTestKeys().webhookRsa.privatePem;

/** Two instances with the same credentials and keys (as a deployment behind a load balancer), and a proxy before them. */
async function twoInstancesBehindProxy(
  redisUrl?: string,
): Promise<AuditTarget & { readonly instances: readonly RunningReferenceService[] }> {
  const listener = await startWebhookListener();
  const options = {
    webhookSigningKey,
    webhookUrls: {
      payment: listener.urlFor('payment'),
      payout: listener.urlFor('payout'),
      refund: listener.urlFor('refund'),
    },
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
    credentials: {
      applicationId: app.applicationId,
      applicationSecret: app.applicationSecret,
      keyId: app.keyId,
      privateKey: app.privateKey!,
    },
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
  return {
    result,
    explain: `${result?.outcome}: ${result?.findings.map((f) => `${f.outcome} ${f.message}`).join(' | ')}`,
  };
}

describe('two instances with per-instance (memory) nonce stores behind a round-robin proxy', () => {
  it('nonce-concurrent-once fails: a request is accepted once per instance', async () => {
    const target = await twoInstancesBehindProxy();
    try {
      const { result, explain } = await concurrentOnce(target);
      expect(result?.outcome, explain).toBe('fail');
      expect(result?.findings.find((f) => f.outcome === 'fail')?.message).toMatch(
        /^2 of 50 identical requests were accepted/,
      );
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
      const request = signed(
        { ...a, baseUrl: 'http://payments.test' },
        '/api/payouts',
        payoutBody(a, { reference: 'SCALE-50' }),
      );
      const withHost = {
        ...request,
        headers: [['host', 'payments.test'] as const, ...(request.headers ?? [])],
      };
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) => send((i % 2 === 0 ? a : b).baseUrl, withHost)),
      );
      const statuses = answers.map((r) => r.status);
      expect(
        statuses.filter((s) => s === 201),
        statuses.join(','),
      ).toHaveLength(1);
      expect(statuses.filter((s) => s === 401)).toHaveLength(49);
      expect(answers.find((r) => r.status === 401)?.json).toMatchObject({
        statusCode: 401,
        statusName: 'UNAUTHORIZED',
      });
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }, 60_000);

  it('Redis stopped mid-run: 503 with the error body and no payout; the service recovers when Redis returns', async () => {
    const service = await startTestService({ redisUrl: redis.url, webhookSigningKey });
    try {
      expect(
        (
          await send(
            service.baseUrl,
            signed(service, '/api/payouts', payoutBody(service, { reference: 'BEFORE' })),
          )
        ).status,
      ).toBe(201);
      await redis.stop();
      let down;
      try {
        down = await send(
          service.baseUrl,
          signed(service, '/api/payouts', payoutBody(service, { reference: 'WHILE-DOWN' })),
        );
      } finally {
        await redis.restart();
      }
      expect(down.status).toBe(503);
      expect(down.json).toMatchObject({
        statusCode: 503,
        statusName: 'SERVICE_UNAVAILABLE',
        source: 'SERVICE',
      });
      expect(down.headers['x-payconform-error-code']).toBe('NONCE_STORE_UNAVAILABLE');
      // Bounded wait for the reconnect: 40 tries, 100 ms apart, each with a fresh nonce.
      let status = 0;
      for (let i = 0; i < 40 && status !== 201; i += 1) {
        status = (
          await send(
            service.baseUrl,
            signed(service, '/api/payouts', payoutBody(service, { reference: `AFTER-${i}` })),
          )
        ).status;
        if (status !== 201) await new Promise((r) => setTimeout(r, 100));
      }
      expect(status).toBe(201);
      // The test's Redis keeps nothing across a restart; what it holds now was written after it came back.
      const list = await send(service.baseUrl, { method: 'GET', path: '/sandbox/payouts' });
      expect(list.text).toContain('AFTER-');
      expect(list.text).not.toContain('WHILE-DOWN');
    } finally {
      await service.close();
    }
  }, 60_000);
});

describe.runIf(redisTestsEnabled())('the service state shared through one redis-server', () => {
  let redis: RunningRedis;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis?.close();
  });
  /**
   * Waits (bounded) until nothing under `prefix` is due: no lifecycle step and no delivery attempt is left in the due
   * set (scores below FINISHED, server/redis-deliveries.ts), so no instance will run or attempt anything more.
   */
  const nothingDue = (prefix: string) =>
    until(`nothing due under ${prefix}`, async () => {
      const due = await redis.command('ZCOUNT', `${prefix}due`, '-inf', '(1e15');
      return due === ':0\r\n';
    });

  it('seeds once per store, holds a payout through one instance and commits it through the other (once)', async () => {
    const a = await startTestService({ redisUrl: redis.url, webhookSigningKey });
    const b = await startTestService({ redisUrl: redis.url, webhookSigningKey });
    try {
      expect(b.seededPayments).toEqual(a.seededPayments);
      const payments = await send(b.baseUrl, { method: 'GET', path: '/sandbox/payments' });
      expect(payments.json).toHaveLength(
        a.seededPayments.settled.length + a.seededPayments.unsettled.length,
      );

      const commits = await expectHeldPayoutCommittedOnce(a, b);
      expect(commits.find((c) => c.status === 200)?.json).toMatchObject({
        status: 'IN_PROGRESS',
        copStatus: 'NO_MATCH',
      });
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }, 60_000);

  it('of concurrent refunds of one payment sent to different instances, exactly one is accepted', async () => {
    const a = await startTestService({
      redisUrl: redis.url,
      webhookSigningKey,
      redisKeyPrefix: 'refunds-test:',
    });
    const b = await startTestService({
      redisUrl: redis.url,
      webhookSigningKey,
      redisKeyPrefix: 'refunds-test:',
    });
    try {
      const { paymentId } = a.seededPayments.settled[0]!;
      const path = `/api/merchants/${a.credentials.merchantId}/applications/${a.credentials.applicationId}/refunds`;
      const request = {
        method: 'POST',
        path,
        headers: [
          ['content-type', 'application/json'],
          ['x-application-id', a.credentials.applicationId],
          ['x-application-secret', a.credentials.applicationSecret],
        ] as const,
        body: JSON.stringify({ paymentId, amount: '1.00' }),
      };
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) => send((i % 2 === 0 ? a : b).baseUrl, request)),
      );
      const statuses = answers.map((r) => r.status);
      expect(
        statuses.filter((s) => s === 201),
        statuses.join(','),
      ).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(9);
      const refunds = await send(b.baseUrl, { method: 'GET', path: '/sandbox/refunds' });
      expect(
        refunds.json.filter(
          (r: { refundedPaymentId: string }) => r.refundedPaymentId === paymentId,
        ),
      ).toHaveLength(1);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }, 60_000);

  it('every server check passes against two instances on one Redis behind the round-robin proxy', async () => {
    const target = await twoInstancesBehindProxy(redis.url);
    try {
      // Every check across instances, not the drawing: the forgeries send every form's edge and draw a few more.
      const summary = await auditTarget(withLightForgeries(target));
      const failing = summary.results.filter((r) => r.outcome !== 'pass');
      expect(
        failing.map(
          (r) =>
            `${r.id}: ${r.outcome} ${r.findings
              .filter((f) => f.outcome !== 'pass')
              .map((f) => f.message)
              .join(' | ')}`,
        ),
      ).toEqual([]);
    } finally {
      await target.close();
    }
  }, 120_000);

  it('each webhook attempt is made once across instances (two 500s, then 200: three requests, counters 0, 1, 2)', async () => {
    const receiver = await startReceiver([500, 500]);
    const options = {
      redisUrl: redis.url,
      webhookSigningKey,
      redisKeyPrefix: 'attempts-test:',
      webhookUrls: { payout: receiver.url },
      retry: { initialDelayMs: 50, maxDelayMs: 100, maxAttempts: 5, requestTimeoutMs: 2_000 },
    };
    const a = await startTestService(options);
    const b = await startTestService(options);
    try {
      const created = await send(
        a.baseUrl,
        signed(a, '/api/payouts', payoutBody(a, { reference: 'ONCE-EACH' })),
      );
      expect(created.status).toBe(201);
      await receiver.waitFor((all) => all.length >= 3, 10_000);
      // Nothing left due: no instance makes another attempt, so a duplicate would be among those received.
      await nothingDue('attempts-test:');
      expect(
        receiver.received.map(
          (w) => JSON.parse(w.body.toString('utf8')).payoutWebhookDeliveryAttempt,
        ),
      ).toEqual([0, 1, 2]);
      const deliveries = await send(b.baseUrl, {
        method: 'GET',
        path: `/sandbox/deliveries?resourceId=${created.json.payoutId}`,
      });
      expect(deliveries.json).toMatchObject([
        {
          state: 'delivered',
          attempts: [{ responseStatus: 500 }, { responseStatus: 500 }, { responseStatus: 200 }],
        },
      ]);
    } finally {
      await Promise.all([a.close(), b.close()]);
      await receiver.close();
    }
  }, 60_000);

  it('an instance that dies mid-delivery does not lose it: another instance makes the attempt once the lease runs out', async () => {
    // The first request is held unanswered (the instance dies while waiting); later ones get 200.
    const received: Buffer[] = [];
    const held: http.ServerResponse[] = [];
    const receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push(Buffer.concat(chunks));
        if (received.length === 1) held.push(res);
        else res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    const options = {
      redisUrl: redis.url,
      webhookSigningKey,
      redisKeyPrefix: 'dying-test:',
      webhookUrls: { payout: url },
      retry: { initialDelayMs: 50, maxDelayMs: 100, maxAttempts: 5, requestTimeoutMs: 1_000 },
    };
    const a = await startTestService(options);
    let b: RunningReferenceService | undefined;
    try {
      const created = await send(
        a.baseUrl,
        signed(a, '/api/payouts', payoutBody(a, { reference: 'DIES' })),
      );
      expect(created.status).toBe(201);
      // Bounded wait (10 s) for A's attempt to reach the receiver, then A dies with it unanswered.
      for (let i = 0; i < 200 && received.length === 0; i += 1)
        await new Promise((r) => setTimeout(r, 50));
      expect(received).toHaveLength(1);
      b = await startTestService(options);
      await a.close();
      for (let i = 0; i < 200 && received.length < 2; i += 1)
        await new Promise((r) => setTimeout(r, 50));
      expect(received).toHaveLength(2);
      expect(received[1]!.equals(received[0]!)).toBe(true); // the same attempt (counter 0), made again
      let state = '';
      for (let i = 0; i < 100 && state !== 'delivered'; i += 1) {
        const list = await send(b.baseUrl, {
          method: 'GET',
          path: `/sandbox/deliveries?resourceId=${created.json.payoutId}`,
        });
        state = list.json[0]?.state ?? '';
        if (state !== 'delivered') await new Promise((r) => setTimeout(r, 50));
      }
      expect(state).toBe('delivered');
    } finally {
      for (const res of held) res.destroy();
      await a.close();
      await b?.close();
      await new Promise<void>((r) => {
        receiver.close(() => r());
        receiver.closeAllConnections();
      });
    }
  }, 60_000);

  it('lifecycle steps happen once across instances, and survive the instance that scheduled them', async () => {
    const receiver = await startReceiver();
    const options = {
      redisUrl: redis.url,
      webhookSigningKey,
      redisKeyPrefix: 'lifecycle-test:',
      webhookUrls: { payout: receiver.url },
      lifecycleDelayMs: 300,
    };
    const a = await startTestService(options);
    const b = await startTestService(options);
    try {
      // .93: IN_PROGRESS, then PROCESSED, then RETURNED (two automatic steps).
      const created = await send(
        a.baseUrl,
        signed(a, '/api/payouts', payoutBody(a, { reference: 'STEPS', amount: 12.93 })),
      );
      expect(created.status).toBe(201);
      // The instance that scheduled the steps dies at once; the other runs them.
      await a.close();
      const statuses = () =>
        receiver.received.map((w) => JSON.parse(w.body.toString('utf8')).payoutStatus as string);
      await receiver.waitFor(() => statuses().includes('RETURNED'), 15_000);
      // Nothing left due (no step, no delivery attempt) and every webhook answered: a repeated step would be here.
      await nothingDue('lifecycle-test:');
      await until('every webhook of the payout delivered', async () => {
        const list = await send(b.baseUrl, {
          method: 'GET',
          path: `/sandbox/deliveries?resourceId=${created.json.payoutId}`,
        });
        return (list.json as Array<{ state: string }>).every((d) => d.state === 'delivered');
      });
      expect(statuses()).toEqual(['IN_PROGRESS', 'PROCESSED', 'RETURNED']);
      const seen = await send(b.baseUrl, {
        method: 'GET',
        path: `/sandbox/payouts/${created.json.payoutId}`,
      });
      expect(seen.json.status).toBe('RETURNED');
    } finally {
      await Promise.all([a.close(), b.close()]);
      await receiver.close();
    }
  }, 60_000);
});
