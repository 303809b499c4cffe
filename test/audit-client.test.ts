// `payconform audit client` in-process: a correct client (create, commit, cancel, refund) passes with realistic
// answers; faulty clients, each signing with the library then breaking one thing, are each reported by the right
// check and requirement id, and every signature mistake gets its diagnosis. Loopback only, bounded waits.
// More faulty clients, and correct clients that made other permitted choices: test/audit-client-faults.test.ts.
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { clientChecks } from '../conformance/checks/client/index.js';
import { exitCodeFor } from '../conformance/run/exit-code.js';
import { computeContentDigest } from '../src/digest/content-digest.js';
import {
  audit,
  call,
  create,
  credentials,
  expectMistakeDiagnosed,
  expectReported,
  keys,
  line,
  PAYOUT,
  payoutBody,
  REFUND,
  refundPath,
  result,
  SECRET,
  summaries,
  unfoundedFailures,
  type ClientAuditListening,
  type ClientFaultCase as FaultCase,
  type MistakeCase,
} from './fixtures/client-audit-harness.js';

describe('audit client: a correct multi-step client (spec: Endpoints 1-4)', () => {
  it('passes every check and gets realistic answers: create, hold, commit, cancel, refund', async () => {
    const seen: Record<string, unknown> = {};
    const { summary } = await audit(async (info) => {
      const created = await call(info, { path: '/api/payouts', body: payoutBody(info) });
      seen.created = [created.status, created.json?.status, created.json?.copStatus];
      const held = await call(info, {
        path: '/api/payouts',
        body: payoutBody(info, { doNotCommitOnCoPMismatch: true }, 'CoP Partial Match'),
      });
      seen.held = [held.status, held.json?.status, held.json?.copStatus];
      const commit = await call(info, {
        path: `/api/payouts/${held.json?.payoutId}/commit`,
        accept: PAYOUT,
        sign: false,
      });
      seen.commit = [commit.status, commit.json?.status, commit.json?.copStatus];
      const held2 = await call(info, {
        path: '/api/payouts',
        body: payoutBody(info, { doNotCommitOnCoPMismatch: true }, 'CoP No Match'),
      });
      const cancel = await call(info, {
        path: `/api/payouts/${held2.json?.payoutId}/cancel`,
        accept: PAYOUT,
        sign: false,
      });
      seen.cancel = [cancel.status, cancel.json?.status, typeof cancel.json?.statusReason];
      const refund = await call(info, {
        path: refundPath,
        contentType: REFUND,
        accept: REFUND,
        sign: false,
        body: JSON.stringify({ paymentId: info.settledPayment.paymentId, amount: '10.00' }),
      });
      seen.refund = [refund.status, refund.json?.status];
      const unsettled = await call(info, {
        path: refundPath,
        contentType: REFUND,
        accept: REFUND,
        sign: false,
        body: JSON.stringify({ paymentId: info.unsettledPayment!.paymentId, amount: '1.00' }),
      });
      seen.unsettled = [unsettled.status, unsettled.json?.statusName];
    });
    expect(seen).toEqual({
      created: [201, 'IN_PROGRESS', 'FULL_MATCH'],
      held: [201, 'AWAITING_COMMIT', 'PARTIAL_MATCH'],
      commit: [200, 'IN_PROGRESS', 'PARTIAL_MATCH'],
      cancel: [200, 'CANCELLED', 'string'],
      refund: [201, 'IN_PROGRESS'],
      unsettled: [422, 'UNPROCESSABLE_ENTITY'],
    });
    const bad = summary.results.filter((r) => r.outcome !== 'pass' && r.outcome !== 'n/a');
    expect(bad.map((r) => `${r.id}: ${r.message}`)).toEqual([]);
    expect(result(summary, 'client-request-arrived').message).toContain('7 request(s) arrived');
    expect(result(summary, 'client-signature-verifies').outcome).toBe('pass');
    expect(exitCodeFor(summary)).toBe(0);
    expect(JSON.stringify(summary)).not.toContain(SECRET);
  });

  it('"no request arrived" is an error (exit 1) when the client never calls', async () => {
    const { summary } = await audit(async () => {});
    // Nothing to judge is inconclusive (an error, exit 1), not a failed rule: no spec sentence is broken.
    const text = expectReported(
      summary,
      'client-request-arrived',
      'APP-PROFILE-REQUEST-ARRIVED',
      'error',
    );
    expect(text).toContain('no request arrived');
    expect(exitCodeFor(summary)).toBe(1);
  });
});

