// The verdict of a run and its exit code: a tiny pure function of the summary and the gate it was run under. The codes
// themselves are the one table's (exit-code-table.ts).
import type { RunGate, RunSummary } from './result.js';
import { unexercisedMust } from '../requirement-table.js';
import {
  EXIT,
  EXIT_CODES,
  verdictOfExitCode,
  type ExitCode,
  type ExitName,
  type Verdict,
} from '../exit-code-table.js';
import { ranCount } from './run-counts.js';

/** 0: every selected check reached a verdict and none failed under the gate. */
export const EXIT_OK = EXIT.ok;
/** 1: a MUST failure, a check that errored or timed out, a warning or skip under `--fail-on`, or a run-level problem. */
export const EXIT_MUST_FAILURE = EXIT.failed;
/** 2: usage or config error (decided by the command before a run). */
export const EXIT_CONFIG_ERROR = EXIT.usage;
/** 3: target unreachable (decided by the command before a run). */
export const EXIT_TARGET_UNREACHABLE = EXIT.unreachable;
/**
 * 4: INCOMPLETE: no failure, but no selected check ran (every one skipped, not applicable or not selected), or a check
 * the user did not deselect was skipped (never a pass by omission).
 */
export const EXIT_INCOMPLETE = EXIT.incomplete;
/** 70 (sysexits EX_SOFTWARE): payconform itself crashed; distinct from the usage code 2. */
export const EXIT_INTERNAL_ERROR = EXIT.internal;

export type { Verdict } from '../exit-code-table.js';

/** The gate when a run does not say: skips make the run incomplete, warnings do not fail it. */
export const DEFAULT_GATE: RunGate = { failOn: [], allowSkips: false };

export interface VerdictInfo {
  readonly verdict: Verdict;
  readonly exitCode: ExitCode;
  /** Why, one phrase each (empty for a plain pass). */
  readonly reasons: readonly string[];
}

type VerdictInput = Pick<RunSummary, 'counts'> &
  Partial<Pick<RunSummary, 'gate' | 'blocking' | 'stopped' | 'requirements' | 'selection'>>;

/** Why a run in which no selected check ran is INCOMPLETE, with what became of the checks; undefined when one ran. */
function nothingRan(summary: VerdictInput): string | undefined {
  const c = summary.counts;
  if (ranCount(c) > 0) return undefined;
  const deselected = summary.selection?.deselected.length ?? 0;
  const parts = [
    c.skip > 0 ? `${c.skip} skipped` : '',
    c['n/a'] > 0 ? `${c['n/a']} not applicable` : '',
    deselected > 0 ? `${deselected} not selected (--only/--level)` : '',
  ].filter((p) => p !== '');
  return `no selected check ran${parts.length > 0 ? ` (${parts.join(', ')})` : ''}: nothing was audited`;
}

/** The verdict and exit code of one row of the table, with the reasons. */
const ending = (name: ExitName, reasons: readonly string[]): VerdictInfo => ({
  verdict: EXIT_CODES[name].verdict,
  exitCode: EXIT_CODES[name].code,
  reasons,
});

/**
 * The verdict of a run: a stopped run is an ERROR with its own exit code; else FAIL beats INCOMPLETE (no selected
 * check ran, or a skip the gate does not accept) beats PASS. Each verdict is its exit code's in the one table.
 */
export function verdictFor(summary: VerdictInput): VerdictInfo {
  if (summary.stopped !== undefined)
    return {
      verdict: verdictOfExitCode(summary.stopped.exitCode) ?? 'error',
      exitCode: summary.stopped.exitCode,
      reasons: [summary.stopped.reason],
    };
  const gate = summary.gate ?? DEFAULT_GATE;
  const c = summary.counts;
  const failing: string[] = [];
  if (c.fail > 0) failing.push(`${c.fail} check(s) failed`);
  if (c.error > 0) failing.push(`${c.error} check(s) errored`);
  if (gate.failOn.includes('warn') && c.warn > 0)
    failing.push(`${c.warn} warning(s) under --fail-on warn`);
  if (gate.failOn.includes('skip') && c.skip > 0)
    failing.push(`${c.skip} skipped check(s) under --fail-on skip`);
  if (gate.failOn.includes('flaky') && (c.flaky ?? 0) > 0)
    failing.push(`${c.flaky} flaky check(s) under --fail-on flaky`);
  const unexercised = gate.failOn.includes('unexercised')
    ? unexercisedMust(summary.requirements?.table)
    : [];
  if (unexercised.length > 0)
    failing.push(
      `${unexercised.length} MUST requirement(s) not exercised under --fail-on unexercised (${unexercised.map((r) => r.id).join(', ')})`,
    );
  failing.push(...(summary.blocking ?? []));
  if (failing.length > 0) return ending('failed', failing);
  // Never a pass by omission, whatever the gate accepts of skips: a run needs one check that ran.
  const none = nothingRan(summary);
  if (none !== undefined) return ending('incomplete', [none]);
  if (c.skip > 0 && !gate.allowSkips)
    return ending('incomplete', [
      `${c.skip} selected check(s) skipped (see each skip's reason; --allow-skips accepts a run with skips)`,
    ]);
  return ending('ok', []);
}

/** The exit code that follows from a summary (see `verdictFor`). */
export function exitCodeFor(summary: VerdictInput): VerdictInfo['exitCode'] {
  return verdictFor(summary).exitCode;
}

/** The one-line verdict, as the console and the HTML report print it. */
export function verdictLine(summary: VerdictInput): string {
  const v = verdictFor(summary);
  if (v.verdict === 'pass') return 'verdict: PASS (no MUST failure)';
  return `verdict: ${v.verdict.toUpperCase()} (${v.reasons.join('; ')})`;
}
