// The reference service over real HTTP on loopback: each endpoint, each CoP path, each refund rule, errors, bad input, concurrency.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validatePayload } from '../src/schemas/index.js';
import type { RunningReferenceService } from '../server/index.js';
import { CANCEL_REASON } from '../server/routes/payouts.js';
import { FaultSet } from '../server/faults.js';
import { newTracingId } from '../server/representations.js';
import {
  appHeaders,
  PAYOUT_TYPE,
  payoutBody,
  REFUND_TYPE,
  send,
  signed,
  startTestService,
  testApplication,
} from './reference-service-client.js';

let service: RunningReferenceService;
beforeAll(async () => {
  service = await startTestService({ maxBodyBytes: 64 * 1024 });
});
afterAll(() => service.close());

const refundPath = () =>
  `/api/merchants/${service.credentials.merchantId}/applications/${service.credentials.applicationId}/refunds`;
const refund = (body: unknown, headers = appHeaders(service, REFUND_TYPE)) =>
  send(service.baseUrl, {
    method: 'POST',
    path: refundPath(),
    headers,
    body: JSON.stringify(body),
  });
const createPayout = (overrides: Record<string, unknown> = {}) =>
  send(service.baseUrl, signed(service, '/api/payouts', payoutBody(service, overrides)));

function expectErrorBody(
  res: { status: number; json: unknown; headers: Record<string, unknown> },
  status: number,
  statusName: string,
): void {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toBe('application/json');
  expect(validatePayload('error', res.json, { strict: true })).toEqual({ valid: true });
  expect(res.json).toMatchObject({
    statusCode: status,
    statusName,
    source: status >= 500 ? 'SERVICE' : 'MERCHANT',
  });
}

describe('Endpoint 1: create payout (signed)', () => {
  it('accepts a request signed by the spec and answers 201 with a schema-valid payout resource', async () => {
    const res = await createPayout();
    expect(res.status).toBe(201);
    expect(res.headers['content-type']).toBe(PAYOUT_TYPE);
    expect(validatePayload('payout', res.json, { strict: true })).toEqual({ valid: true });
    expect(res.json).toMatchObject({
      status: 'IN_PROGRESS',
      copStatus: 'FULL_MATCH',
      statusReason: null,
      currency: 'GBP',
      reference: 'INV-1',
    });
    expect(res.json.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z$/);
    expect(res.text).toContain('"amount":10.50');
  });

  it('tracing ids: 32 lowercase hex digits (alt: 16 uppercase), never repeated across refills of the random pool', () => {
    for (const [faults, pattern] of [
      [new FaultSet(), /^[0-9a-f]{32}$/],
      [new FaultSet([], 'alt'), /^[0-9A-F]{16}$/],
    ] as const) {
      const ids = Array.from({ length: 1000 }, () => newTracingId(faults));
      for (const id of ids) expect(id).toMatch(pattern);
      expect(new Set(ids).size).toBe(ids.length);
    }
  });

  it('gives a different hexadecimal tracingId on every response', async () => {
    const a = await createPayout();
    const b = await createPayout();
    expect(a.json.tracingId).toMatch(/^[0-9a-f]+$/);
    expect(a.json.tracingId).not.toBe(b.json.tracingId);
  });

  it('rejects an unsigned request with 401 and the verifier code', async () => {
    const res = await send(service.baseUrl, {
      method: 'POST',
      path: '/api/payouts',
      headers: appHeaders(service, PAYOUT_TYPE),
      body: JSON.stringify(payoutBody(service)),
    });
    expectErrorBody(res, 401, 'UNAUTHORIZED');
    expect(res.headers['x-payconform-error-code']).toBe('SIGNATURE_MISSING');
  });

  it('rejects a replayed nonce, a stale created, a changed body and a wrong secret', async () => {
    const req = signed(service, '/api/payouts', payoutBody(service));
    expect((await send(service.baseUrl, req)).status).toBe(201);
    const replay = await send(service.baseUrl, req);
    expectErrorBody(replay, 401, 'UNAUTHORIZED');
    expect(replay.headers['x-payconform-error-code']).toBe('NONCE_REPLAYED');

    const stale = await send(
      service.baseUrl,
      signed(service, '/api/payouts', payoutBody(service), {
        created: Math.floor(Date.now() / 1000) - 301,
      }),
    );
    expect(stale.headers['x-payconform-error-code']).toBe('CREATED_EXPIRED');

    const changed = signed(service, '/api/payouts', payoutBody(service));
    const tampered = await send(service.baseUrl, {
      ...changed,
      body: new TextEncoder().encode(JSON.stringify(payoutBody(service, { amount: 99.5 }))),
    });
    expect(tampered.status).toBe(401);
    expect(tampered.headers['x-payconform-error-code']).toBe('DIGEST_MISMATCH');

    const wrong = await send(
      service.baseUrl,
      signed(service, '/api/payouts', payoutBody(service), { secret: 'not-the-secret' }),
    );
    expect(wrong.headers['x-payconform-error-code']).toBe('APPLICATION_SECRET_INVALID');
  });

  it('validates the body after the signature: 415, 400 malformed JSON, 400 schema, 403 other application, 422 account', async () => {
    const wrongType = await send(
      service.baseUrl,
      signed(service, '/api/payouts', payoutBody(service), { contentType: 'text/plain' }),
    );
    expectErrorBody(wrongType, 415, 'UNSUPPORTED_MEDIA_TYPE');
    const malformed = await send(service.baseUrl, signed(service, '/api/payouts', '{"amount": 1,'));
    expectErrorBody(malformed, 400, 'BAD_REQUEST');
    expect(malformed.headers['x-payconform-error-code']).toBe('malformed_json');
    const invalid = await createPayout({ amount: -5 });
    expectErrorBody(invalid, 400, 'BAD_REQUEST');
    expect(invalid.json.errorMessage).toContain('/amount');
    const other = await createPayout({ applicationId: '00000000-0000-4000-8000-000000000000' });
    expectErrorBody(other, 403, 'FORBIDDEN');
    const account = await createPayout({ payInAccountSelector: 'nope' });
    expectErrorBody(account, 422, 'UNPROCESSABLE_ENTITY');
  });

  it('keeps amounts as decimals (0.10 + 0.20 style values are not floated)', async () => {
    const res = await createPayout({ amount: 0.3 });
    expect(res.status).toBe(201);
    expect(res.text).toContain('"amount":0.30');
  });
});

