// The providers of the state hook contract (contract.ts) that an implementation offers: a hook URL (POST of the
// request; its exchanges are in the HAR like any other) and a hook command (run with the request as its one argument,
// the answer on standard output; or started once and asked line by line, lines-hook.ts). payconform's own /sandbox/
// is the last (sandbox-provider.ts).
import { isAbsolute } from 'node:path';
import type { CheckRunEnv } from '../run/check.js';
import type { Redactor } from '../report/redact.js';
import { programEnv } from '../process/program-env.js';
import {
  runBounded,
  spawnInGroup,
  STDERR_TAIL_BYTES,
  type GroupExit,
  type ProcessGroup,
} from '../process/process-group.js';
import type { ServerAuditContext } from '../checks/server/context.js';
import { describeOutcome, exchange, isSuccess, jsonObject } from '../checks/server/requests.js';
import { unanswered } from '../checks/no-answer.js';
import {
  judgeAnswer,
  NOT_OFFERED_EXIT,
  NOT_OFFERED_STATUS,
  notOfferedReason,
  requestBody,
  type StateRequest,
  type StateResult,
} from './contract.js';

/** Asks one state of a provider; never throws. */
export type StateProvider = (
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  request: StateRequest,
) => Promise<StateResult>;

/** A hook's answer this large or larger is not read further. */
export const MAX_ANSWER_BYTES = 64 * 1024;

/** A hook URL: POST of the request as JSON; 2xx with the answer, 501 for a state it does not offer. */
export function urlHook(url: string): StateProvider {
  return async (ctx, env, request) => {
    const ex = await exchange(
      ctx,
      env,
      {
        method: 'POST',
        url,
        headers: [
          ['content-type', 'application/json'],
          ['accept', 'application/json'],
        ],
        body: new TextEncoder().encode(JSON.stringify(requestBody(request))),
      },
      { maxResponseBytes: MAX_ANSWER_BYTES },
    );
    const from = `the state hook ${url}`;
    if (unanswered(ex)) return { kind: 'failed', reason: `${from}: ${describeOutcome(ex)}` };
    if (ex.response?.status === NOT_OFFERED_STATUS)
      return { kind: 'not-offered', reason: notOfferedReason(request, jsonObject(ex), from) };
    if (!isSuccess(ex))
      return { kind: 'failed', reason: `${from} answered ${describeOutcome(ex)}` };
    return judgeAnswer(request, ex.response?.json, from);
  };
}

/** Where a hook command runs from, and the environment it is started from (default: payconform's). */
export interface CommandHookOptions {
  readonly cwd?: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** Quoted of the hook's stderr (its tail, STDERR_TAIL_BYTES) in a reason: its last lines, masked. */
export const STDERR_QUOTE_CHARS = 300;

/**
 * A hook command: run with the request as its last argument; exit 0 with the answer on stdout, 3: not offered. It
 * runs in its own process group with none of the audit's secrets (programEnv, role state-hook), and is stopped
 * (SIGTERM, SIGKILL after STOP_GRACE_MS) at twice the request timeout or the run's deadline.
 */
export function commandHook(
  command: readonly [string, ...string[]],
  options: CommandHookOptions = {},
): StateProvider {
  return async (ctx, env, request) => {
    const from = `the state hook command ${command[0]}`;
    const cwd = options.cwd ?? process.cwd();
    const timeout = Math.max(1, Math.min(ctx.requestTimeoutMs * 2, env.deadline - Date.now()));
    const argument = JSON.stringify(requestBody(request));
    const group = spawnInGroup(command[0], [...command.slice(1), argument], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: programEnv('state-hook', options.env ?? process.env),
    });
    const ran = await runHook(group, timeout, env.signal);
    const failed = (what: string): StateResult => ({
      kind: 'failed',
      reason: `${from} ${what}${quoted(ran.stderr, ctx.redactor)}`,
    });
    if (ran.exit.error !== undefined) return failed(couldNotStart(ran.exit.error, command[0], cwd));
    if (ran.stopped !== undefined) return failed(`did not finish (${ran.stopped})`);
    if (ran.exit.code === NOT_OFFERED_EXIT)
      return { kind: 'not-offered', reason: notOfferedReason(request, parsed(ran.stdout), from) };
    if (ran.exit.code !== 0)
      return failed(
        ran.exit.code !== null
          ? `exited with ${ran.exit.code}`
          : `was ended by ${ran.exit.signal ?? 'a signal'}`,
      );
    return judgeAnswer(request, parsed(ran.stdout), from);
  };
}

/** What a hook command left: its end, why payconform stopped it (if it did), its output. */
interface HookRun {
  readonly exit: GroupExit;
  readonly stopped?: string;
  readonly stdout: string;
  readonly stderr: string;
}

/** Reads the hook to its end; stops its group at `timeoutMs`, on `signal`, past MAX_ANSWER_BYTES, or when it exits. */
async function runHook(
  group: ProcessGroup,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<HookRun> {
  let stdout = '';
  let stderr = '';
  const run = runBounded(group, {
    timeoutMs,
    timedOut: `stopped after ${timeoutMs} ms`,
    signal,
    aborted: 'stopped: the audit ended',
  });
  group.child.stdout?.setEncoding('utf8');
  group.child.stdout?.on('data', (chunk: string) => {
    stdout += chunk;
    if (stdout.length >= MAX_ANSWER_BYTES)
      run.stop(`its answer reached ${MAX_ANSWER_BYTES} bytes and it was stopped`);
  });
  group.child.stderr?.setEncoding('utf8');
  group.child.stderr?.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_TAIL_BYTES);
  });
  const { exit, stopped } = await run.done;
  return { exit, stdout, stderr, ...(stopped !== undefined ? { stopped } : {}) };
}

/** Why the command never started, in words (the error's code, the path as given, where relative paths resolve). */
export function couldNotStart(error: NodeJS.ErrnoException, file: string, cwd: string): string {
  const bare = !/[\\/]/.test(file);
  const relative = !bare && !isAbsolute(file) ? ` (relative paths resolve against ${cwd})` : '';
  if (error.code === 'ENOENT')
    return bare
      ? `could not start: no command ${file} on PATH`
      : `could not start: no such file ${file}${relative}`;
  if (error.code === 'EACCES')
    return `could not start: ${file} is not executable (permission denied)${relative}`;
  return `could not start: ${error.code ?? error.message}${relative}`;
}

/** Stderr's last lines, masked, as `: …` after a reason (at most STDERR_QUOTE_CHARS), or nothing. */
export function quoted(stderr: string, redactor: Redactor): string {
  // Masked before it is cut: a cut could leave a piece of a secret too short to be recognised.
  const lines = redactor
    .redactText(stderr)
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');
  let out = '';
  for (let i = lines.length - 1; i >= 0; i--) {
    const next = out === '' ? lines[i]! : `${lines[i]!} | ${out}`;
    if (next.length > STDERR_QUOTE_CHARS) {
      if (out === '') out = `…${lines[i]!.slice(-(STDERR_QUOTE_CHARS - 1))}`;
      break;
    }
    out = next;
  }
  return out === '' ? '' : `: ${out}`;
}

/** Standard output as JSON, or undefined. */
function parsed(stdout: string): unknown {
  try {
    return JSON.parse(String(stdout)) as unknown;
  } catch {
    return undefined;
  }
}