const faults: readonly FaultCase[] = [
  {
    name: 'payout creation unsigned',
    check: 'client-signature-headers',
    requirement: 'SIG-PAYOUT-CREATE-SIGNED',
    client: (i) => create(i, { sign: false }),
  },
  {
    name: 'Signature missing (Signature-Input sent)',
    check: 'client-signature-headers',
    requirement: 'SIG-HEADERS-BODY',
    client: (i) => create(i, { after: (h) => h.filter(([n]) => n !== 'Signature') }),
  },
  {
    name: 'Signature not a byte sequence',
    check: 'client-signature-syntax',
    requirement: 'SIG-SIGNATURE-HEADER',
    client: (i) =>
      create(i, {
        after: (h) => h.map(([n, v]) => [n, n === 'Signature' ? 'sig1="not bytes"' : v]),
      }),
  },
  {
    name: 'label sig2',
    check: 'client-signature-label',
    requirement: 'SIG-LABEL-SIG1',
    client: (i) => create(i, { label: 'sig2' }),
  },
  {
    name: 'components reduced',
    check: 'client-covered-components',
    requirement: 'SIG-BASE-COMPONENTS-ORDER',
    client: (i) => create(i, { components: ['@method', '@path', '@authority', 'content-digest'] }),
  },
  {
    name: 'components reordered',
    check: 'client-covered-components',
    requirement: 'SIG-BASE-COMPONENTS-ORDER',
    client: (i) =>
      create(i, {
        components: [
          '@path',
          '@method',
          '@authority',
          'content-digest',
          'content-type',
          'content-length',
          'x-application-id',
          'x-application-secret',
        ],
      }),
  },
  {
    name: 'parameters in another order (signed consistently)',
    check: 'client-signature-parameter-order',
    requirement: 'SIG-PROFILE-PARAM-ORDER',
    outcome: 'warn',
    client: (i) =>
      create(i, {
        params: [
          ['alg', 'ed25519'],
          ['created', Math.floor(Date.now() / 1000)],
          ['keyid', credentials.keyId],
          ['nonce', randomUUID()],
        ],
      }),
  },
  {
    name: 'an extra "expires" parameter',
    check: 'client-signature-parameter-order',
    requirement: 'SIG-INPUT-HEADER',
    client: (i) =>
      create(i, {
        params: [
          ['created', Math.floor(Date.now() / 1000)],
          ['keyid', credentials.keyId],
          ['alg', 'ed25519'],
          ['nonce', randomUUID()],
          ['expires', Math.floor(Date.now() / 1000) + 60],
        ],
      }),
  },
  {
    name: 'alg other than ed25519',
    check: 'client-signature-alg',
    requirement: 'SIG-PARAM-ALG',
    says: 'rsa-pss-sha512',
    client: (i) =>
      create(i, {
        params: [
          ['created', Math.floor(Date.now() / 1000)],
          ['keyid', credentials.keyId],
          ['alg', 'rsa-pss-sha512'],
          ['nonce', randomUUID()],
        ],
      }),
  },
  {
    name: 'another key id',
    check: 'client-signature-keyid',
    requirement: 'SIG-PARAM-KEYID',
    client: (i) =>
      create(i, {
        params: [
          ['created', Math.floor(Date.now() / 1000)],
          ['keyid', 'old-key'],
          ['alg', 'ed25519'],
          ['nonce', randomUUID()],
        ],
      }),
  },
  {
    name: 'created 400 s old',
    check: 'client-signature-created',
    requirement: 'SIG-PARAM-CREATED',
    client: (i) =>
      create(i, {
        params: [
          ['created', Math.floor(Date.now() / 1000) - 400],
          ['keyid', credentials.keyId],
          ['alg', 'ed25519'],
          ['nonce', randomUUID()],
        ],
      }),
  },
  {
    name: 'created in milliseconds',
    check: 'client-signature-created',
    requirement: 'SIG-PARAM-CREATED',
    says: 'milliseconds',
    client: (i) =>
      create(i, {
        params: [
          ['created', Date.now()],
          ['keyid', credentials.keyId],
          ['alg', 'ed25519'],
          ['nonce', randomUUID()],
        ],
      }),
  },
  {
    name: 'nonce missing',
    check: 'client-signature-nonce',
    requirement: 'SIG-PARAM-NONCE',
    client: (i) =>
      create(i, {
        params: [
          ['created', Math.floor(Date.now() / 1000)],
          ['keyid', credentials.keyId],
          ['alg', 'ed25519'],
        ],
      }),
  },
  {
    name: 'nonce over 50 characters',
    check: 'client-signature-nonce',
    requirement: 'LIMIT-NONCE',
    client: (i) =>
      create(i, {
        params: [
          ['created', Math.floor(Date.now() / 1000)],
          ['keyid', credentials.keyId],
          ['alg', 'ed25519'],
          ['nonce', 'n'.repeat(51)],
        ],
      }),
  },
  {
    name: 'nonce reused on the next request',
    check: 'client-signature-nonce',
    requirement: 'LIMIT-NONCE',
    says: 'already used by request #1',
    client: async (i) => {
      const params = [
        ['created', Math.floor(Date.now() / 1000)],
        ['keyid', credentials.keyId],
        ['alg', 'ed25519'],
        ['nonce', 'fixed-nonce'],
      ] as const;
      await create(i, { params });
      await create(i, { params, body: payoutBody(i, { reference: 'INV-2' }) });
    },
  },
  {
    name: 'Content-Digest missing',
    check: 'client-content-digest',
    requirement: 'SIG-HEADERS-BODY',
    client: (i) => create(i, { digest: () => undefined }),
  },
  {
    name: 'Content-Digest sha-256 only',
    check: 'client-content-digest',
    requirement: 'DIGEST-SHA512',
    client: (i) => create(i, { digest: (b) => computeContentDigest(b, ['sha-256']) }),
  },
  {
    name: 'Content-Digest over the re-serialised body',
    check: 'client-content-digest',
    requirement: 'DIGEST-EXACT-BYTES',
    says: 'compact JSON',
    client: (i) =>
      create(i, {
        body: JSON.stringify(JSON.parse(payoutBody(i)), null, 2),
        digest: (b) =>
          computeContentDigest(
            new TextEncoder().encode(JSON.stringify(JSON.parse(new TextDecoder().decode(b)))),
          ),
      }),
  },
  {
    name: 'Content-Digest on a bodyless GET',
    check: 'client-content-digest',
    requirement: 'SIG-HEADERS-BODYLESS',
    client: (i) =>
      call(i, {
        method: 'GET',
        path: '/.well-known/signature/pem',
        contentType: null,
        digest: () => computeContentDigest(new Uint8Array()),
      }),
  },
  {
    name: 'payout Content-Type with the refund version',
    check: 'client-content-type',
    requirement: 'VERSION-PAYOUT-MEDIA-TYPE',
    client: (i) => create(i, { contentType: REFUND }),
  },
  {
    name: 'payout Content-Type application/json',
    check: 'client-content-type',
    requirement: 'PAYOUT-CREATE-REQUEST',
    client: (i) => create(i, { contentType: 'application/json' }),
  },
  {
    name: 'commit without Accept',
    check: 'client-accept',
    requirement: 'COP-COMMIT-REQUEST',
    client: (i) => call(i, { path: `/api/payouts/${randomUUID()}/commit`, sign: false }),
  },
  {
    name: 'refund Accept of the payout version',
    check: 'client-accept',
    requirement: 'VERSION-REFUND-MEDIA-TYPE',
    client: (i) =>
      call(i, {
        path: refundPath,
        contentType: REFUND,
        accept: PAYOUT,
        sign: false,
        body: JSON.stringify({ paymentId: i.settledPayment.paymentId, amount: '1.00' }),
      }),
  },
  {
    name: 'payout amount as a string',
    check: 'client-request-body',
    requirement: 'PAYOUT-REQUEST-BODY',
    says: '/amount',
    client: (i) => create(i, { body: payoutBody(i, { amount: 'ten' }) }),
  },
  {
    name: 'payout body of another application',
    check: 'client-request-body',
    requirement: 'PAYOUT-REQUEST-BODY',
    client: (i) => create(i, { body: payoutBody(i, { applicationId: randomUUID() }) }),
  },
  {
    name: 'cancel with a body',
    check: 'client-request-body',
    requirement: 'COP-CANCEL-REQUEST',
    client: (i) =>
      call(i, {
        path: `/api/payouts/${randomUUID()}/cancel`,
        accept: PAYOUT,
        sign: false,
        body: '{}',
      }),
  },
  {
    name: 'wrong application secret',
    check: 'client-application-headers',
    requirement: 'APP-SECRET-SENT',
    client: (i) => create(i, { secret: 'test-only-wrong-secret' }),
  },
  {
    name: 'refund to another merchant',
    check: 'client-endpoint',
    requirement: 'REFUND-CREATE-REQUEST',
    client: (i) =>
      call(i, {
        path: refundPath.replace(credentials.merchantId!, randomUUID()),
        contentType: REFUND,
        accept: REFUND,
        sign: false,
        body: JSON.stringify({ paymentId: i.settledPayment.paymentId, amount: '1.00' }),
      }),
  },
  {
    name: 'PUT on the payouts endpoint',
    check: 'client-endpoint',
    requirement: 'PAYOUT-CREATE-REQUEST',
    client: (i) => create(i, { method: 'PUT' }),
  },
];

