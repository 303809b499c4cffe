// The lenient forms (docs/profile.md), decided and refused by the library and the reference service alike. None of
// them forges a request (the base still has to match byte for byte), but each let one signature verify under several
// header texts or hosts. RFC 8941 §4.2.3.2 (a repeated parameter keeps its last value), RFC 9421 §2.3 (created is an
// Integer), RFC 9421 §4.2 (no parameters on a signature), RFC 9421 §2.2.3 and RFC 9110 §4.2.3 (the host as written).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toFieldLines, type HttpRequest } from '../src/http/message.js';
import { MemoryNonceStore } from '../src/profile/nonce-store.js';
import { applySignedHeaders, signRequest } from '../src/profile/sign-request.js';
import { verifyRequest, type ApplicationRecord } from '../src/profile/verify-request.js';
import type { RunningReferenceService } from '../server/index.js';
import { loadTestKeys } from './fixtures/keys.js';
import { payoutBody, send, signed, startTestService } from './reference-service-client.js';

const keys = loadTestKeys();
const NOW = 1_767_225_600;
const NONCE = 'strict-parsing-nonce-0001';
const application: ApplicationRecord = {
  secret: 'test-only-secret-1',
  publicKeys: new Map([['key-1', keys.clientEd25519.publicKey]]),
};
const verify = (request: HttpRequest) =>
  verifyRequest(request, {
    now: NOW,
    nonceStore: new MemoryNonceStore(),
    resolveApplication: (id) => (id === 'app-1' ? application : undefined),
  });

function signedFor(url: string): HttpRequest {
  const request: HttpRequest = {
    method: 'POST',
    url,
    headers: toFieldLines({ 'content-type': 'application/vnd.service.v1.0+json' }),
    body: new TextEncoder().encode('{"amount":1}'),
  };
  const r = signRequest(
    request,
    {
      applicationId: 'app-1',
      applicationSecret: 'test-only-secret-1',
      keyId: 'key-1',
      privateKey: keys.clientEd25519.privateKey,
    },
    { created: NOW, nonce: NONCE },
  );
  return applySignedHeaders(request, r.headers);
}
const base = signedFor('https://127.0.0.1/api/payouts');
const edit = (
  request: HttpRequest,
  name: string,
  change: (value: string) => string,
): HttpRequest => ({
  ...request,
  headers: request.headers.map(([n, v]) => [n, n.toLowerCase() === name ? change(v) : v] as const),
});

/** Each lenient form: how it is made from a valid request, the code, and the step. */
const CASES: ReadonlyArray<readonly [string, (r: HttpRequest) => HttpRequest, string, number]> = [
  [
    'a duplicated nonce parameter (;nonce="x";nonce=<real>)',
    (r) =>
      edit(r, 'signature-input', (v) =>
        v.replace(`;nonce="${NONCE}"`, `;nonce="x";nonce="${NONCE}"`),
      ),
    'SIGNATURE_INPUT_MALFORMED',
    2,
  ],
  [
    'a duplicated keyid parameter (;keyid="nokey";keyid=<real>)',
    (r) =>
      edit(r, 'signature-input', (v) =>
        v.replace(';keyid="key-1"', ';keyid="nokey";keyid="key-1"'),
      ),
    'SIGNATURE_INPUT_MALFORMED',
    2,
  ],
  [
    'created as a Decimal (1767225600.0)',
    (r) => edit(r, 'signature-input', (v) => v.replace(`created=${NOW}`, `created=${NOW}.0`)),
    'SIGNATURE_INPUT_MALFORMED',
    2,
  ],
  [
    'created with a leading zero (01767225600)',
    (r) => edit(r, 'signature-input', (v) => v.replace(`created=${NOW}`, `created=0${NOW}`)),
    'SIGNATURE_INPUT_MALFORMED',
    2,
  ],
  [
    'a parameter on the Signature member (sig1=:...:;x=1)',
    (r) => edit(r, 'signature', (v) => `${v};x=1`),
    'SIGNATURE_MALFORMED',
    2,
  ],
  [
    'host 127.0.01',
    (r) => ({ ...r, url: r.url.replace('127.0.0.1', '127.0.01') }),
    'SIGNATURE_BASE_INVALID',
    9,
  ],
  [
    'host 0x7f.1',
    (r) => ({ ...r, url: r.url.replace('127.0.0.1', '0x7f.1') }),
    'SIGNATURE_BASE_INVALID',
    9,
  ],
  [
    'host 2130706433',
    (r) => ({ ...r, url: r.url.replace('127.0.0.1', '2130706433') }),
    'SIGNATURE_BASE_INVALID',
    9,
  ],
  [
    'host with a leading backslash (\\127.0.0.1)',
    (r) => ({ ...r, url: r.url.replace('127.0.0.1', '\\127.0.0.1') }),
    'SIGNATURE_BASE_INVALID',
    9,
  ],
];

describe('verifyRequest refuses the lenient forms', () => {
  it('the unmodified request verifies (each case has exactly one defect)', async () => {
    expect(await verify(base)).toMatchObject({ ok: true });
  });
  for (const [name, make, code, step] of CASES) {
    it(name, async () => {
      expect(await verify(make(base))).toMatchObject({ ok: false, code, step });
    });
  }
});

describe('the reference service answers them 401 with the same code', () => {
  let service: RunningReferenceService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.close());

  it('each Signature-Input and Signature form, over HTTP', async () => {
    const nonce = (i: number) => `strict-http-${i}`;
    const forms: ReadonlyArray<
      readonly [(v: string, n: string) => string, 'signature-input' | 'signature', string]
    > = [
      [
        (v, n) => v.replace(`;nonce="${n}"`, `;nonce="x";nonce="${n}"`),
        'signature-input',
        'SIGNATURE_INPUT_MALFORMED',
      ],
      [
        (v) => v.replace(/;keyid="([^"]*)"/, ';keyid="nokey";keyid="$1"'),
        'signature-input',
        'SIGNATURE_INPUT_MALFORMED',
      ],
      [
        (v) => v.replace(/created=(\d+)/, 'created=$1.0'),
        'signature-input',
        'SIGNATURE_INPUT_MALFORMED',
      ],
      [
        (v) => v.replace(/created=(\d+)/, 'created=0$1'),
        'signature-input',
        'SIGNATURE_INPUT_MALFORMED',
      ],
      [(v) => `${v};x=1`, 'signature', 'SIGNATURE_MALFORMED'],
    ];
    for (const [i, [change, header, code]] of forms.entries()) {
      const req = signed(service, '/api/payouts', payoutBody(service), { nonce: nonce(i) });
      const headers = (req.headers ?? []).map(
        ([n, v]) => [n, n === header ? change(v, nonce(i)) : v] as [string, string],
      );
      const res = await send(service.baseUrl, { ...req, headers });
      expect({ i, status: res.status, code: res.headers['x-payconform-error-code'] }).toEqual({
        i,
        status: 401,
        code,
      });
    }
  });

  it('a Host written as a non-canonical IPv4 address', async () => {
    for (const host of ['127.0.01', '0x7f.1', '2130706433']) {
      const req = signed(service, '/api/payouts', payoutBody(service), {
        nonce: `strict-host-${host}`,
      });
      const headers = [
        ['host', `${host}:${service.port}`] as [string, string],
        ...(req.headers ?? []),
      ];
      const res = await send(service.baseUrl, { ...req, headers });
      expect({ host, status: res.status, code: res.headers['x-payconform-error-code'] }).toEqual({
        host,
        status: 401,
        code: 'SIGNATURE_BASE_INVALID',
      });
    }
  });
});
