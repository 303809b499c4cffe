// The requirement table's rows for an explorer (conformance/requirement-table.ts): a row for every rule it judges,
// whatever party the catalogue names, and a rule it judged in no step is not exercised, never passed.
import { describe, expect, it } from 'vitest';
import type { Check } from '../conformance/run/check.js';
import { SDK_EXPLORE_CHECK_ID, STEPS_JUDGED } from '../conformance/explore/check-id.js';
import { requirementTable } from '../conformance/requirement-table.js';
import { loadCatalogue, requirementsForRole } from '../conformance/requirements.js';
import type { CheckResult, GradedFinding } from '../conformance/run/result.js';

const JUDGED = ['PAYOUT-CREATE-REQUEST', 'PAYOUT-RESPONSE-RESOURCE'];
const NAMED = [...JUDGED, 'WEBHOOK-IDEMPOTENT'];

const check = {
  id: SDK_EXPLORE_CHECK_ID,
  title: 'the SDK explorer',
  area: 'sdk',
  requirements: NAMED,
  level: 'MUST',
  appliesTo: 'client',
  run: () => Promise.resolve([]),
} as unknown as Check<unknown>;

function result(outcome: CheckResult['outcome'], findings: GradedFinding[]): CheckResult {
  return {
    id: SDK_EXPLORE_CHECK_ID,
    title: check.title,
    area: 'sdk',
    level: 'MUST',
    appliesTo: 'client',
    requirements: NAMED,
    outcome,
    message: findings[0]?.message ?? '',
    findings,
    durationMs: 1,
  };
}

const judged = (rule: string, n: number): GradedFinding => ({
  outcome: 'pass',
  message: `${STEPS_JUDGED} ${n} step(s)`,
  requirement: rule,
  level: 'MUST',
});

const tableOf = (r: CheckResult) =>
  requirementTable({
    catalogue: loadCatalogue(),
    role: 'client',
    checks: [check],
    results: [r],
    deselected: [],
  });

describe('requirement rows of an explorer', () => {
  it("has a row for every rule it names, the service's and the receiver's too", () => {
    const table = tableOf(result('pass', [judged(JUDGED[0]!, 3), judged(JUDGED[1]!, 2)]));
    const ids = table.rows.map((r) => r.id);
    for (const id of NAMED) expect(ids, id).toContain(id);
    // Beside them, the client role's own.
    for (const r of requirementsForRole(loadCatalogue(), 'client')) expect(ids).toContain(r.id);
    expect(table.rows.find((r) => r.id === 'PAYOUT-RESPONSE-RESOURCE')).toMatchObject({
      status: 'passed',
      explored: `${STEPS_JUDGED} 2 step(s)`,
    });
  });

  it('a rule judged in no step of a passing exploration is not exercised; a failure decides its rule', () => {
    const table = tableOf(result('pass', [judged(JUDGED[0]!, 3)]));
    expect(table.rows.find((r) => r.id === 'WEBHOOK-IDEMPOTENT')).toMatchObject({
      status: 'not-exercised',
      unexercised: 'skipped',
      reason: `${SDK_EXPLORE_CHECK_ID}: judged in no step of the exploration`,
    });
    const failed = tableOf(
      result('fail', [
        { outcome: 'fail', message: 'lost', requirement: 'WEBHOOK-IDEMPOTENT', level: 'MUST' },
      ]),
    );
    expect(failed.rows.find((r) => r.id === 'WEBHOOK-IDEMPOTENT')?.status).toBe('failed');
  });
});
