// Runs vector cases through an implementation started once as a child process (NDJSON over stdin/stdout).
import type { KeysFile } from '../format.js';
import { AdapterProcess } from './adapter-process.js';
import { gradeAnswer, type CaseStatus, type CompareOptions } from './compare.js';
import { messageInput, type LoadedCase } from './load.js';

/** After this many cases in a row without an answer the adapter is declared unresponsive and the run ends. */
export const MAX_CONSECUTIVE_TIMEOUTS = 3;
/** Protocol versions this harness speaks (vectors/README.md, "The harness"; schemas in vectors/harness/protocol/). */
export const PROTOCOL_VERSIONS = [1, 2] as const;
/** The id of the handshake message; case ids never start with "#". */
export const HELLO_ID = '#hello';
/** How long the adapter may take to start and answer the handshake (an interpreter or a compiler starting up). */
export const STARTUP_TIMEOUT_MS = 30_000;

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
  };
  /** Set when the run stopped early (adapter crashed or stopped answering); the remaining cases are failed. */
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

export async function runVectors(options: RunOptions): Promise<HarnessReport> {
  const started = Date.now();
  const reports: CaseReport[] = [];
  const adapter = new AdapterProcess(options.command, { cwd: options.cwd });
  let aborted: string | undefined;
  let misbehaved = false;
  let consecutiveTimeouts = 0;
  let protocol = 1;
  let implementation: ImplementationInfo | undefined;

  const record = (
    loaded: LoadedCase,
    status: CaseStatus,
    t0: number,
    extra: Partial<CaseReport> = {},
  ): void => {
    const report: CaseReport = {
      id: loaded.vector.id,
      file: loaded.file,
      op: loaded.vector.op,
      result: loaded.vector.result,
      status,
      ...extra,
      durationMs: Date.now() - t0,
    };
    reports.push(report);
    options.onCase?.(report);
  };

  try {
    const hello = await handshake(
      adapter,
      Math.max(options.timeoutMs, options.startupTimeoutMs ?? STARTUP_TIMEOUT_MS),
      options.timeoutMs,
    );
    if ('aborted' in hello) {
      aborted = hello.aborted;
      misbehaved = true;
    } else {
      protocol = hello.protocol;
      implementation = hello.implementation;
    }
    for (const loaded of options.cases) {
      const t0 = Date.now();
      if (aborted) {
        record(loaded, 'fail', t0, { message: `not run: ${aborted}` });
        continue;
      }
      adapter.drain(); // late answers to cases that already timed out
      const { id, op } = loaded.vector;
      if (!adapter.send({ id, op, input: messageInput(options.keys, loaded.vector) })) {
        aborted = 'the implementation is not running';
        misbehaved = true;
        record(loaded, 'fail', t0, { message: `not run: ${aborted}` });
        continue;
      }
      const deadline = t0 + options.timeoutMs;
      for (;;) {
        const reply = await adapter.nextLine(Math.max(0, deadline - Date.now()));
        if (reply.kind === 'answer') {
          if (reply.message.id !== undefined && reply.message.id !== id) continue; // stray answer to an earlier case
          consecutiveTimeouts = 0;
          if (reply.message.id === undefined) {
            record(loaded, 'fail', t0, { message: 'answer has no "id"', received: reply.message });
          } else {
            const grade = gradeAnswer(loaded.vector, reply.message, options);
            record(loaded, grade.status, t0, {
              ...(grade.message !== undefined ? { message: grade.message } : {}),
              ...(grade.deviation !== undefined ? { deviation: grade.deviation } : {}),
              ...(grade.status === 'fail'
                ? { expected: grade.expected, received: grade.received }
                : {}),
            });
          }
        } else if (reply.kind === 'garbage') {
          misbehaved = true;
          consecutiveTimeouts = 0;
          record(loaded, 'fail', t0, {
            message: `implementation printed a line that is not a JSON object: ${JSON.stringify(reply.line)}`,
          });
        } else if (reply.kind === 'timeout') {
          misbehaved = true;
          consecutiveTimeouts++;
          record(loaded, 'fail', t0, { message: `no answer within ${options.timeoutMs} ms` });
          if (consecutiveTimeouts >= MAX_CONSECUTIVE_TIMEOUTS) {
            aborted = `the implementation gave no answer to ${MAX_CONSECUTIVE_TIMEOUTS} cases in a row`;
          }
        } else {
          misbehaved = true;
          const how = reply.signal
            ? `killed by ${reply.signal}`
            : `exited with code ${String(reply.code)}`;
          aborted = `the implementation ${how}`;
          record(loaded, 'fail', t0, { message: `${aborted} before answering` });
        }
        break;
      }
    }
  } finally {
    await adapter.stop();
  }

  const count = (s: CaseStatus): number => reports.filter((r) => r.status === s).length;
  const stderr = tail(adapter.stderr());
  return {
    schemaVersion: 1,
    tool: 'payconform vectors run',
    command: options.command,
    startedAt: new Date(started).toISOString(),
    finishedAt: new Date().toISOString(),
    durationMs: Date.now() - started,
    protocol,
    ...(implementation ? { implementation } : {}),
    summary: {
      total: reports.length,
      passed: count('pass'),
      failed: count('fail'),
      skipped: count('skip'),
      inexpressible: count('inexpressible'),
    },
    ...(aborted ? { aborted } : {}),
    ...((misbehaved || aborted) && stderr ? { adapterStderr: stderr } : {}),
    cases: reports,
  };
}

/** Exit code: 0 when nothing failed (and, with `failOnSkip` (`--fail-on skip`), nothing was skipped or inexpressible), else 1. */
export function exitCodeOf(report: HarnessReport, failOnSkip = false): 0 | 1 {
  const s = report.summary;
  return s.failed > 0 || (failOnSkip && s.skipped + s.inexpressible > 0) ? 1 : 0;
}
