// What the three audit commands (`audit server`, `audit client`, `audit webhooks`) share: refusing secrets as
// arguments, the common options (--report, --only, --level, --fail-on, --allow-skips, --verbose, --help), option
// value checks, and the tail of a run (console progress, the checks, the reports, the exit code). Each step is a file
// of cli/audit-command/; this one runs an invocation (preflight, the watched run, a stopped run's reports) and names
// the steps for the commands.
import { pathClash, type NamedPath } from './path-clash.js';
import { inputPaths, optionValues, outputPaths, requestedReports } from './audit-paths.js';
import { type CliIo, EXIT, UsageError, wantsHelp as asksForHelp } from './io.js';
import type { CheckRole } from '../conformance/run/check.js';
import { stoppedRunSummary } from '../conformance/run/engine.js';
import { maskUrlCredentials } from '../conformance/report/redact.js';
import { outputRedactor } from './output-redactor.js';
import { ExchangeLog, withExchangeLog } from '../conformance/http/exchange-log.js';
import { HAR_FORMAT } from '../conformance/reporters/har.js';
import { readAttestKey } from './attest.js';
import type { Ed25519PrivateKey } from '../src/ed25519/index.js';
import { unwritableReason, unwritableReports, writeReports, type ReportSpec } from './reports.js';
import { loadCatalogue } from '../conformance/requirements.js';
import type { RunStopped } from '../conformance/run/result.js';
import { toolVersion, shown } from './audit-command/finish.js';
import { type Invocation, invocations } from './audit-command/invocation.js';

export { wantsHelp } from './io.js';
// The steps of an audit command, one file each in cli/audit-command/; the commands import them from here.
export {
  SECRET_OPTION,
  parseAuditArgs,
  type CommonAuditArgs,
  type OptionValues,
  type AuditArgsSpec,
} from './audit-command/parse-args.js';
export {
  checkHttpUrl,
  parseFailOn,
  parseHostPortOption,
  parseIntegerOption,
  parseList,
  refuseUnknownChecks,
} from './audit-command/option-values.js';
export {
  auditOutput,
  finishAudit,
  toolVersion,
  type AuditOutput,
  type FinishAuditOptions,
} from './audit-command/finish.js';
export { rerunCommandFor } from './audit-command/rerun.js';
export {
  auditSteps,
  selectionOptions,
  type AuditStepContext,
  type AuditSteps,
  type PreparedAudit,
} from './audit-command/steps.js';

export interface AuditCommandSpec {
  /** e.g. `audit server`. */
  readonly command: string;
  readonly role: CheckRole;
  /** Options naming other files the command writes (e.g. `--public-key-out`): checked writable before it starts. */
  readonly fileOptions?: readonly string[];
  /** Files the command reads besides its options' (e.g. `replay`'s REPORT.json): never replaced by an output. */
  readonly inputs?: (args: readonly string[]) => readonly NamedPath[];
}

/** What the command said on stderr, without its `payconform audit ...:` prefixes: the reason a stopped run gives. */
function reasonFrom(said: readonly string[], command: string, exitCode: number): string {
  const text = said
    .join('')
    .split('\n')
    .map((line) => line.replace(`payconform ${command}: `, '').trim())
    .filter((line) => line !== '')
    .join('; ');
  return text === '' ? `the command ended with exit ${exitCode}` : text.slice(0, 4_000);
}

/**
 * Runs an audit command so that it leaves a report on every exit: every file it will write is checked writable
 * before anything starts (exit 2 at once otherwise, never a spin under /proc), and when it ends with exit 2 (usage
 * or config error), 3 (target unreachable) or 70 (internal error) before its checks, every requested report is still
 * written, saying why (JUnit: an errored test case naming it).
 */
export function auditCommand(
  spec: AuditCommandSpec,
  body: (args: readonly string[], io: CliIo) => Promise<number>,
): (args: readonly string[], io: CliIo) => Promise<number> {
  return async (args, io) => {
    if (asksForHelp(args)) return body(args, io);
    const clash = pathClash(
      [...inputPaths(args, io), ...(spec.inputs?.(args) ?? [])],
      outputPaths(spec.fileOptions ?? [], args),
    );
    if (clash !== undefined) {
      // No report is written: one of them would replace the very file named.
      io.stderr(`payconform ${spec.command}: ${shown(clash)}\n`);
      return EXIT.usage;
    }
    const pre = preflight(spec, args, io);
    const stop: StopRun = (stopped, skip = new Set()) =>
      writeStoppedReports(
        spec,
        args,
        io,
        pre.reports.filter((r) => !skip.has(r.path)),
        stopped,
        pre.exchangeLog,
        pre.attestKey,
      );
    if (pre.unwritable.length > 0) {
      for (const message of pre.unwritable)
        io.stderr(`payconform ${spec.command}: ${shown(message)}\n`);
      const bad = new Set(unwritableReports(pre.reports).map((f) => f.spec.path));
      await stop({ exitCode: EXIT.usage, reason: pre.unwritable.join('; ') }, bad);
      return EXIT.usage;
    }
    return runWatched(spec, args, io, body, pre, stop);
  };
}

