// A hook command that stays (`"lines": true`, docs/state-hook.md, "A command that stays"): started once, asked with
// one request line on its standard input and answered with one line on its standard output, paired by the request's
// id, so an audit pays the program's start once instead of once per request. Started again when it ends, stopped with
// the audit (closeLinesHook); whatever it writes or fails to write is a failed state, never a throw or a hang.
import type { CheckRunEnv } from '../run/check.js';
import type { ServerAuditContext } from '../checks/server/context.js';
import { programEnv } from '../process/program-env.js';
import {
  spawnInGroup,
  STDERR_TAIL_BYTES,
  type GroupExit,
  type ProcessGroup,
} from '../process/process-group.js';
import type { Redactor } from '../report/redact.js';
import {
  describeRequest,
  judgeAnswer,
  notOfferedReason,
  requestBody,
  type StateRequest,
  type StateResult,
} from './contract.js';
import {
  couldNotStart,
  MAX_ANSWER_BYTES,
  quoted,
  STDERR_QUOTE_CHARS,
  type CommandHookOptions,
  type StateProvider,
} from './providers.js';

/** An answer line holds exactly one of these, besides the request's `id`. */
const ANSWER_KINDS = ['answer', 'notOffered', 'failed'] as const;

/** Where the docs say what a command with `"lines": true` must do. */
const SEE = 'docs/state-hook.md, "A command that stays"';

/** A request written to the hook and not answered yet. */
interface Pending {
  readonly request: StateRequest;
  readonly settle: (result: StateResult) => void;
  /** Answer lines the process had written when this request was sent (none since, at its bound: it hangs). */
  readonly linesAtSend: number;
}

/** One start of the hook command: its group, what it was asked, what it wrote. */
interface HookProcess {
  readonly group: ProcessGroup;
  readonly pending: Map<number, Pending>;
  /** Requests that failed before their answer came: a late answer is dropped, not a line for an unknown id. */
  readonly abandoned: Set<number>;
  /** Ids written to this process (an answer naming another is for an unknown id). */
  readonly sent: Set<number>;
  stdout: string;
  stderr: string;
  lines: number;
  /** Why payconform stopped it (set once). */
  broken?: string;
}

/** A hook config's session: the process now running (if any), the next id, the redactor that masks its words. */
interface Session {
  readonly command: readonly [string, ...string[]];
  readonly options: CommandHookOptions;
  current?: HookProcess;
  nextId: number;
  redactor?: Redactor;
}

/** The session of each config's hook (the config object is the audit's: one process per hook per audit). */
const sessions = new WeakMap<object, Session>();
/** Every process running now, so that none outlives payconform (its `exit` sends them SIGTERM). */
const running = new Set<ProcessGroup>();

/**
 * A hook command with `"lines": true`: the one process of `hook` (started at its first request, again after it ended)
 * answers each request on a line. Each request is bounded by twice the request timeout or the check's deadline.
 */
export function linesHook(
  hook: { readonly command: readonly [string, ...string[]] },
  options: CommandHookOptions = {},
): StateProvider {
  let session = sessions.get(hook);
  if (session === undefined) {
    session = { command: hook.command, options, nextId: 0 };
    sessions.set(hook, session);
  }
  const s = session;
  return (ctx, env, request) => ask(s, ctx, env, request);
}

/**
 * Stops `hook`'s process, if one runs: its standard input ends, SIGTERM to its group, SIGKILL after STOP_GRACE_MS;
 * what it was asked fails. A later request starts it again.
 */
export async function closeLinesHook(hook: object): Promise<void> {
  const s = sessions.get(hook);
  const p = s?.current;
  if (s === undefined || p === undefined) return;
  p.group.child.stdin?.end();
  breakProcess(s, p, 'was stopped: the audit ended');
  await p.group.stop();
}

