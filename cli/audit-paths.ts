// The files an audit command names, read from its arguments before the real parse (so even a run that ends in a
// usage error knows them): the values of a flag, the reports asked for, every file it reads and every file it writes.
import { statSync } from 'node:fs';
import { parseJsonFile, readRegularFile, textOf } from '../net/file-read.js';
import { PRIVATE_KEY_FILE_ENV, type CliIo } from './io.js';
import { ATTEST_KEY_FILE_ENV } from './attest.js';
import type { NamedPath } from './path-clash.js';
import { parseReportSpec, type ReportSpec } from './reports.js';

/** Every value given to `--NAME` (as `--NAME VALUE` or `--NAME=VALUE`), read before the real parse. */
export function optionValues(args: readonly string[], name: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') break;
    if (arg === `--${name}` && i + 1 < args.length) out.push(args[++i]!);
    else if (arg.startsWith(`--${name}=`)) out.push(arg.slice(name.length + 3));
  }
  return out;
}

/** The `--report` values that parse (a malformed one is the usage error the command reports). */
export function requestedReports(args: readonly string[]): ReportSpec[] {
  const specs: ReportSpec[] = [];
  for (const value of optionValues(args, 'report')) {
    try {
      const spec = parseReportSpec(value);
      if (!specs.some((s) => s.path === spec.path)) specs.push(spec);
    } catch {
      continue;
    }
  }
  return specs;
}

/** Options naming a file an audit reads, and the environment variables that name one. */
const INPUT_FILE_OPTIONS = ['config', 'baseline', 'ca', 'signing-key', 'tls-cert', 'tls-key'];
const INPUT_FILE_ENV = [PRIVATE_KEY_FILE_ENV, ATTEST_KEY_FILE_ENV];

/** Options whose value is a shell command payconform runs: each word of it that is a file is a program it runs. */
const COMMAND_OPTIONS = ['adapter', 'exec'];

/** The words of a command that name existing regular files (the program, a script it is given), as inputs. */
function commandFiles(given: string, words: readonly string[]): NamedPath[] {
  return words
    .map((w) => w.replace(/^(['"])(.*)\1$/, '$2'))
    .filter((w) => w !== '' && !w.startsWith('-') && isRegularFile(w))
    .map((path) => ({ given: `${given} (runs ${path})`, path }));
}

const isRegularFile = (path: string): boolean => {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

/** The config's state hook command, when the config names one (read leniently: a bad config is its own error). */
function hookCommandFiles(args: readonly string[]): NamedPath[] {
  return optionValues(args, 'config').flatMap((config) => {
    try {
      const doc = parseJsonFile(textOf(readRegularFile(config, 'config'))) as {
        stateHook?: { command?: unknown };
      };
      const command = doc.stateHook?.command;
      return Array.isArray(command)
        ? commandFiles(
            `the state hook of --config ${config}`,
            command.filter((w): w is string => typeof w === 'string'),
          )
        : [];
    } catch {
      return [];
    }
  });
}

/** Every file the audit reads or runs, as the user named it. */
export function inputPaths(args: readonly string[], io: CliIo): NamedPath[] {
  const fromEnv = INPUT_FILE_ENV.flatMap((name) => {
    const path = io.env[name];
    return path !== undefined && path !== '' ? [{ given: name, path }] : [];
  });
  return [
    ...INPUT_FILE_OPTIONS.flatMap((flag) =>
      optionValues(args, flag).map((path) => ({ given: `--${flag} ${path}`, path })),
    ),
    ...fromEnv,
    ...COMMAND_OPTIONS.flatMap((flag) =>
      optionValues(args, flag).flatMap((command) =>
        commandFiles(`--${flag}`, command.split(/\s+/)),
      ),
    ),
    ...hookCommandFiles(args),
  ];
}

/** Every file the audit writes: reports and HAR, the attestation, the updated baseline, the command's own. */
export function outputPaths(fileOptions: readonly string[], args: readonly string[]): NamedPath[] {
  const named = (flag: string): NamedPath[] =>
    optionValues(args, flag).map((path) => ({ given: `--${flag} ${path}`, path }));
  return [
    ...requestedReports(args).map((r) => ({
      given: `--report ${r.format}:${r.path}`,
      path: r.path,
    })),
    ...named('attest'),
    ...named('tls-ca-out'),
    ...(args.includes('--baseline-update') ? named('baseline') : []),
    ...fileOptions.flatMap(named),
  ];
}
