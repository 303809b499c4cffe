// The JSON report (versioned contract, schema in schemas/conformance-report.schema.json).
import { verdictFor, type Verdict } from '../run/exit-code.js';
import type { RunSummary } from '../run/result.js';
import { outcomeCounts } from '../run/run-counts.js';

/** The version of the JSON report's format; it rises when a field changes meaning or goes away. */
export const REPORT_VERSION = '1';

export interface JsonReport extends RunSummary {
  readonly reportVersion: typeof REPORT_VERSION;
  readonly tool: { readonly name: 'payconform'; readonly version: string };
  readonly verdict: Verdict;
  readonly exitCode: number;
  /** Why the verdict is not a plain pass. */
  readonly verdictReasons: readonly string[];
  /** Checks that do not apply to this target, each with the reason (never skips: they do not make a run INCOMPLETE). */
  readonly notApplicable: ReadonlyArray<{ readonly id: string; readonly reason: string }>;
}

/** The run as the JSON report's value: the summary with its verdict and the report's version. */
export function toJsonReport(summary: RunSummary): JsonReport {
  const v = verdictFor(summary);
  return {
    reportVersion: REPORT_VERSION,
    tool: { name: 'payconform', version: summary.toolVersion },
    verdict: v.verdict,
    exitCode: v.exitCode,
    verdictReasons: v.reasons,
    notApplicable: summary.results
      .filter((r) => r.outcome === 'n/a')
      .map((r) => ({ id: r.id, reason: r.message })),
    ...summary,
    // The one source of every report's numbers (run-counts.ts), whatever the summary was handed with.
    counts: outcomeCounts(summary.results),
  };
}

/** The run as the JSON report's text (`toJsonReport`, two-space indent, newline-terminated). */
export function renderJsonReport(summary: RunSummary): string {
  return `${JSON.stringify(toJsonReport(summary), null, 2)}\n`;
}
