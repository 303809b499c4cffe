// The config's `stateHook` (docs/state-hook.md): a URL, HTTPS or plain HTTP on loopback as for targets elsewhere, with
// no credentials in it; or a command (program and arguments, run without a shell) whose program is there to start,
// run once per request or, with `"lines": true`, once per audit. Checked once, here.
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, relative, resolve } from 'node:path';
import { isLoopbackHost } from '../../net/loopback.js';
import type { StateHookConfig } from './contract.js';

/** The hook as the config file gives it (the schema admits exactly one of the two members). */
export type StateHookFile = { url: string } | { command: [string, ...string[]]; lines?: boolean };

/** The config's hook, checked; or why it cannot be used. */
export function resolveStateHook(
  hook: StateHookFile | undefined,
  origin: string,
): StateHookConfig | undefined | string {
  if (hook === undefined) return undefined;
  if ('command' in hook)
    return { command: [...hook.command], ...(hook.lines === true ? { lines: true } : {}) };
  let url: URL;
  try {
    url = new URL(hook.url);
  } catch {
    return `${origin}: "stateHook.url" is not a URL`;
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(host)))
    return `${origin}: "stateHook.url" must be https, or http on loopback (127.0.0.1, ::1, localhost)`;
  if (url.username !== '' || url.password !== '')
    return `${origin}: "stateHook.url" must not carry credentials (a hook in a test environment needs none the audit could keep secret)`;
  return { url: url.href };
}

/** Where a hook command's program is looked for: the working directory, PATH, and the config file's folder (a hint). */
export interface ProgramPlace {
  /** The working directory payconform runs in: the command runs there, and a relative path is its. */
  readonly cwd: string;
  /** PATH as the command will be started with it (a bare program name is looked up there). */
  readonly path: string | undefined;
  /** The config file's folder, to point at a program that is there but was written relative to it. */
  readonly configDir?: string;
}

/** What stands at `file` as a program: one that can start, nothing, or something that cannot be run. */
function programAt(file: string): 'ok' | 'missing' | 'not executable' | 'a directory' {
  let directory: boolean;
  try {
    directory = statSync(file).isDirectory();
  } catch {
    return 'missing';
  }
  if (directory) return 'a directory';
  try {
    accessSync(file, constants.X_OK);
    return 'ok';
  } catch {
    return 'not executable';
  }
}

/**
 * Why the hook command's program cannot start (a path that is not there or not executable, a bare name not on PATH),
 * or undefined: refused with the config, before any check runs, instead of failing every call of the run. A relative
 * path is the working directory's (the command runs there, as its relative arguments do), never the config file's.
 */
export function refuseMissingProgram(
  hook: StateHookConfig | undefined,
  place: ProgramPlace,
  origin: string,
): string | undefined {
  if (hook === undefined || !('command' in hook)) return undefined;
  const program = hook.command[0];
  const named = `${origin}: "stateHook.command" names the program "${program}"`;
  if (!/[\\/]/.test(program)) {
    const dirs = (place.path ?? '').split(delimiter).map((d) => (d === '' ? place.cwd : d));
    if (dirs.some((d) => programAt(resolve(place.cwd, d, program)) === 'ok')) return undefined;
    return `${named}, which is not on PATH: give its path, or install it (docs/state-hook.md, "Naming a hook")`;
  }
  const file = resolve(place.cwd, program);
  const found = programAt(file);
  if (found === 'ok') return undefined;
  const where = isAbsolute(program) ? file : `${file}: a relative path is the working directory's`;
  const beside =
    !isAbsolute(program) && place.configDir !== undefined
      ? resolve(place.configDir, program)
      : undefined;
  const hint =
    beside !== undefined && beside !== file && programAt(beside) === 'ok'
      ? `; the config's folder has it: write "${relative(place.cwd, beside) || beside}" or an absolute path`
      : '';
  return `${named}, which ${found === 'missing' ? 'does not exist' : `is ${found}`} (${where}, docs/state-hook.md)${hint}`;
}
