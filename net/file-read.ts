// The one reader for every file payconform reads (config, baseline, reports for `diff` and `attest verify`, keys,
// HAR, envelopes): a regular file only, its size checked against the stated limit before a byte is read, and never a
// hang (a FIFO is opened without blocking and refused; /dev/zero is not a regular file). A UTF-8 byte-order mark is
// accepted everywhere (`textOf` drops it).
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

/** The size limit of each kind of file read: one table, quoted in docs/cli.md. */
export const FILE_SIZE_LIMITS = {
  /** `--config` (audit server, audit client). */
  config: 1024 * 1024,
  /** A key file (PEM of an Ed25519 key is about 120 bytes, of RSA-4096 about 3.3 kB). */
  key: 64 * 1024,
  /** A PEM certificate chain or CA bundle (`--ca`, `--tls-cert`, `--tls-key`: a system bundle is about 220 kB). */
  certificate: 4 * 1024 * 1024,
  /** `--baseline`. */
  baseline: 16 * 1024 * 1024,
  /** A JSON report (`diff`, `attest verify --report`), a HAR, or an attestation envelope. */
  report: 256 * 1024 * 1024,
  /** A request JSON or a payload (`sign`, `verify`, `validate`), from a file or standard input. */
  input: 64 * 1024 * 1024,
} as const;
export type FileKind = keyof typeof FILE_SIZE_LIMITS;

/** Why a file could not be read: a missing file, not a regular file, over its limit, or the system's error code. */
export class FileReadError extends Error {
  override readonly name = 'FileReadError';
  constructor(
    /** `ENOENT`, `EACCES`, … as the system gives it; `NOT_REGULAR` or `TOO_LARGE` as this reader decides it. */
    readonly code: string,
    /** The reason in words, without the path (the caller names the file and its flag). */
    readonly reason: string,
  ) {
    super(`${code} (${reason})`);
  }
}

/** The kind of a file that is not a regular one, in words. */
function kindOf(info: ReturnType<typeof fstatSync>): string {
  if (info.isDirectory()) return 'a directory';
  if (info.isFIFO()) return 'a FIFO';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  if (info.isSocket()) return 'a socket';
  return 'not a regular file';
}

const REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EISDIR: 'a directory',
  ELOOP: 'too many symbolic links',
  ENOTDIR: 'a path through something that is not a directory',
};

/** A system error as a FileReadError (its code kept, the reason in words). */
function fromSystem(error: unknown): FileReadError {
  const code = (error as NodeJS.ErrnoException).code ?? 'EIO';
  return new FileReadError(code, REASONS[code] ?? code);
}

/**
 * The bytes of the regular file at `path`, at most `FILE_SIZE_LIMITS[kind]` bytes (checked on the open file before
 * reading, and again while reading, so a file that grows is cut off, not read on). Throws FileReadError.
 */
export function readRegularFile(path: string, kind: FileKind): Buffer {
  const limit = FILE_SIZE_LIMITS[kind];
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO with no writer returns at once (then refused below) instead of waiting for one.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (error) {
    throw fromSystem(error);
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile())
      throw new FileReadError('NOT_REGULAR', `${kindOf(info)}, not a regular file`);
    if (info.size > limit)
      throw new FileReadError('TOO_LARGE', `${info.size} bytes; the limit is ${limit}`);
    return readUpTo(fd, limit);
  } catch (error) {
    if (error instanceof FileReadError) throw error;
    throw fromSystem(error);
  } finally {
    closeSync(fd);
  }
}

/** Reads `fd` to its end, refusing more than `limit` bytes. */
function readUpTo(fd: number, limit: number): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const chunk = Buffer.allocUnsafe(Math.min(64 * 1024, limit + 1 - total));
    const n = readSync(fd, chunk, 0, chunk.length, null);
    if (n === 0) return Buffer.concat(chunks, total);
    total += n;
    if (total > limit)
      throw new FileReadError('TOO_LARGE', `more than ${limit} bytes; the limit is ${limit}`);
    chunks.push(chunk.subarray(0, n));
  }
}

const BOM = '\uFEFF';

/** A file's bytes as UTF-8 text, a leading byte-order mark dropped (accepted for every file payconform reads). */
export function textOf(bytes: Uint8Array): string {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  return text.startsWith(BOM) ? text.slice(1) : text;
}

/**
 * The deepest nesting of arrays and objects a JSON file payconform reads may have: its own reports, configs and
 * baselines nest about ten deep; a deeper document would overflow the stack of whatever walks it later (a copy, a
 * JSON.stringify), after the run instead of before.
 */
export const MAX_JSON_DEPTH = 256;

/**
 * JSON text from a file, parsed; a document nested deeper than MAX_JSON_DEPTH is refused before it is parsed. Throws
 * an Error whose message says what is wrong (`not JSON: …`, `nested deeper than … (at offset N)`).
 */
export function parseJsonFile(text: string): unknown {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_JSON_DEPTH)
        throw new Error(`nested deeper than ${MAX_JSON_DEPTH} levels (at offset ${i})`);
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new Error(`not JSON: ${(error as Error).message}`);
  }
}
