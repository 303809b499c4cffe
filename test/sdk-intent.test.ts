// The SDK explorer's judges of what an SDK did against what its caller asked (conformance/sdk-explore/intent.ts) and
// of what it handed its caller (judge.ts): a request that changes the amount, the destination, the reference, the
// endpoint or the payment fails the request's requirement; the choices the spec leaves an SDK (member order,
// whitespace, how a decimal is written, `false` for the default, percent-encoding, a read of the public key) pass;
// a member the spec does not define, lost on the way to the caller, is recorded, never failed. Pure: no server.
import { describe, expect, it } from 'vitest';
import type { ClientExchange } from '../conformance/checks/client/context.js';
import { judgeIntent, type Application } from '../conformance/sdk-explore/intent.js';
import { failsSdk, judgeAnswer, levelOf } from '../conformance/sdk-explore/judge.js';
import { specDefines, specMembersOf } from '../conformance/sdk-explore/spec-properties.js';

const app: Application = {
  applicationId: '3f6d2a0e-5b1c-4c7e-9a8b-0d1e2f3a4b5c',
  merchantId: 'a1b2c3d4-0000-4000-8000-000000000001',
  keyId: 'k1',
  payInAccountSelector: 'acc-1',
};
const destination = {
  destinationType: 'toAccount',
  accountType: 'SCAN',
  holderName: 'Ada Lovelace',
  accountNumber: '12345678',
  sortCode: '112233',
  iban: null,
};
const payoutInput = { amount: 10.5, reference: 'INV-1', destination };
const payoutId = '7d0c5f3e-1a2b-4c3d-8e9f-0a1b2c3d4e5f';
const paymentId = 'c0ffee00-1111-4222-8333-444455556666';
const refundPath = `/api/merchants/${app.merchantId}/applications/${app.applicationId}/refunds`;

const exchange = (method: string, path: string, body = '', index = 1): ClientExchange => ({
  examined: {
    index,
    receivedAt: 0,
    request: {
      method,
      url: `http://127.0.0.1:9/${path.replace(/^\//, '')}`,
      headers: [],
      body: new TextEncoder().encode(body),
    },
    outcomes: [],
  },
});

const payoutBody = (over: Record<string, unknown> = {}): string =>
  JSON.stringify({
    applicationId: app.applicationId,
    payInAccountSelector: app.payInAccountSelector,
    amount: 10.5,
    reference: 'INV-1',
    destination,
    ...over,
  });

const failures = (op: Parameters<typeof judgeIntent>[0], input: object, ex: ClientExchange[]) =>
  judgeIntent(op, input as Record<string, unknown>, app, ex).map((j) => [
    j.requirement,
    j.expected,
    j.received,
  ]);

