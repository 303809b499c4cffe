// Command-line flags of the benchmarks that print a usage and exit 2 on bad input (bench:run, bench:cores).
import { parseArgs, type ParseArgsConfig } from 'node:util';

type FlagOptions = NonNullable<ParseArgsConfig['options']>;

/** Bad flags: the benchmark prints the message and its usage, and exits 2. */
export class UsageError extends Error {}

/** `argv` parsed strictly by `options` (no positionals); a parse error is a UsageError with the parser's message. */
export function parseBenchFlags<const O extends FlagOptions>(
  argv: readonly string[],
  options: O,
): ReturnType<
  typeof parseArgs<{ args: string[]; options: O; strict: true; allowPositionals: false }>
>['values'] {
  try {
    return parseArgs({ args: [...argv], options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}
