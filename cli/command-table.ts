// The one table of every command's options: the parsers take their `node:util` parseArgs options from it, and every
// `--help`, `payconform help [command]`, docs/cli.md and the README's command table are generated from or checked
// against it (test/cli-help.test.ts). The commands' entries live in cli/command-table/, one file per command group. No
// heavy imports: `payconform --help` loads only this file and those parts.
import type { ParseArgsConfig } from 'node:util';
import { EXIT } from '../conformance/exit-code-table.js';
import type { OptionSpec, CommandSpec } from './command-table/option-spec.js';
import { auditServer, auditClient, auditWebhooks, replay } from './command-table/audits.js';
import { serve } from './command-table/serve.js';
import {
  sign,
  verify,
  validate,
  attestVerify,
  diff,
  reportFields,
} from './command-table/messages.js';
import { vectorsRun, vectorsStarter } from './command-table/vectors.js';
export type { CommandSpec, OptionSpec } from './command-table/option-spec.js';
export { AUDIT_COMMON_OPTIONS, TLS_LISTEN_OPTION_SPECS } from './command-table/shared-options.js';

const help: CommandSpec = {
  name: 'help',
  summary: 'show the help of a command (payconform help audit server), or list the commands',
  synopsis: '[COMMAND]',
  description: ['Prints the same text as `payconform COMMAND --help`; without COMMAND, the list.'],
  options: [],
  exit: [
    [EXIT.ok, 'help printed'],
    [EXIT.usage, 'unknown command'],
  ],
  example: 'payconform help vectors run',
};

/** Every command, in the order `payconform --help` lists them. */
export const COMMAND_TABLE: readonly CommandSpec[] = [
  serve,
  sign,
  verify,
  validate,
  auditServer,
  auditClient,
  auditWebhooks,
  replay,
  attestVerify,
  diff,
  reportFields,
  vectorsRun,
  vectorsStarter,
  help,
];

export function commandSpec(name: string): CommandSpec {
  const spec = COMMAND_TABLE.find((c) => c.name === name);
  if (spec === undefined) throw new Error(`no command "${name}" in the command table`);
  return spec;
}

type ParseOptions = NonNullable<ParseArgsConfig['options']>;

/** The `node:util` parseArgs options of a list of option specs (the parser and the help share the table). */
export function parseArgsOptions(options: readonly OptionSpec[]): ParseOptions {
  const out: ParseOptions = {};
  for (const o of options) {
    out[o.name] = {
      type: o.type,
      ...(o.short !== undefined ? { short: o.short } : {}),
      ...(o.multiple === true ? { multiple: true } : {}),
    };
  }
  return out;
}

/** The usage line: `usage: payconform NAME SYNOPSIS`. */
export function usageLine(spec: CommandSpec): string {
  return `usage: payconform ${spec.name}${spec.synopsis !== '' ? ` ${spec.synopsis}` : ''}`;
}

function optionLabel(o: OptionSpec): string {
  const long = `--${o.name}${o.value !== undefined ? ` ${o.value}` : ''}`;
  return o.short !== undefined ? `-${o.short}, ${long}` : long;
}

/** One option's help line: label, what it does, and its default. */
export function optionLine(o: OptionSpec, width: number): string {
  const text = `${o.help}${o.default !== undefined ? ` (default: ${o.default})` : ''}`;
  return `  ${optionLabel(o).padEnd(width)}  ${text}`;
}

/** `--help` of one command: usage, description, one line per option with its default, environment, exit, example. */
export function formatHelp(spec: CommandSpec): string {
  const shown = spec.options.filter((o) => o.hidden !== true);
  const width = Math.max(0, ...shown.map((o) => optionLabel(o).length));
  const lines = [usageLine(spec), '', ...spec.description, ''];
  if (shown.length > 0) lines.push('options:', ...shown.map((o) => optionLine(o, width)), '');
  if (spec.environment !== undefined && spec.environment.length > 0)
    lines.push('environment:', ...spec.environment.map(([n, t]) => `  ${n}: ${t}`), '');
  lines.push('exit codes:', ...spec.exit.map(([c, t]) => `  ${String(c).padStart(2)}  ${t}`), '');
  lines.push('example:', `  ${spec.example}`, '');
  return lines.join('\n');
}
