import { describe, expect, it } from 'vitest';
import { toFieldLines, type HttpRequest } from '../src/http/message.js';
import {
  applySignedHeaders,
  signRequest,
  type SigningCredentials,
} from '../src/profile/sign-request.js';
import {
  verifyRequest,
  type ApplicationRecord,
  type VerifyOptions,
  type VerifyResult,
} from '../src/profile/verify-request.js';
import { MemoryNonceStore, type NonceStore } from '../src/profile/nonce-store.js';
import {
  createVerificationPolicy,
  defaultVerificationPolicy,
} from '../src/profile/verification-policy.js';
import { verifyErrorCodes, type VerifyErrorCode } from '../src/profile/verify-error-codes.js';
import { backends } from '../src/ed25519/index.js';
import { computeContentDigest } from '../src/digest/content-digest.js';
import { loadTestKeys } from './fixtures/keys.js';

const enc = (s: string) => new TextEncoder().encode(s);
const keys = loadTestKeys();
const credentials: SigningCredentials = {
  applicationId: 'app-1',
  applicationSecret: 'test-only-secret-1',
  keyId: 'key-1',
  privateKey: keys.clientEd25519.privateKey,
};
const NOW = 1_767_225_600;
const NONCE = 'nonce-0001';
const application: ApplicationRecord = {
  secret: credentials.applicationSecret,
  publicKeys: new Map([
    ['key-1', keys.clientEd25519.publicKey],
    ['rfc-key', keys.rfc9421Ed25519.publicKey],
  ]),
};
const resolveApplication = (id: string) => (id === 'app-1' ? application : undefined);
const BODY = '{"amount":10.5,"reference":"INV-1"}';
const unsigned: HttpRequest = {
  method: 'POST',
  url: 'https://api.example.com/api/payouts',
  headers: toFieldLines({ 'Content-Type': 'application/vnd.service.v1.0+json' }),
  body: enc(BODY),
};

function signed(
  request: HttpRequest = unsigned,
  opts: { created?: number; nonce?: string; creds?: Partial<SigningCredentials> } = {},
): HttpRequest {
  const r = signRequest(
    request,
    { ...credentials, ...opts.creds },
    { created: opts.created ?? NOW, nonce: opts.nonce ?? NONCE },
  );
  return applySignedHeaders(request, r.headers);
}
function options(extra: Partial<VerifyOptions> = {}): VerifyOptions {
  return { now: NOW, nonceStore: new MemoryNonceStore(), resolveApplication, ...extra };
}
function setHeader(request: HttpRequest, name: string, value: string | undefined): HttpRequest {
  const headers = request.headers.filter(([n]) => n.toLowerCase() !== name);
  return { ...request, headers: value === undefined ? headers : [...headers, [name, value]] };
}
function header(request: HttpRequest, name: string): string {
  return request.headers.find(([n]) => n.toLowerCase() === name)![1];
}
function expectFailure(result: VerifyResult, code: VerifyErrorCode, step: number): void {
  expect(result).toMatchObject({ ok: false, code, step });
  expect(verifyErrorCodes[code].steps).toContain(step);
}
/** Re-signs a request whose Signature-Input was edited, so only the targeted check can fail. */
function resignWithInput(
  request: HttpRequest,
  input: string,
  privateKey = credentials.privateKey,
): HttpRequest {
  return setHeader(
    setHeader(request, 'signature-input', input),
    'signature',
    'sig1=:' + Buffer.alloc(64).toString('base64') + ':',
  );
}

describe('verifyRequest: accepts a correctly signed request', () => {
  for (const backend of backends) {
    it(`POST with body (${backend.name})`, async () => {
      const result = await verifyRequest(signed(), options({ backend }));
      expect(result).toMatchObject({
        ok: true,
        applicationId: 'app-1',
        keyId: 'key-1',
        created: NOW,
        nonce: NONCE,
      });
      if (result.ok) expect(result.signatureBase.split('\n')).toHaveLength(9);
    });
  }
  it('exact boundaries: created exactly 300 s old; nonce of exactly 50 characters', async () => {
    expect((await verifyRequest(signed(unsigned, { created: NOW - 300 }), options())).ok).toBe(
      true,
    );
    expect((await verifyRequest(signed(unsigned, { nonce: 'n'.repeat(50) }), options())).ok).toBe(
      true,
    );
  });
  it('header names in any case, Signature split over field lines is combined', async () => {
    const s = signed();
    const upper: HttpRequest = {
      ...s,
      headers: s.headers.map(([n, v]) => [n.toUpperCase(), v] as const),
    };
    expect((await verifyRequest(upper, options())).ok).toBe(true);
  });
});

