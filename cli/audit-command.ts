// What the three audit commands (`audit server`, `audit client`, `audit webhooks`) share: refusing secrets as
// arguments, the common options (--report, --only, --level, --fail-on, --allow-skips, --verbose, --help), option
// value checks, and the tail of a run (console progress, the checks, the reports, the exit code).
import { packageVersion } from './version.js';
import {
  AUDIT_COMMON_OPTIONS,
  formatHelp,
  parseArgsOptions,
  type CommandSpec,
} from './command-table.js';
import { AUDIT_LEVEL_DEFAULT } from './command-defaults.js';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { FileReadError, readRegularFile, textOf } from '../net/file-read.js';
import { writeFileAtomic } from '../net/file-write.js';
import { pathClash, type NamedPath } from './path-clash.js';
import { inputPaths, optionValues, outputPaths, requestedReports } from './audit-paths.js';
import {
  applyBaseline,
  parseBaseline,
  updateBaseline,
  type Baseline,
} from '../conformance/baseline.js';
import type { CliIo } from './io.js';
import { applicationSecretFromEnv, EXIT, UsageError, wantsHelp as asksForHelp } from './io.js';
import type { Check, CheckRole } from '../conformance/check.js';
import { parseHostPort } from '../conformance/config.js';
import { shellQuote } from '../conformance/curl.js';
import {
  ConformanceSetupError,
  selectChecks,
  stoppedRunSummary,
  type LevelFilter,
} from '../conformance/engine.js';
import type { RunSubscriber } from '../conformance/events.js';
import { exitCodeFor } from '../conformance/exit-code.js';
import { maskUrlCredentials, scrubValues, type Redactor } from '../conformance/redact.js';
import { outputRedactor } from './output-redactor.js';
import { showControls } from '../conformance/reporters/printable.js';
import { ExchangeLog, withExchangeLog } from '../conformance/exchange-log.js';
import { HAR_FORMAT } from '../conformance/reporters/har.js';
import { auditConfigBytes, readAttestKey, writeAttestation } from './attest.js';
import type { Ed25519PrivateKey } from '../src/ed25519/index.js';
import {
  createConsoleReporter,
  renderConsoleSummary,
  useColour,
} from '../conformance/reporters/console.js';
import {
  parseLevelFilter,
  parseReportSpecs,
  unwritableReason,
  unwritableReports,
  writeReports,
  type ReportSpec,
} from './reports.js';
import { loadCatalogue } from '../conformance/requirements.js';
import {
  FAIL_ON,
  type FailOn,
  type RunGate,
  type RunStopped,
  type RunSummary,
} from '../conformance/result.js';

/** Options that would put a secret on the command line: refused, whatever their value. */
export const SECRET_OPTION =
  /^--?(?:application[-_]?secret|app[-_]?secret|secret|private[-_]?key|key|seed|password)(?:=|$)/i;

/** The options every audit command takes: from the one option table (cli/command-table.ts), as --help shows them. */
const COMMON_OPTIONS: OptionsConfig = parseArgsOptions(AUDIT_COMMON_OPTIONS);

export { wantsHelp } from './io.js';

type OptionsConfig = NonNullable<ParseArgsConfig['options']>;

export type OptionValues = Readonly<Record<string, string | boolean | string[] | undefined>>;

/** The common options, parsed. */
export interface CommonAuditArgs {
  readonly reports: ReportSpec[];
  readonly only?: string[];
  readonly level: LevelFilter;
  /** Whether --level was given (an explicit selection accepts skips). */
  readonly levelGiven: boolean;
  readonly gate: RunGate;
  readonly verbose: boolean;
  readonly help: boolean;
  /** `--attest FILE`: where the signed attestation goes. */
  readonly attest?: string;
  /** `--baseline FILE` (read before the run: undefined when `--baseline-update` makes it) and `--baseline-update`. */
  readonly baseline?: {
    readonly file: string;
    readonly known?: Baseline;
    readonly update: boolean;
  };
}

