// `--report FORMAT:PATH` parsing, rendering by format, and writing report files: flag knowledge, so it lives in the
// command line, not in the conformance library (whose reporters render a summary and know no flags).
import { UsageError } from './io.js';
import { unwritableReason, writeFileAtomic } from '../net/file-write.js';
import type { LevelFilter } from '../conformance/run/engine.js';
import type { Catalogue } from '../conformance/requirements.js';
import type { RunSummary } from '../conformance/run/result.js';
import {
  REPORT_FORMATS,
  renderReport,
  type ReportFormat,
} from '../conformance/reporters/render.js';
import { HAR_FORMAT, renderHar } from '../conformance/reporters/har.js';
import { ExchangeLog } from '../conformance/http/exchange-log.js';
import type { Redactor } from '../conformance/report/redact.js';

/** What `--report` takes: the summary's formats, and `har` (the run's exchanges). */
export const REPORT_FLAG_FORMATS = [...REPORT_FORMATS, HAR_FORMAT] as const;
export type ReportFlagFormat = (typeof REPORT_FLAG_FORMATS)[number];

export interface ReportSpec {
  readonly format: ReportFlagFormat;
  /** A file path, or `-` for standard output. */
  readonly path: string;
}

/** Parses one `--report` value (`json:out/report.json`, `junit:-`). Throws UsageError. */
export function parseReportSpec(value: string): ReportSpec {
  const colon = value.indexOf(':');
  const usage = `expected FORMAT:PATH with FORMAT one of ${REPORT_FLAG_FORMATS.join(', ')} (e.g. json:report.json)`;
  if (colon <= 0) throw new UsageError(`--report "${value}": ${usage}`);
  const format = value.slice(0, colon).toLowerCase();
  const path = value.slice(colon + 1);
  if (!(REPORT_FLAG_FORMATS as readonly string[]).includes(format))
    throw new UsageError(`--report "${value}": unknown format "${format}"; ${usage}`);
  if (path.length === 0) throw new UsageError(`--report "${value}": missing PATH; ${usage}`);
  if (path.includes('\0'))
    throw new UsageError(`--report "${value}": PATH contains a NUL character`);
  return { format: format as ReportFlagFormat, path };
}

/** Parses every `--report` value; two reports to the same path are a usage error. */
export function parseReportSpecs(values: readonly string[]): ReportSpec[] {
  const specs = values.map(parseReportSpec);
  const paths = specs.map((s) => s.path);
  const dup = paths.find((p, i) => paths.indexOf(p) !== i);
  if (dup !== undefined) throw new UsageError(`--report: two reports would write to "${dup}"`);
  return specs;
}

export interface ReportWriteFailure {
  readonly spec: ReportSpec;
  readonly message: string;
}

/**
 * Writes each report atomically (creating parent directories one level at a time); `-` goes to `stdout`. Never
 * throws: returns what failed.
 */
export async function writeReports(
  summary: RunSummary,
  specs: readonly ReportSpec[],
  options: {
    readonly catalogue?: Catalogue;
    readonly stdout?: (text: string) => void;
    /** The run's exchanges, for `har` (none recorded: a HAR without entries). */
    readonly exchangeLog?: ExchangeLog;
    /** Masks the HAR when the log was not handed the run's redactor (a run stopped before its checks). */
    readonly redactor?: Redactor;
    /**
     * The output edge's secrets (the attestation key among them), masked in the HAR's text; the summary's reports are
     * rendered from a summary the caller has already scrubbed with it (`scrubValues`).
     */
    readonly scrub?: Redactor;
  } = {},
): Promise<ReportWriteFailure[]> {
  const failures: ReportWriteFailure[] = [];
  for (const spec of specs) {
    try {
      const rendered =
        spec.format === HAR_FORMAT
          ? renderHar(options.exchangeLog ?? new ExchangeLog(), {
              toolVersion: summary.toolVersion,
              ...(options.exchangeLog?.redactor === undefined && options.redactor !== undefined
                ? { redactor: options.redactor }
                : {}),
            })
          : renderReport(spec.format, summary, options.catalogue);
      const text =
        spec.format === HAR_FORMAT && options.scrub !== undefined
          ? options.scrub.maskLiterals(rendered)
          : rendered;
      if (spec.path === '-') {
        (options.stdout ?? ((t: string) => process.stdout.write(t)))(text);
        continue;
      }
      // Atomic (a killed run leaves the earlier file whole); a new HAR is 0600: it holds the run's exchanges.
      writeFileAtomic(spec.path, text, { sensitive: spec.format === HAR_FORMAT });
    } catch (error) {
      failures.push({
        spec,
        message: `cannot write ${spec.format} report to "${spec.path}": ${error instanceof Error ? error.message : String(error)}`,
      });
    }
  }
  return failures;
}

/** Folders, writability and the atomic write live with the one writer (net/file-write.ts). */
export { ensureParentDirectories, unwritableReason } from '../net/file-write.js';

/** The report paths (not `-`) that cannot be written, each with a message; checked before the run starts. */
export function unwritableReports(specs: readonly ReportSpec[]): ReportWriteFailure[] {
  const failures: ReportWriteFailure[] = [];
  for (const spec of specs) {
    if (spec.path === '-') continue;
    const reason = unwritableReason(spec.path);
    if (reason !== undefined)
      failures.push({
        spec,
        message: `cannot write ${spec.format} report to "${spec.path}": ${reason}`,
      });
  }
  return failures;
}

/** Parses the `--level` value. */
export function parseLevelFilter(value: string): LevelFilter {
  const v = value.toLowerCase();
  if (v === 'must' || v === 'should' || v === 'all') return v;
  throw new UsageError(`--level must be one of must, should, all (got "${value}")`);
}
