// What a run exercised: for every requirement of the catalogue that an audit of this role covers, failed, passed (by
// which checks), inconclusive, or not exercised with the reason (not applicable to this target, skipped, deselected,
// no check covers it). Every report carries it; `--fail-on unexercised` gates on it.
import type { Check, CheckRole } from './run/check.js';
import { canFailTarget } from './run/grade.js';
import { requirementsForRole, type Catalogue, type Requirement } from './requirements.js';
import { EXPLORER_CHECK_IDS, STEPS_JUDGED } from './explore/check-id.js';
import type {
  CheckResult,
  RequirementRow,
  RequirementTable,
  UnexercisedKind,
} from './run/result.js';

/** Whether a finding of `check` bears on `id`: it names it, or names nothing and `id` is the check's first. */
function bears(
  r: CheckResult,
  f: CheckResult['findings'][number],
  id: string,
  check: Check<unknown> | undefined,
): boolean {
  const first = check?.requirements[0] ?? r.requirements[0];
  return f.requirement === id || (f.requirement === undefined && first === id);
}

const REASON_ORDER: readonly UnexercisedKind[] = [
  'stopped',
  'skipped',
  'deselected',
  'not-applicable',
  'uncovered',
];

/** What the table is made from. */
interface TableInput {
  readonly catalogue: Catalogue;
  readonly role: CheckRole;
  /** The whole suite (selected or not). */
  readonly checks: readonly Check<unknown>[];
  readonly results: readonly CheckResult[];
  readonly deselected: readonly string[];
}

/** An explorer's per-rule pass finding (`judged by the exploration in N step(s)`) for `id`, if it has one. */
const judgedIn = (r: CheckResult, id: string): string | undefined =>
  r.findings.find(
    (f) => f.outcome === 'pass' && f.requirement === id && f.message.startsWith(STEPS_JUDGED),
  )?.message;

/** An explorer that did not fail decides only the rules its steps judged: a rule it never drew is not exercised. */
const undrawn = (r: CheckResult, id: string): boolean =>
  EXPLORER_CHECK_IDS.includes(r.id) && r.outcome !== 'fail' && judgedIn(r, id) === undefined;

/** Why no check exercised a requirement, per check naming it; the row's kind is the first by REASON_ORDER. */
function unexercisedWhy(
  id: string,
  naming: readonly Check<unknown>[],
  results: readonly CheckResult[],
  deselected: ReadonlySet<string>,
): { reason: string; unexercised: UnexercisedKind } {
  const why: Array<{ kind: UnexercisedKind; text: string }> = naming.map((c) => {
    const r = results.find((x) => x.id === c.id);
    if (deselected.has(c.id))
      return { kind: 'deselected', text: `${c.id}: not selected (--only/--level)` };
    if (r === undefined) return { kind: 'stopped', text: `${c.id}: not run (the run stopped)` };
    if (r.outcome === 'n/a')
      return { kind: 'not-applicable', text: `${c.id}: not applicable (${r.message})` };
    if (undrawn(r, id))
      return { kind: 'skipped', text: `${c.id}: judged in no step of the exploration` };
    return { kind: 'skipped', text: `${c.id}: skipped (${r.message})` };
  });
  return {
    reason: why.map((w) => w.text).join('; '),
    unexercised: REASON_ORDER.find((k) => why.some((w) => w.kind === k))!,
  };
}

/** One requirement's row: failed, passed, inconclusive, or not exercised with why. */
function rowOf(
  req: Requirement,
  input: TableInput,
  deselected: ReadonlySet<string>,
): RequirementRow {
  const base = { id: req.id, level: req.level, must: canFailTarget(req) };
  const naming = input.checks.filter((c) => c.requirements.includes(req.id));
  if (naming.length === 0)
    return {
      ...base,
      status: 'not-exercised',
      checks: [],
      reason: 'no check covers it',
      unexercised: 'uncovered',
    };
  const byCheck = new Map(input.checks.map((c) => [c.id, c]));
  const results = input.results.filter((r) => r.requirements.includes(req.id));
  const failedBy = results.filter((r) =>
    r.findings.some((f) => f.outcome === 'fail' && bears(r, f, req.id, byCheck.get(r.id))),
  );
  if (failedBy.length > 0) return { ...base, status: 'failed', checks: failedBy.map((r) => r.id) };
  // For an explorer (either role): how many of its steps judged the rule.
  const explored = results.map((r) => judgedIn(r, req.id)).find((m) => m !== undefined);
  const decided = results.filter(
    (r) =>
      (r.outcome === 'pass' || r.outcome === 'warn' || r.outcome === 'fail') && !undrawn(r, req.id),
  );
  if (decided.length > 0)
    return {
      ...base,
      status: 'passed',
      checks: decided.map((r) => r.id),
      ...(explored !== undefined ? { explored } : {}),
    };
  const errored = results.filter((r) => r.outcome === 'error');
  if (errored.length > 0)
    return {
      ...base,
      status: 'inconclusive',
      checks: [],
      reason: errored.map((r) => `${r.id}: ${r.message}`).join('; '),
    };
  return {
    ...base,
    status: 'not-exercised',
    checks: [],
    ...unexercisedWhy(req.id, naming, results, deselected),
  };
}

/** The requirement table of a run (pure: results in, rows out). */
export function requirementTable(input: TableInput): RequirementTable {
  const deselected = new Set(input.deselected);
  // The role's requirements, and every other one an explorer of the suite judges (the SDK explorer judges what the
  // SDK hands its caller by the service's resource rules, and its webhook verdicts by the receiver's rules).
  const named = new Set(
    input.checks.filter((c) => EXPLORER_CHECK_IDS.includes(c.id)).flatMap((c) => c.requirements),
  );
  const ofRole = new Set(requirementsForRole(input.catalogue, input.role).map((r) => r.id));
  const rows = input.catalogue.requirements
    .filter((r) => ofRole.has(r.id) || named.has(r.id))
    .map((req) => rowOf(req, input, deselected));
  const must = rows.filter((r) => r.must);
  return {
    rows,
    must: {
      total: must.length,
      exercised: must.filter((r) => r.status === 'passed' || r.status === 'failed').length,
    },
  };
}

/**
 * The MUST requirements `--fail-on unexercised` fails a run for: not exercised although they apply to the target
 * (skipped, deselected, not reached, or inconclusive); not those that do not apply to it or that no check covers.
 */
export function unexercisedMust(table: RequirementTable | undefined): RequirementRow[] {
  return (table?.rows ?? []).filter(
    (r) =>
      r.must &&
      (r.status === 'inconclusive' ||
        (r.status === 'not-exercised' &&
          r.unexercised !== 'not-applicable' &&
          r.unexercised !== 'uncovered')),
  );
}

/** The summary line every report states: "N of M MUST requirements exercised". */
export function mustExercisedLine(table: RequirementTable): string {
  return `${table.must.exercised} of ${table.must.total} MUST requirements exercised`;
}
