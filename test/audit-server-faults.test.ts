// Each server check proves it can fail: against the reference service started with the check's matching fault it
// fails (MUST) or warns (SHOULD), and against the clean service it passes. `checkFaults` is keyed by every check id,
// so a new check cannot compile without naming the fault that makes it fail.
import { beforeAll, describe, expect, it } from 'vitest';
import { auditTarget, startEmbeddedTarget } from '../cli/commands/audit-server.js';
import { serverChecks, type ServerCheckId } from '../conformance/checks/server/index.js';
import type { CheckResult, RunSummary } from '../conformance/run/result.js';
import type { SuiteRerun } from '../conformance/run/flaky.js';
import { loadCatalogue } from '../conformance/requirements.js';
import { faultCatalogue, type FaultName, type ServiceVariant } from '../server/index.js';
import { loadTestKeys } from './fixtures/keys.js';
import { withLightForgeries } from './fixtures/light-forgeries.js';

const signingRejection: readonly FaultName[] = ['creates-on-rejection'];

/** For every check, the reference-service faults that must make it fail. */
const checkFaults = {
  'public-key-form': ['public-key-full-pem'],
  'payout-signed-accepted': [
    'payout-response-shape',
    'omit-null-fields',
    'amount-as-string',
    'status-reason-always',
  ],
  'tracing-id-differs': ['tracing-id-fixed', 'tracing-id-uuid'],
  'timestamp-forms': ['payout-response-shape', 'refund-timestamp-zoned'],
  'signature-headers-missing': ['accept-unsigned', ...signingRejection],
  'content-digest-missing': ['no-digest-check', 'digest-optional', ...signingRejection],
  'content-digest-mismatch': ['no-digest-check', ...signingRejection],
  'body-changed-after-signing': ['no-digest-check', ...signingRejection],
  'path-changed-after-signing': ['no-signature-check', ...signingRejection],
  'authority-changed-after-signing': ['no-signature-check', ...signingRejection],
  'created-expired': ['no-created-window', 'created-window-600', ...signingRejection],
  'created-in-future': ['no-future-check', ...signingRejection],
  'nonce-too-long': ['no-nonce-length-check', ...signingRejection],
  'nonce-missing': ['allow-missing-nonce', ...signingRejection],
  'alg-not-ed25519': ['accept-any-alg', 'alg-case-insensitive', ...signingRejection],
  'key-id-unknown': ['no-key-check', ...signingRejection],
  'application-secret-wrong': ['no-secret-check', ...signingRejection],
  'application-id-missing': ['no-application-id-check', ...signingRejection],
  'components-reordered': ['accept-any-components', 'components-as-set', ...signingRejection],
  'components-reduced': ['accept-any-components', ...signingRejection],
  'query-not-signed': ['path-without-query', ...signingRejection],
  'content-digest-sha256': ['digest-sha256-accepted', ...signingRejection],
  'components-extra': ['components-superset', ...signingRejection],
  'label-not-sig1': ['accept-any-label', ...signingRejection],
  'nonce-replayed': ['no-replay-check', ...signingRejection],
  'nonce-concurrent-once': ['nonce-race'],
  'nonce-kept-after-rejection': ['nonce-used-by-rejection'],
  'signature-forgeries': [
    'nonce-empty-accepted',
    'nonce-max-length-refused',
    'created-zero-unchecked',
    'parameter-types-coerced',
    'label-case-insensitive',
    'signature-member-any-label',
    'digest-parsed-loosely',
    ...signingRejection,
  ],
  'credential-near-misses': [
    'secret-case-insensitive',
    'secret-prefix-match',
    'application-id-prefix-match',
    'key-id-case-insensitive',
    'key-id-trimmed',
    'no-secret-check',
    'no-application-id-check',
    'no-key-check',
    ...signingRejection,
  ],
  'client-mistake-forgeries': [
    'base-method-lowercase-tolerated',
    'base-authority-without-port-tolerated',
    'base-content-type-dropped-tolerated',
    'base-content-length-dropped-tolerated',
    'path-without-query',
    'no-signature-check',
    ...signingRejection,
  ],
  'cop-auto-commit-without-flag': ['hold-without-flag'],
  'cop-hold-on-mismatch': ['no-cop-hold', 'no-hold-on-partial'],
  'cop-auto-commit-on-match': ['hold-on-full-match', 'hold-on-not-checked'],
  'cop-commit': ['commit-changes-cop', 'commit-processed'],
  'cop-cancel': ['cancel-without-reason'],
  'refund-unsettled-rejected': [
    'refund-unsettled',
    'refund-unsettled-message',
    'refund-error-shape',
    'refund-unsettled-400',
  ],
  'refund-over-amount-rejected': ['refund-over-amount'],
  'refund-second-while-active-rejected': ['refund-concurrent'],
  'refund-partial-accepted': [
    'refund-partial-rejected',
    'refund-timestamp-zoned',
    'refund-id-name',
    'refund-created-pending',
  ],
  'refund-several-partial': ['refund-one-per-payment', 'refund-total-single'],
  'webhook-payout-status-changes': ['webhook-no-initial-event', 'webhook-missing-event'],
  'webhook-refund-status-changes': [
    'refund-webhook-payment-amount',
    'webhook-missing-event',
    'refund-webhook-missing',
  ],
  'webhook-signature-verified': [
    'webhook-bad-signature',
    'webhook-reserialised',
    'webhook-signature-hex',
    'public-key-stale',
  ],
  'webhook-payload-schema': ['webhook-payload-shape', 'webhook-event-time-offset'],
  'webhook-put-json': ['webhook-post', 'webhook-content-type', 'webhook-no-accept'],
  'webhook-redelivered': [
    'webhook-no-retry',
    'webhook-retry-once',
    'webhook-retry-5xx-only',
    'webhook-retry-bad-signature',
  ],
  'webhook-attempt-counter-rises': ['webhook-counter-fixed'],
  'webhook-payment-status-changes': [
    'payment-webhook-missing',
    'payment-webhook-completed-missing',
  ],
  'refund-to-original-account': ['refund-arbitrary-destination'],
  'payment-reference-assigned': ['payment-reference-kept'],
} as const satisfies Record<
  Exclude<ServerCheckId, TargetOnlyCheck>,
  readonly [FaultName, ...FaultName[]]
