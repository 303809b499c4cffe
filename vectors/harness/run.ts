// Runs vector cases through an implementation started once as a child process (NDJSON over stdin/stdout).
import type { KeysFile } from '../format.js';
import { AdapterProcess, type AdapterReply } from './adapter-process.js';
import { gradeAnswer, type CaseStatus, type CompareOptions } from './compare.js';
import { messageInput, type LoadedCase } from './load.js';
import { STARTUP_TIMEOUT_MS } from './harness-defaults.js';
import { EXIT } from '../../conformance/exit-code-table.js';

/** After this many cases in a row without an answer the adapter is declared unresponsive and the run ends. */
export const MAX_CONSECUTIVE_TIMEOUTS = 3;
/** Protocol versions this harness speaks (vectors/README.md, "The harness"; schemas in vectors/harness/protocol/). */
export const PROTOCOL_VERSIONS = [1, 2] as const;
/** The id of the handshake message; case ids never start with "#". */
export const HELLO_ID = '#hello';
export { STARTUP_TIMEOUT_MS };

export interface ImplementationInfo {
  readonly name: string;
  readonly version?: string;
  readonly configuration?: string;
}

export interface CaseReport {
  readonly id: string;
  readonly file: string;
  readonly op: string;
  /** The case's declared result (valid, invalid, acceptable). */
  readonly result: string;
  readonly status: CaseStatus;
  readonly message?: string;
  /** For `fail`: what the case expects and what the implementation answered (absent when nothing came back). */
  readonly expected?: unknown;
  readonly received?: unknown;
  /** For `inexpressible`: the profile deviation the implementation cannot follow. */
  readonly deviation?: string;
  readonly durationMs: number;
}

export interface HarnessReport {
  readonly schemaVersion: 1;
  readonly tool: 'payconform vectors run';
  readonly command: string;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly durationMs: number;
  /** The protocol version agreed in the handshake (1 when the adapter does not answer `hello`). */
  readonly protocol: number;
  /** What the adapter said it runs, when it answered the handshake (protocol 2). */
  readonly implementation?: ImplementationInfo;
  readonly summary: {
    readonly total: number;
    readonly passed: number;
    readonly failed: number;
    readonly skipped: number;
    readonly inexpressible: number;
    /** Cases never sent because the run stopped early (not in `cases`, not counted in `total`). */
    readonly notRun: number;
  };
  /**
   * False when the implementation never started: it could not be spawned, exited, or did not answer the "hello"
   * handshake. Then `aborted` says why, `cases` is empty and every case is counted in `notRun`: one error, not one
   * failure per case.
   */
  readonly started: boolean;
  /** Set when the run stopped early (adapter did not start, crashed or stopped answering); the rest are `notRun`. */
  readonly aborted?: string;
  /** The last lines the adapter wrote to stderr, when it crashed or misbehaved. */
  readonly adapterStderr?: string;
  readonly cases: readonly CaseReport[];
}

export interface RunOptions extends CompareOptions {
  readonly command: string;
  readonly cases: readonly LoadedCase[];
  readonly keys: KeysFile;
  /** Per-case answer timeout. */
  readonly timeoutMs: number;
  /** How long the handshake may take (default STARTUP_TIMEOUT_MS, never less than `timeoutMs`). */
  readonly startupTimeoutMs?: number;
  readonly cwd?: string;
  readonly onCase?: (report: CaseReport) => void;
}

function tail(text: string, lines = 8): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

/** The first line the harness writes (schema: protocol/hello-request.schema.json). */
export function helloMessage(caseTimeoutMs: number): Record<string, unknown> {
  return {
    id: HELLO_ID,
    op: 'hello',
    input: {
      protocolVersions: PROTOCOL_VERSIONS,
      harness: 'payconform vectors run',
      caseTimeoutMs,
    },
  };
}

type Handshake =
  | { readonly protocol: number; readonly implementation?: ImplementationInfo }
  | { readonly aborted: string };

function implementationInfo(value: unknown): ImplementationInfo | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v.name !== 'string') return undefined;
  return {
    name: v.name,
    ...(typeof v.version === 'string' ? { version: v.version } : {}),
    ...(typeof v.configuration === 'string' ? { configuration: v.configuration } : {}),
  };
}

/**
 * Version negotiation: the first line offers the versions this harness speaks; a protocol 2 adapter answers with the
 * one it chose and what it runs. An adapter written for protocol 1 answers `unsupported` (or an error) to the unknown
 * op (or prints something that is not JSON), and the run goes on in protocol 1. No answer at all, or an exit, ends
 * the run: every protocol version requires one answer line per request line.
 */
