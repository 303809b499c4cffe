// Two runs compared (`payconform diff OLD.json NEW.json`): per check and per requirement, regressed (passed before,
// failed now), fixed, still failing, newly exercised, no longer exercised, or inconclusive where one run did not decide
// it or did not select it. Runs of different targets (another port or host: the normal case in CI) are compared as
// usual, the targets named in the header. Pure: JSON reports in, a diff out, as text, JSON or Markdown.
import type { JsonReport } from '../reporters/json.js';
import type { Outcome, RequirementStatus } from '../run/result.js';
import { markdownCode } from '../reporters/markdown-safe.js';
import { printableValue } from '../reporters/printable.js';

export type Change =
  | 'regressed'
  | 'fixed'
  | 'still-failing'
  | 'newly-exercised'
  | 'no-longer-exercised'
  | 'inconclusive'
  | 'unchanged';

/** The order sections are shown in (worst first). */
export const CHANGES: readonly Change[] = [
  'regressed',
  'inconclusive',
  'still-failing',
  'no-longer-exercised',
  'newly-exercised',
  'fixed',
  'unchanged',
];

/** What a check or requirement was in one run, in the diff's terms. */
export type State = 'passed' | 'failed' | 'inconclusive' | 'not-exercised';

export interface DiffRow {
  readonly id: string;
  readonly before: State;
  readonly after: State;
  readonly change: Change;
  /** Why a row is inconclusive. */
  readonly note?: string;
}

export interface ReportDiff {
  readonly before: { readonly target: string; readonly startedAt: string };
  readonly after: { readonly target: string; readonly startedAt: string };
  /**
   * How the two runs differ in what they audited (each named in the header). A target does not stop the comparison; a
   * role or catalogue makes decided changes inconclusive; a selection makes what one run did not select inconclusive.
   */
  readonly differences: readonly string[];
  readonly checks: readonly DiffRow[];
  readonly requirements: readonly DiffRow[];
  /** Rows per change, checks and requirements together. */
  readonly counts: Readonly<Record<Change, number>>;
  readonly regressed: boolean;
}

const CHECK_STATE: Readonly<Record<Outcome, State>> = {
  pass: 'passed',
  warn: 'passed',
  fail: 'failed',
  error: 'inconclusive',
  skip: 'not-exercised',
  'n/a': 'not-exercised',
};

const REQUIREMENT_STATE: Readonly<Record<RequirementStatus, State>> = {
  passed: 'passed',
  failed: 'failed',
  inconclusive: 'inconclusive',
  'not-exercised': 'not-exercised',
};

const exercised = (s: State): boolean => s === 'passed' || s === 'failed';

/** Why a row is not compared though both runs may have decided it: the two runs are of different audits. */
type Incomparable = string | undefined;

/** The change from one state to the next; `apart` names why two decided states cannot be compared. */
function changeOf(id: string, before: State, after: State, apart: Incomparable): DiffRow {
  const row = (change: Change, note?: string): DiffRow => ({
    id,
    before,
    after,
    change,
    ...(note !== undefined ? { note } : {}),
  });
  if (before === after) return row(before === 'failed' ? 'still-failing' : 'unchanged');
  if (before === 'inconclusive' || after === 'inconclusive')
    return row(
      'inconclusive',
      `the ${before === 'inconclusive' ? 'old' : 'new'} run did not decide it`,
    );
  if (!exercised(before)) return row('newly-exercised');
  if (!exercised(after)) return row('no-longer-exercised');
  if (apart !== undefined) return row('inconclusive', apart);
  return row(after === 'failed' ? 'regressed' : 'fixed');
}

/** How two runs differ in what they audited: target, role, catalogue, selection (each named in the header). */
function differencesOf(a: JsonReport, b: JsonReport): string[] {
  const out: string[] = [];
  if (a.target !== b.target) out.push(`target: ${a.target} → ${b.target}`);
  // Another payconform may judge the same target otherwise: the header says so (the runs stay comparable).
  if (a.toolVersion !== b.toolVersion) out.push(`payconform: ${a.toolVersion} → ${b.toolVersion}`);
  out.push(...incomparable(a, b));
  out.push(...selectionDifferences(a, b));
  return out;
}

/** Differences that make two runs different audits (a client's against a server's, another catalogue). */
function incomparable(a: JsonReport, b: JsonReport): string[] {
  const out: string[] = [];
  if (a.role !== b.role) out.push(`role: ${a.role} → ${b.role}`);
  if (a.catalogueVersion !== b.catalogueVersion)
    out.push(`requirements catalogue: ${a.catalogueVersion} → ${b.catalogueVersion}`);
  return out;
}

/** How the two runs' selections differ (`--level`, `--only`). */
function selectionDifferences(a: JsonReport, b: JsonReport): string[] {
  const out: string[] = [];
  if (a.selection.level !== b.selection.level)
    out.push(`--level: ${a.selection.level} → ${b.selection.level}`);
  const only = (r: JsonReport): string => (r.selection.only ?? []).join(',') || '(all)';
  if (only(a) !== only(b)) out.push(`--only: ${only(a)} → ${only(b)}`);
  return out;
}

/** Each id's state in one run, looked up once (a diff is linear in the number of results). */
function statesOf<T extends { readonly id: string }>(
  rows: readonly T[],
  state: (row: T) => State,
): ReadonlyMap<string, State> {
  const out = new Map<string, State>();
  for (const r of rows) if (!out.has(r.id)) out.set(r.id, state(r));
  return out;
}

