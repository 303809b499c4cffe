// The audit's broken requests break exactly one thing: with nothing broken, signBroken makes the very headers
// signRequest makes; each breakage is rejected by the strict verifier with the code of the rule it breaks (and
// only that rule: the same request with the rule's check switched off verifies).
import { describe, expect, it } from 'vitest';
import {
  signBroken,
  signCorrectly,
  withoutHeaders,
  type Breakage,
} from '../conformance/checks/server/forge.js';
import { computeContentDigest } from '../src/digest/content-digest.js';
import type { HttpRequest } from '../src/http/message.js';
import { MemoryNonceStore } from '../src/profile/nonce-store.js';
import {
  createVerificationPolicy,
  type PolicyEnforcement,
} from '../src/profile/verification-policy.js';
import { serviceProfile } from '../src/profile/service-profile.js';
import { verifyRequest } from '../src/profile/verify-request.js';
import { loadTestKeys } from './fixtures/keys.js';

const key = loadTestKeys().clientEd25519;
const credentials = {
  applicationId: '3f1c2a4e-8b7d-4c6a-9e5f-1a2b3c4d5e6f',
  applicationSecret: 'test-only-secret',
  keyId: 'test-only-key',
  privateKey: key.privateKey,
};
const request: HttpRequest = {
  method: 'POST',
  url: 'http://127.0.0.1:8080/api/payouts',
  headers: [
    ['content-type', 'application/vnd.service.v1.0+json'],
    ['accept', 'application/vnd.service.v1.0+json'],
  ],
  body: new TextEncoder().encode('{"amount":0.01,"reference":"pc-0123456789abcdef"}'),
};
const now = Math.floor(Date.now() / 1000);

async function verify(r: HttpRequest, enforce: Partial<PolicyEnforcement> = {}) {
  return verifyRequest(r, {
    now,
    nonceStore: new MemoryNonceStore(),
    resolveApplication: (id) =>
      id === credentials.applicationId
        ? {
            secret: credentials.applicationSecret,
            publicKeys: new Map([[credentials.keyId, key.publicKey]]),
          }
        : undefined,
    policy: createVerificationPolicy({ enforce }),
  });
}

describe('signBroken with nothing broken is signRequest', () => {
  it('gives byte-identical headers for the same created and nonce', async () => {
    const a = signBroken(request, credentials, { created: now, nonce: 'fixed-nonce-1' });
    const b = signCorrectly(request, credentials, { created: now, nonce: 'fixed-nonce-1' });
    expect(a.headers).toEqual(b.headers);
    expect((await verify(a)).ok).toBe(true);
  });
});

const cases: ReadonlyArray<[string, Breakage, string, Partial<PolicyEnforcement> | undefined]> = [
  ['no nonce', { nonce: null }, 'NONCE_MISSING', { nonce: false }],
  [
    'nonce of 51 characters',
    { nonce: 'n'.repeat(serviceProfile.nonceMaxLength + 1) },
    'NONCE_TOO_LONG',
    { nonce: false },
  ],
  ['alg rsa-pss-sha512', { alg: 'rsa-pss-sha512' }, 'ALG_UNSUPPORTED', { alg: false }],
  [
    'components reordered',
    { components: ['@path', '@method', ...serviceProfile.componentNames.slice(2)] },
    'COMPONENTS_MISMATCH',
    { components: false },
  ],
  [
    'x-application-secret not covered',
    { components: serviceProfile.componentNames.filter((c) => c !== 'x-application-secret') },
    'COMPONENTS_MISMATCH',
    { components: false },
  ],
  ['a second label', { extraLabel: 'sig2' }, 'LABEL_UNSUPPORTED', { label: false }],
  ['no Content-Digest', { contentDigest: null }, 'DIGEST_MISSING', { digest: false }],
  [
    'a Content-Digest of other bytes',
    { contentDigest: computeContentDigest(new TextEncoder().encode('{}'), ['sha-512']) },
    'DIGEST_MISMATCH',
    { digest: false },
  ],
  [
    'no x-application-secret',
    { applicationSecret: null },
    'APPLICATION_SECRET_MISSING',
    { applicationSecret: false },
  ],
  ['created 301 s ago', { created: now - 301 }, 'CREATED_EXPIRED', { createdMaxAge: false }],
  [
    'created an hour ahead',
    { created: now + 3600 },
    'CREATED_IN_FUTURE',
    { createdMaxFuture: false },
  ],
  ['label sig2 only', { label: 'sig2' }, 'LABEL_UNSUPPORTED', undefined],
  ['no x-application-id', { applicationId: null }, 'APPLICATION_ID_MISSING', undefined],
  ['an unknown keyid', { keyId: 'no-such-key' }, 'KEY_UNKNOWN', undefined],
  [
    'a signature over another @path',
    { signedUrl: 'http://127.0.0.1:8080/api/v2/payouts' },
    'SIGNATURE_INVALID',
    undefined,
  ],
  [
    'a signature over another @authority',
    { signedUrl: 'http://payconform-other.invalid:8443/api/payouts' },
    'SIGNATURE_INVALID',
    undefined,
  ],
];

describe('each breakage fails the strict verifier at its own rule', () => {
  it.each(cases)('%s → %s', async (_name, breakage, code, relaxed) => {
    const broken = signBroken(request, credentials, breakage);
    const strict = await verify(broken);
    expect(strict.ok).toBe(false);
    if (!strict.ok) expect(strict.code).toBe(code);
    // Nothing else is broken: with that one rule off, the same request verifies.
    if (relaxed !== undefined) expect((await verify(broken, relaxed)).ok).toBe(true);
  });

  it('removing a signature header is caught at step 1', async () => {
    const r1 = await verify(withoutHeaders(signCorrectly(request, credentials), 'signature'));
    const r2 = await verify(withoutHeaders(signCorrectly(request, credentials), 'signature-input'));
    expect(r1.ok || r1.code).toBe('SIGNATURE_MISSING');
    expect(r2.ok || r2.code).toBe('SIGNATURE_INPUT_MISSING');
  });
});
