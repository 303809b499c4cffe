import { describe, expect, it } from 'vitest';
import { toFieldLines, type HttpRequest } from '../src/http/message.js';
import { profileDeviations, serviceProfile } from '../src/profile/service-profile.js';
import {
  applySignedHeaders,
  signRequest,
  type SigningCredentials,
} from '../src/profile/sign-request.js';
import { verifyRequest, type ApplicationRecord } from '../src/profile/verify-request.js';
import { MemoryNonceStore } from '../src/profile/nonce-store.js';
import { nobleBackend } from '../src/ed25519/noble-backend.js';
import { loadTestKeys } from './fixtures/keys.js';

const enc = (s: string) => new TextEncoder().encode(s);
const key = loadTestKeys().clientEd25519;
const credentials: SigningCredentials = {
  applicationId: '3f6d2a0e-5b1c-4c7e-9a8b-0d1e2f3a4b5c',
  applicationSecret: 'test-only-application-secret',
  keyId: 'test-only-client-key-1',
  privateKey: key.privateKey,
};
const CREATED = 1_767_225_600; // 2026-01-01T00:00:00Z
const NONCE = '8b1f3c2e-6d4a-4f5b-9c7e-1a2b3c4d5e6f';
const application: ApplicationRecord = {
  secret: credentials.applicationSecret,
  publicKeys: new Map([[credentials.keyId, key.publicKey]]),
};
const resolveApplication = (id: string) =>
  id === credentials.applicationId ? application : undefined;

function post(
  url: string,
  body: string,
  headers: Record<string, string> = { 'Content-Type': 'application/vnd.service.v1.0+json' },
): HttpRequest {
  return { method: 'POST', url, headers: toFieldLines(headers), body: enc(body) };
}
function sign(request: HttpRequest, created = CREATED) {
  return signRequest(request, credentials, { created, nonce: NONCE });
}
function lines(base: string): string[] {
  return base.split('\n');
}

