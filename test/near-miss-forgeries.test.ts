// Forgeries drawn from what implementations get wrong: the one table of client mistakes drives both
// the diagnosis and the forgeries (each mistake signed by signWithMistake is diagnosed as that very mistake), the
// near-miss credentials differ from the configured ones, and the two checks pass on the clean and alt services and
// fail on each near-miss fault of the reference service, citing the requirement the accepted forgery breaks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditTarget, startEmbeddedTarget } from '../cli/commands/audit-server.js';
import { MISTAKE_QUERY } from '../conformance/checks/server/client-mistake-forgeries.js';
import { nearMisses } from '../conformance/checks/server/credential-near-misses.js';
import { diagnoseSignature } from '../conformance/signatures/diagnose-signature.js';
import { signWithMistake } from '../conformance/signatures/mistaken-signature.js';
import {
  refusalRequirement,
  signatureMistakeIds,
  signatureMistakes,
  type SignatureMistakeId,
} from '../conformance/signatures/signature-mistakes.js';
import { loadCatalogue } from '../conformance/requirements.js';
import type { CheckResult, RunSummary } from '../conformance/run/result.js';
import type { HttpRequest } from '../src/http/message.js';
import { applySignedHeaders, signRequest } from '../src/profile/sign-request.js';
import type { FaultName, ServiceVariant } from '../server/index.js';
import { loadTestKeys } from './fixtures/keys.js';

const key = loadTestKeys().clientEd25519;
const credentials = {
  applicationId: '6f1c1d2e-3b4a-4c5d-8e9f-0a1b2c3d4e5f',
  applicationSecret: 'test-only-secret-n3armiss',
  keyId: 'test-key',
  privateKey: key.privateKey,
};

function signed(request: HttpRequest): HttpRequest {
  return applySignedHeaders(request, signRequest(request, credentials).headers);
}

const payout = (url: string): HttpRequest =>
  signed({
    method: 'POST',
    url,
    headers: [
      ['Host', new URL(url).host],
      ['content-type', 'application/vnd.service.v1.0+json'],
    ],
    body: new TextEncoder().encode('{"amount":0.01,"reference":"Zoë"}'),
  });

/** A request each mistake changes the base of: a query for the @path mistakes, no body for the empty-line ones. */
function requestFor(mistake: SignatureMistakeId): HttpRequest {
  if (mistake === 'empty-value-without-space' || mistake === 'empty-lines-omitted')
    return signed({
      method: 'GET',
      url: 'http://127.0.0.1:8080/api/payouts/1',
      headers: [['Host', '127.0.0.1:8080']],
      body: new Uint8Array(),
    });
  if (mistake === 'authority-with-port') return payout('https://api.example.com/api/payouts');
  return payout(`http://127.0.0.1:8080/api/payouts${MISTAKE_QUERY}`);
}

const MISTAKES = signatureMistakeIds;

describe('one table drives the diagnosis and the forgeries', () => {
  it.each(MISTAKES)('%s: the request signWithMistake forges is diagnosed as that mistake', (m) => {
    const forged = signWithMistake(requestFor(m), m, key.privateKey);
    expect(forged.ok).toBe(true);
    if (!forged.ok) return;
    const d = diagnoseSignature(forged.request, { publicKey: key.publicKey });
    expect(d.status === 'found' && d.mistakes).toEqual([m]);
    expect(d.status === 'found' && d.requirement).toBe(signatureMistakes[m].requirement);
  });

  it('a mistake that leaves the base unchanged is not forged, and a correct request verifies', () => {
    const plain = payout('http://127.0.0.1:8080/api/payouts');
    const none = signWithMistake(plain, 'path-without-query', key.privateKey);
    expect(none).toEqual({
      ok: false,
      reason: 'the mistake leaves the base of this request unchanged',
    });
    expect(diagnoseSignature(plain, { publicKey: key.publicKey }).status).toBe('verified');
    const unsigned = { ...plain, headers: [] };
    expect(signWithMistake(unsigned, 'crlf-line-endings', key.privateKey).ok).toBe(false);
  });

  it('every refusal requirement is a server MUST the spec states', () => {
    const catalogue = loadCatalogue();
    for (const m of MISTAKES) {
      const req = catalogue.byId.get(refusalRequirement(m));
      expect(req?.level, m).toBe('MUST');
      expect(req?.shown, m).toBe(true);
      expect(req?.appliesTo, m).toContain('server');
    }
  });
});

