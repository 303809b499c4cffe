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
}

export function toJsonReport(summary: RunSummary): JsonReport {
  const v = verdictFor(summary);
  return {
    reportVersion: REPORT_VERSION,
    tool: { name: 'payconform', version: summary.toolVersion },
    verdict: v.verdict,
    exitCode: v.exitCode,
    verdictReasons: v.reasons,
    ...summary,
  };
}

export function renderJsonReport(summary: RunSummary): string {
  return `${JSON.stringify(toJsonReport(summary), null, 2)}\n`;
}
