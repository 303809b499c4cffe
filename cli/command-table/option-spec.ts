// Part of the option table (cli/command-table.ts): the shapes of the option table: one option (`OptionSpec`) and one command (`CommandSpec`).
import type { ExitCode } from '../../conformance/exit-code-table.js';

export interface OptionSpec {
  /** The long name without `--`. */
  readonly name: string;
  readonly short?: string;
  readonly type: 'string' | 'boolean';
  readonly multiple?: boolean;
  /** The value's placeholder in help (`FILE`, `N`, `FORMAT:PATH`); string options only. */
  readonly value?: string;
  /** The default as shown in help; absent when the option has none. */
  readonly default?: string;
  /** One line: what the option does. */
  readonly help: string;
  /** An old name still parsed but not shown (its line in help would invite new uses). */
  readonly hidden?: boolean;
}

export interface CommandSpec {
  /** The command words as typed (`audit server`). */
  readonly name: string;
  /** One line for `payconform --help`. */
  readonly summary: string;
  /** What follows `payconform NAME` in the usage line. */
  readonly synopsis: string;
  /** A few lines of what the command does. */
  readonly description: readonly string[];
  readonly options: readonly OptionSpec[];
  /** Environment variables the command reads: [name, what]. */
  readonly environment?: readonly (readonly [string, string])[];
  /** Exit codes: [code, meaning]. */
  readonly exit: readonly (readonly [ExitCode, string])[];
  readonly example: string;
}