describe('audit client: faulty clients, each fault reported by check and requirement id', () => {
  for (const f of faults) {
    it(`${f.name} → ${f.check} (${f.requirement})`, async () => {
      const { summary } = await audit(async (info) => {
        await f.client(info);
      });
      const text = expectReported(summary, f.check, f.requirement, f.outcome ?? 'fail');
      if (f.says !== undefined) expect(text).toContain(f.says);
      expect(JSON.stringify(summary)).not.toContain(SECRET);
      if ((f.outcome ?? 'fail') === 'fail') expect(exitCodeFor(summary)).toBe(1);
    });
  }
});

const mistakes: readonly MistakeCase[] = [
  {
    name: '@path signed without the query',
    requirement: 'SIG-BASE-PATH',
    mistake: 'path-without-query',
    call: (i) => ({
      path: '/api/payouts?idempotency=1',
      body: payoutBody(i),
      mutateBase: (b) => line(b, '@path', '/api/payouts'),
    }),
  },
  {
    name: '@authority signed without the port',
    requirement: 'SIG-BASE-AUTHORITY',
    mistake: 'authority-without-port',
    call: (i) => ({
      path: '/api/payouts',
      body: payoutBody(i),
      mutateBase: (b) => line(b, '@authority', '127.0.0.1'),
    }),
  },
  {
    name: 'body re-serialised after signing',
    requirement: 'DIGEST-EXACT-BYTES',
    mistake: 'body-reserialised',
    call: (i) => ({
      path: '/api/payouts',
      body: JSON.stringify(JSON.parse(payoutBody(i)), null, 2),
      mutateBase: (b) =>
        line(b, 'content-digest', computeContentDigest(new TextEncoder().encode(payoutBody(i)))),
    }),
  },
  {
    name: 'content-length signed empty',
    requirement: 'SIG-BASE-CONTENT-TYPE-LENGTH',
    mistake: 'content-length-differs',
    call: (i) => ({
      path: '/api/payouts',
      body: payoutBody(i),
      mutateBase: (b) =>
        line(b, 'content-length', '').replace('"content-length": \n', '"content-length": \n'),
    }),
  },
  {
    name: 'charset added to Content-Type after signing',
    requirement: 'SIG-BASE-CONTENT-TYPE-LENGTH',
    mistake: 'content-type-differs',
    call: (i) => ({
      path: '/api/payouts',
      body: payoutBody(i),
      after: (h) => h.map(([n, v]) => [n, n === 'Content-Type' ? `${v}; charset=utf-8` : v]),
    }),
  },
  {
    name: 'parameters signed in another order than sent',
    requirement: 'SIG-BASE-PARAMS-LINE',
    mistake: 'parameters-reordered',
    call: (i) => ({
      path: '/api/payouts',
      body: payoutBody(i),
      mutateBase: (b) =>
        b.replace(
          /;created=(\d+);keyid="([^"]*)";alg="ed25519";nonce="([^"]*)"$/,
          ';keyid="$2";created=$1;alg="ed25519";nonce="$3"',
        ),
    }),
  },
  {
    name: 'CRLF line ends in the base',
    requirement: 'SIG-BASE-LINE-FORMAT',
    mistake: 'crlf-line-endings',
    call: (i) => ({
      path: '/api/payouts',
      body: payoutBody(i),
      mutateBase: (b) => b.replace(/\n/g, '\r\n'),
    }),
  },
  {
    name: 'trailing newline after the base',
    requirement: 'SIG-BASE-LINE-FORMAT',
    mistake: 'trailing-newline',
    call: (i) => ({ path: '/api/payouts', body: payoutBody(i), mutateBase: (b) => `${b}\n` }),
  },
  {
    name: 'header names in upper case',
    requirement: 'SIG-BASE-LINE-FORMAT',
    mistake: 'uppercase-header-names',
    call: (i) => ({
      path: '/api/payouts',
      body: payoutBody(i),
      mutateBase: (b) =>
        b.replace(
          /^"(content-[a-z]+|x-application-[a-z]+)"/gm,
          (_m, n: string) =>
            `"${n.replace(/(^|-)([a-z])/g, (_x, d: string, c: string) => d + c.toUpperCase())}"`,
        ),
    }),
  },
  {
    name: 'missing-header line without its trailing space',
    requirement: 'SIG-BASE-LINE-FORMAT',
    mistake: 'empty-value-without-space',
    call: (i) => ({
      path: `/api/payouts/${randomUUID()}/commit`,
      accept: PAYOUT,
      contentType: null,
      mutateBase: (b) => b.replace('"content-type": \n', '"content-type":\n'),
    }),
  },
];

