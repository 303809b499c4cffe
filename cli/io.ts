// The command line's view of the outside world, passed to every command so tests can run commands in-process.
import { readFile } from 'node:fs/promises';
import { applicationSecretProblem } from '../src/profile/application-secret.js';

export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Reads standard input to the end (for `-` file arguments). */
  readonly readStdin: () => Promise<Buffer>;
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

/** Exit codes shared by every command (the audits also use 4, INCOMPLETE: conformance/exit-code.ts). */
export const EXIT = {
  ok: 0,
  failed: 1,
  usage: 2,
  unreachable: 3,
  incomplete: 4,
  internal: 70,
} as const;

/** A usage error: the command prints the message and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
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
