// signature-forgeries, the server check whose oracle is the profile's rules: its forms are predicted by
// evaluateRequest and what the spec requires of a server given each finding (src/profile/finding-verdicts.ts; the
// vectors' "acceptable" cases are forms where either answer conforms), it catches each edge fault of the reference
// service in every seed within its default budget while the fixed signing checks pass on them, and it passes the
// clean, alt and lenient services seed after seed. Against the reference service on loopback.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { SuiteRerun } from '../conformance/run/flaky.js';
import { auditTarget, startEmbeddedTarget } from '../cli/commands/audit-server.js';
import { serverChecks } from '../conformance/checks/server/index.js';
import { forgeryForms, MAX_FORM_SIZE } from '../conformance/checks/server/forgery-kinds.js';
import { formVerdict } from '../conformance/checks/server/forgery-form.js';
import { predict, type ForgerySettings } from '../conformance/checks/server/signature-forgeries.js';
import { FORGERY_DEFAULTS } from '../conformance/checks/server/forgery-settings.js';
import { canFailTarget } from '../conformance/run/grade.js';
import { loadCatalogue } from '../conformance/requirements.js';
import type { RunSummary } from '../conformance/run/result.js';
import { generateEd25519PrivateKey } from '../src/keys/ed25519-keys.js';
import { verdictOf } from '../src/profile/finding-verdicts.js';
import { evaluateRequest } from '../src/profile/profile-rules.js';
import type { HttpRequest } from '../src/http/message.js';
import { faultCatalogue, type FaultName, type ServiceVariant } from '../server/index.js';
import { loadTestKeys } from './fixtures/keys.js';

const CHECK = 'signature-forgeries';
const check = serverChecks.find((c) => c.id === CHECK)!;
const catalogue = loadCatalogue();
const webhookSigningKey = loadTestKeys().webhookRsa.privatePem;
const long = process.env['PAYCONFORM_LONG_TESTS'] === '1';

/** The faults only the drawn forgeries catch (`how: 'drawn'`). */
const edgeFaults = faultCatalogue.flatMap((f) =>
  'how' in f && f.how === 'drawn' ? [f.name as FaultName] : [],
);

const credentials = {
  applicationId: 'app-forms',
  applicationSecret: 'test-only-secret-forms-0123456789',
  keyId: 'key-forms',
  privateKey: generateEd25519PrivateKey(),
};
const unsigned = {
  method: 'POST',
  url: 'http://127.0.0.1:8080/api/payouts',
  headers: [['content-type', 'application/vnd.service.v1.0+json']] as [string, string][],
  body: new TextEncoder().encode('{"amount":0.01,"reference":"forms"}'),
};