export interface AuditArgsSpec {
  readonly usage: string;
  /** Completes "refusing --secret: …": where the command takes its secrets from instead. */
  readonly secretHint: string;
  /** The command's own options (the common ones are added). */
  readonly options: OptionsConfig;
}

/**
 * Refuses secret-looking options, parses the command's options and the common ones (strict, no positionals), and
 * checks the common values. Every problem is a UsageError; an unknown or malformed flag also shows the usage.
 */
export function parseAuditArgs(
  args: readonly string[],
  spec: AuditArgsSpec,
): { readonly values: OptionValues; readonly common: CommonAuditArgs } {
  const secretArg = args.find((a) => SECRET_OPTION.test(a));
  if (secretArg !== undefined)
    throw new UsageError(`refusing ${secretArg.split('=')[0]}: ${spec.secretHint}`);
  let values: OptionValues;
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: { ...spec.options, ...COMMON_OPTIONS },
      strict: true,
      allowPositionals: false,
    }) as { values: OptionValues });
  } catch (error) {
    throw new UsageError(
      `${error instanceof Error ? error.message : String(error)}\n${spec.usage}`,
    );
  }
  const reports: ReportSpec[] = parseReportSpecs((values['report'] as string[] | undefined) ?? []);
  const level: LevelFilter = parseLevelFilter(
    (values['level'] as string | undefined) ?? AUDIT_LEVEL_DEFAULT,
  );
  const onlyText = values['only'];
  const only = typeof onlyText === 'string' ? parseList(onlyText) : undefined;
  if (only !== undefined && only.length === 0)
    throw new UsageError('--only needs at least one check id');
  const failOn = parseFailOn((values['fail-on'] as string[] | undefined) ?? []);
  const levelGiven = values['level'] !== undefined;
  const attest = typeof values['attest'] === 'string' ? values['attest'] : undefined;
  if (attest !== undefined && !reports.some((r) => r.format === 'json' && r.path !== '-'))
    throw new UsageError(
      '--attest needs --report json:FILE (the attestation names the digest of the report as written)',
    );
  const baseline = readBaselineOption(values);
  const gate: RunGate = {
    failOn,
    allowSkips: values['allow-skips'] === true || only !== undefined || levelGiven,
  };
  return {
    values,
    common: {
      reports,
      ...(only !== undefined ? { only } : {}),
      level,
      levelGiven,
      gate,
      verbose: values['verbose'] === true,
      help: values['help'] === true,
      ...(attest !== undefined ? { attest } : {}),
      ...(baseline !== undefined ? { baseline } : {}),
    },
  };
}

/** `--baseline FILE` read and checked before anything runs (a usage error names what is wrong). */
function readBaselineOption(values: OptionValues): CommonAuditArgs['baseline'] {
  const file = values['baseline'];
  const update = values['baseline-update'] === true;
  if (typeof file !== 'string') {
    if (update)
      throw new UsageError('--baseline-update needs --baseline FILE (the file it writes)');
    return undefined;
  }
  let text: string;
  try {
    text = textOf(readRegularFile(file, 'baseline'));
  } catch (error) {
    if (!(error instanceof FileReadError)) throw error;
    if (update && error.code === 'ENOENT') return { file, update };
    throw new UsageError(`cannot read --baseline "${file}": ${error.message}`);
  }
  try {
    return { file, known: parseBaseline(text), update };
  } catch (error) {
    throw new UsageError(`--baseline "${file}" ${(error as Error).message}`);
  }
}

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

/** Options a re-run of one check drops: it selects that check itself and writes no reports or attestation. */
const RERUN_DROPS: ReadonlyMap<string, boolean> = new Map([
  ['--only', true],
  ['--report', true],
  // --attest needs --report json:FILE, which the re-run drops: kept, the printed command would be a usage error.
  ['--attest', true],
  ['--level', true],
  ['--fail-on', true],
  ['--allow-skips', false],
  ['--baseline-update', false],
  // --only names the one check; the explorer runs only when that is it (audit server).
  ['--no-explore', false],
  ['--verbose', false],
]);