/** Writes the requested reports (less those in `skip`) of a run that stopped before its verdict. */
type StopRun = (stopped: RunStopped, skip?: ReadonlySet<string>) => Promise<unknown>;

/** What is settled before an audit starts: the reports asked for, what cannot be written, the HAR log, the key. */
interface Preflight {
  readonly reports: readonly ReportSpec[];
  /** One message per file that cannot be written (or `--attest` without a usable key): exit 2 before anything runs. */
  readonly unwritable: readonly string[];
  readonly exchangeLog?: ExchangeLog;
  readonly attestKey?: Ed25519PrivateKey;
}

function preflight(spec: AuditCommandSpec, args: readonly string[], io: CliIo): Preflight {
  const reports = requestedReports(args);
  const unwritable = unwritableReports(reports).map((f) => f.message);
  for (const flag of spec.fileOptions ?? [])
    for (const path of optionValues(args, flag)) {
      const reason = unwritableReason(path);
      if (reason !== undefined) unwritable.push(`cannot write --${flag} "${path}": ${reason}`);
    }
  // Every exchange of the run is recorded when a HAR is asked for (and findings then name their entries).
  const exchangeLog = reports.some((r) => r.format === HAR_FORMAT) ? new ExchangeLog() : undefined;
  const attestPaths = optionValues(args, 'attest');
  const written = [
    ...attestPaths.map((path) => ['attest', path] as const),
    ...(args.includes('--baseline-update')
      ? optionValues(args, 'baseline').map((path) => ['baseline', path] as const)
      : []),
  ];
  for (const [flag, path] of written) {
    const reason = unwritableReason(path);
    if (reason !== undefined) unwritable.push(`cannot write --${flag} "${path}": ${reason}`);
  }
  let attestKey: Ed25519PrivateKey | undefined;
  if (attestPaths.length > 0 && unwritable.length === 0)
    try {
      attestKey = readAttestKey(io.env);
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      unwritable.push(error.message);
    }
  return {
    reports,
    unwritable,
    ...(exchangeLog !== undefined ? { exchangeLog } : {}),
    ...(attestKey !== undefined ? { attestKey } : {}),
  };
}

/**
 * Runs the command's body with its stderr watched (what it says is the reason a stopped run gives); when it ends with
 * exit 2, 3 or 70 (or throws) before `finishAudit` wrote the reports, writes them saying why.
 */
async function runWatched(
  spec: AuditCommandSpec,
  args: readonly string[],
  io: CliIo,
  body: (args: readonly string[], io: CliIo) => Promise<number>,
  pre: Preflight,
  stop: StopRun,
): Promise<number> {
  const said: string[] = [];
  const state: Invocation = {
    reportsWritten: false,
    args,
    ...(pre.attestKey !== undefined ? { attestKey: pre.attestKey } : {}),
    ...(pre.exchangeLog !== undefined ? { exchangeLog: pre.exchangeLog } : {}),
  };
  // What the command says on stderr (a config's error may quote its target) has a URL's credentials masked.
  const watched: CliIo = {
    ...io,
    stderr: (text) => {
      const masked = maskUrlCredentials(text);
      said.push(masked);
      io.stderr(masked);
    },
  };
  invocations.set(watched, state);
  const exchangeLog = pre.exchangeLog;
  let code: number;
  try {
    code = await (exchangeLog !== undefined
      ? withExchangeLog(exchangeLog, () => body(args, watched))
      : body(args, watched));
  } catch (error) {
    if (!state.reportsWritten)
      await stop(
        error instanceof UsageError
          ? { exitCode: EXIT.usage, reason: error.message.split('\n')[0] ?? error.message }
          : {
              exitCode: EXIT.internal,
              reason: `internal error (a defect of payconform): ${error instanceof Error ? error.message : String(error)}`,
            },
      );
    throw error;
  }
  if (
    !state.reportsWritten &&
    (code === EXIT.usage || code === EXIT.unreachable || code === EXIT.internal)
  )
    await stop({ exitCode: code, reason: reasonFrom(said, spec.command, code) });
  return code;
}

/** Writes the requested reports of a run that stopped before its checks (failures to write go to stderr). */
async function writeStoppedReports(
  spec: AuditCommandSpec,
  args: readonly string[],
  io: CliIo,
  reports: readonly ReportSpec[],
  stopped: RunStopped,
  exchangeLog: ExchangeLog | undefined,
  attestKey: Ed25519PrivateKey | undefined,
): Promise<void> {
  if (reports.length === 0) return;
  const target = optionValues(args, 'target')[0]?.replace(/^(?:payment|payout|refund)=/, '');
  const redactor = outputRedactor(io.env, attestKey);
  const summary = stoppedRunSummary({
    role: spec.role,
    target: target ?? '(not started)',
    toolVersion: toolVersion(),
    stopped,
    redactor,
  });
  const failures = await writeReports(summary, reports, {
    catalogue: loadCatalogue(),
    stdout: io.stdout,
    redactor,
    scrub: redactor,
    ...(exchangeLog !== undefined ? { exchangeLog } : {}),
  });
  for (const f of failures) io.stderr(`payconform ${spec.command}: ${shown(f.message)}\n`);
}