describe('Confirmation of Payee: triggers and holds', () => {
  const held = ['PARTIAL_MATCH', 'NO_MATCH', 'UNABLE_TO_MATCH', 'UNKNOWN'] as const;
  const auto = ['FULL_MATCH', 'NOT_CHECKED', 'null'] as const;

  it.each([...held, ...auto])(
    'destination for %s gives that copStatus and IN_PROGRESS without the flag',
    async (key) => {
      const res = await createPayout({ destination: service.copDestinations[key] });
      expect(res.status).toBe(201);
      expect(res.json.copStatus).toBe(key === 'null' ? null : key);
      expect(res.json.status).toBe('IN_PROGRESS');
    },
  );

  it.each(held)('%s with doNotCommitOnCoPMismatch true is held in AWAITING_COMMIT', async (key) => {
    const res = await createPayout({
      destination: service.copDestinations[key],
      doNotCommitOnCoPMismatch: true,
    });
    expect(res.json).toMatchObject({ status: 'AWAITING_COMMIT', copStatus: key });
  });

  it.each(auto)('%s with doNotCommitOnCoPMismatch true is executed (IN_PROGRESS)', async (key) => {
    const res = await createPayout({
      destination: service.copDestinations[key],
      doNotCommitOnCoPMismatch: true,
    });
    expect(res.json.status).toBe('IN_PROGRESS');
  });

  it('matches trigger names case-insensitively and ignores extra spaces', async () => {
    const res = await createPayout({
      destination: { ...service.copDestinations.NO_MATCH, holderName: '  cop   NO match ' },
    });
    expect(res.json.copStatus).toBe('NO_MATCH');
  });

  it('gives copStatus null for every payout of an application with CoP switched off', async () => {
    const off = await startTestService({
      applications: [{ ...testApplication(), cop: false }],
    });
    try {
      const res = await send(
        off.baseUrl,
        signed(
          off,
          '/api/payouts',
          payoutBody(off, {
            destination: off.copDestinations.NO_MATCH,
            doNotCommitOnCoPMismatch: true,
          }),
        ),
      );
      expect(res.json).toMatchObject({ copStatus: null, status: 'IN_PROGRESS' });
    } finally {
      await off.close();
    }
  });
});