/**
 * The command that runs one check again with the same target, config and flags: `payconform audit server --only ID
 * ...`. It signs afresh, so unlike a recorded signed request it still reproduces after the 300 s signature window.
 * Secrets are never arguments (refused above), so the command carries none; it needs the same environment.
 */
export function rerunCommandFor(
  command: string,
  args: readonly string[],
): (checkId: string) => string {
  const kept: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const name = arg.startsWith('--') ? arg.split('=')[0]! : arg;
    const takesValue = RERUN_DROPS.get(name);
    if (takesValue === undefined) {
      kept.push(arg);
      continue;
    }
    if (takesValue && !arg.includes('=')) i += 1;
  }
  return (checkId) =>
    ['payconform', ...command.split(' '), '--only', checkId, ...kept].map(shellWordFor).join(' ');
}

/** A shell word: bare when it is plainly safe, single-quoted otherwise. */
function shellWordFor(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : shellQuote(word);
}

/** `--fail-on` values (`FAIL_ON`: repeatable, comma-separated). */
export function parseFailOn(values: readonly string[]): FailOn[] {
  const out = new Set<FailOn>();
  for (const item of values.flatMap(parseList)) {
    const v = FAIL_ON.find((f) => f === item.toLowerCase());
    if (v === undefined)
      throw new UsageError(
        `--fail-on must be ${FAIL_ON.slice(0, -1).join(', ')} or ${FAIL_ON.at(-1)} (got "${item}")`,
      );
    out.add(v);
  }
  return [...out];
}

/** A comma-separated option value: trimmed items, empty ones dropped. */
export function parseList(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** An integer option from 1 to `max` (undefined when not given); `message` is the usage error otherwise. */
export function parseIntegerOption(
  text: string | undefined,
  max: number,
  message: string,
): number | undefined {
  if (text === undefined) return undefined;
  if (!/^[0-9]{1,9}$/.test(text) || Number(text) < 1 || Number(text) > max)
    throw new UsageError(message);
  return Number(text);
}

/** A HOST:PORT option (IPv6 in brackets; port 0 means a free port). */
export function parseHostPortOption(value: string, flag: string): { host: string; port: number } {
  const parsed = parseHostPort(value);
  if (parsed === undefined)
    throw new UsageError(`${flag} must be HOST:PORT with a port up to 65535 (got "${value}")`);
  return parsed;
}

/**
 * An http or https URL option without credentials; `baseUrl` also refuses a query or fragment. `credentialsHint`
 * completes the message for a URL with user info (where the secret belongs instead).
 */
export function checkHttpUrl(
  value: string,
  flag: string,
  options: { readonly baseUrl?: boolean; readonly credentialsHint?: string } = {},
): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${flag} "${value}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`${flag} must be an http or https URL (got "${url.protocol}")`);
  if (url.username !== '' || url.password !== '')
    throw new UsageError(
      `${flag} must not carry credentials in the URL${options.credentialsHint ?? ''}`,
    );
  if (options.baseUrl === true && (url.search !== '' || url.hash !== ''))
    throw new UsageError(`${flag} is a base URL: no query or fragment`);
  return value;
}

