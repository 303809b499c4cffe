// The counts every report states, made by one function over the run's results, so that the console, JSON, JUnit,
// HTML and Markdown reports cannot disagree: each check counts once, a check whose failures a baseline marks known
// counts as known (never as passed), and the failed requirements are those the failing findings cite.
import type { CheckResult, Outcome, OutcomeCounts, RunSummary } from './result.js';

/** The counts, in the order reports show them. `inconclusive`: a check that errored or reached no answer. */
export const COUNT_NAMES = [
  'passed',
  'failed',
  'warned',
  'skipped',
  'notApplicable',
  'known',
  'inconclusive',
] as const;
export type CountName = (typeof COUNT_NAMES)[number];

/** A run's checks, each in exactly one count; `total` is their sum (every check the run selected). */
export type RunCounts = Readonly<Record<CountName, number>> & { readonly total: number };

const COUNT_OF_OUTCOME: Readonly<Record<Outcome, CountName>> = {
  pass: 'passed',
  fail: 'failed',
  warn: 'warned',
  skip: 'skipped',
  'n/a': 'notApplicable',
  error: 'inconclusive',
};

/**
 * The count a check falls in: its outcome's, except that a check a known finding would have decided (a baseline
 * marked it, and nothing new fails, warns or errs beside it) is `known`.
 */
export function countOf(r: CheckResult): CountName {
  const decidedByNew = r.outcome === 'fail' || r.outcome === 'warn' || r.outcome === 'error';
  if (!decidedByNew && r.findings.some((f) => f.known !== undefined)) return 'known';
  return COUNT_OF_OUTCOME[r.outcome];
}

/** The run's counts, from its results: the one source every report's numbers come from. */
export function runCounts(summary: Pick<RunSummary, 'results'>): RunCounts {
  const counts = Object.fromEntries(COUNT_NAMES.map((n) => [n, 0])) as Record<CountName, number>;
  for (const r of summary.results) counts[countOf(r)] += 1;
  return { ...counts, total: summary.results.length };
}

/**
 * The summary's `counts` (keyed by outcome), made by `runCounts`. `known` is there when a check counts as known, and
 * absent (none) otherwise, so a report without a baseline keeps the members it always had.
 */
export function outcomeCounts(results: readonly CheckResult[]): OutcomeCounts {
  const c = runCounts({ results });
  return {
    pass: c.passed,
    fail: c.failed,
    warn: c.warned,
    skip: c.skipped,
    'n/a': c.notApplicable,
    error: c.inconclusive,
    ...(c.known > 0 ? { known: c.known } : {}),
    ...flakyCount(results),
  };
}

/** `flaky`: the checks whose failure did not happen again (conformance/run/flaky.ts), when there is one; else nothing. */
function flakyCount(results: readonly CheckResult[]): { readonly flaky?: number } {
  const flaky = results.filter((r) => r.flaky === true).length;
  return flaky > 0 ? { flaky } : {};
}

/** Checks that reached a verdict (passed, failed, warned, known) or ran and errored: what "ran" means for a verdict. */
export function ranCount(
  c: Pick<OutcomeCounts, 'pass' | 'fail' | 'warn' | 'error' | 'known'>,
): number {
  return c.pass + c.fail + c.warn + c.error + (c.known ?? 0);
}

/**
 * The requirements the run failed: each one a failing finding cites (its check's first when it cites none), those
 * only known findings cite apart. Grading fails a finding only on a MUST the spec states, so these are MUST
 * requirements, those outside the role's requirement table included (the answers and webhooks the SDK explorer judges
 * in a client audit are the server's and the receiver's requirements).
 */
export function failedRequirements(summary: Pick<RunSummary, 'results'>): {
  readonly failed: readonly string[];
  readonly known: readonly string[];
} {
  const failed = new Set<string>();
  const known = new Set<string>();
  for (const r of summary.results)
    for (const f of r.findings) {
      const id = f.requirement ?? r.requirements[0];
      if (f.outcome !== 'fail' || id === undefined) continue;
      (f.known !== undefined ? known : failed).add(id);
    }
  return { failed: [...failed].sort(), known: [...known].filter((id) => !failed.has(id)).sort() };
}

/** The counts in words, as the console and the Markdown report print them. */
export function countsText(c: RunCounts): string {
  return `${c.passed} passed, ${c.failed} failed, ${c.warned} warnings, ${c.skipped} skipped, ${c.notApplicable} not applicable, ${c.known} known, ${c.inconclusive} inconclusive (errors), ${c.total} checks`;
}

const FEW = 8;
const few = (ids: readonly string[]): string =>
  ids.slice(0, FEW).join(', ') + (ids.length > FEW ? `, and ${ids.length - FEW} more` : '');

/** "K failed: ids", and "J known: ids" when a baseline marks some, as every report's requirement line ends. */
export function failedRequirementsText(summary: Pick<RunSummary, 'results'>): string {
  const { failed, known } = failedRequirements(summary);
  return [
    failed.length === 0 ? '0 failed' : `${failed.length} failed: ${few(failed)}`,
    ...(known.length > 0 ? [`${known.length} known: ${few(known)}`] : []),
  ].join('; ');
}