/**
 * The rows of one table (checks or requirements) of the two runs. An id one run has no state for, where the runs'
 * selections differ, was not selected there: inconclusive, not a change. Two runs of different targets (another
 * port, another host) are compared as usual: the target is named in the header only.
 */
function rowsOf(
  before: ReadonlyMap<string, State>,
  after: ReadonlyMap<string, State>,
  apart: Incomparable,
  selection: string | undefined,
): DiffRow[] {
  const ids = [...new Set([...before.keys(), ...after.keys()])];
  return ids.map((id) => {
    const row = changeOf(
      id,
      before.get(id) ?? 'not-exercised',
      after.get(id) ?? 'not-exercised',
      apart,
    );
    const unselected = row.change === 'newly-exercised' || row.change === 'no-longer-exercised';
    if (selection === undefined || !unselected) return row;
    const side = row.change === 'newly-exercised' ? 'old' : 'new';
    return {
      ...row,
      change: 'inconclusive',
      note: `not exercised in the ${side} run, whose selection differs (${selection})`,
    };
  });
}

/** Compares two JSON reports (old first). */
export function diffReports(before: JsonReport, after: JsonReport): ReportDiff {
  const differences = differencesOf(before, after);
  const apartBy = incomparable(before, after);
  const apart = apartBy.length > 0 ? `the runs differ (${apartBy.join('; ')})` : undefined;
  const selectedBy = selectionDifferences(before, after);
  const selection = selectedBy.length > 0 ? selectedBy.join('; ') : undefined;
  // A flaky check failed once and not when it ran again: neither run decided it (never "fixed", never "passed").
  const checkStates = (r: JsonReport) =>
    statesOf(r.results, (x) => (x.flaky === true ? 'inconclusive' : CHECK_STATE[x.outcome]));
  const reqStates = (r: JsonReport) =>
    statesOf(r.requirements.table?.rows ?? [], (x) => REQUIREMENT_STATE[x.status]);
  const checks = rowsOf(checkStates(before), checkStates(after), apart, selection);
  const requirements = rowsOf(reqStates(before), reqStates(after), apart, selection);
  const counts = Object.fromEntries(CHANGES.map((c) => [c, 0])) as Record<Change, number>;
  for (const r of [...checks, ...requirements]) counts[r.change] += 1;
  return {
    before: { target: before.target, startedAt: before.startedAt },
    after: { target: after.target, startedAt: after.startedAt },
    differences,
    checks,
    requirements,
    counts,
    regressed: counts.regressed > 0,
  };
}

/** One line of totals: `1 regressed, 2 fixed, ...` (changes with rows only). */
export function diffTotals(d: ReportDiff): string {
  const parts = CHANGES.filter((c) => c !== 'unchanged' && d.counts[c] > 0).map(
    (c) => `${d.counts[c]} ${c}`,
  );
  return parts.length > 0 ? parts.join(', ') : 'no change';
}

const rowText = (r: DiffRow): string =>
  `${r.id}: ${r.before} → ${r.after}${r.note !== undefined ? ` (${r.note})` : ''}`;

/**
 * Plain text for a terminal: totals, what differs between the runs, then each change with its checks and
 * requirements. What the two files hold is shown with control characters escaped.
 */
export function renderDiffText(diff: ReportDiff): string {
  const d = printableValue(diff);
  const out = [
    `payconform diff: ${d.before.target} (${d.before.startedAt}) → ${d.after.target} (${d.after.startedAt})`,
    `${diffTotals(d)}`,
  ];
  for (const x of d.differences) out.push(`runs differ: ${x}`);
  for (const c of CHANGES.filter((c) => c !== 'unchanged')) {
    const checks = d.checks.filter((r) => r.change === c);
    const reqs = d.requirements.filter((r) => r.change === c);
    if (checks.length + reqs.length === 0) continue;
    out.push('', `${c.toUpperCase()}:`);
    for (const r of checks) out.push(`  check ${rowText(r)}`);
    for (const r of reqs) out.push(`  requirement ${rowText(r)}`);
  }
  out.push('', d.regressed ? 'verdict: REGRESSED, exit 1' : 'verdict: no regression, exit 0', '');
  return out.join('\n');
}

/**
 * Markdown for a pull-request comment: a heading with the totals and one table of what changed. Every string from
 * the two files (targets, times, ids, notes) is a code span it cannot leave (reporters/markdown-safe.ts).
 */
export function renderDiffMarkdown(d: ReportDiff): string {
  const code = (s: string): string => markdownCode(s);
  const cell = (s: string): string => (s === '' ? '' : markdownCode(s, { place: 'cell' }));
  const out = [
    `### payconform: ${d.regressed ? `${d.counts.regressed} regressed` : 'no regression'}`,
    '',
    `${diffTotals(d)} · ${code(d.before.target)} (${code(d.before.startedAt)}) → ${code(d.after.target)} (${code(d.after.startedAt)})`,
  ];
  if (d.differences.length > 0)
    out.push('', `**The runs differ:** ${d.differences.map(code).join('; ')}`);
  const changed = [
    ...d.checks.map((r) => ['check', r] as const),
    ...d.requirements.map((r) => ['requirement', r] as const),
  ]
    .filter(([, r]) => r.change !== 'unchanged')
    .sort(([, a], [, b]) => CHANGES.indexOf(a.change) - CHANGES.indexOf(b.change));
  if (changed.length > 0) {
    out.push('', '| change | what | before | after | note |', '|---|---|---|---|---|');
    for (const [kind, r] of changed)
      out.push(
        `| ${r.change} | ${kind} ${cell(r.id)} | ${r.before} | ${r.after} | ${cell(r.note ?? '')} |`,
      );
  }
  out.push('');
  return out.join('\n');
}
