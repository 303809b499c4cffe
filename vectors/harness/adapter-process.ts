// The implementation under test as a child process speaking NDJSON: one request line in, one answer line out.
// Every wait is bounded; the child's process group is stopped (SIGTERM, then SIGKILL) when the run ends.
import type { ChildProcess } from 'node:child_process';
import { programEnv } from '../../conformance/process/program-env.js';
import {
  SHELL_NOT_FOUND_EXIT,
  spawnInGroup,
  STDERR_TAIL_BYTES,
  type ProcessGroup,
} from '../../conformance/process/process-group.js';
import type { LinkReply } from '../../conformance/sdk-explore/protocol.js';

/** Longest answer line accepted (bytes); a longer line counts as garbage. */
export const MAX_LINE_BYTES = 1 << 20;
/** Unread answer lines kept at most (a flood beyond this is dropped, oldest first). */
const MAX_PENDING_LINES = 1000;

/** What the process gave back for one line: written once, in the SDK explorer's protocol (vectors imports conformance). */
export type AdapterReply = LinkReply;

/** A started adapter: `request` sends one line and waits for the next line it prints (or timeout / exit). */
export class AdapterProcess {
  private readonly group: ProcessGroup;
  private readonly child: ChildProcess;
  private buffer = '';
  private readonly lines: string[] = [];
  private waiter: (() => void) | undefined;
  private exitInfo: { code: number | null; signal: string | null } | undefined;
  private stderrTail = '';
  private spawnError: string | undefined;

  /**
   * `env` is the whole environment (programEnv builds it for its role); without one, a vectors implementation's:
   * the ordinary part of payconform's own, no variable payconform reads for itself.
   */
  constructor(
    command: string,
    options: { readonly cwd?: string; readonly env?: Readonly<Record<string, string>> } = {},
  ) {
    // A shell runs CMD so that `--exec "python3 adapter.py"` works as typed; its own process group lets us
    // stop the shell and everything it started in one go.
    this.group = spawnInGroup(command, [], {
      shell: true,
      env: options.env ?? programEnv('vectors-implementation', process.env),
      ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    });
    this.child = this.group.child;
    this.child.stdout!.setEncoding('utf8');
    this.child.stdout!.on('data', (chunk: string) => this.onData(chunk));
    this.child.stderr!.setEncoding('utf8');
    this.child.stderr!.on('data', (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-STDERR_TAIL_BYTES);
    });
    this.child.stdin!.on('error', () => {
      /* EPIPE after the child died: reported through the exit event */
    });
    this.child.on('error', (error) => {
      this.spawnError = error.message;
      this.exitInfo ??= { code: null, signal: null };
      this.wake();
    });
    this.child.on('exit', (code, signal) => {
      this.exitInfo = { code, signal };
      this.wake();
    });
  }

  /** How it ended, once it has (an answer's `exited` carries the same). */
  exitStatus(): { readonly code: number | null; readonly signal: string | null } | undefined {
    return this.exitInfo;
  }

  /** The last few KB the child wrote to stderr (for error reports). */
  stderr(): string {
    const notFound =
      this.exitInfo?.code === SHELL_NOT_FOUND_EXIT
        ? `the command was not found (the shell exited with ${SHELL_NOT_FOUND_EXIT})\n`
        : '';
    const spawnError = this.spawnError !== undefined ? `${this.spawnError}\n` : '';
    return `${spawnError}${this.stderrTail}${notFound}`;
  }

  get exited(): boolean {
    return this.exitInfo !== undefined;
  }

  private wake(): void {
    const w = this.waiter;
    this.waiter = undefined;
    w?.();
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    let nl: number;
    while ((nl = this.buffer.indexOf('\n')) >= 0) {
      this.lines.push(this.buffer.slice(0, nl).replace(/\r$/, ''));
      this.buffer = this.buffer.slice(nl + 1);
    }
    if (this.buffer.length > MAX_LINE_BYTES) {
      this.lines.push(this.buffer.slice(0, 200));
      this.buffer = '';
    }
    // An adapter flooding stdout cannot exhaust memory: only the newest lines are kept.
    if (this.lines.length > MAX_PENDING_LINES)
      this.lines.splice(0, this.lines.length - MAX_PENDING_LINES);
    if (this.lines.length > 0) this.wake();
  }

  /** Discards lines printed before the next request (answers to cases that already timed out). */
  drain(): string[] {
    return this.lines.splice(0, this.lines.length);
  }

  /** Writes one NDJSON line; false when the child is gone. */
  send(message: unknown): boolean {
    if (this.exited || !this.child.stdin!.writable) return false;
    this.child.stdin!.write(`${JSON.stringify(message)}\n`);
    return true;
  }

  /** Waits for the next line printed, at most `timeoutMs`. */
  async nextLine(timeoutMs: number): Promise<AdapterReply> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const line = this.lines.shift();
      if (line !== undefined) {
        if (line.trim() === '') continue; // blank lines are tolerated
        return parseLine(line);
      }
      if (this.exitInfo) return { kind: 'exited', ...this.exitInfo };
      const left = deadline - Date.now();
      if (left <= 0) return { kind: 'timeout' };
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          this.waiter = undefined;
          resolve();
        }, left);
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /**
   * Closes stdin (the adapter's signal to finish), waits up to `graceMs` for it to exit, then stops its process group
   * (SIGTERM, SIGKILL after STOP_GRACE_MS); settles when it has ended.
   */
  async stop(graceMs = 1000): Promise<void> {
    if (!this.exited) this.child.stdin!.end();
    const deadline = Date.now() + graceMs;
    while (!this.exited && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(1, deadline - Date.now()));
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    await this.group.stop();
  }
}

function parseLine(line: string): AdapterReply {
  try {
    const value: unknown = JSON.parse(line);
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      return { kind: 'answer', message: value as Record<string, unknown> };
    }
  } catch {
    /* fall through */
  }
  return { kind: 'garbage', line: line.length > 200 ? `${line.slice(0, 200)}…` : line };
}