>;

/** Checks that judge the target URL, not the service: shown warning in test/audit-server-verdicts.test.ts. */
type TargetOnlyCheck = 'https-only';
const targetOnly: readonly ServerCheckId[] = ['https-only'];

const webhookSigningKey = loadTestKeys().webhookRsa.privatePem;
const levelOf = new Map(serverChecks.map((c) => [c.id, c.level]));

/** The faults to start services with, each with the checks it must fail. */
const byFault = new Map<FaultName, ServerCheckId[]>();
for (const [id, faults] of Object.entries(checkFaults) as Array<
  [ServerCheckId, readonly FaultName[]]
>) {
  for (const f of faults) byFault.set(f, [...(byFault.get(f) ?? []), id]);
}

async function audit(
  faults: readonly FaultName[],
  only?: readonly string[],
  variant: ServiceVariant = 'clean',
  rerunFailures: SuiteRerun = 'again',
): Promise<RunSummary> {
  const target = await startEmbeddedTarget({ faults, webhookSigningKey, variant });
  try {
    // A whole audit (clean, alt) proves every check passes: the drawn forgeries send every form's edge and draw a few
    // more (test/signature-forgeries.test.ts draws their default budget against clean, alt and lenient, seed after
    // seed). A run of selected checks keeps the default: the forgeries' own faults are found by drawing.
    return await auditTarget(only === undefined ? withLightForgeries(target) : target, {
      ...(only !== undefined ? { only } : {}),
      rerunFailures,
    });
  } finally {
    await target.close();
  }
}

const catalogue = loadCatalogue();
const checkById = new Map(serverChecks.map((c) => [c.id, c]));

