// Webhook delivery of the reference service: PUT, application/json, SHA256withRSA over the exact bytes, retries with a rising counter.
import { afterEach, describe, expect, it } from 'vitest';
import { validatePayload } from '../src/schemas/index.js';
import { verifyWebhook } from '../src/webhooks/index.js';
import type { RunningReferenceService } from '../server/index.js';
import {
  appHeaders,
  deliveriesFinished,
  payoutBody,
  REFUND_TYPE,
  send,
  signed,
  startReceiver,
  startTestService,
} from './reference-service-client.js';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!();
});

async function setup(
  statuses: number[] = [],
  options: Parameters<typeof startTestService>[0] = {},
) {
  const receiver = await startReceiver(statuses);
  const service = await startTestService({
    webhookUrls: { payment: receiver.url, payout: receiver.url, refund: receiver.url },
    retry: { initialDelayMs: 10, maxDelayMs: 40, maxAttempts: 4, requestTimeoutMs: 1000 },
    ...options,
  });
  cleanup.push(
    () => receiver.close(),
    () => service.close(),
  );
  return { receiver, service };
}

const json = (body: Buffer) => JSON.parse(body.toString('utf8'));
const createPayout = (service: RunningReferenceService, overrides: Record<string, unknown> = {}) =>
  send(service.baseUrl, signed(service, '/api/payouts', payoutBody(service, overrides)));

describe('Events: payout webhooks', () => {
  it('are PUT, application/json, signed over the exact bytes with the served key, schema-valid', async () => {
    const { receiver, service } = await setup();
    const created = await createPayout(service);
    await receiver.waitFor((all) => all.length >= 1);
    const hook = receiver.received[0]!;
    expect(hook.method).toBe('PUT');
    expect(hook.headers['content-type']).toBe('application/json');
    expect(hook.headers.accept).toBe('application/json');
    const pem = (await send(service.baseUrl, { method: 'GET', path: '/.well-known/signature/pem' }))
      .text;
    expect(verifyWebhook(new Uint8Array(hook.body), hook.headers.authorization, pem)).toMatchObject(
      { ok: true },
    );
    const payload = json(hook.body);
    expect(validatePayload('payout-webhook', payload, { strict: true })).toEqual({ valid: true });
    expect(payload).toMatchObject({
      payoutId: created.json.payoutId,
      payoutStatus: 'IN_PROGRESS',
      payoutWebhookDeliveryAttempt: 0,
    });
  });

  it('follow every status change: IN_PROGRESS, then PROCESSED and RETURNED on the lifecycle timer (amount trigger .93)', async () => {
    const { receiver, service } = await setup([], { lifecycleDelayMs: 20 });
    const created = await createPayout(service, { amount: 7.93 });
    await receiver.waitFor((all) => all.length >= 3);
    expect(receiver.received.map((h) => json(h.body).payoutStatus)).toEqual([
      'IN_PROGRESS',
      'PROCESSED',
      'RETURNED',
    ]);
    expect(receiver.received.every((h) => json(h.body).payoutId === created.json.payoutId)).toBe(
      true,
    );
  });

  it('are not sent for AWAITING_COMMIT; commit and cancel each send one', async () => {
    const { receiver, service } = await setup();
    const held = await createPayout(service, {
      destination: service.copDestinations.NO_MATCH,
      doNotCommitOnCoPMismatch: true,
    });
    const other = await createPayout(service, {
      destination: service.copDestinations.NO_MATCH,
      doNotCommitOnCoPMismatch: true,
    });
    await send(service.baseUrl, {
      method: 'POST',
      path: `/api/payouts/${held.json.payoutId}/commit`,
      headers: appHeaders(service),
    });
    await send(service.baseUrl, {
      method: 'POST',
      path: `/api/payouts/${other.json.payoutId}/cancel`,
      headers: appHeaders(service),
    });
    // Every webhook the service queued has been answered: none is still to come.
    await deliveriesFinished(service);
    expect(receiver.received.map((h) => json(h.body).payoutStatus).sort()).toEqual([
      'CANCELLED',
      'IN_PROGRESS',
    ]);
  });

  it('are retried until 200, the attempt counter rising, each attempt re-signed over its own bytes', async () => {
    const { receiver, service } = await setup([500, 503]);
    await createPayout(service);
    await receiver.waitFor((all) => all.length >= 3);
    const payloads = receiver.received.map((h) => json(h.body));
    expect(payloads.map((p) => p.payoutWebhookDeliveryAttempt)).toEqual([0, 1, 2]);
    for (const h of receiver.received) {
      expect(
        verifyWebhook(
          new Uint8Array(h.body),
          h.headers.authorization,
          service.webhookPublicKeyTrimmedPem,
        ),
      ).toMatchObject({ ok: true });
    }
    // Delivered: no attempt is left to come.
    const records = await deliveriesFinished(service);
    expect(receiver.received).toHaveLength(3);
    expect(records.map((d) => d.state)).toEqual(['delivered']);
    expect(records[0]!.attempts.map((a) => a.responseStatus)).toEqual([500, 503, 200]);
  });

  it('stop after maxAttempts, marked failed, and are listed under /sandbox/deliveries', async () => {
    const { receiver, service } = await setup([500, 500, 500, 500, 500, 500]);
    const created = await createPayout(service);
    // Failed for good: no attempt is left to come.
    expect(await deliveriesFinished(service, created.json.payoutId)).toMatchObject([
      { state: 'failed' },
    ]);
    expect(receiver.received).toHaveLength(4);
    const listed = await send(service.baseUrl, {
      method: 'GET',
      path: `/sandbox/deliveries?kind=payout&resourceId=${created.json.payoutId}`,
    });
    expect(listed.json).toHaveLength(1);
    expect(listed.json[0]).toMatchObject({ state: 'failed', eventStatus: 'IN_PROGRESS' });
    expect(listed.json[0].attempts).toHaveLength(4);
  });

  it('a receiver that never answers does not block API requests (answers come while deliveries are in flight)', async () => {
    const hanging = await import('node:http').then((http) => http.createServer(() => {}));
    await new Promise<void>((r) => hanging.listen(0, '127.0.0.1', r));
    const port = (hanging.address() as { port: number }).port;
    cleanup.push(
      () =>
        new Promise<void>((r) => {
          hanging.close(() => r());
          hanging.closeAllConnections();
        }),
    );
    const service = await startTestService({
      webhookUrls: { payout: `http://127.0.0.1:${port}/` },
      retry: { initialDelayMs: 10, maxDelayMs: 10, maxAttempts: 2, requestTimeoutMs: 10_000 },
    });
    cleanup.push(() => service.close());
    for (let i = 0; i < 5; i++) expect((await createPayout(service)).status).toBe(201);
    const deliveries = service.deliveries();
    expect(deliveries).toHaveLength(5);
    // Every delivery is still waiting for its receiver: the API answered without waiting for any of them.
    expect(
      deliveries.filter(
        (d) =>
          d.state === 'pending' &&
          d.attempts.every((a) => a.responseStatus === undefined && a.error === undefined),
      ),
    ).toHaveLength(5);
  });
});

