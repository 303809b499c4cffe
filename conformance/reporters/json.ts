// The JSON report (versioned contract, schema in schemas/conformance-report.schema.json).
import { verdictFor, type Verdict } from '../exit-code.js';
import type { RunSummary } from '../result.js';

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
  };
}

export function renderJsonReport(summary: RunSummary): string {
  return `${JSON.stringify(toJsonReport(summary), null, 2)}\n`;
}