/** Failing findings whose requirement is not a MUST sentence the spec states (there must be none). */
function failsWithoutSpecSentence(summary: RunSummary): string[] {
  return summary.results.flatMap((r) =>
    r.findings
      .filter((f) => f.outcome === 'fail')
      .map((f) => ({
        f,
        id: f.requirement ?? checkById.get(r.id as ServerCheckId)?.requirements[0],
      }))
      .filter(({ id }) => {
        const req = id === undefined ? undefined : catalogue.byId.get(id);
        return req === undefined || !req.shown || req.source !== undefined || req.level !== 'MUST';
      })
      .map(({ f, id }) => `${r.id}: ${f.message} (${id ?? 'no requirement'})`),
  );
}

const explain = (r: CheckResult | undefined): string =>
  r === undefined
    ? 'not run'
    : `${r.id}: ${r.outcome} (${r.message}) ${r.findings
        .filter((f) => f.outcome !== 'pass')
        .map((f) => f.message)
        .join(' | ')}`;

describe('checkFaults table', () => {
  it('names a fault for every check, and only faults the reference service has', () => {
    expect(Object.keys(checkFaults).sort()).toEqual(
      serverChecks
        .map((c) => c.id)
        .filter((id) => !targetOnly.includes(id))
        .sort(),
    );
    const known = new Set<string>(faultCatalogue.map((f) => f.name));
    for (const faults of Object.values(checkFaults))
      for (const f of faults) expect(known.has(f)).toBe(true);
  });
  it('names a check for every fault of the reference service (every fault is caught)', () => {
    const caught = new Set<string>(Object.values(checkFaults).flat());
    // The explorer's faults pass every fixed check by design (test/explore-faults.test.ts proves them); a fault that
    // misbehaves once only is reported flaky, never a failure (below).
    const fixed = faultCatalogue.filter(
      (f) => !('how' in f && (f.how === 'explorer' || f.how === 'flaky')),
    );
    expect(fixed.map((f) => f.name).filter((f) => !caught.has(f))).toEqual([]);
  });
});

describe('every fault names the requirements it breaks', () => {
  const known = new Set(catalogue.requirements.map((r) => r.id));
  it.each(faultCatalogue.map((f) => [f.name, f.requirements] as const))(
    '%s names requirements of the catalogue',
    (_name, ids) => {
      expect(ids.length).toBeGreaterThan(0);
      for (const id of ids) expect(known.has(id), id).toBe(true);
    },
  );
  it('a check that catches a fault covers a requirement the fault names', () => {
    const covers = new Map<string, Set<string>>(
      serverChecks.map((c) => [c.id, new Set<string>(c.requirements)]),
    );
    const unmatched = Object.entries(checkFaults).flatMap(([check, faults]) =>
      faults
        .filter(
          (f) =>
            !faultCatalogue
              .find((x) => x.name === f)!
              .requirements.some((id) => covers.get(check)!.has(id)),
        )
        .map((f) => `${f} (caught by ${check}: ${[...covers.get(check)!].join(', ')})`),
    );
    expect(unmatched).toEqual([]);
  });
});

describe('every check passes against the clean reference service', () => {
  let summary: RunSummary;
  beforeAll(async () => {
    summary = await audit([]);
  }, 60_000);
  it.each(serverChecks.map((c) => c.id))('%s passes', (id) => {
    const r = summary.results.find((x) => x.id === id);
    expect(r?.outcome, explain(r)).toBe('pass');
  });
  it('covers requirements and leaves no check skipped', () => {
    expect(summary.counts.skip).toBe(0);
    expect(summary.requirements.covered.length).toBeGreaterThan(60);
  });
});

/**
 * The alt personality takes the other permitted choice wherever the spec is silent (server/faults.ts variantChoices):
 * it must pass with no failure. It accepts a created far in the future (only the age is bounded by the spec), which
 * payconform's own profile choice SIG-PROFILE-FUTURE-CREATED turns into a warning, never a failure.
 */
