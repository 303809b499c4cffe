// The verifier and the client audit agree on the profile: over valid signed requests and their mutations
// (each header, parameter, component, body byte, method, target and the clock), verifyRequest rejects with code X
// exactly when the client audit reports the requirement X maps to, and accepts exactly when the audit reports no
// failing rule of the verification order.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clientRuleMeta } from '../conformance/checks/client/index.js';
import { ClientSession, type ClientRuleId } from '../conformance/client-audit/evaluate-request.js';
import type { HttpRequest } from '../src/http/message.js';
import { MemoryNonceStore } from '../src/profile/nonce-store.js';
import { serviceProfile } from '../src/profile/service-profile.js';
import {
  applySignedHeaders,
  signRequestWithOverrides,
  type SignOverrides,
} from '../src/profile/sign-request.js';
import type { VerifyErrorCode } from '../src/profile/verify-error-codes.js';
import { verifyRequest, type VerifyResult } from '../src/profile/verify-request.js';
import { loadTestKeys } from './fixtures/keys.js';

const key = loadTestKeys().clientEd25519;
const credentials = {
  applicationId: '3f1c2a4e-8b7d-4c6a-9e5f-1a2b3c4d5e6f',
  applicationSecret: 'test-only-secret',
  keyId: 'test-only-key',
  privateKey: key.privateKey,
};
const NOW = 1767225600;
const URL_BASE = 'https://api.sandbox.payments.example';
const MEDIA_TYPE = 'application/vnd.service.v1.0+json';

/** The audit's rules that are not the verification order's (the endpoint, its media types and body schema). */
const OUTSIDE_THE_VERIFIER: ReadonlySet<ClientRuleId> = new Set([
  'client-endpoint',
  'client-content-type',
  'client-accept',
  'client-request-body',
]);

/** What a signature that does not verify is reported under (SIG-SIGN, or the mistake the diagnosis names). */
const BASE_REQUIREMENTS = clientRuleMeta['client-signature-verifies'].requirements;

/** The requirement(s) the audit reports a verification code under (data, not the code that files findings). */
const requirementsOf: Partial<Record<VerifyErrorCode, readonly string[]>> = {
  SIGNATURE_MISSING: ['SIG-PAYOUT-CREATE-SIGNED', 'SIG-HEADERS-BODY', 'SIG-HEADERS-BODYLESS'],
  SIGNATURE_INPUT_MISSING: ['SIG-PAYOUT-CREATE-SIGNED', 'SIG-HEADERS-BODY', 'SIG-HEADERS-BODYLESS'],
  HEADER_DUPLICATED: [
    'APP-ID-REQUIRED',
    'APP-SECRET-SENT',
    'DIGEST-SHA512',
    'SIG-BASE-CONTENT-TYPE-LENGTH',
  ],
  SIGNATURE_INPUT_MALFORMED: ['SIG-INPUT-HEADER'],
  SIGNATURE_MALFORMED: ['SIG-SIGNATURE-HEADER', 'SIG-LABEL-SIG1'],
  LABEL_DUPLICATED: ['SIG-INPUT-HEADER', 'SIG-SIGNATURE-HEADER'],
  LABEL_UNSUPPORTED: ['SIG-LABEL-SIG1', 'SIG-INPUT-HEADER'],
  COMPONENTS_MISMATCH: ['SIG-BASE-COMPONENTS-ORDER'],
  ALG_UNSUPPORTED: ['SIG-PARAM-ALG'],
  CREATED_INVALID: ['SIG-PARAM-CREATED'],
  KEY_ID_MISSING: ['SIG-PARAM-KEYID'],
  PARAMETERS_MISMATCH: [
    'SIG-PROFILE-PARAM-ORDER',
    'SIG-INPUT-HEADER',
    'SIG-PARAM-ALG',
    'SIG-PARAM-NONCE',
  ],
  CREATED_EXPIRED: ['SIG-PARAM-CREATED'],
  CREATED_IN_FUTURE: ['SIG-PARAM-CREATED'],
  NONCE_MISSING: ['SIG-PARAM-NONCE'],
  NONCE_TOO_LONG: ['LIMIT-NONCE'],
  APPLICATION_ID_MISSING: ['APP-ID-REQUIRED'],
  APPLICATION_ID_UNKNOWN: ['SIG-BASE-APPLICATION-HEADERS'],
  APPLICATION_SECRET_MISSING: ['APP-SECRET-SENT'],
  APPLICATION_SECRET_INVALID: ['APP-SECRET-SENT'],
  KEY_UNKNOWN: ['SIG-PARAM-KEYID'],
  DIGEST_MISSING: ['SIG-HEADERS-BODY'],
  DIGEST_MALFORMED: ['DIGEST-SHA512'],
  DIGEST_ALGORITHM_UNSUPPORTED: ['DIGEST-SHA512'],
  DIGEST_MISMATCH: ['DIGEST-EXACT-BYTES'],
  DIGEST_UNEXPECTED: ['SIG-HEADERS-BODYLESS'],
  BODY_UNEXPECTED: ['SIG-HEADERS-BODYLESS'],
  SIGNATURE_BASE_INVALID: ['SIG-SIGN', ...BASE_REQUIREMENTS],
  SIGNATURE_INVALID: BASE_REQUIREMENTS,
};