describe('Endpoints 2 and 3: commit and cancel', () => {
  const heldPayout = async () =>
    (
      await createPayout({
        destination: service.copDestinations.PARTIAL_MATCH,
        doNotCommitOnCoPMismatch: true,
      })
    ).json.payoutId as string;
  const post = (path: string, headers = appHeaders(service, PAYOUT_TYPE)) =>
    send(service.baseUrl, { method: 'POST', path, headers: [...headers, ['accept', PAYOUT_TYPE]] });

  it('commit gives IN_PROGRESS with copStatus unchanged', async () => {
    const id = await heldPayout();
    const res = await post(`/api/payouts/${id}/commit`);
    expect(res.status).toBe(200);
    expect(validatePayload('payout', res.json, { strict: true })).toEqual({ valid: true });
    expect(res.json).toMatchObject({
      payoutId: id,
      status: 'IN_PROGRESS',
      copStatus: 'PARTIAL_MATCH',
    });
  });

  it('cancel gives CANCELLED with a statusReason about the released amount', async () => {
    const id = await heldPayout();
    const res = await post(`/api/payouts/${id}/cancel`);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      status: 'CANCELLED',
      statusReason: CANCEL_REASON,
      copStatus: 'PARTIAL_MATCH',
    });
  });

  it('commit or cancel from another state is 409 CONFLICT naming the status', async () => {
    const id = await heldPayout();
    await post(`/api/payouts/${id}/cancel`);
    const again = await post(`/api/payouts/${id}/commit`);
    expectErrorBody(again, 409, 'CONFLICT');
    expect(again.json.errorMessage).toContain('CANCELLED');
  });

  it('unknown or malformed payout ids are 404; missing or wrong credentials 401', async () => {
    expectErrorBody(
      await post('/api/payouts/00000000-0000-4000-8000-000000000000/commit'),
      404,
      'NOT_FOUND',
    );
    expectErrorBody(await post('/api/payouts/not-a-uuid/commit'), 404, 'NOT_FOUND');
    const id = await heldPayout();
    expectErrorBody(await post(`/api/payouts/${id}/commit`, []), 401, 'UNAUTHORIZED');
    const wrong = await post(`/api/payouts/${id}/commit`, [
      ['x-application-id', service.credentials.applicationId],
      ['x-application-secret', 'wrong'],
    ]);
    expectErrorBody(wrong, 401, 'UNAUTHORIZED');
    expect(wrong.headers['x-payconform-error-code']).toBe('invalid_application_secret');
  });

  it('verifies a signature when one is sent on commit (a bad one is 401)', async () => {
    const id = await heldPayout();
    const good = signed(service, `/api/payouts/${id}/commit`, undefined);
    expect((await send(service.baseUrl, good)).status).toBe(200);
    const id2 = await heldPayout();
    const bad = signed(service, `/api/payouts/${id2}/commit`, undefined, { keyId: 'unknown-key' });
    const res = await send(service.baseUrl, bad);
    expect(res.status).toBe(401);
    expect(res.headers['x-payconform-error-code']).toBe('KEY_UNKNOWN');
  });
});