/** Sends one request line and waits for its answer, its bound, or the check's end. */
function ask(
  s: Session,
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  request: StateRequest,
): Promise<StateResult> {
  s.redactor = ctx.redactor;
  if (env.signal.aborted)
    return Promise.resolve({
      kind: 'failed',
      reason: `${fromOf(s)} was not asked ${describeRequest(request)} (stopped: the audit ended)`,
    });
  const p = s.current !== undefined && !s.current.group.exited ? s.current : start(s);
  const id = ++s.nextId;
  const timeout = Math.max(1, Math.min(ctx.requestTimeoutMs * 2, env.deadline - Date.now()));
  return new Promise<StateResult>((resolve) => {
    const done = (result: StateResult): void => {
      clearTimeout(timer);
      env.signal.removeEventListener('abort', onAbort);
      p.pending.delete(id);
      resolve(result);
    };
    const giveUp = (why: string): void => {
      if (!p.pending.has(id)) return;
      p.abandoned.add(id);
      done(failed(s, p, `did not answer ${describeRequest(request)} (${why})`));
    };
    const timer = setTimeout(() => {
      const hangs = p.lines === p.pending.get(id)?.linesAtSend;
      giveUp(`stopped after ${timeout} ms`);
      if (hangs) breakProcess(s, p, `wrote no line for ${timeout} ms and was stopped`);
    }, timeout);
    const onAbort = (): void => giveUp('stopped: the audit ended');
    p.pending.set(id, { request, settle: done, linesAtSend: p.lines });
    p.sent.add(id);
    env.signal.addEventListener('abort', onAbort, { once: true });
    p.group.child.stdin?.write(`${JSON.stringify({ id, request: requestBody(request) })}\n`);
  });
}

/** Starts the hook's process: its own group, the state-hook environment, nothing of it keeping payconform running. */
function start(s: Session): HookProcess {
  const group = spawnInGroup(s.command[0], s.command.slice(1), {
    cwd: s.options.cwd ?? process.cwd(),
    stdio: ['pipe', 'pipe', 'pipe'],
    env: programEnv('state-hook', s.options.env ?? process.env),
  });
  const p: HookProcess = {
    group,
    pending: new Map(),
    abandoned: new Set(),
    sent: new Set(),
    stdout: '',
    stderr: '',
    lines: 0,
  };
  s.current = p;
  running.add(group);
  stopAllOnExit();
  const { child } = group;
  child.unref();
  for (const stream of [child.stdin, child.stdout, child.stderr])
    (stream as { unref?: () => void } | null)?.unref?.();
  child.stdin?.on('error', () => undefined); // a write after it ended: its end fails what was pending
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => read(s, p, chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    p.stderr = (p.stderr + chunk).slice(-STDERR_TAIL_BYTES);
  });
  void group.ended.then((exit) => {
    running.delete(group);
    if (s.current === p) delete s.current;
    if (p.broken === undefined) failAll(s, p, ended(s, p, exit));
  });
  return p;
}

/** Splits standard output into lines; a line longer than MAX_ANSWER_BYTES stops the process. */
function read(s: Session, p: HookProcess, chunk: string): void {
  p.stdout += chunk;
  for (let nl = p.stdout.indexOf('\n'); nl >= 0 && p.broken === undefined;) {
    const line = p.stdout.slice(0, nl);
    p.stdout = p.stdout.slice(nl + 1);
    if (line.length > MAX_ANSWER_BYTES) return tooLong(s, p);
    if (line.trim() !== '') onLine(s, p, line);
    nl = p.stdout.indexOf('\n');
  }
  if (p.stdout.length > MAX_ANSWER_BYTES) tooLong(s, p);
}

function tooLong(s: Session, p: HookProcess): void {
  breakProcess(s, p, `wrote a line of more than ${MAX_ANSWER_BYTES} bytes and was stopped`);
}

/** One line of standard output: the answer to a pending request, a late one (dropped), or a broken promise. */
function onLine(s: Session, p: HookProcess, line: string): void {
  p.lines++;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    value = undefined;
  }
  const id =
    typeof value === 'object' && value !== null ? (value as { id?: unknown }).id : undefined;
  if (typeof id !== 'number' || !p.sent.has(id)) {
    const what =
      typeof id === 'number'
        ? `an answer line for request id ${id}, which it was never sent`
        : 'a line that is not an answer line (a JSON object with the "id" of a request)';
    return breakProcess(s, p, `wrote ${what} and was stopped: "${cut(s, line)}" (${SEE})`);
  }
  const pending = p.pending.get(id);
  if (pending === undefined) {
    if (p.abandoned.delete(id)) return; // the answer to a request that had already failed
    return breakProcess(s, p, `answered request id ${id} twice and was stopped (${SEE})`);
  }
  pending.settle(judgeLine(s, p, pending.request, value as Record<string, unknown>));
}