const ALT_WARNINGS: readonly ServerCheckId[] = ['created-in-future'];

describe('every check passes against the alt reference service (the other permitted choices)', () => {
  let summary: RunSummary;
  beforeAll(async () => {
    summary = await audit([], undefined, 'alt');
  }, 60_000);
  it.each(serverChecks.map((c) => c.id))('%s passes', (id) => {
    const r = summary.results.find((x) => x.id === id);
    expect(r?.outcome, explain(r)).toBe(ALT_WARNINGS.includes(id) ? 'warn' : 'pass');
  });
  it('has no failure, no skip, and no failure outside a spec sentence', () => {
    expect(summary.counts.fail).toBe(0);
    expect(summary.counts.skip).toBe(0);
    expect(failsWithoutSpecSentence(summary)).toEqual([]);
  });
});

/**
 * The faults that also prove their checks fail again when run once more before the failure is reported
 * (conformance/run/flaky.ts): the first listed for a check. Every check is proven re-runnable so, none turning flaky; the
 * other faults prove detection only, without the second run (it doubled this file's time).
 */
const provesRerun = new Set<FaultName>(Object.values(checkFaults).map((faults) => faults[0]));

describe('each check fails against the reference service started with its fault', () => {
  it.concurrent.each([...byFault.entries()].map(([fault, ids]) => [fault, ids] as const))(
    'fault %s fails %j',
    async (fault, ids) => {
      const rerun = provesRerun.has(fault) ? 'again' : { never: 'detection only' };
      const summary = await audit([fault], ids, 'clean', rerun);
      expect(failsWithoutSpecSentence(summary)).toEqual([]);
      for (const id of ids) {
        const r = summary.results.find((x) => x.id === id);
        const expected = levelOf.get(id) === 'MUST' ? 'fail' : 'warn';
        expect(r?.outcome, `${fault}: ${explain(r)}`).toBe(expected);
        // A failing finding says what was expected and carries evidence (request/response or the webhook seen).
        const failing = r!.findings.filter((f) => f.outcome === 'fail' || f.outcome === 'warn');
        expect(failing.length).toBeGreaterThan(0);
        expect(
          failing.some((f) => f.evidence !== undefined || f.expected !== undefined),
          `${id} under ${fault}: no evidence`,
        ).toBe(true);
      }
    },
    60_000,
  );
});

/**
 * A fault that misbehaves once only (`how: 'flaky'`): its check fails the first time and passes when the engine runs
 * it once more alone, so the run reports it flaky (a warning with both runs), never a plain failure and never a pass.
 */
describe('a fault that misbehaves once only is reported flaky', () => {
  const flakyFaults = faultCatalogue.flatMap((f) =>
    'how' in f && f.how === 'flaky' ? [f.name as FaultName] : [],
  );
  it('fails-once: public-key-form warns, marked flaky, with both traces', async () => {
    expect(flakyFaults).toEqual(['fails-once']);
    const summary = await audit(['fails-once'], ['public-key-form']);
    const r = summary.results.find((x) => x.id === 'public-key-form');
    expect(r?.outcome, explain(r)).toBe('warn');
    expect(r?.flaky).toBe(true);
    expect(summary.counts).toMatchObject({ fail: 0, warn: 1, flaky: 1 });
    // The first trace: the answer that failed (BEGIN/END lines), its request and response kept.
    const first = r!.findings.find((f) => f.flaky === true);
    expect(first).toMatchObject({ outcome: 'warn', requirement: 'KEY-PEM-TRIMMED' });
    expect(first?.evidence?.response?.body.text).toMatch(/-----BEGIN PUBLIC KEY-----/);
    // The second trace: the run once more alone, which passed.
    expect(r?.again?.outcome).toBe('pass');
    expect(r?.again?.findings.some((f) => f.requirement === 'KEY-PEM-TRIMMED')).toBe(true);
    expect(failsWithoutSpecSentence(summary)).toEqual([]);
  }, 60_000);
});
