// A program payconform starts (an SDK adapter, an `--exec` client, a state-hook command, a vectors implementation),
// in its own process group with exactly the environment given, and the one way to stop it: SIGTERM to the group, then
// SIGKILL after STOP_GRACE_MS. A descendant that moves itself into another session (setsid) leaves the group and is
// out of reach (docs/security.md says so).
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';

/** What `sh -c` exits with when it cannot find the command it was given (POSIX: 127). */
export const SHELL_NOT_FOUND_EXIT = 127;

/** How much of a program's standard error is kept for the messages that quote it: its last 4 KiB. */
export const STDERR_TAIL_BYTES = 4096;

/** How long a stopped group has between SIGTERM and SIGKILL. */
export const STOP_GRACE_MS = 2_000;

/** How often the group is looked at once its leader has gone but others may remain (during a stop only). */
const GROUP_POLL_MS = 25;

/** After the group has gone, what its pipes have left to read is read for at least this long. */
const PIPE_DRAIN_MS = 50;

const POSIX = process.platform !== 'win32';

/** How the program ended: its exit code or signal, or why it never started (`error`: code null, signal null). */
export interface GroupExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly error?: NodeJS.ErrnoException;
}

/** What to start and how. */
export interface GroupSpawnOptions {
  /** The whole environment (programEnv builds it); nothing of payconform's own is added. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
  readonly stdio?: StdioOptions;
  /** Run `file` through the shell (`sh -c`), as a user typed it; `args` must then be empty. */
  readonly shell?: boolean;
}

/** A started program. */
export interface ProcessGroup {
  readonly child: ChildProcess;
  /** Settles once the program exited and its output streams closed, or it could not start. */
  readonly ended: Promise<GroupExit>;
  /** True once the program exited or could not start. */
  readonly exited: boolean;
  /** The exit so far (undefined while it runs). */
  readonly exit: GroupExit | undefined;
  /** SIGTERM to the group, SIGKILL after `graceMs` for whatever is left; settles when the program has ended. */
  stop(graceMs?: number): Promise<GroupExit>;
}

/** Starts `file` (with `args`) as the leader of a new process group (a new session: `detached` on POSIX). */
export function spawnInGroup(
  file: string,
  args: readonly string[],
  options: GroupSpawnOptions,
): ProcessGroup {
  if (options.shell === true && args.length > 0)
    throw new TypeError('spawnInGroup: a shell command takes no separate arguments');
  const child = spawn(file, [...args], {
    shell: options.shell === true,
    detached: POSIX,
    stdio: options.stdio ?? ['pipe', 'pipe', 'pipe'],
    env: { ...options.env },
    windowsHide: true,
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
  });
  let exit: GroupExit | undefined;
  const exitWaiters: (() => void)[] = [];
  const onExit = (value: GroupExit): void => {
    exit ??= value;
    for (const w of exitWaiters.splice(0)) w();
  };
  const ended = new Promise<GroupExit>((resolve) => {
    child.on('error', (error: NodeJS.ErrnoException) => {
      // An error after a start (a failed kill) is not an end; one before it (ENOENT, EACCES) is.
      if (child.pid !== undefined) return;
      onExit({ code: null, signal: null, error });
      resolve(exit!);
    });
    child.once('exit', (code, signal) => onExit({ code, signal }));
    child.once('close', (code: number | null, signal: NodeJS.Signals | null) => {
      onExit({ code, signal });
      resolve(exit!);
    });
  });
  const exited = (): Promise<void> =>
    exit !== undefined ? Promise.resolve() : new Promise((r) => exitWaiters.push(r));
  let stopping: Promise<GroupExit> | undefined;
  return {
    child,
    ended,
    get exited() {
      return exit !== undefined;
    },
    get exit() {
      return exit;
    },
    stop: (graceMs = STOP_GRACE_MS) => (stopping ??= stopGroup(child, exited, ended, graceMs)),
  };
}

/** A program run to its end within bounds: why payconform stopped it (if it did), and how it ended. */
export interface BoundedRun {
  /** Stops the group, giving `why` as the reason (the first reason given wins); nothing once it has exited. */
  stop(why: string): void;
  readonly done: Promise<{ readonly exit: GroupExit; readonly stopped?: string }>;
}

/**
 * Runs a started program to its end: stopped at `timeoutMs` (`timedOut` is the reason) or when `signal` aborts
 * (`aborted`); its end is the end of its run, so what it left in its group is stopped when it exits.
 */
export function runBounded(
  group: ProcessGroup,
  bounds: {
    readonly timeoutMs: number;
    readonly timedOut: string;
    readonly signal?: AbortSignal | undefined;
    readonly aborted: string;
  },
): BoundedRun {
  let stopped: string | undefined;
  const stop = (why: string): void => {
    if (stopped !== undefined || group.exited) return;
    stopped = why;
    void group.stop();
  };
  const timer = setTimeout(() => stop(bounds.timedOut), bounds.timeoutMs);
  const onAbort = (): void => stop(bounds.aborted);
  bounds.signal?.addEventListener('abort', onAbort, { once: true });
  if (bounds.signal?.aborted) onAbort();
  group.child.once('exit', () => void group.stop());
  const done = group.ended.then((exit) => {
    clearTimeout(timer);
    bounds.signal?.removeEventListener('abort', onAbort);
    return { exit, ...(stopped !== undefined ? { stopped } : {}) };
  });
  return { stop, done };
}

/** TERM, wait for the leader and the rest of its group (at most `graceMs`), KILL what is left, wait for the end. */
async function stopGroup(
  child: ChildProcess,
  exited: () => Promise<void>,
  ended: Promise<GroupExit>,
  graceMs: number,
): Promise<GroupExit> {
  if (child.pid === undefined) return ended; // never started: `ended` has settled with the error
  const deadline = Date.now() + graceMs;
  signalGroup(child, 'SIGTERM');
  await within(exited(), graceMs);
  while (POSIX && groupAlive(child) && Date.now() < deadline)
    await pause(Math.min(GROUP_POLL_MS, deadline - Date.now()));
  signalGroup(child, 'SIGKILL');
  await exited();
  // Output still in the pipes is read; a descendant outside the group may hold a pipe open for ever, so the end is
  // the leader's exit once the grace is over, not that descendant's.
  await within(
    ended.then(() => undefined),
    Math.max(PIPE_DRAIN_MS, deadline - Date.now()),
  );
  child.stdin?.destroy();
  child.stdout?.destroy();
  child.stderr?.destroy();
  return ended;
}

/** Sends `sig` to the whole group (on Windows: to the child), ignoring "already gone". */
function signalGroup(child: ChildProcess, sig: NodeJS.Signals): void {
  if (POSIX && !groupAlive(child)) return; // gone: its number may soon be another's
  try {
    if (POSIX) process.kill(-child.pid!, sig);
    else child.kill(sig);
  } catch {
    /* the group is gone */
  }
}

/** Whether any process of the group is still there (a zombie not yet reaped counts). */
function groupAlive(child: ChildProcess): boolean {
  try {
    process.kill(-child.pid!, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits for `p`, at most `ms`; the timer never outlives the wait (it would hold payconform's exit). */
function within(p: Promise<void>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, Math.max(1, ms));
    void p.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

const pause = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, Math.max(1, ms)));