// ---- valid signed requests, signed with or without one deliberate break ----

const bodyArb = fc.oneof(
  fc
    .record({
      amount: fc.integer({ min: 1, max: 10_000 }),
      reference: fc.string({ unit: fc.constantFrom(...'0123456789abcdef') }),
    })
    .map((o) => JSON.stringify(o)),
  fc.string(),
);

/** Breaks made while signing: the signature is valid over the base it claims. */
const overridesArb: fc.Arbitrary<SignOverrides> = fc.oneof(
  { weight: 10, arbitrary: fc.constant({}) },
  fc.record({
    nonce: fc.oneof(
      fc.constant(null),
      fc.constant(''),
      fc.string({ minLength: 45, maxLength: 56 }),
    ),
  }),
  fc.record({ alg: fc.constantFrom(null, 'ED25519', 'rsa-pss-sha512', '') }),
  fc.record({ keyId: fc.constantFrom('', 'other-key', `${credentials.keyId} `) }),
  fc.record({ label: fc.constantFrom('sig2', 'sig-1', 'sig') }),
  fc.record({ extraLabel: fc.constantFrom('sig2', 'a') }),
  fc.record({
    components: fc
      .shuffledSubarray([...serviceProfile.componentNames, 'accept', '@query'], { minLength: 0 })
      .filter((c) => c.length > 0),
  }),
  fc.record({ applicationId: fc.constantFrom(null, 'another-application') }),
  fc.record({ applicationSecret: fc.constantFrom(null, 'test-only-wrong-secret') }),
  fc.record({
    contentDigest: fc.constantFrom(
      null,
      'sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:',
      'sha-512=:AAAA:',
      'SHA-512=:z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg==:',
    ),
  }),
  fc.record({
    params: fc.constant([
      ['created', NOW],
      ['nonce', 'n-1'],
      ['keyid', credentials.keyId],
      ['alg', serviceProfile.alg],
    ] as const),
  }),
  fc.record({
    params: fc.constant([
      ['created', NOW],
      ['keyid', credentials.keyId],
      ['alg', serviceProfile.alg],
      ['nonce', 'n-2'],
      ['expires', NOW + 60],
    ] as const),
  }),
);

/** A payout creation signed at NOW with `overrides`. */
function signed(body: string, overrides: SignOverrides, nonce: string): HttpRequest {
  const request: HttpRequest = {
    method: 'POST',
    url: `${URL_BASE}/api/payouts`,
    headers: [
      ['content-type', MEDIA_TYPE],
      ['accept', MEDIA_TYPE],
    ],
    body: new TextEncoder().encode(body),
  };
  const result = signRequestWithOverrides(request, credentials, {
    created: NOW,
    nonce,
    ...overrides,
  });
  return applySignedHeaders(request, result.headers, result.removed);
}

// ---- mutations on the wire, after signing (at most one per case) ----

type Mutation = (r: HttpRequest) => HttpRequest;

const headerNames = [
  'signature',
  'signature-input',
  'content-digest',
  'content-type',
  'content-length',
  'x-application-id',
  'x-application-secret',
  'accept',
];