describe('the forms and what the rules predict of them', () => {
  const now = Math.floor(Date.now() / 1000);
  it.each(forgeryForms.map((f) => [f.name, f] as const))('%s', (_name, form) => {
    const verdict = formVerdict(form);
    for (const size of [0, 1, 17]) {
      const request = form.build({ request: unsigned, credentials, now, size });
      // The form finds what it says it finds: its first finding's case, or nothing.
      const first = evaluateRequest(request, now).findings[0];
      expect(first?.case, `${form.name} size ${size}`).toBe(
        typeof form.finds === 'string' ? form.finds : undefined,
      );
      // The check predicts what the spec requires of a server given the form's classification.
      const p = predict(form, request, now * 1000);
      const expected = { 'must-refuse': 'reject', either: 'either', 'must-accept': 'accept' }[
        verdict.verdict
      ];
      expect(p.kind, `${form.name} size ${size}`).toBe(expected);
      if (p.kind === 'reject') expect(check.requirements).toContain(p.verdict.requirement);
    }
  });

  it('a request within every bound never repeats its nonce (a repeat is rightly refused as a replay)', () => {
    const form = forgeryForms.find((f) => f.name === 'nonce-at-length')!;
    const nonces = new Set<string>();
    let sent = 0;
    for (let size = 0; size <= MAX_FORM_SIZE; size++)
      for (let k = 0; k < 20; k++, sent++) {
        const request = form.build({ request: unsigned, credentials, now, size });
        const input = request.headers.find(([n]) => n === 'signature-input')![1];
        nonces.add(/;nonce="([^"]*)"/.exec(input)![1]!);
      }
    expect(nonces.size).toBe(sent);
  });

  it('created as a Decimal with a fraction is another value, not the Integer written otherwise: must refuse', () => {
    const zero = forgeryForms
      .find((f) => f.name === 'created-decimal')!
      .build({ request: unsigned, credentials, now, size: 0 });
    const fraction = {
      ...zero,
      headers: zero.headers.map(([n, v]) =>
        n === 'signature-input'
          ? ([n, v.replace(`${now}.0`, `${now}.5`)] as const)
          : ([n, v] as const),
      ),
    };
    expect(evaluateRequest(zero, now).findings[0]?.case).toBe('integer-as-decimal');
    const first = evaluateRequest(fraction, now).findings[0]!;
    expect(first.case).toBe('parameter-type');
    expect(verdictOf(first).verdict).toBe('must-refuse');
  });

  /** A vector case's request, from its wire form (headers in order, the exact body bytes). */
  const vectorRequest = (
    file: { cases: ReadonlyArray<{ id: string }> },
    id: string,
  ): HttpRequest => {
    const c = file.cases.find((x) => x.id === id) as unknown as {
      input: {
        request: {
          method: string;
          url: string;
          headers: Array<[string, string]>;
          bodyUtf8?: string;
          bodyBase64?: string;
        };
      };
    };
    const r = c.input.request;
    const body =
      r.bodyBase64 !== undefined
        ? Buffer.from(r.bodyBase64, 'base64')
        : Buffer.from(r.bodyUtf8 ?? '', 'utf8');
    return { method: r.method, url: r.url, headers: r.headers, body: new Uint8Array(body) };
  };

  /**
   * The acceptable vectors no drawn form sends, and why: the forgeries are create-payout POSTs that change the
   * signature fields and parameters, so a bodyless GET, a covered header sent twice and a label written twice are the
   * vectors' alone (each is either answer in src/profile/finding-verdicts.ts, which the vector generator checks).
   */
  const NOT_DRAWN: Readonly<Record<string, string>> = {
    'verify-content-digest-on-get': 'a GET: the forgeries are create-payout POSTs',
    'verify-body-on-get': 'a GET: the forgeries are create-payout POSTs',
    'verify-content-digest-duplicated': 'a covered header sent twice: no form duplicates a header',
    'verify-application-id-duplicated': 'a covered header sent twice: no form duplicates a header',
    'verify-label-duplicated': 'a label written twice: no form duplicates a member',
    'verify-label-duplicated-parameter-repeated':
      'a label written twice: no form duplicates a member',
  };

  it('every acceptable case of the vectors is drawn by a form classified either answer, or says why not', () => {
    const file = JSON.parse(readFileSync('vectors/request-signing.json', 'utf8')) as {
      cases: Array<{
        id: string;
        result: string;
        input: { now: number };
        expected: { ok: boolean; code?: string };
      }>;
    };
    const acceptable = file.cases.filter((c) => c.result === 'acceptable');
    expect(acceptable.length).toBeGreaterThan(0);
    const ids = new Set(acceptable.map((c) => c.id));
    // A form's cross-reference names an acceptable vector, and the form's first finding is the vector's code.
    for (const form of forgeryForms.filter((f) => f.vector !== undefined)) {
      const c = acceptable.find((x) => x.id === form.vector);
      expect(c, `${form.name}: ${form.vector} is not an acceptable vector`).toBeDefined();
      expect(formVerdict(form).verdict, c!.id).toBe('either');
      const request = form.build({ request: unsigned, credentials, now, size: 0 });
      const first = evaluateRequest(request, now).findings[0];
      expect(first?.code, c!.id).toBe(c!.expected.ok ? undefined : c!.expected.code);
    }
    // Every other acceptable vector's finding is one an either-answer form draws, or it is listed above.
    const drawnCases = new Set(
      forgeryForms
        .filter((f) => formVerdict(f).verdict === 'either' && typeof f.finds === 'string')
        .map((f) => f.finds as string),
    );
    const crossReferenced = new Set(forgeryForms.flatMap((f) => f.vector ?? []));
    const undrawn = acceptable
      .filter((c) => !crossReferenced.has(c.id) && NOT_DRAWN[c.id] === undefined)
      .filter((c) => {
        const first = evaluateRequest(vectorRequest(file, c.id), c.input.now).findings[0];
        return first === undefined || !drawnCases.has(first.case);
      })
      .map((c) => c.id);
    expect(undrawn).toEqual([]);
    for (const id of Object.keys(NOT_DRAWN)) expect(ids.has(id), id).toBe(true);
  });

  it('forms of every rule must be refused, each on a MUST the spec states for servers', () => {
    const refused = forgeryForms.filter((f) => formVerdict(f).verdict === 'must-refuse');
    // The parameters' forms (repeated, reordered, extra) are all either answer: see finding-verdicts.ts.
    expect([...new Set(refused.map((f) => f.rule))].sort()).toEqual(
      ['alg', 'components', 'created', 'digest', 'keyid', 'label', 'nonce'].sort(),
    );
    for (const form of refused) {
      const request = form.build({ request: unsigned, credentials, now, size: 0 });
      const p = predict(form, request, now * 1000);
      if (p.kind !== 'reject') throw new Error(`${form.name}: predicted ${p.kind}`);
      expect(canFailTarget(catalogue.byId.get(p.verdict.requirement)), form.name).toBe(true);
    }
  });
});

/** The check alone, against a fresh reference service. */
async function drawn(
  faults: readonly FaultName[],
  variant: ServiceVariant,
  forgeries: ForgerySettings,
  only: readonly string[] = [CHECK],
  rerun: SuiteRerun = 'again',
): Promise<RunSummary> {
  const target = await startEmbeddedTarget({ faults, webhookSigningKey, variant });
  try {
    return await auditTarget(
      { ...target, context: { ...target.context, forgeries } },
      { only, rerunFailures: rerun },
    );
  } finally {
    await target.close();
  }
}