describe('the service profile as data (spec, Authentication)', () => {
  it('fixes the eight components, label, parameters, algorithm and limits', () => {
    expect(serviceProfile.componentNames).toEqual([
      '@method',
      '@path',
      '@authority',
      'content-digest',
      'content-type',
      'content-length',
      'x-application-id',
      'x-application-secret',
    ]);
    expect(serviceProfile.label).toBe('sig1');
    expect(serviceProfile.parameterOrder).toEqual(['created', 'keyid', 'alg', 'nonce']);
    expect(serviceProfile).toMatchObject({
      alg: 'ed25519',
      maxAgeSeconds: 300,
      maxFutureSkewSeconds: 300,
      nonceMaxLength: 50,
      digestAlgorithm: 'sha-512',
    });
    expect(Object.isFrozen(serviceProfile)).toBe(true);
  });

  it('the bytes on the wire for one signed POST (golden)', () => {
    const body =
      '{"applicationId":"3f6d2a0e-5b1c-4c7e-9a8b-0d1e2f3a4b5c","amount":10.5,"reference":"INV-1"}';
    const r = sign(post('https://api.example.com/api/payouts', body));
    expect(Object.keys(r.headers)).toEqual([
      'x-application-id',
      'x-application-secret',
      'content-digest',
      'content-length',
      'signature-input',
      'signature',
    ]);
    expect(r.headers['signature-input']).toBe(
      `sig1=("@method" "@path" "@authority" "content-digest" "content-type" "content-length" "x-application-id" "x-application-secret");created=${CREATED};keyid="test-only-client-key-1";alg="ed25519";nonce="${NONCE}"`,
    );
    expect(r.headers.signature).toMatch(/^sig1=:[A-Za-z0-9+/]{86}==:$/);
    // Pinned bytes (README "bytes on the wire"): the test-only client key, created 2026-01-01T00:00:00Z.
    expect(r.headers['content-digest']).toBe(
      'sha-512=:9HmWrihI0CmqFujbUoWaRBGPU6hmQm3C1fPslnnymmoHQig2EjuuxrED7DmmDDKNFAp9V197Xc0G4g0DFX/9BQ==:',
    );
    expect(r.headers.signature).toBe(
      'sig1=:8Xj0QzY7GXL2Xuvz9xz5yr898kmQC9YgdB43wJWyd6HUF3jvB1Ev7rU8uXwaQ94Se6whjJCH82c1dBU9fL5ICg==:',
    );
    expect(lines(r.signatureBase)).toEqual([
      '"@method": POST',
      '"@path": /api/payouts',
      '"@authority": api.example.com',
      `"content-digest": ${r.headers['content-digest']}`,
      '"content-type": application/vnd.service.v1.0+json',
      `"content-length": ${enc(body).length}`,
      `"x-application-id": ${credentials.applicationId}`,
      `"x-application-secret": ${credentials.applicationSecret}`,
      `"@signature-params": ${r.headers['signature-input']!.slice(5)}`,
    ]);
    // Deterministic: same inputs, same bytes, with either backend.
    expect(
      signRequest(post('https://api.example.com/api/payouts', body), credentials, {
        created: CREATED,
        nonce: NONCE,
        backend: nobleBackend,
      }),
    ).toEqual(r);
  });

  it('lists each deviation once with an id, the RFC rule, the profile rule and why', () => {
    const ids = profileDeviations.map((d) => d.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([
      'path-query',
      'absent-field-empty',
      'bodyless-components-covered',
      'authority-default-ports',
      'single-label',
      'fixed-components',
      'fixed-parameters',
      'nonce-rules',
      'freshness-window',
      'strict-parameters',
      'content-digest-profile',
    ]);
    for (const d of profileDeviations)
      for (const text of [d.title, d.rfcRule, d.profileRule, d.why])
        expect(text.length).toBeGreaterThan(10);
  });
});

describe('deviation path-query: @path carries the query unmodified', () => {
  it('keeps the query string exactly as sent (no decoding, no reordering)', () => {
    const r = sign(post('https://api.example.com/api/payouts?b=2&a=%20x+y', '{}'));
    expect(lines(r.signatureBase)[1]).toBe('"@path": /api/payouts?b=2&a=%20x+y');
  });
  it('no query: the path only; raw dot segments kept', () => {
    expect(lines(sign(post('https://api.example.com/api/./payouts', '{}')).signatureBase)[1]).toBe(
      '"@path": /api/./payouts',
    );
  });
});

describe('deviation absent-field-empty: an absent covered header gives an empty value', () => {
  it('the content-type line is `"content-type": ` with one trailing space', () => {
    const r = sign(post('https://api.example.com/api/payouts/1/commit', '', {}));
    expect(lines(r.signatureBase)[4]).toBe('"content-type": ');
  });
  it('and it verifies', async () => {
    const request = post('https://api.example.com/api/payouts/1/commit', '', {});
    const signed = applySignedHeaders(request, sign(request).headers);
    const result = await verifyRequest(signed, {
      now: CREATED,
      nonceStore: new MemoryNonceStore(),
      resolveApplication,
    });
    expect(result).toMatchObject({ ok: true });
  });
});

describe('deviation bodyless-components-covered: GET/DELETE still cover the three body headers', () => {
  for (const method of ['GET', 'DELETE']) {
    it(`${method}: no Content-Digest sent; content-digest, content-type, content-length lines are empty`, async () => {
      const request: HttpRequest = {
        method,
        url: 'https://api.example.com/api/payouts/1',
        headers: [],
        body: new Uint8Array(),
      };
      const r = sign(request);
      expect(r.headers['content-digest']).toBeUndefined();
      expect(r.headers['content-length']).toBeUndefined();
      expect(lines(r.signatureBase).slice(3, 6)).toEqual([
        '"content-digest": ',
        '"content-type": ',
        '"content-length": ',
      ]);
      const result = await verifyRequest(applySignedHeaders(request, r.headers), {
        now: CREATED,
        nonceStore: new MemoryNonceStore(),
        resolveApplication,
      });
      expect(result).toMatchObject({ ok: true });
    });
  }
  it('a GET with a body cannot be signed', () => {
    expect(() =>
      sign({ method: 'GET', url: 'https://a.example/', headers: [], body: enc('x') }),
    ).toThrow(TypeError);
  });
});

describe('deviation authority-default-ports: ports 80 and 443 dropped whatever the scheme, host lowercased', () => {
  it.each([
    ['https://API.Example.com:443/api/payouts', 'api.example.com'],
    ['http://api.example.com:80/api/payouts', 'api.example.com'],
    ['https://api.example.com:80/api/payouts', 'api.example.com'],
    ['http://api.example.com:443/api/payouts', 'api.example.com'],
    ['https://api.example.com:8443/api/payouts', 'api.example.com:8443'],
    ['http://127.0.0.1:3000/api/payouts', '127.0.0.1:3000'],
    ['https://[::1]:443/api/payouts', '[::1]'],
  ])('%s → %s', (url, authority) => {
    expect(lines(sign(post(url, '{}')).signatureBase)[2]).toBe(`"@authority": ${authority}`);
  });
});

describe('deviation freshness-window: created at most 300 s in the future', () => {
  const request = post('https://api.example.com/api/payouts', '{}');
  it.each([
    [300, true],
    [301, false],
  ])('created = now + %i → ok %s', async (ahead, ok) => {
    const signed = applySignedHeaders(request, sign(request, CREATED + ahead).headers);
    const result = await verifyRequest(signed, {
      now: CREATED,
      nonceStore: new MemoryNonceStore(),
      resolveApplication,
    });
    expect(result.ok).toBe(ok);
    if (!result.ok) expect(result).toMatchObject({ code: 'CREATED_IN_FUTURE', step: 3 });
  });
});

describe('signRequest', () => {
  it('keeps an existing content-length and replaces existing signature headers (any case)', () => {
    const request = post('https://a.example/p', 'abc', {
      'Content-Length': '3',
      'X-Application-Id': 'old',
      Signature: 'x',
    });
    const r = sign(request);
    expect(r.headers['content-length']).toBeUndefined();
    const applied = applySignedHeaders(request, r.headers);
    expect(applied.headers.filter(([n]) => n.toLowerCase() === 'x-application-id')).toEqual([
      ['x-application-id', credentials.applicationId],
    ]);
    expect(applied.headers.filter(([n]) => n.toLowerCase() === 'signature')).toHaveLength(1);
  });
  it('defaults: created is now and nonce a UUIDv4', () => {
    const before = Math.floor(Date.now() / 1000);
    const r = signRequest(post('https://a.example/p', '{}'), credentials);
    const input = r.headers['signature-input']!;
    const created = Number(/created=(\d+)/.exec(input)![1]);
    expect(created).toBeGreaterThanOrEqual(before);
    expect(created).toBeLessThanOrEqual(before + 2);
    expect(input).toMatch(
      /nonce="[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"$/,
    );
  });
  it('misuse is a TypeError; an unsignable request is a PayconformError with a code', () => {
    const request = post('https://a.example/p', '{}');
    expect(() => signRequest(request, { ...credentials, applicationSecret: 'a\nb' })).toThrow(
      TypeError,
    );
    expect(() => signRequest(request, credentials, { created: 1.5 })).toThrow(TypeError);
    expect(() => signRequest(request, credentials, { nonce: 'x'.repeat(51) })).toThrow(TypeError);
    expect(() => signRequest(request, credentials, { nonce: 'a"b\u00e9' })).toThrow(TypeError);
    expect(() => sign(post('https://a.example/p', '{}', { 'Content-Type': 'caf\u00e9' }))).toThrow(
      expect.objectContaining({ code: 'BASE_NOT_ASCII' }),
    );
    expect(() => sign(post('not-a-url', '{}'))).toThrow(
      expect.objectContaining({ code: 'TARGET_URI_INVALID' }),
    );
  });
});