describe('verifyRequest: one stable code per failure, at the spec step', () => {
  it('step 1: Signature or Signature-Input missing; duplicated covered header', async () => {
    expectFailure(
      await verifyRequest(setHeader(signed(), 'signature', undefined), options()),
      'SIGNATURE_MISSING',
      1,
    );
    expectFailure(
      await verifyRequest(setHeader(signed(), 'signature-input', undefined), options()),
      'SIGNATURE_INPUT_MISSING',
      1,
    );
    const s = signed();
    expectFailure(
      await verifyRequest(
        { ...s, headers: [...s.headers, ['Content-Type', 'text/plain']] },
        options(),
      ),
      'HEADER_DUPLICATED',
      1,
    );
  });

  it('step 2: malformed fields, labels, components, alg, parameters', async () => {
    const s = signed();
    const input = header(s, 'signature-input');
    const sig = header(s, 'signature');
    const v = (r: HttpRequest) => verifyRequest(r, options());
    expectFailure(
      await v(setHeader(s, 'signature-input', 'sig1=(')),
      'SIGNATURE_INPUT_MALFORMED',
      2,
    );
    expectFailure(
      await v(setHeader(s, 'signature-input', input.replace(/created=\d+/, 'created="1"'))),
      'SIGNATURE_INPUT_MALFORMED',
      2,
    );
    expectFailure(await v(setHeader(s, 'signature', 'sig1=abc')), 'SIGNATURE_MALFORMED', 2);
    expectFailure(
      await v(setHeader(s, 'signature', sig.replace('==:', ':'))),
      'SIGNATURE_MALFORMED',
      2,
    );
    expectFailure(await v(setHeader(s, 'signature', 'sig1=:AAAA:')), 'SIGNATURE_MALFORMED', 2);
    expectFailure(
      await v(setHeader(s, 'signature', sig.replace('sig1', 'sig2'))),
      'SIGNATURE_MALFORMED',
      2,
    );
    expectFailure(await v(setHeader(s, 'signature', `${sig}, ${sig}`)), 'LABEL_DUPLICATED', 2);
    expectFailure(
      await v(setHeader(s, 'signature-input', `${input}, ${input}`)),
      'LABEL_DUPLICATED',
      2,
    );
    expectFailure(
      await v(setHeader(s, 'signature-input', input.replace('sig1=', 'sig2='))),
      'LABEL_UNSUPPORTED',
      2,
    );
    expectFailure(
      await v(setHeader(s, 'signature-input', `${input}, other=("@method");created=1`)),
      'LABEL_UNSUPPORTED',
      2,
    );
    expectFailure(
      await v(resignWithInput(s, input.replace(' "x-application-secret"', ''))),
      'COMPONENTS_MISMATCH',
      2,
    );
    expectFailure(
      await v(resignWithInput(s, input.replace('"@path" "@authority"', '"@authority" "@path"'))),
      'COMPONENTS_MISMATCH',
      2,
    );
    expectFailure(
      await v(resignWithInput(s, input.replace('"@path"', '"@path";sf'))),
      'COMPONENTS_MISMATCH',
      2,
    );
    expectFailure(
      await v(resignWithInput(s, input.replace('alg="ed25519"', 'alg="rsa-pss-sha512"'))),
      'ALG_UNSUPPORTED',
      2,
    );
    expectFailure(
      await v(resignWithInput(s, input.replace(/created=\d+;/, ''))),
      'CREATED_INVALID',
      2,
    );
    expectFailure(
      await v(resignWithInput(s, input.replace('keyid="key-1";', ''))),
      'KEY_ID_MISSING',
      2,
    );
    expectFailure(
      await v(resignWithInput(s, input.replace('keyid="key-1"', 'keyid=""'))),
      'KEY_ID_MISSING',
      2,
    );
    expectFailure(
      await v(resignWithInput(s, input.replace(';alg="ed25519"', ''))),
      'PARAMETERS_MISMATCH',
      2,
    );
    expectFailure(
      await v(resignWithInput(s, `${input};expires=${NOW + 60}`)),
      'PARAMETERS_MISMATCH',
      2,
    );
    expectFailure(
      await v(
        resignWithInput(
          s,
          input.replace(/created=(\d+);keyid="key-1"/, 'keyid="key-1";created=$1'),
        ),
      ),
      'PARAMETERS_MISMATCH',
      2,
    );
  });

  it('step 3: created too old or too far in the future', async () => {
    expectFailure(
      await verifyRequest(signed(unsigned, { created: NOW - 301 }), options()),
      'CREATED_EXPIRED',
      3,
    );
    expectFailure(
      await verifyRequest(signed(unsigned, { created: NOW + 301 }), options()),
      'CREATED_IN_FUTURE',
      3,
    );
  });

  it('step 4: nonce missing, too long, replayed', async () => {
    const input = header(signed(), 'signature-input');
    expectFailure(
      await verifyRequest(
        resignWithInput(signed(), input.replace(`;nonce="${NONCE}"`, '')),
        options(),
      ),
      'NONCE_MISSING',
      4,
    );
    expectFailure(
      await verifyRequest(
        resignWithInput(signed(), input.replace(`nonce="${NONCE}"`, 'nonce=""')),
        options(),
      ),
      'NONCE_MISSING',
      4,
    );
    expectFailure(
      await verifyRequest(
        resignWithInput(signed(), input.replace(NONCE, 'n'.repeat(51))),
        options(),
      ),
      'NONCE_TOO_LONG',
      4,
    );
    const nonceStore = new MemoryNonceStore();
    expect((await verifyRequest(signed(), options({ nonceStore }))).ok).toBe(true);
    expectFailure(await verifyRequest(signed(), options({ nonceStore })), 'NONCE_REPLAYED', 4);
  });

  it('step 5: application id missing or unknown', async () => {
    expectFailure(
      await verifyRequest(setHeader(signed(), 'x-application-id', undefined), options()),
      'APPLICATION_ID_MISSING',
      5,
    );
    expectFailure(
      await verifyRequest(setHeader(signed(), 'x-application-id', '  '), options()),
      'APPLICATION_ID_MISSING',
      5,
    );
    expectFailure(
      await verifyRequest(signed(unsigned, { creds: { applicationId: 'app-2' } }), options()),
      'APPLICATION_ID_UNKNOWN',
      5,
    );
  });

  it('step 6: application secret missing or wrong (even when correctly signed)', async () => {
    expectFailure(
      await verifyRequest(setHeader(signed(), 'x-application-secret', undefined), options()),
      'APPLICATION_SECRET_MISSING',
      6,
    );
    expectFailure(
      await verifyRequest(
        signed(unsigned, { creds: { applicationSecret: 'wrong-secret' } }),
        options(),
      ),
      'APPLICATION_SECRET_INVALID',
      6,
    );
    expectFailure(
      await verifyRequest(
        signed(unsigned, { creds: { applicationSecret: 'test-only-secret-1x' } }),
        options(),
      ),
      'APPLICATION_SECRET_INVALID',
      6,
    );
  });

  it('step 7: unknown key id', async () => {
    expectFailure(
      await verifyRequest(signed(unsigned, { creds: { keyId: 'key-9' } }), options()),
      'KEY_UNKNOWN',
      7,
    );
  });

  it('step 8: digest missing, malformed, wrong algorithm, mismatched, unexpected; body on GET', async () => {
    const s = signed();
    expectFailure(
      await verifyRequest(setHeader(s, 'content-digest', undefined), options()),
      'DIGEST_MISSING',
      8,
    );
    expectFailure(
      await verifyRequest(setHeader(s, 'content-digest', 'sha-512=abc'), options()),
      'DIGEST_MALFORMED',
      8,
    );
    expectFailure(
      await verifyRequest(
        setHeader(s, 'content-digest', computeContentDigest(s.body, ['sha-256'])),
        options(),
      ),
      'DIGEST_ALGORITHM_UNSUPPORTED',
      8,
    );
    expectFailure(
      await verifyRequest({ ...s, body: enc(BODY + ' ') }, options()),
      'DIGEST_MISMATCH',
      8,
    );
    const get: HttpRequest = {
      method: 'GET',
      url: 'https://api.example.com/api/payouts/1',
      headers: [],
      body: new Uint8Array(),
    };
    const g = signed(get);
    expectFailure(
      await verifyRequest(
        setHeader(g, 'content-digest', computeContentDigest(new Uint8Array())),
        options(),
      ),
      'DIGEST_UNEXPECTED',
      8,
    );
    expectFailure(await verifyRequest({ ...g, body: enc('x') }, options()), 'BODY_UNEXPECTED', 8);
  });

  it('step 9: the base cannot be rebuilt', async () => {
    const s = signed();
    expectFailure(
      await verifyRequest(setHeader(s, 'content-type', 'caf\u00e9'), options()),
      'SIGNATURE_BASE_INVALID',
      9,
    );
    expectFailure(
      await verifyRequest({ ...s, url: 'https://user@api.example.com/api/payouts' }, options()),
      'SIGNATURE_BASE_INVALID',
      9,
    );
  });

  it('step 10: any change to a covered component, the digest header or the signature', async () => {
    const s = signed();
    const v = (r: HttpRequest) => verifyRequest(r, options());
    expectFailure(await v({ ...s, method: 'PUT' }), 'SIGNATURE_INVALID', 10);
    expectFailure(
      await v({ ...s, url: 'https://api.example.com/api/payouts?x=1' }),
      'SIGNATURE_INVALID',
      10,
    );
    expectFailure(
      await v({ ...s, url: 'https://api.example.com:8443/api/payouts' }),
      'SIGNATURE_INVALID',
      10,
    );
    expectFailure(
      await v(setHeader(s, 'content-type', 'application/json')),
      'SIGNATURE_INVALID',
      10,
    );
    expectFailure(await v(setHeader(s, 'content-length', '999')), 'SIGNATURE_INVALID', 10);
    const other = enc('{"amount":99}');
    expectFailure(
      await v(setHeader({ ...s, body: other }, 'content-digest', computeContentDigest(other))),
      'SIGNATURE_INVALID',
      10,
    );
    const input = header(s, 'signature-input');
    expectFailure(
      await v(
        setHeader(s, 'signature-input', input.replace(`created=${NOW}`, `created=${NOW - 1}`)),
      ),
      'SIGNATURE_INVALID',
      10,
    );
    expectFailure(
      await v(setHeader(s, 'signature-input', input.replace(NONCE, 'nonce-0002'))),
      'SIGNATURE_INVALID',
      10,
    );
    const sigBytes = Buffer.from(header(s, 'signature').slice(6, -1), 'base64');
    sigBytes[0]! ^= 1;
    expectFailure(
      await v(setHeader(s, 'signature', `sig1=:${sigBytes.toString('base64')}:`)),
      'SIGNATURE_INVALID',
      10,
    );
    // Signed by another registered key of the same application, but claiming key-1.
    const byRfcKey = signRequest(
      unsigned,
      { ...credentials, privateKey: keys.rfc9421Ed25519.privateKey },
      { created: NOW, nonce: NONCE },
    );
    expectFailure(await v(applySignedHeaders(unsigned, byRfcKey.headers)), 'SIGNATURE_INVALID', 10);
  });

  it('step 11: of concurrent requests with one nonce, exactly one is accepted', async () => {
    // A synchronous store (MemoryNonceStore) is never awaited, so the requests run one after another: the
    // losers are caught at step 4.
    const nonceStore = new MemoryNonceStore();
    const s = signed();
    const results = await Promise.all(
      Array.from({ length: 20 }, () => verifyRequest(s, options({ nonceStore }))),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    const failures = results.filter((r) => !r.ok);
    expect(failures).toHaveLength(19);
    for (const f of failures) expect(f).toMatchObject({ code: 'NONCE_REPLAYED' });
    // A store that answers asynchronously (as a shared store does) lets every request pass step 4 before any
    // records the nonce: the atomic checkAndRecord of step 11 still admits exactly one.
    const memory = new MemoryNonceStore();
    const asyncStore: NonceStore = {
      has: async (n, now) => memory.has(n, now),
      checkAndRecord: async (n, now, expiresAt) => memory.checkAndRecord(n, now, expiresAt),
    };
    const raced = await Promise.all(
      Array.from({ length: 20 }, () => verifyRequest(s, options({ nonceStore: asyncStore }))),
    );
    expect(raced.filter((r) => r.ok)).toHaveLength(1);
    const lost = raced.filter((r) => !r.ok);
    expect(lost).toHaveLength(19);
    for (const f of lost) expect(f).toMatchObject({ code: 'NONCE_REPLAYED', step: 11 });
  });
});

describe('verifyRequest: nonce handling and hostile input', () => {
  it('records the nonce only after the signature verified', async () => {
    const nonceStore = new MemoryNonceStore();
    const s = signed();
    expectFailure(
      await verifyRequest({ ...s, method: 'PUT' }, options({ nonceStore })),
      'SIGNATURE_INVALID',
      10,
    );
    expectFailure(
      await verifyRequest(
        signed(unsigned, { creds: { applicationSecret: 'bad' } }),
        options({ nonceStore }),
      ),
      'APPLICATION_SECRET_INVALID',
      6,
    );
    expect(nonceStore.size).toBe(0);
    expect((await verifyRequest(s, options({ nonceStore }))).ok).toBe(true);
    expect(nonceStore.size).toBe(1);
  });

  it('a failing or full nonce store fails closed', async () => {
    const broken: NonceStore = {
      has: () => Promise.reject(new Error('down')),
      checkAndRecord: () => true,
    };
    expectFailure(
      await verifyRequest(signed(), options({ nonceStore: broken })),
      'NONCE_STORE_UNAVAILABLE',
      4,
    );
    const full = new MemoryNonceStore({ maxEntries: 1 });
    expect(
      (await verifyRequest(signed(unsigned, { nonce: 'a' }), options({ nonceStore: full }))).ok,
    ).toBe(true);
    expectFailure(
      await verifyRequest(signed(unsigned, { nonce: 'b' }), options({ nonceStore: full })),
      'NONCE_STORE_UNAVAILABLE',
      11,
    );
  });

  it('step 11 names the owner (application and key) to the store; a full share refuses that application only', async () => {
    const owners: unknown[] = [];
    const memory = new MemoryNonceStore({ maxEntries: 10, maxEntriesPerApplication: 1 });
    const spy: NonceStore = {
      has: (n, now) => memory.has(n, now),
      checkAndRecord: (n, now, expiresAt, owner) => {
        owners.push(owner);
        return memory.checkAndRecord(n, now, expiresAt, owner);
      },
    };
    const other: ApplicationRecord = {
      secret: 'test-only-secret-2',
      publicKeys: new Map([['key-2', keys.clientEd25519.publicKey]]),
    };
    const resolveTwo = (id: string) =>
      id === 'app-1' ? application : id === 'app-2' ? other : undefined;
    const fromApp2 = (nonce: string) =>
      signed(unsigned, {
        nonce,
        creds: { applicationId: 'app-2', applicationSecret: 'test-only-secret-2', keyId: 'key-2' },
      });
    expect(
      (
        await verifyRequest(
          signed(unsigned, { nonce: 'a' }),
          options({ nonceStore: spy, resolveApplication: resolveTwo }),
        )
      ).ok,
    ).toBe(true);
    expect(owners).toEqual([{ applicationId: 'app-1', keyId: 'key-1' }]);
    const refused = await verifyRequest(
      signed(unsigned, { nonce: 'b' }),
      options({ nonceStore: spy, resolveApplication: resolveTwo }),
    );
    expectFailure(refused, 'NONCE_STORE_UNAVAILABLE', 11);
    expect(refused.ok || refused.message).toContain('share');
    expect(
      (
        await verifyRequest(
          fromApp2('c'),
          options({ nonceStore: spy, resolveApplication: resolveTwo }),
        )
      ).ok,
    ).toBe(true);
    expect(owners.at(-1)).toEqual({ applicationId: 'app-2', keyId: 'key-2' });
  });

  it('never throws on hostile requests or throwing callbacks', async () => {
    const s = signed();
    const hostile: unknown[] = [
      null,
      undefined,
      42,
      {},
      { ...s, headers: null },
      { ...s, body: 'text' },
      { ...s, headers: [[1, 2]] },
      { ...s, headers: [...s.headers, ['x-only-name']] },
      { ...s, headers: ['x: y'] },
      { ...s, url: 42 },
    ];
    for (const h of hostile)
      expectFailure(await verifyRequest(h as HttpRequest, options()), 'REQUEST_MALFORMED', 1);
    const throwing = await verifyRequest(
      s,
      options({
        resolveApplication: () => {
          throw new Error('db down');
        },
      }),
    );
    // The service's own failure, never a client-error code (test/verify-request-resolver.test.ts has the rest).
    expectFailure(throwing, 'APPLICATION_LOOKUP_FAILED', 5);
    for (const value of [
      '',
      ',',
      'sig1=()',
      'sig1=("@method" 1)',
      '\u0000',
      'a'.repeat(10_000),
      'sig1=("@method");created=99999999999999999999',
    ]) {
      const r = await verifyRequest(setHeader(s, 'signature-input', value), options());
      expect(r.ok).toBe(false);
    }
  });

  it('the error-code table documents every code with a step', () => {
    for (const [code, entry] of Object.entries(verifyErrorCodes)) {
      expect(code).toMatch(/^[A-Z_]+$/);
      expect(entry.steps).toContain(entry.step);
      for (const s of entry.steps) expect(s >= 1 && s <= 12).toBe(true);
      expect(entry.description.length).toBeGreaterThan(10);
    }
  });
});

describe('VerificationPolicy: every check is a policy field, strict by default', () => {
  it('the default is strict and frozen', () => {
    expect(Object.values(defaultVerificationPolicy.enforce).every((v) => v === true)).toBe(true);
    expect(Object.isFrozen(defaultVerificationPolicy.enforce)).toBe(true);
  });
  it('each weakened field lets exactly its own failure through, and the signature is still checked', async () => {
    const s = signed();
    const weak = (enforce: Parameters<typeof createVerificationPolicy>[0]) =>
      createVerificationPolicy(enforce);
    // digest off: a wrong digest header is ignored, but it is covered so the signature still breaks if changed.
    expect(
      (
        await verifyRequest(
          setHeader(s, 'content-digest', undefined),
          options({ policy: weak({ enforce: { digest: false } }) }),
        )
      ).ok,
    ).toBe(false);
    expect(
      (
        await verifyRequest(
          { ...s, body: enc('tampered') },
          options({ policy: weak({ enforce: { digest: false } }) }),
        )
      ).ok,
    ).toBe(true);
    expect(
      (
        await verifyRequest(
          signed(unsigned, { creds: { applicationSecret: 'bad' } }),
          options({ policy: weak({ enforce: { applicationSecret: false } }) }),
        )
      ).ok,
    ).toBe(true);
    expect(
      (
        await verifyRequest(
          signed(unsigned, { created: NOW - 1000 }),
          options({ policy: weak({ enforce: { createdMaxAge: false } }) }),
        )
      ).ok,
    ).toBe(true);
    expect(
      (
        await verifyRequest(
          signed(unsigned, { created: NOW + 1000 }),
          options({ policy: weak({ enforce: { createdMaxFuture: false } }) }),
        )
      ).ok,
    ).toBe(true);
    const nonceStore = new MemoryNonceStore();
    const noReplay = options({ nonceStore, policy: weak({ enforce: { replay: false } }) });
    expect((await verifyRequest(s, noReplay)).ok).toBe(true);
    expect((await verifyRequest(s, noReplay)).ok).toBe(true);
    expect(weak({ maxAgeSeconds: 10 }).maxAgeSeconds).toBe(10);
    expectFailure(
      await verifyRequest(
        { ...s, method: 'PUT' },
        options({
          policy: weak({
            enforce: {
              digest: false,
              replay: false,
              applicationSecret: false,
              createdMaxAge: false,
            },
          }),
        }),
      ),
      'SIGNATURE_INVALID',
      10,
    );
  });
  it('components off: a signature over fewer components verifies (the weak mode a conformance audit must catch)', async () => {
    const policy = createVerificationPolicy({ enforce: { components: false } });
    const input = header(signed(), 'signature-input').replace(' "x-application-secret"', '');
    expectFailure(
      await verifyRequest(resignWithInput(signed(), input), options({ policy })),
      'SIGNATURE_INVALID',
      10,
    );
  });
});
