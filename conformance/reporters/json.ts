// The JSON report (versioned contract, schema in schemas/conformance-report.schema.json).
import { exitCodeFor } from '../exit-code.js';
import type { RunSummary } from '../result.js';

export const REPORT_VERSION = '1';

export interface JsonReport extends RunSummary {
  readonly reportVersion: typeof REPORT_VERSION;
  readonly tool: { readonly name: 'payconform'; readonly version: string };
  readonly verdict: 'pass' | 'fail';
  readonly exitCode: number;
}

export function toJsonReport(summary: RunSummary): JsonReport {
  const exitCode = exitCodeFor(summary);
  return { reportVersion: REPORT_VERSION, tool: { name: 'payconform', version: summary.toolVersion }, verdict: exitCode === 0 ? 'pass' : 'fail', exitCode, ...summary };
}

export function renderJsonReport(summary: RunSummary): string {
  return `${JSON.stringify(toJsonReport(summary), null, 2)}\n`;
}