describe('requireSignatureOnCommitCancelRefund', () => {
  it('rejects unsigned commit and refund with 401 and accepts signed ones', async () => {
    const strict = await startTestService({ requireSignatureOnCommitCancelRefund: true });
    try {
      const held = await send(
        strict.baseUrl,
        signed(
          strict,
          '/api/payouts',
          payoutBody(strict, {
            destination: strict.copDestinations.UNKNOWN,
            doNotCommitOnCoPMismatch: true,
          }),
        ),
      );
      const path = `/api/payouts/${held.json.payoutId}/commit`;
      const unsigned = await send(strict.baseUrl, {
        method: 'POST',
        path,
        headers: appHeaders(strict),
      });
      expect(unsigned.status).toBe(401);
      expect(unsigned.headers['x-payconform-error-code']).toBe('SIGNATURE_MISSING');
      expect((await send(strict.baseUrl, signed(strict, path, undefined))).json.status).toBe(
        'IN_PROGRESS',
      );
      const refundPath = `/api/merchants/${strict.credentials.merchantId}/applications/${strict.credentials.applicationId}/refunds`;
      const body = { paymentId: strict.seededPayments.settled[0]!.paymentId, amount: '1.00' };
      expect(
        (
          await send(strict.baseUrl, {
            method: 'POST',
            path: refundPath,
            headers: appHeaders(strict, REFUND_TYPE),
            body: JSON.stringify(body),
          })
        ).status,
      ).toBe(401);
      expect(
        (await send(strict.baseUrl, signed(strict, refundPath, body, { contentType: REFUND_TYPE })))
          .status,
      ).toBe(201);
    } finally {
      await strict.close();
    }
  });
});

describe('Endpoint 4: refunds and their limits', () => {
  const settled = (i: number) => service.seededPayments.settled[i]!;

  it('a partial refund of a SETTLED payment is 201 with a schema-valid refund to the payer', async () => {
    const res = await refund({ paymentId: settled(0).paymentId, amount: '10.00' });
    expect(res.status).toBe(201);
    expect(res.headers['content-type']).toBe(REFUND_TYPE);
    expect(validatePayload('refund', res.json, { strict: true })).toEqual({ valid: true });
    expect(res.json.status).toBe('IN_PROGRESS');
    expect(res.json.createdAtUtc).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+$/);
    expect(res.json.refundRequestDetails.destination.name).toBe('Seed Payer 1');
  });

  it.each([0, 1, 2])(
    'an unsettled payment is 422 UNPROCESSABLE_ENTITY naming its status (%i)',
    async (i) => {
      const { paymentId, status } = service.seededPayments.unsettled[i]!;
      const res = await refund({ paymentId, amount: '1.00' });
      expectErrorBody(res, 422, 'UNPROCESSABLE_ENTITY');
      expect(res.json.errorMessage).toContain(status);
    },
  );

  it('a second refund while one is active is 409; after it finishes the next one is accepted', async () => {
    const first = await refund({ paymentId: settled(1).paymentId, amount: '50.00' });
    expect(first.status).toBe(201);
    const second = await refund({ paymentId: settled(1).paymentId, amount: '1.00' });
    expectErrorBody(second, 409, 'CONFLICT');
    const done = await send(service.baseUrl, {
      method: 'POST',
      path: `/sandbox/refunds/${first.json.refundPaymentId}/advance`,
      headers: [['content-type', 'application/json']],
      body: '{"status":"PROCESSED"}',
    });
    expect(done.json.status).toBe('PROCESSED');
    expect((await refund({ paymentId: settled(1).paymentId, amount: '1.00' })).status).toBe(201);
  });

  it('more than the remaining amount is 422; exactly the remainder is accepted', async () => {
    const { paymentId, amount } = settled(2); // 75.25
    const over = await refund({ paymentId, amount: '75.26' });
    expectErrorBody(over, 422, 'UNPROCESSABLE_ENTITY');
    expect(over.headers['x-payconform-error-code']).toBe('REFUND_EXCEEDS_PAYMENT');
    expect((await refund({ paymentId, amount })).status).toBe(201);
  });

  it('concurrent refunds of one payment: exactly one accepted', async () => {
    const all = await Promise.all(
      Array.from({ length: 8 }, () => refund({ paymentId: settled(3).paymentId, amount: '1.00' })),
    );
    expect(all.filter((r) => r.status === 201)).toHaveLength(1);
  });

  it('path of another merchant is 403; unknown payment 404; number amount 400; zero 400', async () => {
    const res = await send(service.baseUrl, {
      method: 'POST',
      path: `/api/merchants/other/applications/${service.credentials.applicationId}/refunds`,
      headers: appHeaders(service, REFUND_TYPE),
      body: JSON.stringify({ paymentId: settled(4).paymentId, amount: '1.00' }),
    });
    expectErrorBody(res, 403, 'FORBIDDEN');
    expectErrorBody(
      await refund({ paymentId: '00000000-0000-4000-8000-000000000000', amount: '1.00' }),
      404,
      'NOT_FOUND',
    );
    expectErrorBody(
      await refund({ paymentId: settled(4).paymentId, amount: 1 }),
      400,
      'BAD_REQUEST',
    );
    expectErrorBody(
      await refund({ paymentId: settled(4).paymentId, amount: '0.00' }),
      400,
      'BAD_REQUEST',
    );
  });
});

