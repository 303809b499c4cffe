// The tail of every audit: the checks with console progress, the baseline, the reports, the attestation, the
// summary and the exit code.
import { packageVersion } from '../version.js';
import { writeFileAtomic } from '../../net/file-write.js';
import { applyBaseline, updateBaseline } from '../../conformance/report/baseline.js';
import { type CliIo, EXIT } from '../io.js';
import { ConformanceSetupError } from '../../conformance/run/engine.js';
import type { RunSubscriber } from '../../conformance/run/events.js';
import { exitCodeFor } from '../../conformance/run/exit-code.js';
import { maskUrlCredentials, scrubValues, type Redactor } from '../../conformance/report/redact.js';
import { outputRedactor } from '../output-redactor.js';
import { showControls } from '../../conformance/reporters/printable.js';
import { HAR_FORMAT } from '../../conformance/reporters/har.js';
import { auditConfigBytes, writeAttestation } from '../attest.js';
import {
  createConsoleReporter,
  renderConsoleSummary,
  useColour,
} from '../../conformance/reporters/console.js';
import { writeReports, type ReportSpec } from '../reports.js';
import { loadCatalogue } from '../../conformance/requirements.js';
import type { RunSummary } from '../../conformance/run/result.js';
import type { CommonAuditArgs } from './parse-args.js';
import { type Invocation, invocations } from './invocation.js';

