// The providers of the state hook contract (contract.ts) that an implementation offers: a hook URL (POST of the
// request; its exchanges are in the HAR like any other) and a hook command (run with the request as its one argument,
// the answer on standard output). payconform's own /sandbox/ is the third (sandbox-provider.ts).
import { execFile } from 'node:child_process';
import type { CheckRunEnv } from '../check.js';
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
const MAX_ANSWER_BYTES = 64 * 1024;

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

/** A hook command: run with the request as its last argument; exit 0 with the answer on stdout, 3: not offered. */
export function commandHook(command: readonly [string, ...string[]]): StateProvider {
  return (ctx, env, request) =>
    new Promise((resolve) => {
      const from = `the state hook command ${command[0]}`;
      const timeout = Math.max(1, Math.min(ctx.requestTimeoutMs * 2, env.deadline - Date.now()));
      const argument = JSON.stringify(requestBody(request));
      execFile(
        command[0],
        [...command.slice(1), argument],
        { timeout, maxBuffer: MAX_ANSWER_BYTES, signal: env.signal, windowsHide: true },
        (error, stdout, stderr) => {
          const code = error === null ? 0 : typeof error.code === 'number' ? error.code : undefined;
          const said = ctx.redactor.redactText(String(stderr).trim().split('\n').pop() ?? '');
          if (code === NOT_OFFERED_EXIT)
            return resolve({
              kind: 'not-offered',
              reason: notOfferedReason(request, parsed(stdout), from),
            });
          if (code !== 0)
            return resolve({
              kind: 'failed',
              reason: `${from} ${code !== undefined ? `exited with ${code}` : `did not finish (${error?.killed === true ? `killed after ${timeout} ms` : (error?.message ?? 'unknown')})`}${said !== '' ? `: ${said.slice(0, 300)}` : ''}`,
            });
          resolve(judgeAnswer(request, parsed(stdout), from));
        },
      );
    });
}

/** Standard output as JSON, or undefined. */
function parsed(stdout: string | Buffer): unknown {
  try {
    return JSON.parse(String(stdout)) as unknown;
  } catch {
    return undefined;
  }
}
