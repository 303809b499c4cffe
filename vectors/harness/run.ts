// Runs vector cases through an implementation started once as a child process (NDJSON over stdin/stdout).
import type { KeysFile } from '../format.js';
import { AdapterProcess } from './adapter-process.js';
import { gradeAnswer, type CaseStatus, type CompareOptions } from './compare.js';
import { messageInput, type LoadedCase } from './load.js';

/** After this many cases in a row without an answer the adapter is declared unresponsive and the run ends. */
export const MAX_CONSECUTIVE_TIMEOUTS = 3;

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
  readonly durationMs: number;
}

export interface HarnessReport {
  readonly schemaVersion: 1;
  readonly tool: 'payconform vectors run';
  readonly command: string;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly durationMs: number;
  readonly summary: { readonly total: number; readonly passed: number; readonly failed: number; readonly skipped: number };
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
  readonly cwd?: string;
  readonly onCase?: (report: CaseReport) => void;
}

function tail(text: string, lines = 8): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

export async function runVectors(options: RunOptions): Promise<HarnessReport> {
  const started = Date.now();
  const reports: CaseReport[] = [];
  const adapter = new AdapterProcess(options.command, { cwd: options.cwd });
  let aborted: string | undefined;
  let misbehaved = false;
  let consecutiveTimeouts = 0;

  const record = (loaded: LoadedCase, status: CaseStatus, t0: number, extra: Partial<CaseReport> = {}): void => {
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
              ...(grade.status === 'fail' ? { expected: grade.expected, received: grade.received } : {}),
            });
          }
        } else if (reply.kind === 'garbage') {
          misbehaved = true;
          consecutiveTimeouts = 0;
          record(loaded, 'fail', t0, { message: `implementation printed a line that is not a JSON object: ${JSON.stringify(reply.line)}` });
        } else if (reply.kind === 'timeout') {
          misbehaved = true;
          consecutiveTimeouts++;
          record(loaded, 'fail', t0, { message: `no answer within ${options.timeoutMs} ms` });
          if (consecutiveTimeouts >= MAX_CONSECUTIVE_TIMEOUTS) {
            aborted = `the implementation gave no answer to ${MAX_CONSECUTIVE_TIMEOUTS} cases in a row`;
          }
        } else {
          misbehaved = true;
          const how = reply.signal ? `killed by ${reply.signal}` : `exited with code ${String(reply.code)}`;
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
    summary: { total: reports.length, passed: count('pass'), failed: count('fail'), skipped: count('skip') },
    ...(aborted ? { aborted } : {}),
    ...((misbehaved || aborted) && stderr ? { adapterStderr: stderr } : {}),
    cases: reports,
  };
}

/** Exit code: 0 when nothing failed (and, with `strict`, nothing was skipped), else 1. */
export function exitCodeOf(report: HarnessReport, strict = false): 0 | 1 {
  return report.summary.failed > 0 || (strict && report.summary.skipped > 0) ? 1 : 0;
}