describe('audit client: every check is shown failing', () => {
  it('each client check is failed by a faulty client in this file (the table above, "no request arrived", the signature mistakes)', () => {
    // client-https-only is failed by the plain-HTTP client of tls.test.ts (it needs the --tls endpoint).
    const shown = new Set([
      ...faults.map((f) => f.check),
      'client-request-arrived',
      'client-signature-verifies',
      'client-https-only',
    ]);
    expect(clientChecks.map((c) => c.id).filter((id) => !shown.has(id))).toEqual([]);
  });
});

describe('audit client: signature mistakes, each given its diagnosis (spec: Authentication, Step 2)', () => {
  for (const m of mistakes) {
    it(`${m.name} → ${m.mistake} (${m.requirement})`, async () => {
      const text = await expectMistakeDiagnosed(m);
      expect(text).not.toContain(SECRET);
    });
  }

  it('a signature by another key: no known mistake, reported under SIG-SIGN', async () => {
    const { summary } = await audit(
      async (info) => {
        await call(info, { path: '/api/payouts', body: payoutBody(info) });
      },
      { ...credentials, publicKey: keys.rfc9421Ed25519.publicKey },
    );
    const text = expectReported(summary, 'client-signature-verifies', 'SIG-SIGN');
    expect(text).toContain('no known mistake');
  });
});