async function handshake(
  adapter: AdapterProcess,
  timeoutMs: number,
  caseTimeoutMs: number,
): Promise<Handshake> {
  if (!adapter.send(helloMessage(caseTimeoutMs))) {
    return { aborted: 'the implementation is not running' };
  }
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const reply = await adapter.nextLine(Math.max(0, deadline - Date.now()));
    if (reply.kind === 'timeout')
      return {
        aborted: `the implementation did not answer the "hello" handshake within ${timeoutMs} ms (it may still be starting: raise --startup-timeout-ms)`,
      };
    if (reply.kind === 'exited')
      return {
        aborted: `the implementation ${reply.signal ? `was killed by ${reply.signal}` : `exited with code ${String(reply.code)}`} before answering the "hello" handshake`,
      };
    // Not JSON: a protocol 1 adapter may choke on the unknown op; its answers to the cases will show what it does.
    if (reply.kind === 'garbage') return { protocol: 1 };
    const m = reply.message;
    if (m.id !== undefined && m.id !== HELLO_ID && m.id !== null) continue;
    const result = m.result as Record<string, unknown> | undefined;
    if (result === undefined || result === null || typeof result !== 'object')
      return { protocol: 1 };
    const chosen = result.protocol;
    if (!PROTOCOL_VERSIONS.includes(chosen as 1 | 2)) {
      return {
        aborted: `the implementation chose protocol ${JSON.stringify(chosen)}; this harness speaks ${PROTOCOL_VERSIONS.join(' and ')}`,
      };
    }
    const implementation = implementationInfo(result.implementation);
    return { protocol: chosen as number, ...(implementation ? { implementation } : {}) };
  }
}

/** What a run has found so far: the cases' reports and whether (and why) it stopped. */
interface RunState {
  readonly reports: CaseReport[];
  aborted?: string;
  adapterStarted: boolean;
  notRun: number;
  /** The adapter crashed, timed out or printed garbage: its stderr goes into the report. */
  misbehaved: boolean;
  consecutiveTimeouts: number;
  protocol: number;
  implementation?: ImplementationInfo;
}

export async function runVectors(options: RunOptions): Promise<HarnessReport> {
  const started = Date.now();
  const run: RunState = {
    reports: [],
    adapterStarted: true,
    notRun: 0,
    misbehaved: false,
    consecutiveTimeouts: 0,
    protocol: 1,
  };
  const adapter = new AdapterProcess(options.command, { cwd: options.cwd });
  try {
    await startRun(adapter, options, run);
    for (const loaded of options.cases) {
      if (run.aborted) run.notRun++;
      else await runCase(adapter, options, run, loaded);
    }
  } finally {
    await adapter.stop();
  }
  return describeRun(options, run, started, tail(adapter.stderr()));
}

/** The handshake: the protocol and implementation it agrees, or why the implementation never started. */
async function startRun(
  adapter: AdapterProcess,
  options: RunOptions,
  run: RunState,
): Promise<void> {
  const hello = await handshake(
    adapter,
    Math.max(options.timeoutMs, options.startupTimeoutMs ?? STARTUP_TIMEOUT_MS),
    options.timeoutMs,
  );
  if ('aborted' in hello) {
    run.aborted = hello.aborted;
    run.adapterStarted = false;
    run.misbehaved = true;
  } else {
    run.protocol = hello.protocol;
    run.implementation = hello.implementation;
  }
}

/** Sends one case and records what comes back within the case timeout. */
async function runCase(
  adapter: AdapterProcess,
  options: RunOptions,
  run: RunState,
  loaded: LoadedCase,
): Promise<void> {
  const t0 = Date.now();
  adapter.drain(); // late answers to cases that already timed out
  const { id, op } = loaded.vector;
  if (!adapter.send({ id, op, input: messageInput(options.keys, loaded.vector) })) {
    run.aborted = 'the implementation is not running';
    run.misbehaved = true;
    run.notRun++;
    return;
  }
  const deadline = t0 + options.timeoutMs;
  for (;;) {
    const reply = await adapter.nextLine(Math.max(0, deadline - Date.now()));
    // A stray answer to an earlier case: wait on (nextLine ends at the deadline).
    if (reply.kind === 'answer' && reply.message.id !== undefined && reply.message.id !== id)
      continue;
    recordReply(options, run, loaded, reply, t0);
    return;
  }
}