const setValue = (r: HttpRequest, name: string, f: (v: string) => string): HttpRequest => ({
  ...r,
  headers: r.headers.map(([n, v]) => [n, n.toLowerCase() === name ? f(v) : v] as const),
});

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 8, arbitrary: fc.constant((r: HttpRequest) => r) },
  fc.constantFrom(...headerNames).map((name) => (r: HttpRequest) => ({
    ...r,
    headers: r.headers.filter(([n]) => n.toLowerCase() !== name),
  })),
  fc.constantFrom(...headerNames).map((name) => (r: HttpRequest) => {
    const line = r.headers.find(([n]) => n.toLowerCase() === name);
    return line === undefined ? r : { ...r, headers: [...r.headers, line] };
  }),
  fc.tuple(fc.constantFrom(...headerNames), fc.string({ maxLength: 12 })).map(
    ([name, extra]) =>
      (r: HttpRequest) =>
        setValue(r, name, (v) => `${v}${extra}`),
  ),
  fc
    .tuple(
      fc.constantFrom(
        [/;created=(\d+)/, ';created=$1.5'],
        [/;created=\d+/, ''],
        [/;keyid="[^"]*"/, ';keyid="other-key"'],
        [/;alg="[^"]*"/, ';alg="hmac-sha256"'],
        [/;nonce="[^"]*"/, `;nonce="${'x'.repeat(51)}"`],
        [/;nonce="[^"]*"/, ';nonce=""'],
        [/;nonce="[^"]*"/, ''],
        [/^sig1=/, 'sig2='],
        [/"content-type" /, ''],
        [/"@method"/, '"@METHOD"'],
      ),
    )
    .map(
      ([[from, to]]) =>
        (r: HttpRequest) =>
          setValue(r, 'signature-input', (v) => v.replace(from as RegExp, to as string)),
    ),
  fc.nat().map((i) => (r: HttpRequest) => {
    if (r.body.length === 0) return r;
    const body = Uint8Array.from(r.body);
    body[i % body.length] = body[i % body.length]! ^ 0x01;
    return { ...r, body };
  }),
  fc
    .constantFrom('PUT', 'GET', 'DELETE', 'OPTIONS', 'post')
    .map((method) => (r: HttpRequest) => ({ ...r, method })),
  fc
    .constantFrom(
      `${URL_BASE}/api/payouts?x=1`,
      `${URL_BASE}:8443/api/payouts`,
      'https://other.example/api/payouts',
    )
    .map((url) => (r: HttpRequest) => ({ ...r, url })),
);

/** The verifier's clock against created: the window's bounds and beyond. */
const clockArb = fc.oneof(
  { weight: 2, arbitrary: fc.integer({ min: -30, max: 30 }) },
  fc.integer({ min: -400, max: 400 }),
  fc.constantFrom(
    -serviceProfile.maxFutureSkewSeconds - 1,
    -serviceProfile.maxFutureSkewSeconds,
    serviceProfile.maxAgeSeconds,
    serviceProfile.maxAgeSeconds + 1,
  ),
);

async function verify(request: HttpRequest, now: number): Promise<VerifyResult> {
  return verifyRequest(request, {
    now,
    nonceStore: new MemoryNonceStore(),
    resolveApplication: (id) =>
      id === credentials.applicationId
        ? {
            secret: credentials.applicationSecret,
            publicKeys: new Map([[credentials.keyId, key.publicKey]]),
          }
        : undefined,
  });
}

/** The audit's failing requirements on the request, arriving at `now`, by the verification order's rules. */
function auditViolations(request: HttpRequest, now: number): string[] {
  const session = new ClientSession(
    { ...credentials, publicKey: key.publicKey },
    // The clock-skew warning is payconform's, within the window; the diagnosis kept short.
    { clockSkewToleranceSeconds: serviceProfile.maxAgeSeconds, fullDiagnoses: 0 },
  );
  const examined = session.examine(request, now * 1000);
  return examined.outcomes
    .filter((o) => o.outcome === 'violation' && !OUTSIDE_THE_VERIFIER.has(o.rule))
    .map((o) => o.requirement ?? `(${o.rule}: ${o.message})`);
}

describe('spec: Server verification order: the verifier and the client audit judge the profile alike', () => {
  it('reject with code X ⇔ the audit reports X’s requirement; accept ⇔ no failing rule', async () => {
    let nonce = 0;
    await fc.assert(
      fc.asyncProperty(
        bodyArb,
        overridesArb,
        mutationArb,
        clockArb,
        async (body, overrides, mutate, skew) => {
          const request = mutate(signed(body, overrides, `nonce-${++nonce}`));
          const now = NOW + skew;
          const result = await verify(request, now);
          const violations = auditViolations(request, now);
          if (result.ok) {
            expect(violations, 'the verifier accepts, the audit reports').toEqual([]);
            return;
          }
          const expected = requirementsOf[result.code] ?? [];
          expect(
            violations.filter((v) => expected.includes(v)),
            `the verifier rejects with ${result.code} (${result.message}); the audit reports ${violations.join(', ') || 'nothing'}`,
          ).not.toEqual([]);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('every code the verifier gives from the request alone has a requirement the audit reports it under', () => {
    for (const code of Object.keys(requirementsOf) as VerifyErrorCode[])
      expect(requirementsOf[code]!.length, code).toBeGreaterThan(0);
  });
});