describe('Endpoint 5: public key', () => {
  it('serves the PEM body without BEGIN/END lines', async () => {
    const res = await send(service.baseUrl, { method: 'GET', path: '/.well-known/signature/pem' });
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('-----');
    expect(res.text).toBe(service.webhookPublicKeyTrimmedPem);
  });
});

describe('Sandbox: payments', () => {
  it('creates a payment, moves it to SETTLED, and it can then be refunded', async () => {
    const created = await send(service.baseUrl, {
      method: 'POST',
      path: '/sandbox/payments',
      headers: [['content-type', 'application/json']],
      body: '{"amount":"12.34"}',
    });
    expect(created.status).toBe(201);
    expect(created.json.status).toBe('AWAITING_AUTHORIZATION');
    const id = created.json.paymentId as string;
    expectErrorBody(await refund({ paymentId: id, amount: '1.00' }), 422, 'UNPROCESSABLE_ENTITY');
    const moved = await send(service.baseUrl, {
      method: 'POST',
      path: `/sandbox/payments/${id}/status`,
      body: '{"status":"SETTLED"}',
    });
    expect(moved.json.status).toBe('SETTLED');
    expect((await refund({ paymentId: id, amount: '12.34' })).status).toBe(201);
    const listed = await send(service.baseUrl, { method: 'GET', path: '/sandbox/payments' });
    expect(listed.json.some((p: { paymentId: string }) => p.paymentId === id)).toBe(true);
  });

  it('ignores the reference passed and assigns its own, unique across every application (spec: What the service does 7)', async () => {
    const make = () =>
      send(service.baseUrl, {
        method: 'POST',
        path: '/sandbox/payments',
        body: '{"amount":"5.00","reference":"MY-OWN-REF"}',
      });
    const [a, b] = [await make(), await make()];
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.json.reference).not.toBe('MY-OWN-REF');
    expect(b.json.reference).not.toBe('MY-OWN-REF');
    expect(a.json.reference).not.toBe(b.json.reference);
    const all = (await send(service.baseUrl, { method: 'GET', path: '/sandbox/payments' }))
      .json as Array<{ reference: string }>;
    expect(new Set(all.map((p) => p.reference)).size).toBe(all.length);
  });

  it('reports the payer as paymentRefundData, and a refund goes to that account', async () => {
    const payer = { name: 'Ada Payer', accountNumber: '11223344', sortCode: '102030' };
    const created = await send(service.baseUrl, {
      method: 'POST',
      path: '/sandbox/payments',
      body: JSON.stringify({ amount: '8.00', status: 'SETTLED', payer }),
    });
    expect(created.json.paymentRefundData).toEqual({
      accountHolderName: 'Ada Payer',
      accountIdentifications: [
        { type: 'ACCOUNT_NUMBER', number: '11223344' },
        { type: 'SORT_CODE', number: '102030' },
      ],
    });
    const res = await refund({ paymentId: created.json.paymentId, amount: '1.00' });
    expect(res.json.refundRequestDetails.destination).toEqual({
      type: 'SCAN',
      name: 'Ada Payer',
      accountNumber: '11223344',
      sortCode: '102030',
      iban: null,
    });
  });

  it('refuses impossible payment moves with 409', async () => {
    const { paymentId } = service.seededPayments.unsettled.find((p) => p.status === 'FAILED')!;
    expectErrorBody(
      await send(service.baseUrl, {
        method: 'POST',
        path: `/sandbox/payments/${paymentId}/status`,
        body: '{"status":"SETTLED"}',
      }),
      409,
      'CONFLICT',
    );
  });
});