describe('near-miss credentials', () => {
  it('each differs from the value, none is empty, and a value without letters has no case swap', () => {
    for (const value of [credentials.applicationId, credentials.applicationSecret, 'k', '1234']) {
      const misses = nearMisses(value);
      for (const m of misses) {
        expect(m.value).not.toBe(value);
        expect(m.value).not.toBe('');
      }
      expect(misses.some((m) => m.kind === 'case')).toBe(/[a-z]/i.test(value));
    }
    expect(nearMisses('test-key').map((m) => m.value)).toEqual([
      'aest-key',
      'testakey',
      'test-kea',
      'TEST-KEY',
      'test-ke',
      'test-key0',
      ' test-key ',
    ]);
  });
});

const webhookSigningKey = loadTestKeys().webhookRsa.privatePem;
const IDS = ['credential-near-misses', 'client-mistake-forgeries'] as const;

async function audit(
  faults: readonly FaultName[],
  variant: ServiceVariant = 'clean',
): Promise<{ summary: RunSummary; secret: string }> {
  const target = await startEmbeddedTarget({ faults, webhookSigningKey, variant });
  try {
    const summary = await auditTarget(target, { only: [...IDS] });
    return { summary, secret: target.context.credentials?.applicationSecret ?? '' };
  } finally {
    await target.close();
  }
}

const result = (s: RunSummary, id: string): CheckResult | undefined =>
  s.results.find((r) => r.id === id);
const explain = (r: CheckResult | undefined): string =>
  JSON.stringify(r?.findings.filter((f) => f.outcome !== 'pass').map((f) => f.message));

describe.each(['clean', 'alt'] as const)('the %s service', (variant) => {
  let run: { summary: RunSummary; secret: string };
  beforeAll(async () => {
    run = await audit([], variant);
  }, 60_000);

  it('passes both checks, recording the either-answer forgeries and the mistakes not sent', () => {
    for (const id of IDS)
      expect(result(run.summary, id)?.outcome, explain(result(run.summary, id))).toBe('pass');
    const messages = run.summary.results.flatMap((r) => r.findings.map((f) => f.message));
    expect(messages.filter((m) => m.includes('(either answer conforms:'))).toHaveLength(3);
    expect(messages.filter((m) => m.startsWith('not sent:'))).toHaveLength(3);
    expect(messages.filter((m) => m.includes(' was rejected with 4'))).toHaveLength(18 + 12);
  });

  it('shows neither the secret nor any near miss of it', () => {
    const text = JSON.stringify(run.summary);
    expect(run.secret.length).toBeGreaterThan(8);
    for (const m of nearMisses(run.secret)) expect(text).not.toContain(m.value.trim());
  });
});

/** Each near-miss fault, the check that must fail on it, and the requirement its failing finding cites. */
const caught: ReadonlyArray<readonly [FaultName, (typeof IDS)[number], string]> = [
  ['secret-case-insensitive', 'credential-near-misses', 'SIG-VERIFY-APPLICATION-SECRET'],
  ['secret-prefix-match', 'credential-near-misses', 'SIG-VERIFY-APPLICATION-SECRET'],
  ['application-id-prefix-match', 'credential-near-misses', 'SIG-VERIFY-APPLICATION-ID'],
  ['key-id-case-insensitive', 'credential-near-misses', 'SIG-VERIFY-KEY-RESOLVE'],
  ['key-id-trimmed', 'credential-near-misses', 'SIG-VERIFY-KEY-RESOLVE'],
  ['base-method-lowercase-tolerated', 'client-mistake-forgeries', 'SIG-BASE-METHOD'],
  ['base-authority-without-port-tolerated', 'client-mistake-forgeries', 'SIG-BASE-AUTHORITY'],
  [
    'base-content-type-dropped-tolerated',
    'client-mistake-forgeries',
    'SIG-BASE-CONTENT-TYPE-LENGTH',
  ],
  [
    'base-content-length-dropped-tolerated',
    'client-mistake-forgeries',
    'SIG-BASE-CONTENT-TYPE-LENGTH',
  ],
  ['path-without-query', 'client-mistake-forgeries', 'SIG-BASE-PATH'],
];

describe('each near-miss fault is caught', () => {
  const runs = new Map<FaultName, RunSummary>();
  beforeAll(async () => {
    for (const [fault] of caught) runs.set(fault, (await audit([fault])).summary);
  }, 120_000);
  afterAll(() => runs.clear());

  it.each(caught)('%s fails %s on %s, and only that check', (fault, id, requirement) => {
    const summary = runs.get(fault)!;
    const r = result(summary, id);
    expect(r?.outcome, explain(r)).toBe('fail');
    const failing = r!.findings.filter((f) => f.outcome === 'fail');
    expect(failing.some((f) => f.requirement === requirement && f.evidence !== undefined)).toBe(
      true,
    );
    for (const other of IDS.filter((x) => x !== id))
      expect(result(summary, other)?.outcome, explain(result(summary, other))).toBe('pass');
  });
});
