// The profile's rules, once (src/profile/profile-rules.ts): every finding in the spec's order with its step and
// requirement, the verifier taking the first; the digest by method following the spec's table for every method.
import { describe, expect, it } from 'vitest';
import type { HttpRequest } from '../src/http/message.js';
import { bodyKindOf } from '../src/profile/body-kind.js';
import { MemoryNonceStore } from '../src/profile/nonce-store.js';
import { evaluateRequest } from '../src/profile/profile-rules.js';
import { serviceProfile } from '../src/profile/service-profile.js';
import {
  applySignedHeaders,
  signRequest,
  signRequestWithOverrides,
  type SignOverrides,
} from '../src/profile/sign-request.js';
import { verifyRequest } from '../src/profile/verify-request.js';
import { loadTestKeys } from './fixtures/keys.js';

const key = loadTestKeys().clientEd25519;
const credentials = {
  applicationId: 'app-1',
  applicationSecret: 'test-only-secret',
  keyId: 'key-1',
  privateKey: key.privateKey,
};
const NOW = 1767225600;

const request = (method: string, body = ''): HttpRequest => ({
  method,
  url: 'https://api.example.test/api/payouts',
  headers: [['content-type', 'application/vnd.service.v1.0+json']],
  body: new TextEncoder().encode(body),
});

const broken = (r: HttpRequest, overrides: SignOverrides): HttpRequest => {
  const signed = signRequestWithOverrides(r, credentials, {
    created: NOW,
    nonce: 'n-1',
    ...overrides,
  });
  return applySignedHeaders(r, signed.headers, signed.removed);
};

const verify = (r: HttpRequest, now = NOW) =>
  verifyRequest(r, {
    now,
    nonceStore: new MemoryNonceStore(),
    resolveApplication: () => ({
      secret: credentials.applicationSecret,
      publicKeys: new Map([[credentials.keyId, key.publicKey]]),
    }),
  });

describe('spec: Server verification order: every finding, in order; the verifier takes the first', () => {
  it('a valid request has no finding, and step 9 builds the base signRequest signed', () => {
    const r = request('POST', '{"amount":1}');
    const signed = signRequest(r, credentials, { created: NOW, nonce: 'n-0' });
    const evaluation = evaluateRequest(applySignedHeaders(r, signed.headers), NOW);
    expect(evaluation.findings).toEqual([]);
    expect(evaluation.signatureBase).toBe(signed.signatureBase);
  });

  it('four faults: four findings in step order, each with its requirement; verifyRequest gives the first', async () => {
    const signed = broken(request('POST', '{"amount":1}'), {
      alg: 'rsa-pss-sha512',
      created: NOW - 400,
      nonce: 'n'.repeat(serviceProfile.nonceMaxLength + 1),
    });
    const tampered = { ...signed, body: new TextEncoder().encode('{"amount":2}') };
    const { findings } = evaluateRequest(tampered, NOW);
    expect(findings.map((f) => [f.code, f.step, f.requirement])).toEqual([
      ['ALG_UNSUPPORTED', 2, 'SIG-PARAM-ALG'],
      ['CREATED_EXPIRED', 3, 'SIG-PARAM-CREATED'],
      ['NONCE_TOO_LONG', 4, 'LIMIT-NONCE'],
      ['DIGEST_MISMATCH', 8, 'DIGEST-EXACT-BYTES'],
    ]);
    expect(findings[2]!.message).toContain(`at most ${serviceProfile.nonceMaxLength}`);
    expect(findings[1]!.message).toContain(`more than ${serviceProfile.maxAgeSeconds} s`);
    const result = await verify(tampered);
    expect(result.ok ? 'ok' : [result.code, result.step]).toEqual(['ALG_UNSUPPORTED', 2]);
  });
});

describe("spec: Authentication, the headers' table: the digest by method, for every method", () => {
  it('the listed methods by the table; any other by whether the request carries body bytes', () => {
    expect(bodyKindOf('POST', 0)).toBe('body-carrying');
    expect(bodyKindOf('PATCH', 0)).toBe('body-carrying');
    expect(bodyKindOf('GET', 0)).toBe('bodyless');
    expect(bodyKindOf('DELETE', 3)).toBe('bodyless');
    expect(bodyKindOf('OPTIONS', 3)).toBe('body-carrying');
    expect(bodyKindOf('OPTIONS', 0)).toBe('bodyless');
  });

  it('signer, verifier and the evaluation agree on a method neither list names', async () => {
    const withBody = request('OPTIONS', 'x');
    const signed = signRequest(withBody, credentials, { created: NOW, nonce: 'n-2' });
    expect(Object.keys(signed.headers)).toContain('content-digest');
    expect(signed.headers['content-length']).toBe('1');
    expect((await verify(applySignedHeaders(withBody, signed.headers))).ok).toBe(true);

    const cases: Array<[HttpRequest, string]> = [
      [broken(withBody, { contentDigest: null }), 'DIGEST_MISSING'],
      [broken(request('OPTIONS'), { contentDigest: 'sha-512=:AAAA:' }), 'DIGEST_UNEXPECTED'],
    ];
    for (const [r, code] of cases) {
      const result = await verify(r);
      expect(result.ok ? 'ok' : result.code).toBe(code);
      expect(evaluateRequest(r, NOW).findings.map((f) => f.code)).toEqual([code]);
    }
  });
});
