// Hostile clients against the reference service: silent and half-sent connections are released within the
// server's timeouts, aborted requests are logged as what they got, and connections, unauthenticated bodies and
// sandbox objects are capped, each with a clear error. Loopback only; every wait is bounded.
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { validatePayload } from '../src/schemas/index.js';
import type { ReferenceServiceOptions, RunningReferenceService } from '../server/index.js';
import {
  appHeaders,
  payoutBody,
  REFUND_TYPE,
  send,
  signed,
  startTestService,
} from './reference-service-client.js';

const running: RunningReferenceService[] = [];
const sockets: net.Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(running.splice(0).map((s) => s.close()));
});

async function start(
  options: Partial<ReferenceServiceOptions> = {},
): Promise<{ service: RunningReferenceService; log: string[] }> {
  const log: string[] = [];
  const service = await startTestService({ log: (line) => log.push(line), ...options });
  running.push(service);
  return { service, log };
}

/** Opens a socket, writes `bytes`, and then neither reads nor closes (a silent client). */
async function silentClient(service: RunningReferenceService, bytes: string): Promise<net.Socket> {
  const socket = net.connect(service.port, service.host);
  sockets.push(socket);
  socket.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.pause();
  socket.write(bytes);
  return socket;
}

/** Writes `bytes` and collects everything the server sends until it closes (bounded by `limitMs`). */
function exchange(
  service: RunningReferenceService,
  bytes: string,
  limitMs = 10_000,
): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(service.port, service.host);
    sockets.push(socket);
    let text = '';
    const timer = setTimeout(() => socket.destroy(), limitMs);
    socket.on('data', (d) => (text += d.toString()));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(text);
    });
    socket.write(bytes);
  });
}