describe('Errors and hostile input', () => {
  it('unknown route 404, wrong method 405 with Allow', async () => {
    expectErrorBody(
      await send(service.baseUrl, { method: 'GET', path: '/nope' }),
      404,
      'NOT_FOUND',
    );
    const res = await send(service.baseUrl, { method: 'GET', path: '/api/payouts' });
    expectErrorBody(res, 405, 'METHOD_NOT_ALLOWED');
    expect(res.headers.allow).toBe('POST');
  });

  it('a body over the cap is 413 with the error body', async () => {
    const res = await send(service.baseUrl, {
      method: 'POST',
      path: '/api/payouts',
      headers: [['content-type', PAYOUT_TYPE]],
      body: 'x'.repeat(70 * 1024),
    });
    expectErrorBody(res, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('garbage headers, bad UTF-8 and odd paths each get an error response, never a crash', async () => {
    const cases = [
      {
        method: 'POST',
        path: '/api/payouts',
        headers: [
          ['signature-input', 'sig1=(((('],
          ['signature', ':::'],
          ['content-digest', '\u00ff'],
        ] as Array<[string, string]>,
        body: '{}',
      },
      { method: 'POST', path: '/api/payouts/%E0%A4%A/commit', headers: appHeaders(service) },
      {
        method: 'POST',
        path: refundPath(),
        headers: appHeaders(service, REFUND_TYPE),
        body: new Uint8Array([0xff, 0xfe, 0x7b]),
      },
      {
        method: 'POST',
        path: refundPath(),
        headers: [
          ...appHeaders(service),
          ['content-type', REFUND_TYPE],
          ['content-type', 'text/plain'],
        ] as Array<[string, string]>,
        body: '{}',
      },
      {
        method: 'POST',
        path: '/api/payouts',
        headers: [
          ['x-application-id', 'a'],
          ['x-application-id', 'b'],
        ] as Array<[string, string]>,
        body: '[]',
      },
      { method: 'POST', path: '/sandbox/payments', body: 'null' },
    ];
    for (const c of cases) {
      const res = await send(service.baseUrl, c);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(validatePayload('error', res.json, { strict: true })).toEqual({ valid: true });
    }
    expect(
      (await send(service.baseUrl, { method: 'GET', path: '/.well-known/signature/pem' })).status,
    ).toBe(200);
  });
});

describe('Raw HTTP garbage', () => {
  /** Writes raw bytes on a socket; resolves with what came back before close (3 s max). */
  function raw(bytes: string): Promise<string> {
    const { hostname, port } = new URL(service.baseUrl);
    return new Promise((resolve) => {
      const socket = net.connect(Number(port), hostname);
      let text = '';
      const timer = setTimeout(() => socket.destroy(), 3000);
      socket.on('data', (d) => (text += d.toString()));
      socket.on('close', () => {
        clearTimeout(timer);
        resolve(text);
      });
      socket.on('error', () => {});
      socket.end(bytes);
    });
  }

  it('a malformed request line gets 400 with the error body; huge headers get 431', async () => {
    const bad = await raw('GARBAGE\r\n\r\n');
    expect(bad).toMatch(/^HTTP\/1\.1 400/);
    expect(bad).toContain('"statusName":"BAD_REQUEST"');
    const huge = await raw(`GET / HTTP/1.1\r\nHost: x\r\nx-big: ${'a'.repeat(100_000)}\r\n\r\n`);
    expect(huge).toMatch(/^HTTP\/1\.1 431/);
    expect(
      (await send(service.baseUrl, { method: 'GET', path: '/.well-known/signature/pem' })).status,
    ).toBe(200);
  });
});

describe('Concurrency: N identical signed requests', () => {
  it('exactly one of 20 concurrent copies is accepted', async () => {
    const req = signed(service, '/api/payouts', payoutBody(service, { reference: 'CONCURRENT' }));
    const all = await Promise.all(Array.from({ length: 20 }, () => send(service.baseUrl, req)));
    expect(all.filter((r) => r.status === 201)).toHaveLength(1);
    expect(all.filter((r) => r.status === 401)).toHaveLength(19);
  });
});
