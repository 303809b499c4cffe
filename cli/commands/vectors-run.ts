// `payconform vectors run --exec CMD`: runs the language-neutral vectors against another implementation.
import { writeFileAtomic } from '../../net/file-write.js';
import { resolve } from 'node:path';
import { loadVectorSet } from '../../vectors/harness/load.js';
import { selectCases } from '../../vectors/harness/select.js';
import {
  formatConsole,
  formatReport,
  parseReportSpec,
  type ReportSpec,
} from '../../vectors/harness/report.js';
import {
  STARTUP_TIMEOUT_MS,
  exitCodeOf,
  runVectors,
  type HarnessGate,
} from '../../vectors/harness/run.js';
import { commandSpec, formatHelp } from '../command-table.js';
import { MAX_TIMEOUT_MS, VECTOR_CASE_TIMEOUT_MS } from '../command-defaults.js';
import { EXIT, UsageError, wantsHelp, type CliIo, parseCommandFlags } from '../io.js';
import { shippedVectors } from '../package-files.js';

const SPEC = commandSpec('vectors run');

interface Options {
  exec?: string;
  reports: ReportSpec[];
  only: string[];
  timeoutMs: number;
  startupTimeoutMs: number;
  /** The vector set given with --dir; undefined: the shipped one. */
  dir: string | undefined;
  ignoreCodes: boolean;
  gate: HarnessGate;
  verbose: boolean;
}

function milliseconds(text: string | undefined, flag: string, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || n > MAX_TIMEOUT_MS)
    throw new UsageError(
      `${flag} expects an integer from 1 to ${MAX_TIMEOUT_MS}, got ${JSON.stringify(text)}`,
    );
  return n;
}

function parse(args: readonly string[]): Options {
  const values = parseCommandFlags(SPEC, args, ' (see --help)');
  const reports: ReportSpec[] = [];
  for (const text of (values['report'] as string[] | undefined) ?? []) {
    const spec = parseReportSpec(text);
    if ('error' in spec) throw new UsageError(spec.error);
    reports.push(spec);
  }
  const only = ((values['only'] as string[] | undefined) ?? []).flatMap((v) =>
    v
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== ''),
  );
  const failOn = values['fail-on'] as string | undefined;
  if (failOn !== undefined && failOn !== 'skip')
    throw new UsageError(
      `--fail-on takes skip here (a vector case has no warnings), got ${JSON.stringify(failOn)}`,
    );
  // --strict: the old name of --fail-on skip, still accepted.
  const failOnSkip = failOn === 'skip' || values['strict'] === true;
  const allowSkips = values['allow-skips'] === true;
  if (failOnSkip && allowSkips)
    throw new UsageError('--allow-skips and --fail-on skip contradict each other; give one');
  return {
    ...(typeof values['exec'] === 'string' ? { exec: values['exec'] } : {}),
    reports,
    only,
    timeoutMs: milliseconds(
      values['timeout-ms'] as string | undefined,
      '--timeout-ms',
      VECTOR_CASE_TIMEOUT_MS,
    ),
    startupTimeoutMs: milliseconds(
      values['startup-timeout-ms'] as string | undefined,
      '--startup-timeout-ms',
      STARTUP_TIMEOUT_MS,
    ),
    dir: typeof values['dir'] === 'string' ? resolve(values['dir']) : undefined,
    ignoreCodes: values['ignore-codes'] === true,
    gate: { failOnSkip, allowSkips },
    verbose: values['verbose'] === true,
  };
}

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  if (wantsHelp(args)) {
    io.stdout(formatHelp(SPEC));
    return EXIT.ok;
  }
  const options = parse(args);
  if (options.exec === undefined || options.exec.trim() === '')
    throw new UsageError('--exec "CMD" is required (see --help)');

  const source =
    options.dir !== undefined ? { dir: options.dir, read: undefined } : shippedVectors();
  let set;
  try {
    set = await loadVectorSet(source.dir, source.read);
  } catch (error) {
    throw new UsageError(
      `cannot read the vectors in ${source.dir}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const { cases, unknown } = selectCases(set.cases, options.only);
  if (unknown.length > 0)
    throw new UsageError(
      `--only: no vector file, op or case id ${unknown.map((u) => JSON.stringify(u)).join(', ')}`,
    );

  const report = await runVectors({
    command: options.exec,
    cases,
    keys: set.keys,
    timeoutMs: options.timeoutMs,
    startupTimeoutMs: options.startupTimeoutMs,
    ignoreCodes: options.ignoreCodes,
  });
  // With a report on standard output, the console summary moves to standard error.
  const toStdout = options.reports.some((r) => r.path === '-');
  (toStdout ? io.stderr : io.stdout)(formatConsole(report, options.verbose, options.gate));
  for (const spec of options.reports) {
    const text = formatReport(spec.format, report, options.gate);
    if (spec.path === '-') {
      io.stdout(text);
      continue;
    }
    try {
      writeFileAtomic(spec.path, text); // the one atomic writer (folders made one level at a time)
    } catch (error) {
      io.stderr(
        `payconform vectors run: cannot write ${spec.format} report to "${spec.path}": ${error instanceof Error ? error.message : String(error)}\n`,
      );
      return EXIT.usage;
    }
  }
  return exitCodeOf(report, options.gate);
}