/** Polls `probe` every 50 ms until it returns true or `limitMs` passes; returns the last answer. */
async function eventually(probe: () => Promise<boolean>, limitMs: number): Promise<boolean> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    if (await probe()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const SHORT = { headersTimeoutMs: 300, requestTimeoutMs: 600, keepAliveTimeoutMs: 300 };
const partialHead = (service: RunningReferenceService) =>
  `POST /sandbox/payments HTTP/1.1\r\nHost: ${service.host}:${service.port}\r\nx-partial: `;
const partialBody = (service: RunningReferenceService) =>
  `POST /sandbox/payments HTTP/1.1\r\nHost: ${service.host}:${service.port}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"amount":`;

describe('silent clients', () => {
  it('connections that send part of a request and then neither read nor close are released within the timeouts', async () => {
    const { service, log } = await start({ connections: SHORT });
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        silentClient(service, i % 2 === 0 ? partialHead(service) : partialBody(service)),
      ),
    );
    // Each was held until its timeout and answered 408 (no assertion on how many were open at once: on a loaded
    // machine the first may time out before the last connects).
    expect(
      await eventually(
        async () =>
          log.filter((l) => l.startsWith('client error: 408 request_timeout')).length === 20,
        15_000,
      ),
    ).toBe(true);
    // Released (destroyed, not half-closed) although every client still holds its side open and reads nothing.
    expect(await eventually(async () => (await service.openConnections()) === 0, 15_000)).toBe(
      true,
    );
    expect(sockets.every((s) => !s.destroyed)).toBe(true);
    // The ten whose body never came are logged with the 408 they got, not as a 200 or an internal error.
    const cutShort = () =>
      log.filter((l) => /^POST \/sandbox\/payments -> 408 request_timeout \(connection/.test(l))
        .length;
    expect(await eventually(async () => cutShort() === 10, 5_000)).toBe(true);
    expect(log.join('\n')).not.toMatch(/internal error|-> 200/);
  }, 30_000);

  it('header and request timeouts are answered 408 Request Timeout with the error body, then closed', async () => {
    const { service } = await start({ connections: SHORT });
    for (const bytes of [partialHead(service), partialBody(service)]) {
      const answer = await exchange(service, bytes);
      expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
      expect(answer).toContain('x-payconform-error-code: request_timeout');
      const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
      expect(validatePayload('error', body, { strict: true })).toEqual({ valid: true });
      expect(body).toMatchObject({ statusCode: 408, statusName: 'REQUEST_TIMEOUT' });
    }
  }, 30_000);

  it('a client reset in the middle of a body is logged as such: no stack trace, no invented status', async () => {
    const { service, log } = await start();
    const socket = await silentClient(service, partialBody(service));
    await eventually(async () => log.length > 0 || (await service.openConnections()) === 1, 2_000);
    socket.resetAndDestroy();
    expect(
      await eventually(
        async () => log.some((l) => l.startsWith('POST /sandbox/payments ->')),
        5_000,
      ),
    ).toBe(true);
    const line = log.find((l) => l.startsWith('POST /sandbox/payments ->'))!;
    expect(line).toMatch(/-> no response \(connection (ended|closed) before the body/);
    expect(log.join('\n')).not.toMatch(/internal error|Error: aborted|    at /);
  });

  it('unparseable requests still get 400 and oversized heads 431, and the socket is closed', async () => {
    const { service } = await start({ connections: SHORT });
    expect(await exchange(service, 'GARBAGE\r\n\r\n')).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(
      await exchange(service, `GET / HTTP/1.1\r\nHost: x\r\nx-big: ${'a'.repeat(100_000)}\r\n\r\n`),
    ).toMatch(/^HTTP\/1\.1 431 /);
    expect(await eventually(async () => (await service.openConnections()) === 0, 5_000)).toBe(true);
  });
});

describe('bounded resources', () => {
  it('connections beyond the cap evict the oldest idle ones (logged); the service keeps answering once they go', async () => {
    const { service, log } = await start({ connections: { maxConnections: 5 } });
    const held = [];
    for (let i = 0; i < 8; i++) held.push(await silentClient(service, ''));
    expect(
      await eventually(
        async () => log.filter((l) => l.startsWith('connection evicted')).length === 3,
        5_000,
      ),
    ).toBe(true);
    expect(await service.openConnections()).toBeLessThanOrEqual(5);
    for (const s of held) s.destroy();
    expect(await eventually(async () => (await service.openConnections()) === 0, 5_000)).toBe(true);
    expect(
      (await send(service.baseUrl, { method: 'GET', path: '/.well-known/signature/pem' })).status,
    ).toBe(200);
  });

  it('a body without valid credentials is capped lower (413 saying why); with them the full cap applies', async () => {
    const { service } = await start({ maxUnauthenticatedBodyBytes: 1024, maxBodyBytes: 64 * 1024 });
    const big = JSON.stringify({ amount: '10.00', metadata: { note: 'x'.repeat(4000) } });
    const refused = await send(service.baseUrl, {
      method: 'POST',
      path: '/sandbox/payments',
      headers: [['content-type', 'application/json']],
      body: big,
    });
    expect(refused.status).toBe(413);
    expect(refused.json.errorMessage).toMatch(
      /limit of 1024 bytes for a request without a valid x-application-id and x-application-secret \(65536 bytes with them\)/,
    );
    const wrongSecret = await send(service.baseUrl, {
      method: 'POST',
      path: '/sandbox/payments',
      headers: [
        ['content-type', 'application/json'],
        ['x-application-id', service.credentials.applicationId],
        ['x-application-secret', 'wrong'],
      ],
      body: big,
    });
    expect(wrongSecret.status).toBe(413);
    const authenticated = await send(service.baseUrl, {
      method: 'POST',
      path: '/sandbox/payments',
      headers: [...appHeaders(service), ['content-type', 'application/json']],
      body: big,
    });
    expect(authenticated.status).toBe(201);
    // A signed payout of ordinary size is not affected; a small unauthenticated body neither.
    expect(
      (await send(service.baseUrl, signed(service, '/api/payouts', payoutBody(service)))).status,
    ).toBe(201);
    expect(
      (
        await send(service.baseUrl, {
          method: 'POST',
          path: '/sandbox/payments',
          body: '{"amount":"1.00"}',
        })
      ).status,
    ).toBe(201);
  });

  it('a chunked body (no Content-Length) without credentials is cut at the lower cap', async () => {
    const { service } = await start({ maxUnauthenticatedBodyBytes: 1024 });
    const chunk = 'x'.repeat(2048);
    const answer = await exchange(
      service,
      `POST /sandbox/payments HTTP/1.1\r\nHost: ${service.host}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n${chunk.length.toString(16)}\r\n${chunk}\r\n0\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
  });

  it('sandbox payments, payouts and refunds are capped, each with a 507 naming the limit', async () => {
    const { service } = await start({ stateLimits: { payments: 12, payouts: 1, refunds: 1 } });
    // Seeded payments count; creations go on until the cap.
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++)
      statuses.push(
        (
          await send(service.baseUrl, {
            method: 'POST',
            path: '/sandbox/payments',
            body: '{"amount":"1.00"}',
          })
        ).status,
      );
    expect(statuses.filter((s) => s === 201).length).toBeGreaterThan(0);
    const full = await send(service.baseUrl, {
      method: 'POST',
      path: '/sandbox/payments',
      body: '{"amount":"1.00"}',
    });
    expect(full.status).toBe(507);
    expect(validatePayload('error', full.json, { strict: true })).toEqual({ valid: true });
    expect(full.json).toMatchObject({ statusName: 'INSUFFICIENT_STORAGE', source: 'SERVICE' });
    expect(full.json.errorMessage).toContain('maximum of 12 payments');
    expect(full.headers['x-payconform-error-code']).toBe('state_full');

    expect(
      (await send(service.baseUrl, signed(service, '/api/payouts', payoutBody(service)))).status,
    ).toBe(201);
    const payoutFull = await send(
      service.baseUrl,
      signed(service, '/api/payouts', payoutBody(service)),
    );
    expect(payoutFull.status).toBe(507);
    expect(payoutFull.json.errorMessage).toContain('maximum of 1 payouts');

    const settled = service.seededPayments.settled;
    const refundPath = `/api/merchants/${service.credentials.merchantId}/applications/${service.credentials.applicationId}/refunds`;
    const refund = (paymentId: string) =>
      send(service.baseUrl, {
        method: 'POST',
        path: refundPath,
        headers: appHeaders(service, REFUND_TYPE),
        body: JSON.stringify({ paymentId, amount: '1.00' }),
      });
    expect((await refund(settled[0]!.paymentId)).status).toBe(201);
    const refundFull = await refund(settled[1]!.paymentId);
    expect(refundFull.status).toBe(507);
    expect(refundFull.json.errorMessage).toContain('maximum of 1 refunds');
  });
});
