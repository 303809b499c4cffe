// The command line's view of the outside world, passed to every command so tests can run commands in-process.
import {
  FILE_SIZE_LIMITS,
  FileReadError,
  readRegularFile,
  textOf,
  type FileKind,
} from '../net/file-read.js';
import { parseArgs } from 'node:util';
import { parseArgsOptions, usageLine, type CommandSpec } from './command-table.js';
import { applicationSecretProblem } from '../src/profile/application-secret.js';

export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Reads standard input to the end (for `-` file arguments); may stop once it has more than `maxBytes`. */
  readonly readStdin: (maxBytes?: number) => Promise<Buffer>;
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
    readStdin: async (maxBytes = Infinity) => {
      const chunks: Buffer[] = [];
      let total = 0;
      for await (const chunk of process.stdin) {
        chunks.push(chunk as Buffer);
        total += (chunk as Buffer).length;
        if (total > maxBytes) break;
      }
      return Buffer.concat(chunks);
    },
  };
}

/**
 * Reads a file argument, where `-` means standard input, through the one reader (a regular file within the kind's
 * size limit; standard input within the same limit). Throws FileReadError.
 */
export async function readInput(
  pathOrDash: string,
  io: CliIo,
  kind: FileKind = 'input',
): Promise<Buffer> {
  if (pathOrDash !== '-') return readRegularFile(pathOrDash, kind);
  const limit = FILE_SIZE_LIMITS[kind];
  const bytes = await io.readStdin(limit);
  if (bytes.length > limit)
    throw new FileReadError('TOO_LARGE', `more than ${limit} bytes; the limit is ${limit}`);
  return bytes;
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

/**
 * True when a value given for a key (PAYCONFORM_PRIVATE_KEY, PAYCONFORM_ATTEST_KEY, `attest verify --public-key`)
 * looks like a file path rather than a key: not PEM, not base64 of a raw key or a DER key, and holding `/` or `\`
 * or ending in a key file's extension (`attest.pub`, `keys/client.pem`). A key never has that shape, so a path that
 * names no file is said to be missing, never parsed as a key. The value is never echoed: if this guess is wrong, it
 * is a key.
 */
export function looksLikeKeyPath(value: string): boolean {
  const v = value.trim();
  if (v.includes('-----BEGIN') || isBase64Key(v)) return false;
  return /[/\\]/.test(v) || /^~/.test(v) || /\.(?:pem|pub|key|der|p8|spki|txt)$/i.test(v);
}

/**
 * Base64 of what the key parsers take or name (src/keys/): 32 bytes (a raw key or a seed), 64 (a libsodium secret
 * key, refused with its own message) or DER (SPKI, PKCS#8: a SEQUENCE); line breaks allowed.
 */
function isBase64Key(value: string): boolean {
  const compact = value.replace(/\r?\n/g, '');
  if (compact.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(compact)) return false;
  const bytes = Buffer.from(compact, 'base64');
  return bytes.length === 32 || bytes.length === 64 || bytes[0] === 0x30;
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
  const text = readKeyFile(file, PRIVATE_KEY_FILE_ENV);
  if (text.trim() === '')
    throw new UsageError(`${PRIVATE_KEY_FILE_ENV} ${JSON.stringify(file)} is empty`);
  return { ...io, env: { ...io.env, [PRIVATE_KEY_ENV]: text.trim() } };
}

/**
 * A file the command reads, through the one reader (net/file-read.ts: a regular file within the kind's size limit), as
 * its exact bytes; a UsageError naming `given` (the flag or variable) and the path, never the content.
 */
export function readFileArgumentBytes(path: string, kind: FileKind, given: string): Buffer {
  try {
    return readRegularFile(path, kind);
  } catch (error) {
    if (!(error instanceof FileReadError)) throw error;
    throw new UsageError(`cannot read ${given} ${JSON.stringify(path)}: ${error.message}`);
  }
}

/** The same as text, a byte-order mark dropped (accepted in every file payconform reads). */
export const readFileArgument = (path: string, kind: FileKind, given: string): string =>
  textOf(readFileArgumentBytes(path, kind, given));

/** A key file named by `given` (an option or an environment variable). */
export const readKeyFile = (path: string, given: string): string =>
  readFileArgument(path, 'key', given);