describe('Events: refund and payment webhooks', () => {
  it('a refund sends a schema-valid refund webhook to the payer account; lifecycle .91 ends FAILED', async () => {
    const { receiver, service } = await setup([], { lifecycleDelayMs: 20 });
    const { paymentId } = service.seededPayments.settled[0]!;
    const res = await send(service.baseUrl, {
      method: 'POST',
      path: `/api/merchants/${service.credentials.merchantId}/applications/${service.credentials.applicationId}/refunds`,
      headers: appHeaders(service, REFUND_TYPE),
      body: JSON.stringify({ paymentId, amount: '3.91' }),
    });
    expect(res.status).toBe(201);
    await receiver.waitFor((all) => all.length >= 2);
    const payloads = receiver.received.map((h) => json(h.body));
    for (const p of payloads)
      expect(validatePayload('refund-webhook', p, { strict: true })).toEqual({ valid: true });
    expect(payloads.map((p) => p.refundStatus)).toEqual(['IN_PROGRESS', 'FAILED']);
    expect(payloads[0]).toMatchObject({
      refundId: res.json.refundPaymentId,
      refundedPaymentId: paymentId,
      refundAmount: 3.91,
    });
  });

  it('payment moves send COMPLETED and SETTLED payment webhooks, verified', async () => {
    const { receiver, service } = await setup();
    const created = await send(service.baseUrl, {
      method: 'POST',
      path: '/sandbox/payments',
      body: '{"amount":"9.99","merchantPaymentId":"order-7","status":"SETTLED"}',
    });
    expect(created.status).toBe(201);
    await receiver.waitFor((all) => all.length >= 2);
    const payloads = receiver.received.map((h) => json(h.body));
    expect(payloads.map((p) => p.paymentStatus).sort()).toEqual(['COMPLETED', 'SETTLED']);
    for (const h of receiver.received) {
      expect(validatePayload('payment-webhook', json(h.body), { strict: true })).toEqual({
        valid: true,
      });
      expect(
        verifyWebhook(
          new Uint8Array(h.body),
          h.headers.authorization,
          service.webhookPublicKeyTrimmedPem,
        ),
      ).toMatchObject({ ok: true });
    }
  });
});
