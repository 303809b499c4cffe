// The client audit against the ways a client can plausibly get each signing rule wrong (found by method: for every
// header and parameter, how it can be absent, empty, malformed, mis-encoded or mis-signed), each caught by a named
// check and requirement id; clock skew warned (SIG-CLOCK-SYNC); and correct clients that made other choices the
// spec leaves open passing with no failure and no warning. Loopback only, bounded waits.
import { createHash, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { exitCodeFor } from '../conformance/run/exit-code.js';
import { computeContentDigest } from '../src/digest/content-digest.js';
import {
  audit,
  build,
  call,
  create,
  credentials,
  expectMistakeDiagnosed,
  expectReported,
  line,
  PAYOUT,
  payoutBody,
  REFUND,
  refundPath,
  SECRET,
  summaries,
  unfoundedFailures,
  type ClientAuditListening,
  type ClientFaultCase as FaultCase,
  type MistakeCase,
} from './fixtures/client-audit-harness.js';
import { send } from './reference-service-client.js';

const now = (): number => Math.floor(Date.now() / 1000);
const b64 = (sig: Uint8Array): string => Buffer.from(sig).toString('base64');
const params = (
  over: Record<string, string | number | undefined>,
): Array<[string, string | number]> =>
  Object.entries({
    created: now(),
    keyid: credentials.keyId,
    alg: 'ed25519',
    nonce: randomUUID(),
    ...over,
  }).filter((e): e is [string, string | number] => e[1] !== undefined);
/** Rewrites one header's value after signing. */
const header =
  (name: string, f: (value: string) => string) =>
  (h: Array<[string, string]>): Array<[string, string]> =>
    h.map(([n, v]) => [n, n.toLowerCase() === name.toLowerCase() ? f(v) : v]);

const faults: readonly FaultCase[] = [
  // --- Signature: absent, empty, mis-encoded
  {
    name: 'Signature header sent empty',
    check: 'client-signature-syntax',
    requirement: 'SIG-SIGNATURE-HEADER',
    says: 'Signature is empty',
    client: (i) => create(i, { after: header('Signature', () => '') }),
  },
  {
    name: 'Signature-Input header sent empty',
    check: 'client-signature-syntax',
    requirement: 'SIG-INPUT-HEADER',
    says: 'Signature-Input is empty',
    client: (i) => create(i, { after: header('Signature-Input', () => '') }),
  },
  {
    name: 'Signature an empty byte sequence (sig1=::)',
    check: 'client-signature-syntax',
    requirement: 'SIG-SIGNATURE-HEADER',
    says: '0 bytes',
    client: (i) => create(i, { encodeSignature: (_s, l) => `${l}=::` }),
  },
  {
    name: 'signature in base64url (unpadded, "-" and "_")',
    check: 'client-signature-syntax',
    requirement: 'SIG-SIGNATURE-HEADER',
    says: 'base64url',
    client: async (i) => {
      // A base64url signature is only told apart when it holds "-" or "_" (about 94 % of signatures): pick one that does.
      for (let n = 0; n < 50; n++) {
        let text = '';
        const request = build(i.baseUrl, {
          path: '/api/payouts',
          body: payoutBody(i),
          encodeSignature: (s, l) => `${l}=:${(text = Buffer.from(s).toString('base64url'))}:`,
        });
        if (/[-_]/.test(text)) return send(i.baseUrl, request);
      }
      throw new Error('no base64url signature with "-" or "_" in 50 tries');
    },
  },
  {
    name: 'signature in base64 without "=" padding (86 characters)',
    check: 'client-signature-syntax',
    requirement: 'SIG-SIGNATURE-HEADER',
    says: 'not padded',
    client: (i) => create(i, { encodeSignature: (s, l) => `${l}=:${b64(s).replace(/=+$/, '')}:` }),
  },
  {
    name: 'signature hex-encoded between the colons',
    check: 'client-signature-syntax',
    requirement: 'SIG-SIGNATURE-HEADER',
    says: '96 bytes',
    client: (i) =>
      create(i, { encodeSignature: (s, l) => `${l}=:${Buffer.from(s).toString('hex')}:` }),
  },
  {
    name: 'signature without the byte-sequence colons',
    check: 'client-signature-syntax',
    requirement: 'SIG-SIGNATURE-HEADER',
    says: 'between colons',
    client: (i) => create(i, { encodeSignature: (s, l) => `${l}=${b64(s)}` }),
  },
  {
    name: 'Signature under another label than Signature-Input',
    check: 'client-signature-label',
    requirement: 'SIG-LABEL-SIG1',
    says: 'always "sig1"',
    client: (i) => create(i, { encodeSignature: (s) => `sig2=:${b64(s)}:` }),
  },
  {
    name: 'a second signature "sig2" beside a valid sig1',
    check: 'client-signature-label',
    requirement: 'SIG-LABEL-SIG1',
    outcome: 'warn',
    says: 'beside "sig1"',
    client: (i) =>
      create(i, {
        after: (h) =>
          h.map(([n, v]): [string, string] => [
            n,
            /^signature(-input)?$/i.test(n) ? `${v}, ${v.replace(/^sig1=/, 'sig2=')}` : v,
          ]),
      }),
  },
  // --- Signature-Input parameters: absent (a generic RFC 9421 library's defaults), empty, wrong type
  {
    name: 'alg left out (RFC 9421 makes it optional)',
    check: 'client-signature-alg',
    requirement: 'SIG-PARAM-ALG',
    says: 'missing "alg"',
    client: (i) => create(i, { params: params({ alg: undefined }) }),
  },
  {
    name: 'alg "ED25519" in upper case',
    check: 'client-signature-alg',
    requirement: 'SIG-PARAM-ALG',
    client: (i) => create(i, { params: params({ alg: 'ED25519' }) }),
  },
  {
    name: 'created left out',
    check: 'client-signature-created',
    requirement: 'SIG-PARAM-CREATED',
    says: 'missing "created"',
    client: (i) => create(i, { params: params({ created: undefined }) }),
  },
  {
    name: 'keyid left out',
    check: 'client-signature-keyid',
    requirement: 'SIG-PARAM-KEYID',
    client: (i) => create(i, { params: params({ keyid: undefined }) }),
  },
  {
    name: 'nonce sent empty',
    check: 'client-signature-nonce',
    requirement: 'SIG-PARAM-NONCE',
    says: 'empty "nonce"',
    client: (i) => create(i, { params: params({ nonce: '' }) }),
  },
  {
    name: 'created as a decimal (seconds with a fraction)',
    check: 'client-signature-syntax',
    requirement: 'SIG-INPUT-HEADER',
    says: 'not an Integer',
    client: (i) =>
      create(i, {
        after: header('Signature-Input', (v) => v.replace(/;created=(\d+)/, ';created=$1.5')),
      }),
  },
  {
    name: 'created in quotes (a String)',
    check: 'client-signature-syntax',
    requirement: 'SIG-INPUT-HEADER',
    client: (i) =>
      create(i, {
        after: header('Signature-Input', (v) => v.replace(/;created=(\d+)/, ';created="$1"')),
      }),
  },
  {
    name: 'nonce without quotes (a Token)',
    check: 'client-signature-syntax',
    requirement: 'SIG-INPUT-HEADER',
    client: (i) =>
      create(i, {
        after: header('Signature-Input', (v) => v.replace(/;nonce="([^"]*)"/, ';nonce=n$1')),
      }),
  },
  // --- covered components
  {
    name: 'x-application-secret left out of the covered components',
    check: 'client-covered-components',
    requirement: 'SIG-BASE-COMPONENTS-ORDER',
    client: (i) =>
      create(i, {
        components: [
          '@method',
          '@path',
          '@authority',
          'content-digest',
          'content-type',
          'content-length',
          'x-application-id',
        ],
      }),
  },
  {
    name: '"@target-uri" covered instead of "@path"',
    check: 'client-covered-components',
    requirement: 'SIG-BASE-COMPONENTS-ORDER',
    client: (i) =>
      create(i, {
        components: [
          '@method',
          '@target-uri',
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
    name: 'component names in Signature-Input in Title-Case',
    check: 'client-covered-components',
    requirement: 'SIG-BASE-COMPONENTS-ORDER',
    client: (i) =>
      create(i, {
        after: header('Signature-Input', (v) => v.replace('"content-digest"', '"Content-Digest"')),
      }),
  },
  // --- Content-Digest
  {
    name: 'RFC 3230 "Digest" header instead of Content-Digest',
    check: 'client-content-digest',
    requirement: 'SIG-HEADERS-BODY',
    says: 'missing "Content-Digest"',
    client: (i) =>
      create(i, {
        digest: () => undefined,
        extraHeaders: [
          ['Digest', `SHA-512=${createHash('sha512').update(payoutBody(i)).digest('base64')}`],
        ],
      }),
  },
  {
    name: 'Content-Digest in hex, not a byte sequence',
    check: 'client-content-digest',
    requirement: 'DIGEST-SHA512',
    client: (i) =>
      create(i, { digest: (b) => `sha-512=${createHash('sha512').update(b).digest('hex')}` }),
  },
  {
    name: 'Content-Digest algorithm key in upper case ("SHA-512")',
    check: 'client-content-digest',
    requirement: 'DIGEST-SHA512',
    client: (i) =>
      create(i, { digest: (b) => computeContentDigest(b).replace('sha-512', 'SHA-512') }),
  },
  {
    name: 'Content-Digest of the empty body on a POST with a body',
    check: 'client-content-digest',
    requirement: 'DIGEST-EXACT-BYTES',
    says: 'an empty body',
    client: (i) => create(i, { digest: () => computeContentDigest(new Uint8Array()) }),
  },
  {
    name: 'a signed commit without Content-Digest (POST without a body read as bodyless)',
    check: 'client-content-digest',
    requirement: 'SIG-HEADERS-BODY',
    outcome: 'warn',
    says: 'without a body',
    client: (i) =>
      call(i, {
        path: `/api/payouts/${randomUUID()}/commit`,
        accept: PAYOUT,
        digest: () => undefined,
      }),
  },
  // --- application headers, media types, bodies, endpoints
  {
    name: 'x-application-id left out (still signed)',
    check: 'client-application-headers',
    requirement: 'APP-ID-REQUIRED',
    client: (i) => create(i, { after: (h) => h.filter(([n]) => n !== 'x-application-id') }),
  },
  {
    name: 'x-application-secret left out (still signed)',
    check: 'client-application-headers',
    requirement: 'APP-SECRET-SENT',
    client: (i) => create(i, { after: (h) => h.filter(([n]) => n !== 'x-application-secret') }),
  },
  {
    name: 'Content-Type sent twice',
    check: 'client-content-type',
    requirement: 'PAYOUT-CREATE-REQUEST',
    client: (i) => create(i, { after: (h) => [...h, ['Content-Type', PAYOUT]] }),
  },
  {
    name: 'commit with Accept of the refund version',
    check: 'client-accept',
    requirement: 'VERSION-PAYOUT-MEDIA-TYPE',
    client: (i) =>
      call(i, { path: `/api/payouts/${randomUUID()}/commit`, accept: REFUND, sign: false }),
  },
  {
    name: 'refund amount not a decimal',
    check: 'client-request-body',
    requirement: 'REFUND-REQUEST-BODY',
    says: '/amount',
    client: (i) =>
      call(i, {
        path: refundPath,
        contentType: REFUND,
        accept: REFUND,
        sign: false,
        body: JSON.stringify({ paymentId: i.settledPayment.paymentId, amount: 'ten' }),
      }),
  },
  {
    name: 'refund paymentId not a UUID',
    check: 'client-request-body',
    requirement: 'REFUND-REQUEST-BODY',
    says: '/paymentId',
    client: (i) =>
      call(i, {
        path: refundPath,
        contentType: REFUND,
        accept: REFUND,
        sign: false,
        body: JSON.stringify({ paymentId: 'PAY-1', amount: '1.00' }),
      }),
  },
  {
    name: 'payout created at "//api/payouts" (base URL ending in "/")',
    check: 'client-endpoint',
    requirement: 'PAYOUT-CREATE-REQUEST',
    says: 'doubled "/"',
    client: (i) => create(i, { path: '//api/payouts' }),
  },
  {
    name: 'payout created at "/api/payouts/" (trailing slash)',
    check: 'client-endpoint',
    requirement: 'PAYOUT-CREATE-REQUEST',
    says: 'trailing "/"',
    client: (i) => create(i, { path: '/api/payouts/' }),
  },
  {
    name: 'cancel at "/api/Payouts/{id}/Cancel" (letter case)',
    check: 'client-endpoint',
    requirement: 'COP-CANCEL-REQUEST',
    says: 'letter case',
    client: (i) =>
      call(i, { path: `/api/Payouts/${randomUUID()}/Cancel`, accept: PAYOUT, sign: false }),
  },
  {
    name: 'commit called with GET',
    check: 'client-endpoint',
    requirement: 'COP-COMMIT-REQUEST',
    client: (i) =>
      call(i, {
        method: 'GET',
        path: `/api/payouts/${randomUUID()}/commit`,
        accept: PAYOUT,
        sign: false,
        contentType: null,
      }),
  },
  // --- clock (spec: "client clocks should be synchronised (skew above 5 minutes causes failure)")
  {
    name: 'client clock 90 s behind',
    check: 'client-signature-created',
    requirement: 'SIG-CLOCK-SYNC',
    outcome: 'warn',
    says: 'behind',
    client: (i) => create(i, { params: params({ created: now() - 90 }) }),
  },
  {
    name: 'client clock 120 s ahead',
    check: 'client-signature-created',
    requirement: 'SIG-CLOCK-SYNC',
    outcome: 'warn',
    says: 'ahead',
    client: (i) => create(i, { params: params({ created: now() + 120 }) }),
  },
  {
    name: 'client clock 6 minutes ahead',
    check: 'client-signature-created',
    requirement: 'SIG-PARAM-CREATED',
    says: 'clock skew above 5 minutes',
    client: (i) => create(i, { params: params({ created: now() + 360 }) }),
  },
];

describe('audit client: more faulty clients, each caught by a named check and requirement id', () => {
  for (const f of faults) {
    it(`${f.name} → ${f.check} (${f.requirement}, ${f.outcome ?? 'fail'})`, async () => {
      const { summary } = await audit(async (info) => {
        await f.client(info);
      });
      const text = expectReported(summary, f.check, f.requirement, f.outcome ?? 'fail');
      if (f.says !== undefined) expect(text).toContain(f.says);
      expect(JSON.stringify(summary)).not.toContain(SECRET);
      expect(exitCodeFor(summary)).toBe((f.outcome ?? 'fail') === 'fail' ? 1 : 0);
    });
  }
});

const mistakes: readonly MistakeCase[] = [
  {
    name: '@path signed percent-decoded',
    requirement: 'SIG-BASE-PATH',
    mistake: 'path-decoded',
    call: (i) => ({
      path: '/api/payouts?ref=INV%201%2F2',
      body: payoutBody(i),
      mutateBase: (b) => line(b, '@path', '/api/payouts?ref=INV 1/2'),
    }),
  },
  {
    name: '@method signed in lower case',
    requirement: 'SIG-BASE-METHOD',
    mistake: 'method-lowercase',
    call: (i) => ({
      path: '/api/payouts',
      body: payoutBody(i),
      mutateBase: (b) => line(b, '@method', 'post'),
    }),
  },
  {
    name: 'default port 80 kept in @authority',
    requirement: 'SIG-BASE-AUTHORITY',
    mistake: 'authority-with-port',
    call: (i) => ({
      path: '/api/payouts',
      host: 'api.example.com',
      body: payoutBody(i),
      mutateBase: (b) => line(b, '@authority', 'api.example.com:80'),
    }),
  },
  {
    name: '@signature-params line signed with "sig1="',
    requirement: 'SIG-BASE-PARAMS-LINE',
    mistake: 'signature-params-with-label',
    call: (i) => ({
      path: '/api/payouts',
      body: payoutBody(i),
      mutateBase: (b) => b.replace('"@signature-params": (', '"@signature-params": sig1=('),
    }),
  },
  {
    name: 'line of the absent Content-Type left out of the base',
    requirement: 'SIG-BASE-LINE-FORMAT',
    mistake: 'empty-lines-omitted',
    call: (i) => ({
      path: `/api/payouts/${randomUUID()}/commit`,
      accept: PAYOUT,
      contentType: null,
      mutateBase: (b) => b.replace('"content-type": \n', ''),
    }),
  },
];

describe('audit client: more signature mistakes, each given its diagnosis (spec: Authentication, Step 2)', () => {
  for (const m of mistakes) {
    it(`${m.name} → ${m.mistake} (${m.requirement})`, async () => {
      await expectMistakeDiagnosed(m);
    });
  }
});

/** Correct clients: each takes a choice the spec leaves open, and must get no failure and no warning. */
const permitted: ReadonlyArray<
  readonly [string, (info: ClientAuditListening) => Promise<unknown>]
> = [
  [
    'a nonce of exactly 50 characters',
    (i) => create(i, { params: params({ nonce: 'n'.repeat(50) }) }),
  ],
  [
    'a nonce of 32 hex characters (not a UUID)',
    (i) => create(i, { params: params({ nonce: randomUUID().replace(/-/g, '') }) }),
  ],
  [
    'created 20 s before sending (signed ahead, within the tolerance)',
    (i) => create(i, { params: params({ created: now() - 20 }) }),
  ],
  [
    'an indented body, digested and signed as sent',
    (i) => create(i, { body: JSON.stringify(JSON.parse(payoutBody(i)), null, 2) }),
  ],
  [
    'Content-Type with "; charset=utf-8", signed as sent',
    (i) => create(i, { contentType: `${PAYOUT}; charset=utf-8` }),
  ],
  ['a query string, signed in @path', (i) => create(i, { path: '/api/payouts?source=batch-7' })],
  [
    'header names in lower case on the wire, extra headers, another order',
    (i) =>
      create(i, {
        extraHeaders: [
          ['User-Agent', 'acme-payouts/2.1'],
          ['X-Request-Id', randomUUID()],
        ],
        after: (h) => [...h].reverse().map(([n, v]): [string, string] => [n.toLowerCase(), v]),
      }),
  ],
  ['Accept sent on create payout (not shown for it)', (i) => create(i, { accept: PAYOUT })],
  [
    'commit, cancel and refund signed too (whether they must be is not shown)',
    async (i) => {
      await call(i, { path: `/api/payouts/${randomUUID()}/commit`, accept: PAYOUT });
      await call(i, { path: `/api/payouts/${randomUUID()}/cancel`, accept: PAYOUT });
      await call(i, {
        path: refundPath,
        contentType: REFUND,
        accept: REFUND,
        body: JSON.stringify({ paymentId: i.settledPayment.paymentId, amount: '1.00' }),
      });
    },
  ],
  [
    'a refund amount as a JSON number, with x-app-name',
    (i) =>
      call(i, {
        path: refundPath,
        contentType: REFUND,
        accept: REFUND,
        sign: false,
        extraHeaders: [['x-app-name', 'sandbox-shop']],
        body: JSON.stringify({ paymentId: i.settledPayment.paymentId, amount: 1.5 }),
      }),
  ],
  [
    'a GET on a retrieval path the spec does not show (recorded only)',
    (i) =>
      call(i, {
        method: 'GET',
        path: `/api/payouts/${randomUUID()}`,
        accept: PAYOUT,
        contentType: null,
        sign: false,
      }),
  ],
  [
    'the public key fetched with an unsigned GET',
    (i) =>
      call(i, {
        method: 'GET',
        path: '/.well-known/signature/pem',
        contentType: null,
        sign: false,
      }),
  ],
];

describe('audit client: correct clients that made other permitted choices pass (no failure, no warning)', () => {
  for (const [name, client] of permitted) {
    it(name, async () => {
      const { summary } = await audit(async (info) => {
        await client(info);
      });
      const bad = summary.results.filter((r) => r.outcome !== 'pass' && r.outcome !== 'n/a');
      expect(bad.map((r) => `${r.id}: ${r.message}`)).toEqual([]);
      expect(exitCodeFor(summary)).toBe(0);
    });
  }
});

describe('audit client: the clock-skew tolerance is stated and configurable (SIG-CLOCK-SYNC)', () => {
  it('10 s of skew passes at the default 30 s tolerance and warns at a 5 s tolerance', async () => {
    const client = async (i: ClientAuditListening): Promise<void> => {
      await create(i, { params: params({ created: now() - 10 }) });
    };
    const lenient = await audit(client);
    expect(lenient.summary.results.find((r) => r.id === 'client-signature-created')?.outcome).toBe(
      'pass',
    );
    const strict = await audit(client, credentials, { clockSkewToleranceSeconds: 5 });
    expect(
      expectReported(strict.summary, 'client-signature-created', 'SIG-CLOCK-SYNC', 'warn'),
    ).toContain('more than the 5 s');
  });
});

describe('audit client: no failure without a sentence of the spec', () => {
  it('no failing finding in any run of this file cites a payconform choice or a "not shown" requirement', () => {
    expect(summaries.length).toBeGreaterThanOrEqual(
      faults.length + mistakes.length + permitted.length,
    );
    expect(unfoundedFailures(summaries)).toEqual([]);
  });
});
