// `payconform vectors run --exec CMD`: runs the language-neutral vectors against another implementation.
import { writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadVectorSet } from '../../vectors/harness/load.js';
import {
  formatConsole,
  formatReport,
  parseReportSpec,
  type ReportSpec,
} from '../../vectors/harness/report.js';
import { STARTUP_TIMEOUT_MS, exitCodeOf, runVectors } from '../../vectors/harness/run.js';
import { EXIT, UsageError, wantsHelp, type CliIo } from '../io.js';
import { ensureParentDirectories } from '../reports.js';

const HELP = `usage: payconform vectors run --exec "CMD" [options]

Starts CMD once and sends it every vector case as one NDJSON line on stdin; reads one answer line per case
from its stdout (protocol: vectors/README.md).

options:
  --exec CMD            the implementation's adapter command (run through the shell)
  --report FORMAT:PATH  write a report: json, junit or html, as the audits (PATH - is standard output; repeatable)
  --only ID,...         run only these case ids (repeatable)
  --timeout-ms N        per-case answer timeout (default 5000)
  --startup-timeout-ms N  how long the adapter may take to start and answer the "hello" handshake (default 30000)
  --dir DIR             vector directory (default: the vectors shipped with payconform)
  --ignore-codes        compare valid/invalid only, not the error codes
  --fail-on skip        count skipped (unsupported) and inexpressible cases as failures (--strict: its old name)
  --verbose             list passing cases too

exit codes: 0 no case failed (skipped and inexpressible cases allowed unless --fail-on skip), 1 any case failed,
2 usage error, 70 internal error
`;

const DEFAULT_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../vectors');

interface Options {
  exec?: string;
  reports: ReportSpec[];
  only: string[];
  timeoutMs: number;
  startupTimeoutMs: number;
  dir: string;
  ignoreCodes: boolean;
  failOnSkip: boolean;
  verbose: boolean;
}

function parseArgs(args: readonly string[]): Options | 'help' {
  if (wantsHelp(args)) return 'help';
  const options: Options = {
    reports: [],
    only: [],
    timeoutMs: 5000,
    startupTimeoutMs: STARTUP_TIMEOUT_MS,
    dir: DEFAULT_DIR,
    ignoreCodes: false,
    failOnSkip: false,
    verbose: false,
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const value = (): string => {
      const v = args[++i];
      if (v === undefined) throw new UsageError(`${arg} needs a value`);
      return v;
    };
    switch (arg) {
      case '--help':
      case '-h':
        return 'help';
      case '--exec':
        options.exec = value();
        break;
      case '--report': {
        const spec = parseReportSpec(value());
        if ('error' in spec) throw new UsageError(spec.error);
        options.reports.push(spec);
        break;
      }
      case '--only':
        options.only.push(
          ...value()
            .split(',')
            .map((s) => s.trim())
            .filter((s) => s !== ''),
        );
        break;
      case '--timeout-ms':
      case '--startup-timeout-ms': {
        const text = value();
        const n = Number(text);
        if (!/^\d+$/.test(text) || n < 1 || n > 600_000)
          throw new UsageError(
            `${arg} expects an integer from 1 to 600000, got ${JSON.stringify(text)}`,
          );
        if (arg === '--timeout-ms') options.timeoutMs = n;
        else options.startupTimeoutMs = n;
        break;
      }
      case '--dir':
        options.dir = resolve(value());
        break;
      case '--ignore-codes':
        options.ignoreCodes = true;
        break;
      case '--fail-on': {
        const v = value();
        if (v !== 'skip')
          throw new UsageError(
            `--fail-on takes skip here (a vector case has no warnings), got ${JSON.stringify(v)}`,
          );
        options.failOnSkip = true;
        break;
      }
      case '--strict':
        // The old name of --fail-on skip, still accepted; --strict elsewhere means only validate's strict schema.
        options.failOnSkip = true;
        break;
      case '--verbose':
        options.verbose = true;
        break;
      default:
        throw new UsageError(`unknown argument ${JSON.stringify(arg)} (see --help)`);
    }
  }
  return options;
}

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  const options = parseArgs(args);
  if (options === 'help') {
    io.stdout(HELP);
    return EXIT.ok;
  }
  if (options.exec === undefined || options.exec.trim() === '')
    throw new UsageError('--exec "CMD" is required (see --help)');

  let set;
  try {
    set = await loadVectorSet(options.dir);
  } catch (error) {
    throw new UsageError(
      `cannot read the vectors in ${options.dir}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  let cases = set.cases;
  if (options.only.length > 0) {
    const known = new Set(cases.map((c) => c.vector.id));
    const unknown = options.only.filter((id) => !known.has(id));
    if (unknown.length > 0)
      throw new UsageError(
        `--only: no case with id ${unknown.map((u) => JSON.stringify(u)).join(', ')}`,
      );
    const wanted = new Set(options.only);
    cases = cases.filter((c) => wanted.has(c.vector.id));
  }

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
  (toStdout ? io.stderr : io.stdout)(formatConsole(report, options.verbose));
  for (const spec of options.reports) {
    const text = formatReport(spec.format, report);
    if (spec.path === '-') {
      io.stdout(text);
      continue;
    }
    try {
      ensureParentDirectories(spec.path); // one level at a time: a recursive mkdir spins under /proc
      await writeFile(spec.path, text);
    } catch (error) {
      io.stderr(
        `payconform vectors run: cannot write ${spec.format} report to "${spec.path}": ${error instanceof Error ? error.message : String(error)}\n`,
      );
      return EXIT.usage;
    }
  }
  return exitCodeOf(report, options.failOnSkip);
}