/** Refuses an unknown --only id (or a selection that is empty at this level) before anything is started. */
export function refuseUnknownChecks<Ctx>(
  checks: readonly Check<Ctx>[],
  only: readonly string[] | undefined,
  level: LevelFilter,
): void {
  try {
    selectChecks(checks, only, level);
  } catch (error) {
    if (error instanceof ConformanceSetupError) throw new UsageError(error.message);
    throw error;
  }
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
/** A message as the terminal shows it: a URL's credentials masked (conformance/redact.ts), control characters escaped. */
const shown = (text: string): string => showControls(maskUrlCredentials(text), { multiline: true });

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

/** What an audit's own steps hand the shared tail once its target is ready (`finishAudit` runs it). */
export type PreparedAudit = Omit<FinishAuditOptions, 'command' | 'io' | 'output' | 'common'> & {
  /** After the reports are written, whatever the outcome: stops what must outlive the checks (a key server). */
  readonly release?: () => Promise<void>;
};

/** What every audit's `prepare` step is given besides its parsed flags. */
export interface AuditStepContext {
  readonly io: CliIo;
  readonly output: AuditOutput;
  /** The run options from the flags: the selection, the gate, a failing check's re-run command, and `subscribers`. */
  readonly selection: (
    subscribers: readonly RunSubscriber[],
  ) => ReturnType<typeof selectionOptions>;
  /** PAYCONFORM_APPLICATION_SECRET, checked by the one secret rule before anything runs. */
  readonly applicationSecret: string | undefined;
}

export interface AuditSteps<P extends CommonAuditArgs> {
  /** The command's table entry: its name in messages and its --help. */
  readonly spec: CommandSpec;
  readonly parse: (args: readonly string[]) => P;
  /** Resolves and starts what the audit needs: the run, or the exit code it ends with before any check. */
  readonly prepare: (parsed: P, context: AuditStepContext) => Promise<PreparedAudit | number>;
}

/**
 * The body every audit shares: --help → parse → the one secret rule → the command's `prepare` → the shared tail
 * (`finishAudit`: the checks, the reports, the exit code).
 */
export function auditSteps<P extends CommonAuditArgs>(
  steps: AuditSteps<P>,
): (args: readonly string[], io: CliIo) => Promise<number> {
  return async (args, io) => {
    if (asksForHelp(args)) {
      io.stdout(formatHelp(steps.spec));
      return EXIT.ok;
    }
    const parsed = steps.parse(args);
    const applicationSecret = applicationSecretFromEnv(io, false);
    // Progress and summary go to stdout, unless a report is written there.
    const output = auditOutput(io, parsed.reports);
    const selection = (
      subscribers: readonly RunSubscriber[],
    ): ReturnType<typeof selectionOptions> =>
      selectionOptions({
        ...parsed,
        subscribers,
        rerunCommand: rerunCommandFor(steps.spec.name, args),
      });
    const prepared = await steps.prepare(parsed, { io, output, selection, applicationSecret });
    if (typeof prepared === 'number') return prepared;
    const { release, ...finish } = prepared;
    try {
      return await finishAudit({ command: steps.spec.name, io, output, common: parsed, ...finish });
    } finally {
      await release?.();
    }
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

/**
 * Per invocation of an audit command: whether `finishAudit` wrote the reports (then no stopped report is written),
 * and the log its exchanges are recorded in (when a HAR is asked for).
 */
interface Invocation {
  reportsWritten: boolean;
  readonly exchangeLog?: ExchangeLog;
  /** The command's arguments (secret-free: refused otherwise), as the attestation's configuration carries them. */
  readonly args: readonly string[];
  /** With `--attest`: the signing key, read before the run starts. */
  readonly attestKey?: Ed25519PrivateKey;
}
const invocations = new WeakMap<CliIo, Invocation>();

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

/** The run options an audit passes on from the command line: the selection, gate and subscribers, when given. */
export function selectionOptions(options: {
  readonly only?: readonly string[];
  readonly level?: LevelFilter;
  readonly gate?: RunGate;
  readonly rerunCommand?: (checkId: string) => string;
  readonly subscribers?: readonly RunSubscriber[];
}): {
  only?: readonly string[];
  level?: LevelFilter;
  gate?: RunGate;
  rerunCommand?: (checkId: string) => string;
  subscribers?: readonly RunSubscriber[];
} {
  return {
    ...(options.rerunCommand !== undefined ? { rerunCommand: options.rerunCommand } : {}),
    ...(options.gate !== undefined ? { gate: options.gate } : {}),
    ...(options.only !== undefined ? { only: options.only } : {}),
    ...(options.level !== undefined ? { level: options.level } : {}),
    ...(options.subscribers !== undefined ? { subscribers: options.subscribers } : {}),
  };
}
