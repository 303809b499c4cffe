// Discovery from a target's /sandbox/ helper endpoints, against a small loopback stand-in: what the config leaves out
// is filled in (CoP destinations, the application's pay-in account and merchant id, untouched settled and unsettled
// payments), what it states wins, and a target without /sandbox/ leaves it as it was.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig, type ConformanceConfig } from '../conformance/config/config.js';
import { discoverFromSandbox } from '../conformance/config/discover.js';

const APP = '6f1c1d2e-3b4a-4c5d-8e9f-0a1b2c3d4e5f';

/** The stand-in's answers by path (without query); a path not listed answers 404. */
const answers: Record<string, unknown> = {
  '/sandbox/cop-triggers': {
    triggers: [
      { holderName: 'No Match', copStatus: 'NO_MATCH' },
      { holderName: 'Partial Match', copStatus: 'PARTIAL_MATCH' },
      { holderName: 'Unknown', copStatus: 'NOT_A_STATUS' },
      { holderName: 'Null Status', copStatus: null },
      { copStatus: 'NO_MATCH' },
      'junk',
    ],
    default: 'FULL_MATCH',
  },
  '/sandbox/applications': [
    { applicationId: 'someone-else', payInAccountSelector: 'VA-OTHER', merchantId: 'm-other' },
    { applicationId: APP, payInAccountSelector: 'VA-0001', merchantId: 'm-1' },
  ],
  '/sandbox/payments': [
    { paymentId: 'p-settled', status: 'SETTLED', amount: 10.5 },
    { paymentId: 'p-refunded', status: 'SETTLED', amount: '5.00', refunds: [{ id: 'r' }] },
    { paymentId: 'p-bad-amount', status: 'SETTLED', amount: '1e3' },
    { paymentId: 'p-pending', status: 'PENDING', amount: 1 },
    { paymentId: 7, status: 'PENDING' },
  ],
};

let base = '';
const requested: string[] = [];
let server: http.Server;
beforeAll(async () => {
  server = http.createServer((req, res) => {
    requested.push(req.url ?? '');
    const body = answers[(req.url ?? '').split('?')[0]!];
    res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json' });
    res.end(body === undefined ? '{}' : JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function config(document: Record<string, unknown>): ConformanceConfig {
  const result = resolveConfig(document, {});
  if (!result.ok) throw new Error(result.message);
  return result.config;
}

describe("discovery from payconform's /sandbox/", () => {
  it('fills what the config leaves out, in the order it reports it', async () => {
    requested.length = 0;
    const d = await discoverFromSandbox(`${base}/`, config({ applicationId: APP }), {
      timeoutMs: 2_000,
    });
    expect(d.sandbox).toBe(true);
    expect(d.found).toEqual([
      'copDestinations NO_MATCH, PARTIAL_MATCH, null, FULL_MATCH',
      'payInAccountSelector "VA-0001"',
      'merchantId m-1',
      '1 settled payment(s)',
      '1 unsettled payment(s)',
      '"sandbox": true',
    ]);
    expect(d.config.copDestinations.NO_MATCH?.holderName).toBe('No Match');
    expect(d.config.copDestinations.FULL_MATCH?.holderName).toBe('Jane Payee');
    expect(d.config.payments).toEqual({
      settled: [{ paymentId: 'p-settled', amount: '10.5' }],
      unsettled: [{ paymentId: 'p-pending', status: 'PENDING' }],
    });
    expect(d.config).toMatchObject({ payInAccountSelector: 'VA-0001', merchantId: 'm-1' });
    expect(requested).toEqual([
      '/sandbox/cop-triggers',
      '/sandbox/applications',
      `/sandbox/payments?applicationId=${APP}`,
    ]);
  });

  it('keeps what the config states and asks only for what is missing', async () => {
    requested.length = 0;
    const stated = config({
      applicationId: APP,
      payInAccountSelector: 'VA-MINE',
      merchantId: 'm-mine',
      sandbox: true,
      copDestinations: {
        NO_MATCH: {
          destinationType: 'toAccount',
          accountType: 'SCAN',
          holderName: 'Mine',
          accountNumber: '87654321',
          sortCode: '040004',
          iban: null,
        },
      },
      payments: { settled: [{ paymentId: 'mine', amount: '1.00' }] },
    });
    const d = await discoverFromSandbox(base, stated, { timeoutMs: 2_000 });
    expect(d.found).toEqual([
      'copDestinations PARTIAL_MATCH, null, FULL_MATCH',
      '1 unsettled payment(s)',
    ]);
    expect(d.config.copDestinations.NO_MATCH?.holderName).toBe('Mine');
    expect(d.config.payments.settled).toEqual([{ paymentId: 'mine', amount: '1.00' }]);
    expect(d.config).toMatchObject({ payInAccountSelector: 'VA-MINE', merchantId: 'm-mine' });
    expect(requested).toEqual(['/sandbox/cop-triggers', `/sandbox/payments?applicationId=${APP}`]);
  });

  it('"sandbox": false asks nothing; a target without /sandbox/ leaves the config as it was', async () => {
    requested.length = 0;
    const off = config({ sandbox: false });
    expect(await discoverFromSandbox(base, off, { timeoutMs: 2_000 })).toEqual({
      config: off,
      found: [],
      sandbox: false,
    });
    expect(requested).toEqual([]);
    const plain = config({});
    const d = await discoverFromSandbox(`${base}/elsewhere`, plain, { timeoutMs: 2_000 });
    expect(d).toEqual({ config: plain, found: [], sandbox: false });
  });
});