describe('conformance/sdk-explore/intent.ts: what the SDK sent against what its caller asked', () => {
  it('a payout sent as asked passes, whatever choices the spec leaves the SDK', () => {
    const reordered = `{ "reference": "INV-1", "destination": ${JSON.stringify({ ...destination, holderName: 'Ada Lovelace' }, null, 2)},\n "amount": "10.50", "payInAccountSelector": "acc-1", "applicationId": "${app.applicationId}", "doNotCommitOnCoPMismatch": false }`;
    for (const body of [payoutBody(), payoutBody({ amount: 10.5 }), reordered])
      expect(
        failures('createPayout', payoutInput, [exchange('POST', '/api/payouts', body)]),
      ).toEqual([]);
    // A read of the service's public key changes nothing the caller asked.
    expect(
      failures('createPayout', payoutInput, [
        exchange('GET', '/.well-known/signature/pem'),
        exchange('POST', '/api/payouts', payoutBody(), 2),
      ]),
    ).toEqual([]);
  });

  it('another amount, destination, reference, account or hold decision fails PAYOUT-REQUEST-BODY, naming asked and sent', () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ amount: 105 }, 'amount'],
      [{ amount: '10.51' }, 'amount'],
      [{ amount: 10.500000000000002 }, 'amount'],
      [{ reference: 'INV-1 ' }, 'reference'],
      [{ destination: { ...destination, accountNumber: '99999999' } }, 'destination.accountNumber'],
      [{ destination: { ...destination, iban: 'GB00X' } }, 'destination.iban'],
      [{ destination: { ...destination, holderName: undefined } }, 'destination.holderName'],
      [{ payInAccountSelector: 'acc-2' }, 'payInAccountSelector'],
      [{ applicationId: '00000000-0000-4000-8000-000000000000' }, 'applicationId'],
      [{ doNotCommitOnCoPMismatch: true }, 'doNotCommitOnCoPMismatch'],
    ];
    for (const [over, field] of cases) {
      const found = failures('createPayout', payoutInput, [
        exchange('POST', '/api/payouts', payoutBody(over)),
      ]);
      expect(found, field).toHaveLength(1);
      expect(found[0]![0]).toBe('PAYOUT-REQUEST-BODY');
      expect(found[0]![1]).toMatch(new RegExp(`^${field.replace('.', '\\.')} `));
    }
    // A hold the caller asked for must be sent as asked.
    expect(
      failures('createPayout', { ...payoutInput, doNotCommitOnCoPMismatch: true }, [
        exchange('POST', '/api/payouts', payoutBody({ doNotCommitOnCoPMismatch: false })),
      ]),
    ).toEqual([
      ['PAYOUT-REQUEST-BODY', 'doNotCommitOnCoPMismatch true', 'doNotCommitOnCoPMismatch false'],
    ]);
  });

  it('commit for cancel, another payout, or another endpoint fails the operation request requirement', () => {
    const input = { payoutId };
    expect(
      failures('cancelPayout', input, [exchange('POST', `/api/payouts/${payoutId}/cancel`)]),
    ).toEqual([]);
    // Percent-encoding is the SDK's choice: parameters compare decoded.
    expect(
      failures('commitPayout', input, [
        exchange('POST', `/api/payouts/${payoutId.replace('-', '%2D')}/commit`),
      ]),
    ).toEqual([]);
    expect(
      failures('cancelPayout', input, [exchange('POST', `/api/payouts/${payoutId}/commit`)]),
    ).toEqual([
      [
        'COP-CANCEL-REQUEST',
        `POST /api/payouts/${payoutId}/cancel`,
        `POST /api/payouts/${payoutId}/commit`,
      ],
    ]);
    const other = '7d0c5f3e-1a2b-4c3d-8e9f-000000000000';
    expect(
      failures('commitPayout', input, [exchange('POST', `/api/payouts/${other}/commit`)])[0]?.[0],
    ).toBe('COP-COMMIT-REQUEST');
    expect(
      failures('commitPayout', input, [exchange('PUT', `/api/payouts/${payoutId}/commit`)])[0]?.[0],
    ).toBe('COP-COMMIT-REQUEST');
    expect(
      failures('createPayout', payoutInput, [
        exchange('POST', '/api/payout', payoutBody()),
      ])[0]?.[0],
    ).toBe('PAYOUT-CREATE-REQUEST');
  });

  it('a refund of another amount, payment, merchant or application fails', () => {
    const input = { paymentId, amount: '12.00' };
    const body = (over: object = {}) => JSON.stringify({ paymentId, amount: '12.00', ...over });
    for (const sent of [body(), body({ amount: 12 }), body({ amount: '12' })])
      expect(failures('createRefund', input, [exchange('POST', refundPath, sent)])).toEqual([]);
    expect(
      failures('createRefund', input, [exchange('POST', refundPath, body({ amount: '6.00' }))]),
    ).toEqual([['REFUND-REQUEST-BODY', 'amount "12.00"', 'amount "6.00"']]);
    expect(
      failures('createRefund', input, [
        exchange('POST', refundPath, body({ paymentId: payoutId })),
      ])[0]?.[0],
    ).toBe('REFUND-REQUEST-BODY');
    expect(
      failures('createRefund', input, [
        exchange('POST', refundPath.replace(app.merchantId, payoutId), body()),
      ])[0]?.[0],
    ).toBe('REFUND-CREATE-REQUEST');
  });

  it('every request of a step is judged (each retry after a 503)', () => {
    const found = failures('createPayout', payoutInput, [
      exchange('POST', '/api/payouts', payoutBody(), 1),
      exchange('POST', '/api/payouts', payoutBody({ amount: 1 }), 2),
    ]);
    expect(found).toHaveLength(1);
  });

  it('every intent failure is a MUST: it ends the search', () => {
    const [j] = judgeIntent('createPayout', payoutInput, app, [
      exchange('POST', '/api/payouts', payoutBody({ amount: 1 })),
    ]);
    expect(levelOf(j!)).toBe('MUST');
    expect(failsSdk(j!)).toBe(true);
  });
});

describe('conformance/sdk-explore/judge.ts: what an SDK hands its caller of members the spec does not define', () => {
  const sent = {
    applicationId: app.applicationId,
    payoutId,
    status: 'IN_PROGRESS',
    amount: 10.5,
    'x-alt-extension': { variant: 'alt' },
    destination: { name: 'Ada', 'x-alt-extension': 1 },
  };
  const answer = (resource: Record<string, unknown>) =>
    judgeAnswer('createPayout', { kind: 'resource', resource }, [
      {
        ...exchange('POST', '/api/payouts', payoutBody()),
        response: {
          status: 201,
          headers: [],
          body: new TextEncoder().encode(JSON.stringify(sent)),
        },
      },
    ]);

  it('the spec defines the tables’ members and no other', () => {
    expect(specDefines('payout', '/amount')).toBe(true);
    expect(specDefines('payout', '/destination/name')).toBe(true);
    expect(specDefines('refund', '/refundRequestDetails/destination/iban')).toBe(true);
    expect(specDefines('payout', '/x-alt-extension')).toBe(false);
    expect(specDefines('payout', '/destination/x-alt-extension')).toBe(false);
  });

  it('a typed SDK that drops unknown members is recorded, never failed', () => {
    const typed = specMembersOf('payout', sent) as Record<string, unknown>;
    expect(typed).not.toHaveProperty('x-alt-extension');
    const judged = answer(typed);
    expect(judged.filter((j) => j.outcome === 'violation')).toEqual([]);
    expect(judged.filter((j) => j.outcome === 'observation')).toHaveLength(2);
  });

  it('a member the spec defines, lost or changed, still fails PAYOUT-RESPONSE-RESOURCE', () => {
    const { amount: _amount, ...lost } = sent;
    expect(
      answer(lost)
        .filter(failsSdk)
        .map((j) => j.requirement),
    ).toEqual(['PAYOUT-RESPONSE-RESOURCE']);
    expect(
      answer({ ...sent, destination: { name: 'Bob', 'x-alt-extension': 1 } })
        .filter(failsSdk)
        .map((j) => j.received),
    ).toEqual(['"Bob"']);
  });
});
