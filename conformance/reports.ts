// `--report FORMAT:PATH` parsing, rendering by format, and writing report files (the command edge calls this).
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { PayconformError } from '../src/errors.js';
import type { Catalogue } from './requirements.js';
import type { RunSummary } from './result.js';
import { renderHtmlReport } from './reporters/html.js';
import { renderJsonReport } from './reporters/json.js';
import { renderJunitReport } from './reporters/junit.js';

export const REPORT_FORMATS = ['json', 'junit', 'html'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

export interface ReportSpec {
  readonly format: ReportFormat;
  /** A file path, or `-` for standard output. */
  readonly path: string;
}

/** Parses one `--report` value (`json:out/report.json`, `junit:-`). Throws PayconformError `REPORT_SPEC_INVALID`. */
export function parseReportSpec(value: string): ReportSpec {
  const colon = value.indexOf(':');
  const usage = `expected FORMAT:PATH with FORMAT one of ${REPORT_FORMATS.join(', ')} (e.g. json:report.json)`;
  if (colon <= 0) throw new PayconformError('REPORT_SPEC_INVALID', `--report "${value}": ${usage}`);
  const format = value.slice(0, colon).toLowerCase();
  const path = value.slice(colon + 1);
  if (!(REPORT_FORMATS as readonly string[]).includes(format))
    throw new PayconformError(
      'REPORT_SPEC_INVALID',
      `--report "${value}": unknown format "${format}"; ${usage}`,
    );
  if (path.length === 0)
    throw new PayconformError('REPORT_SPEC_INVALID', `--report "${value}": missing PATH; ${usage}`);
  if (path.includes('\0'))
    throw new PayconformError(
      'REPORT_SPEC_INVALID',
      `--report "${value}": PATH contains a NUL character`,
    );
  return { format: format as ReportFormat, path };
}

/** Parses every `--report` value; two reports to the same path are a usage error. */
export function parseReportSpecs(values: readonly string[]): ReportSpec[] {
  const specs = values.map(parseReportSpec);
  const paths = specs.map((s) => s.path);
  const dup = paths.find((p, i) => paths.indexOf(p) !== i);
  if (dup !== undefined)
    throw new PayconformError(
      'REPORT_SPEC_INVALID',
      `--report: two reports would write to "${dup}"`,
    );
  return specs;
}

export function renderReport(
  format: ReportFormat,
  summary: RunSummary,
  catalogue?: Catalogue,
): string {
  switch (format) {
    case 'json':
      return renderJsonReport(summary);
    case 'junit':
      return renderJunitReport(summary);
    case 'html':
      return renderHtmlReport(summary, catalogue ? { catalogue } : {});
  }
}

export interface ReportWriteFailure {
  readonly spec: ReportSpec;
  readonly message: string;
}

/** Writes each report (creating parent directories); `-` goes to `stdout`. Never throws: returns what failed. */
export async function writeReports(
  summary: RunSummary,
  specs: readonly ReportSpec[],
  options: { readonly catalogue?: Catalogue; readonly stdout?: (text: string) => void } = {},
): Promise<ReportWriteFailure[]> {
  const failures: ReportWriteFailure[] = [];
  for (const spec of specs) {
    try {
      const text = renderReport(spec.format, summary, options.catalogue);
      if (spec.path === '-') {
        (options.stdout ?? ((t: string) => process.stdout.write(t)))(text);
        continue;
      }
      await mkdir(dirname(spec.path), { recursive: true });
      await writeFile(spec.path, text, 'utf8');
    } catch (error) {
      failures.push({
        spec,
        message: `cannot write ${spec.format} report to "${spec.path}": ${error instanceof Error ? error.message : String(error)}`,
      });
    }
  }
  return failures;
}