/** The answer line to `request`, judged: `answer` by the contract, `notOffered` as 501, `failed` as the hook's error. */
function judgeLine(
  s: Session,
  p: HookProcess,
  request: StateRequest,
  line: Record<string, unknown>,
): StateResult {
  const from = fromOf(s);
  const kinds = ANSWER_KINDS.filter((k) => line[k] !== undefined);
  if (kinds.length !== 1)
    return failed(
      s,
      p,
      `answered ${describeRequest(request)} with a line holding ${kinds.length === 0 ? 'none' : kinds.map((k) => `"${k}"`).join(' and ')} of ${ANSWER_KINDS.map((k) => `"${k}"`).join(', ')}: exactly one (${SEE})`,
    );
  if (kinds[0] === 'answer') return judgeAnswer(request, line['answer'], from);
  if (kinds[0] === 'notOffered')
    return { kind: 'not-offered', reason: notOfferedReason(request, line['notOffered'], from) };
  const said = (line['failed'] as { reason?: unknown } | null)?.reason;
  return typeof said === 'string' && said.trim() !== ''
    ? { kind: 'failed', reason: `${from} failed ${describeRequest(request)}: ${cut(s, said)}` }
    : failed(s, p, `failed ${describeRequest(request)}`);
}

/** How the process ended, in words, with a hint where it wrote no line at all (a per-call command, say). */
function ended(s: Session, p: HookProcess, exit: GroupExit): string {
  if (exit.error !== undefined)
    return couldNotStart(exit.error, s.command[0], s.options.cwd ?? process.cwd());
  const how = exit.code !== null ? `exited with ${exit.code}` : `was ended by ${exit.signal}`;
  return p.lines === 0
    ? `${how} before it answered a line (with "lines": true it runs until its standard input ends, answering each request line: ${SEE})`
    : how;
}

/** Stops the process for `why` and fails what it was asked; the next request starts it again. */
function breakProcess(s: Session, p: HookProcess, why: string): void {
  if (p.broken !== undefined) return;
  p.broken = why;
  if (s.current === p) delete s.current;
  failAll(s, p, why);
  void p.group.stop();
}

function failAll(s: Session, p: HookProcess, why: string): void {
  for (const [id, pending] of [...p.pending]) {
    p.abandoned.add(id);
    pending.settle(failed(s, p, why));
  }
}

const fromOf = (s: Session): string => `the state hook command ${s.command[0]}`;

/** A failed state in the hook's name, quoting the last lines of its standard error (masked). */
function failed(s: Session, p: HookProcess, what: string): StateResult {
  return { kind: 'failed', reason: `${fromOf(s)} ${what}${quotedStderr(s, p)}` };
}

function quotedStderr(s: Session, p: HookProcess): string {
  return s.redactor !== undefined ? quoted(p.stderr, s.redactor) : '';
}

/** What the hook wrote, masked, then cut to STDERR_QUOTE_CHARS (a cut could hide a secret's piece from the mask). */
function cut(s: Session, text: string): string {
  const masked = s.redactor?.redactText(text) ?? text;
  return masked.length > STDERR_QUOTE_CHARS ? `${masked.slice(0, STDERR_QUOTE_CHARS)}…` : masked;
}

let exitHandler = false;
/** Once: when payconform exits, every hook process still running gets SIGTERM (no time is left for SIGKILL). */
function stopAllOnExit(): void {
  if (exitHandler) return;
  exitHandler = true;
  process.once('exit', () => {
    for (const group of running) {
      try {
        if (process.platform === 'win32') group.child.kill('SIGTERM');
        else process.kill(-group.child.pid!, 'SIGTERM');
      } catch {
        /* gone */
      }
    }
  });
}