/** Grades the case's reply: an answer, a line that is not JSON, no answer in time, or the adapter's exit. */
function recordReply(
  options: RunOptions,
  run: RunState,
  loaded: LoadedCase,
  reply: AdapterReply,
  t0: number,
): void {
  const record = (status: CaseStatus, extra: Partial<CaseReport>): void =>
    recordCase(options, run, loaded, status, t0, extra);
  const expected = loaded.vector.expected;
  if (reply.kind === 'answer') {
    run.consecutiveTimeouts = 0;
    if (reply.message.id === undefined) {
      record('fail', { message: 'answer has no "id"', expected, received: reply.message });
      return;
    }
    const grade = gradeAnswer(loaded.vector, reply.message, options);
    record(grade.status, {
      ...(grade.message !== undefined ? { message: grade.message } : {}),
      ...(grade.deviation !== undefined ? { deviation: grade.deviation } : {}),
      ...(grade.status === 'fail' ? { expected: grade.expected, received: grade.received } : {}),
    });
    return;
  }
  run.misbehaved = true;
  if (reply.kind === 'garbage') {
    run.consecutiveTimeouts = 0;
    record('fail', {
      message: `implementation printed a line that is not a JSON object: ${JSON.stringify(reply.line)}`,
      expected,
      received: reply.line,
    });
  } else if (reply.kind === 'timeout') {
    run.consecutiveTimeouts++;
    record('fail', { message: `no answer within ${options.timeoutMs} ms`, expected });
    if (run.consecutiveTimeouts >= MAX_CONSECUTIVE_TIMEOUTS) {
      run.aborted = `the implementation gave no answer to ${MAX_CONSECUTIVE_TIMEOUTS} cases in a row`;
    }
  } else {
    const how = reply.signal
      ? `killed by ${reply.signal}`
      : `exited with code ${String(reply.code)}`;
    run.aborted = `the implementation ${how}`;
    record('fail', { message: `${run.aborted} before answering`, expected });
  }
}

function recordCase(
  options: RunOptions,
  run: RunState,
  loaded: LoadedCase,
  status: CaseStatus,
  t0: number,
  extra: Partial<CaseReport>,
): void {
  const report: CaseReport = {
    id: loaded.vector.id,
    file: loaded.file,
    op: loaded.vector.op,
    result: loaded.vector.result,
    status,
    ...extra,
    durationMs: Date.now() - t0,
  };
  run.reports.push(report);
  options.onCase?.(report);
}

/** The run's report: counts by status, whether it started or stopped early, the adapter's stderr when it misbehaved. */
function describeRun(
  options: RunOptions,
  run: RunState,
  started: number,
  stderr: string,
): HarnessReport {
  const { reports, aborted, implementation } = run;
  const count = (s: CaseStatus): number => reports.filter((r) => r.status === s).length;
  return {
    schemaVersion: 1,
    tool: 'payconform vectors run',
    command: options.command,
    startedAt: new Date(started).toISOString(),
    finishedAt: new Date().toISOString(),
    durationMs: Date.now() - started,
    protocol: run.protocol,
    ...(implementation ? { implementation } : {}),
    summary: {
      total: reports.length,
      passed: count('pass'),
      failed: count('fail'),
      skipped: count('skip'),
      inexpressible: count('inexpressible'),
      notRun: run.notRun,
    },
    started: run.adapterStarted,
    ...(aborted ? { aborted } : {}),
    ...((run.misbehaved || aborted) && stderr ? { adapterStderr: stderr } : {}),
    cases: reports,
  };
}

/** How a run's skips are judged (the audits' gate: vectors/README.md, "Exit codes"). */
export interface HarnessGate {
  /** `--fail-on skip` (old name `--strict`): a skipped or inexpressible case fails the run (exit 1). */
  readonly failOnSkip?: boolean;
  /** `--allow-skips`: a skipped or inexpressible case is accepted (exit 0 when nothing failed). */
  readonly allowSkips?: boolean;
}

/** The exit codes of `vectors run`: the audits' own (conformance/exit-code-table.ts), by what they mean here. */
export const HARNESS_EXIT = {
  pass: EXIT.ok,
  fail: EXIT.failed,
  notStarted: EXIT.unreachable,
  incomplete: EXIT.incomplete,
} as const;

type HarnessExitCode = (typeof HARNESS_EXIT)[keyof typeof HARNESS_EXIT];

const VERDICTS = {
  [HARNESS_EXIT.pass]: 'PASS',
  [HARNESS_EXIT.fail]: 'FAIL',
  [HARNESS_EXIT.notStarted]: 'NOT STARTED',
  [HARNESS_EXIT.incomplete]: 'INCOMPLETE',
} as const satisfies Record<HarnessExitCode, string>;

/**
 * 3 when the implementation never started; 1 when a case failed or the run stopped early; otherwise, when a case was
 * skipped or inexpressible, 1 with `failOnSkip`, 0 with `allowSkips` and 4 (INCOMPLETE) by default: a run that
 * exercised only part of the set is never a pass by omission. 0 when every case passed.
 */
export function exitCodeOf(report: HarnessReport, gate: HarnessGate = {}): HarnessExitCode {
  const s = report.summary;
  if (!report.started) return HARNESS_EXIT.notStarted;
  if (s.failed > 0 || s.notRun > 0) return HARNESS_EXIT.fail;
  if (s.skipped + s.inexpressible === 0) return HARNESS_EXIT.pass;
  if (gate.failOnSkip === true) return HARNESS_EXIT.fail;
  return gate.allowSkips === true ? HARNESS_EXIT.pass : HARNESS_EXIT.incomplete;
}

/** The one-word verdict printed last and recorded in the reports, as the audits'. */
export function verdictOf(
  report: HarnessReport,
  gate: HarnessGate = {},
): (typeof VERDICTS)[HarnessExitCode] {
  return VERDICTS[exitCodeOf(report, gate)];
}
