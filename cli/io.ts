// The command line's view of the outside world, passed to every command so tests can run commands in-process.
import { readFile } from 'node:fs/promises';

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

/** Exit codes shared by every command. */
export const EXIT = { ok: 0, failed: 1, usage: 2, unreachable: 3 } as const;

/** A usage error: the command prints the message and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** A required environment variable, or a UsageError naming it (never its value). */
export function requireEnv(io: CliIo, name: string): string {
  const value = io.env[name];
  if (value === undefined || value.trim() === '') throw new UsageError(`environment variable ${name} is not set`);
  return value;
}