describe('audit client: hostile requests give findings, never a crash or a hang', () => {
  it('garbage bytes, an oversized body, unparseable signature fields, a body that is not JSON', async () => {
    const statuses: number[] = [];
    const { summary, context } = await audit(async (info) => {
      const { port } = new URL(info.baseUrl);
      const garbage = await new Promise<string>((resolve) => {
        const socket = net.connect(Number(port), '127.0.0.1', () =>
          socket.write('\x00\x01 NOT HTTP\r\n\r\n'),
        );
        let text = '';
        socket.on('data', (b: Buffer) => (text += b.toString('latin1')));
        socket.on('close', () => resolve(text));
        socket.on('error', () => resolve(text));
        socket.setTimeout(3_000, () => socket.destroy());
      });
      statuses.push(Number(/^HTTP\/1\.1 (\d{3})/.exec(garbage)?.[1] ?? 0));
      statuses.push(
        (
          await call(info, { path: '/api/payouts', body: 'x'.repeat(1024 * 1024 + 10) }).catch(
            () => ({ status: -1 }),
          )
        ).status,
      );
      statuses.push(
        (
          await create(info, {
            after: (h) => h.map(([n, v]) => [n, n === 'Signature-Input' ? 'sig1=(((' : v]),
          })
        ).status,
      );
      statuses.push(
        (
          await create(info, {
            after: (h) => h.map(([n, v]) => [n, n === 'Signature' ? 'sig1=:AAAA:' : v]),
          })
        ).status,
      );
      statuses.push((await call(info, { path: '/api/payouts', body: '\udc00\u00ff{' })).status);
    });
    expect(statuses[0]).toBe(400);
    expect([413, -1]).toContain(statuses[1]);
    expect(statuses.slice(2).every((s) => s >= 400 && s < 500)).toBe(true);
    expect(summary.counts.error).toBe(0);
    expect(context.commandNote).toContain('refused unexamined');
    expectReported(summary, 'client-signature-syntax', 'SIG-INPUT-HEADER');
    expectReported(summary, 'client-signature-syntax', 'SIG-SIGNATURE-HEADER');
    expectReported(summary, 'client-request-body', 'PAYOUT-REQUEST-BODY');
  });
});

describe('audit client: no failure without a sentence of the spec', () => {
  it('no failing finding in any run of this file cites a payconform choice or a "not shown" requirement', () => {
    expect(summaries.length).toBeGreaterThan(30);
    expect(unfoundedFailures(summaries)).toEqual([]);
  });
});
