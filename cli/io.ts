// The command line's view of the outside world, passed to every command so tests can run commands in-process.
import { readFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { parseArgsOptions, usageLine, type CommandSpec } from './command-table.js';
import { applicationSecretProblem } from '../src/profile/application-secret.js';

export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Reads standard input to the end (for `-` file arguments). */
  readonly readStdin: () => Promise<Buffer>;
  /**
   * Stops a command that runs until stopped (`serve`) as SIGINT or SIGTERM does, for a caller that runs it in-process
   * (tests); the process's own entry (cli/bin.ts) leaves it unset.
   */
  readonly stop?: AbortSignal;
}

export function createProcessIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    },
  };
}

/** Reads a file argument, where `-` means standard input. */
export async function readInput(pathOrDash: string, io: CliIo): Promise<Buffer> {
  return pathOrDash === '-' ? io.readStdin() : readFile(pathOrDash);
}

/** Exit codes shared by every command, from the one table (conformance/exit-code-table.ts). */
export { EXIT } from '../conformance/exit-code-table.js';

/** A usage error: the command prints the message and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** A command's flag values as parsed by its table entry (no positionals). */
export type CommandFlags = Record<string, string | boolean | string[] | undefined>;

/**
 * Parses `args` by the command's table entry; a parse error is a UsageError with the parser's message, then `hint`,
 * then the usage line.
 */
export function parseCommandFlags(
  spec: CommandSpec,
  args: readonly string[],
  hint = '',
): CommandFlags {
  try {
    return parseArgs({
      args: [...args],
      options: parseArgsOptions(spec.options),
      strict: true,
      allowPositionals: false,
    }).values as CommandFlags;
  } catch (error) {
    throw new UsageError(
      `${error instanceof Error ? error.message : String(error)}${hint}\n${usageLine(spec)}`,
    );
  }
}

/**
 * Parses `args` by the command's table entry with positionals allowed (`validate KIND FILE`, `diff OLD NEW`); a parse
 * error is a UsageError with the parser's message, then `tail` (default: the usage line).
 */
export function parseCommandArgs(
  spec: CommandSpec,
  args: readonly string[],
  tail: string = usageLine(spec),
): { values: CommandFlags; positionals: string[] } {
  try {
    const { values, positionals } = parseArgs({
      args: [...args],
      options: parseArgsOptions(spec.options),
      strict: true,
      allowPositionals: true,
    });
    return { values: values as CommandFlags, positionals };
  } catch (error) {
    throw new UsageError(`${error instanceof Error ? error.message : String(error)}\n${tail}`);
  }
}

/** A required environment variable, or a UsageError naming it (never its value). */
export function requireEnv(io: CliIo, name: string): string {
  const value = io.env[name];
  if (value === undefined || value.trim() === '')
    throw new UsageError(`environment variable ${name} is not set`);
  return value;
}

export const APPLICATION_SECRET_ENV = 'PAYCONFORM_APPLICATION_SECRET';

/**
 * PAYCONFORM_APPLICATION_SECRET checked against the one rule (src/profile/application-secret.ts): every command calls
 * this at start, so a malformed secret is a usage error (exit 2) before anything runs. Undefined when unset and
 * not `required`; the value is returned exactly as set (never trimmed).
 */
export function applicationSecretFromEnv(io: CliIo, required: boolean): string | undefined {
  const value = io.env[APPLICATION_SECRET_ENV];
  if (value === undefined || value === '') {
    if (required) throw new UsageError(`environment variable ${APPLICATION_SECRET_ENV} is not set`);
    return undefined;
  }
  const problem = applicationSecretProblem(value);
  if (problem !== undefined) throw new UsageError(`${APPLICATION_SECRET_ENV} ${problem}`);
  return value;
}

/** True when the arguments ask for help: checked before anything else, so --help works whatever else is given. */
export function wantsHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

export const PRIVATE_KEY_ENV = 'PAYCONFORM_PRIVATE_KEY';
export const PRIVATE_KEY_FILE_ENV = 'PAYCONFORM_PRIVATE_KEY_FILE';
/** A private key file larger than this is not a key (PEM of an Ed25519 key is about 120 bytes). */
const MAX_KEY_FILE_BYTES = 64 * 1024;

/**
 * True when PAYCONFORM_PRIVATE_KEY holds what looks like a file path rather than a key: not PEM, not a base64 seed,
 * and shaped like a path. The value is never echoed: if this guess is wrong, it is a key.
 */
export function looksLikeKeyPath(value: string): boolean {
  const v = value.trim();
  if (v.includes('-----BEGIN') || /^[A-Za-z0-9+/]{43}=$/.test(v)) return false;
  return (
    /^(?:~|\.{1,2})?\//.test(v) || /^[A-Za-z]:\\/.test(v) || /\.(?:pem|key|der|p8|txt)$/i.test(v)
  );
}

/**
 * The environment with the private key taken from PAYCONFORM_PRIVATE_KEY_FILE when that is set (read once, at start;
 * the path appears in messages, the content never), so every command sees it as PAYCONFORM_PRIVATE_KEY. A value of
 * PAYCONFORM_PRIVATE_KEY that looks like a path is a usage error saying to use the _FILE form.
 */
export function withKeyFile(io: CliIo): CliIo {
  const file = io.env[PRIVATE_KEY_FILE_ENV];
  const value = io.env[PRIVATE_KEY_ENV];
  if (file === undefined || file === '') {
    if (value !== undefined && looksLikeKeyPath(value))
      throw new UsageError(
        `${PRIVATE_KEY_ENV} looks like a file path, not a key (base64 Ed25519 seed or PEM); to read the key from a file, set ${PRIVATE_KEY_FILE_ENV} to its path instead`,
      );
    return io;
  }
  if (value !== undefined && value.trim() !== '')
    throw new UsageError(`set ${PRIVATE_KEY_ENV} or ${PRIVATE_KEY_FILE_ENV}, not both`);
  let text: string;
  try {
    if (statSync(file).size > MAX_KEY_FILE_BYTES)
      throw new UsageError(
        `${PRIVATE_KEY_FILE_ENV} ${JSON.stringify(file)} is larger than ${MAX_KEY_FILE_BYTES} bytes: not a key file`,
      );
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(
      `cannot read ${PRIVATE_KEY_FILE_ENV} ${JSON.stringify(file)}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
  if (text.trim() === '')
    throw new UsageError(`${PRIVATE_KEY_FILE_ENV} ${JSON.stringify(file)} is empty`);
  return { ...io, env: { ...io.env, [PRIVATE_KEY_ENV]: text.trim() } };
}