const SEEDS = Array.from({ length: 10 }, (_, i) => i + 1);

describe('each edge fault is caught in every seed within the default budget (server/signature-edge-faults.ts)', () => {
  it('there are edge faults, and the fault table names this check for each', () => {
    expect(edgeFaults.length).toBeGreaterThanOrEqual(7);
  });
  it.concurrent.each(edgeFaults)(
    '%s: 10 of 10 seeds',
    async (fault) => {
      let caught = 0;
      for (const seed of SEEDS) {
        // The first seed's failure is drawn once more from its seed before it is reported (conformance/run/flaky.ts): it
        // fails again, never flaky. The other seeds prove detection only: their second draw is left out (time).
        const rerun = seed === SEEDS[0] ? 'again' : { never: 'detection only' };
        const r = (await drawn([fault], 'clean', { seed }, [CHECK], rerun)).results[0]!;
        expect(r.flaky, `${fault} seed ${seed}`).toBeUndefined();
        if (r.outcome !== 'fail') continue;
        caught++;
        const failing = r.findings.find((f) => f.outcome === 'fail')!;
        // The evidence: the shrunk request as sent, the answer, and the verifier's code in the message.
        expect(failing.evidence?.request?.headers.length).toBeGreaterThan(0);
        expect(failing.evidence?.response?.status).toBeDefined();
        expect(failing.message).toMatch(
          /was accepted; the profile's rules reject it with [A-Z_]+|was refused; it is within every bound/,
        );
        expect(failing.evidence?.notes).toContain(`seed ${seed}`);
        expect(canFailTarget(catalogue.byId.get(failing.requirement!))).toBe(true);
      }
      expect(caught).toBe(SEEDS.length);
    },
    120_000,
  );
});

describe('the fixed signing checks pass on every edge fault (only the drawn forgeries catch them)', () => {
  const fixedSigning = serverChecks
    .filter((c) => c.area === 'signing' && c.id !== CHECK)
    .map((c) => c.id);
  it.concurrent.each(edgeFaults)(
    '%s',
    async (fault) => {
      const summary = await drawn([fault], 'clean', {}, fixedSigning);
      expect(summary.results.length).toBe(fixedSigning.length);
      expect(summary.results.filter((r) => r.outcome === 'fail').map((r) => r.id)).toEqual([]);
    },
    120_000,
  );
});

describe('the clean, alt and lenient services pass seed after seed', () => {
  // 20 seeds each; by default with fewer draws per seed (every form's edge and 40 more), the whole default budget
  // with PAYCONFORM_LONG_TESTS=1.
  const settings = (seed: number): ForgerySettings =>
    long ? { seed } : { seed, runs: forgeryForms.length + 40 };
  it.concurrent.each(['clean', 'alt', 'lenient'] as const)(
    '%s: 20 seeds, no failure',
    async (variant) => {
      for (let seed = 1; seed <= 20; seed++) {
        const r = (await drawn([], variant, settings(seed))).results[0]!;
        expect(r.outcome, `${variant} seed ${seed}: ${r.message}`).toBe('pass');
        // Where the spec allows either answer, the answer is recorded, never judged.
        expect(r.findings.some((f) => f.message.includes('either answer'))).toBe(true);
      }
    },
    long ? 300_000 : 120_000,
  );
  it('the default budget is a few seconds', () => {
    expect(FORGERY_DEFAULTS.seconds).toBeLessThanOrEqual(5);
  });
});

describe("a target whose clock is behind this machine's (it judges created by its own clock)", () => {
  /** The embedded service 2.5 s behind, audited as any other target (no known timings: its clock is read). */
  async function behind(faults: readonly FaultName[], only: readonly string[]) {
    const target = await startEmbeddedTarget({ faults, webhookSigningKey, clockOffsetMs: -2500 });
    const { knownTimings: _known, ...context } = target.context;
    try {
      return await auditTarget({ ...target, context }, { only });
    } finally {
      await target.close();
    }
  }

  it('is not failed for accepting "created" 301 s old by this clock (298.5 s by its own); its Date headers say why', async () => {
    const summary = await behind([], [CHECK, 'created-expired']);
    const outcomes = Object.fromEntries(summary.results.map((r) => [r.id, r.outcome]));
    expect(outcomes, JSON.stringify(summary.results.map((r) => r.findings))).toEqual({
      [CHECK]: 'pass',
      'created-expired': 'pass',
    });
    const forgeries = summary.results.find((r) => r.id === CHECK)!;
    const edge = forgeries.findings.find((f) => f.message.startsWith('form created-past-edge'));
    expect(edge?.message).toMatch(/its own clock, which reads \d+…\d+ .*from 3 Date header/);
  });

  it("a window that is too long is still caught there, beyond the clocks' difference", async () => {
    const summary = await behind(['created-window-600'], [CHECK, 'created-expired']);
    for (const r of summary.results) expect(r.outcome, r.id).toBe('fail');
  });
});
