// Exit codes of the audit commands, and the one that follows from a run summary.
import type { RunSummary } from './result.js';

/** 0: no MUST failure. */
export const EXIT_OK = 0;
/** 1: at least one MUST failure, or a check that errored or timed out. */
export const EXIT_MUST_FAILURE = 1;
/** 2: usage or config error (decided by the command before a run). */
export const EXIT_CONFIG_ERROR = 2;
/** 3: target unreachable (decided by the command before a run). */
export const EXIT_TARGET_UNREACHABLE = 3;

/** 1 when any check failed (only MUST violations and timeouts grade `fail`) or errored; else 0. Warnings never fail. */
export function exitCodeFor(summary: Pick<RunSummary, 'counts'>): typeof EXIT_OK | typeof EXIT_MUST_FAILURE {
  return summary.counts.fail > 0 || summary.counts.error > 0 ? EXIT_MUST_FAILURE : EXIT_OK;
}
