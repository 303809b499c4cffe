// Flaky failures named: before a failure is reported, its check runs once more, alone (the engine waits for every
// other check to end first). A failure that does not happen again is flaky: reported as a warning with both runs,
// never dropped and never a pass; `--fail-on flaky` fails the run on it. A second run that reaches no verdict (it
// errs, is skipped or does not apply) says nothing either way: the failure stands. Pure: two graded results in, one out.
import { worstOutcome } from './grade.js';
import type { CheckResult, GradedFinding, Outcome } from './result.js';

/** The outcomes of a second run that show the failure did not happen again (no MUST failed, a verdict was reached). */
const NOT_AGAIN: ReadonlySet<Outcome> = new Set(['pass', 'warn']);

/** How a failure is run once more in a suite: `again` (run the check again: the default) or never, with the reason. */
export type SuiteRerun = 'again' | { readonly never: string };

/**
 * The client audit's checks judge the requests a client already sent (recorded while it ran): judged again they give
 * the same verdict, so a second run would say nothing of whether the failure happens again (run the client again).
 */
export const RECORDED_REQUESTS: SuiteRerun = {
  never:
    'judges the requests the client already sent: run the client again (audit client) to see them again',
};

/** Whether a result is one whose check is run once more before it is reported: a failure. */
export function needsRunAgain(r: CheckResult): boolean {
  return r.outcome === 'fail';
}

/**
 * The result reported for a check that failed (`first`) and was run once more (`again`): the first result itself when
 * it failed again or reached no verdict, else the flaky one (`flakyResult`).
 */
export function judgeRunAgain(first: CheckResult, again: CheckResult): CheckResult {
  return NOT_AGAIN.has(again.outcome) ? flakyResult(first, again) : first;
}

/**
 * A failure that did not happen again: the first run's failing findings become warnings marked `flaky` (their evidence
 * kept: the first trace), the second run rides along in `again` (its outcome, message and findings: the second trace).
 */
export function flakyResult(first: CheckResult, again: CheckResult): CheckResult {
  const findings: GradedFinding[] = first.findings.map((f) =>
    f.outcome === 'fail' ? { ...f, outcome: 'warn', flaky: true } : f,
  );
  const outcome = worstOutcome(findings.map((f) => f.outcome)) ?? 'warn';
  return {
    ...first,
    outcome,
    message: `flaky: ${first.message} (failed once; run once more alone: ${again.outcome}${again.message !== '' ? `, ${again.message}` : ''})`,
    findings,
    flaky: true,
    again: {
      outcome: again.outcome,
      message: again.message,
      findings: again.findings,
      durationMs: again.durationMs,
    },
  };
}