/** The run judged against `--baseline` (after `--baseline-update` wrote the file from it); the reason it cannot be. */
async function judgeAgainstBaseline(
  summary: RunSummary,
  baseline: NonNullable<CommonAuditArgs['baseline']>,
): Promise<{ summary: RunSummary } | { problem: string }> {
  let known = baseline.known ?? { baselineVersion: '1' as const, entries: [] };
  if (baseline.update) {
    known = updateBaseline(summary, baseline.known);
    try {
      // Atomic: a run killed mid-write, or a full disk, leaves the earlier baseline (and its reasons) whole.
      writeFileAtomic(baseline.file, `${JSON.stringify(known, null, 2)}\n`);
    } catch (error) {
      return {
        problem: `cannot write --baseline "${baseline.file}": ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      };
    }
  }
  return { summary: applyBaseline(summary, known, { file: baseline.file }) };
}

/** payconform's version, as shown in reports. */
export function toolVersion(): string {
  return packageVersion();
}

/** Where progress and the summary go: stdout, unless a report is written there (then stderr). */
export interface AuditOutput {
  readonly out: (text: string) => void;
  readonly stream: { readonly write: (text: string) => void; readonly isTTY: boolean };
}

export function auditOutput(io: CliIo, reports: readonly ReportSpec[]): AuditOutput {
  const toStderr = reports.some((r) => r.path === '-');
  const out = toStderr ? io.stderr : io.stdout;
  return {
    out,
    stream: {
      write: out,
      isTTY:
        io.env === process.env && (toStderr ? process.stderr.isTTY : process.stdout.isTTY) === true,
    },
  };
}

export interface FinishAuditOptions {
  /** e.g. `audit server`, as in messages (`payconform audit server: …`). */
  readonly command: string;
  readonly io: CliIo;
  readonly output: AuditOutput;
  readonly common: CommonAuditArgs;
  /** Runs the checks with these subscribers (the console reporter). */
  readonly run: (subscribers: readonly RunSubscriber[]) => Promise<RunSummary>;
  /** After the checks, whether they finished or not: stops what the audit started. */
  readonly cleanup?: () => Promise<void> | void;
  /** After a finished run, before the reports are written. */
  readonly afterRun?: () => void;
  /**
   * After the checks, before the reports: may mark the run stopped (e.g. exit 3, the target stopped answering
   * mid-run), which every report then says.
   */
  readonly review?: (summary: RunSummary) => Promise<RunSummary>;
  /** The next thing to try, printed after the summary when the run finished (e.g. after auditing the embedded service). */
  readonly next?: string;
}

/** A message that may quote a file, a path or a target, as the terminal shows it (control characters escaped). */
/** A message as the terminal shows it: a URL's credentials masked (conformance/report/redact.ts), control characters escaped. */
export const shown = (text: string): string =>
  showControls(maskUrlCredentials(text), { multiline: true });

/**
 * The tail of every audit: the checks with console progress, then the reports, then the summary with the exit code
 * the command really ends with. A setup error (bad selection) or a report that cannot be written exits 2; otherwise
 * the exit code follows the summary.
 */
export async function finishAudit(options: FinishAuditOptions): Promise<number> {
  const { command, io, common } = options;
  // Every secret the command was given, masked once more in everything it prints or writes.
  const scrub = outputRedactor(io.env, invocations.get(io)?.attestKey);
  const progress = createConsoleReporter({
    stream: options.output.stream,
    env: io.env,
    verbose: common.verbose,
    summary: false,
  });
  let summary: RunSummary;
  try {
    summary = await options.run([(event) => progress(scrubValues(event, scrub))]);
  } catch (error) {
    if (error instanceof ConformanceSetupError) {
      io.stderr(`payconform ${command}: ${shown(error.message)}\n`);
      return EXIT.usage;
    }
    throw error;
  } finally {
    await options.cleanup?.();
  }
  if (options.review !== undefined) summary = await options.review(summary);
  if (common.baseline !== undefined && summary.stopped === undefined) {
    const judged = await judgeAgainstBaseline(summary, common.baseline);
    if ('problem' in judged) {
      io.stderr(`payconform ${command}: ${shown(judged.problem)}\n`);
      return EXIT.usage;
    }
    summary = judged.summary;
  }
  options.afterRun?.();
  summary = scrubValues(summary, scrub);
  const invocation = invocations.get(io);
  const ending = await writeRunOutputs(command, summary, common, invocation, io, scrub);
  if (invocation !== undefined) invocation.reportsWritten = true;
  const colour = useColour(options.output.stream, io.env);
  options.output.out(
    renderConsoleSummary(summary, {
      colour,
      verbose: common.verbose,
      ...(ending !== undefined ? { ending } : {}),
    }),
  );
  for (const line of ending?.lines ?? []) io.stderr(`payconform ${command}: ${shown(line)}\n`);
  if (options.next !== undefined && summary.stopped === undefined)
    options.output.out(`\nnext: ${options.next}\n`);
  return ending !== undefined ? ending.exitCode : exitCodeFor(summary);
}

/**
 * Writes the reports, then the attestation over them. When one cannot be written the command exits 2, and the
 * reports that were written are written again saying so (a stopped run with that exit code), so that no report
 * states another exit code than the one returned. Undefined when everything was written.
 */
async function writeRunOutputs(
  command: string,
  summary: RunSummary,
  common: CommonAuditArgs,
  invocation: Invocation | undefined,
  io: CliIo,
  scrub: Redactor,
): Promise<{ exitCode: number; reason: string; lines: readonly string[] } | undefined> {
  const options = {
    catalogue: loadCatalogue(),
    stdout: io.stdout,
    scrub,
    ...(invocation?.exchangeLog !== undefined ? { exchangeLog: invocation.exchangeLog } : {}),
  };
  const failures = await writeReports(summary, common.reports, options);
  const unattested =
    failures.length === 0 ? await attestRun(command, common, invocation, io) : undefined;
  if (failures.length === 0 && unattested === undefined) return undefined;
  const reason =
    unattested !== undefined
      ? 'no attestation written'
      : `${failures.length} report(s) not written`;
  const failed = new Set(failures.map((f) => f.spec.path));
  const written = common.reports.filter((r) => r.path !== '-' && !failed.has(r.path));
  const again = await writeReports(
    { ...summary, stopped: { exitCode: EXIT.usage, reason } },
    written,
    options,
  );
  return {
    exitCode: EXIT.usage,
    reason,
    lines: [...failures, ...again].map((f) => f.message).concat(unattested ?? []),
  };
}

/** Writes the `--attest` envelope over the reports just written; the reason when it cannot. */
async function attestRun(
  command: string,
  common: CommonAuditArgs,
  invocation: Invocation | undefined,
  io: CliIo,
): Promise<string | undefined> {
  if (common.attest === undefined) return undefined;
  const key = invocation?.attestKey;
  const reportPath = common.reports.find((r) => r.format === 'json' && r.path !== '-')?.path;
  if (key === undefined || reportPath === undefined || invocation === undefined)
    return `--attest: no signing key or JSON report; no attestation written`;
  const harPath = common.reports.find((r) => r.format === HAR_FORMAT && r.path !== '-')?.path;
  const redactors = [
    ...(invocation.exchangeLog?.redactor !== undefined ? [invocation.exchangeLog.redactor] : []),
    outputRedactor(io.env, key),
  ];
  try {
    await writeAttestation({
      path: common.attest,
      key,
      reportPath,
      ...(harPath !== undefined ? { harPath } : {}),
      config: auditConfigBytes(command, invocation.args, redactors),
    });
    return undefined;
  } catch (error) {
    return `cannot write the attestation to "${common.attest}": ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
  }
}
