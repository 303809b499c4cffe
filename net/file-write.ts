// The one writer for every file payconform writes (reports, HAR, attestation, the updated baseline): atomic (a
// temporary file in the same folder, written, flushed, then renamed over the target, so a run killed or a disk that
// fills mid-write leaves the earlier file whole), the mode of an existing file kept (0600 for a new one that may hold
// anything sensitive), and a symbolic link written through only to a regular file that exists: a dangling link is
// refused, never followed to create its target.
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fchmodSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  realpathSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

/** Directory levels walked up before giving up (a path deeper than this is refused). */
const MAX_DIRECTORY_DEPTH = 64;

/** An error with a system-style code (what the callers print). */
const failure = (code: string, message: string): NodeJS.ErrnoException =>
  Object.assign(new Error(message), { code });

/**
 * Creates the missing parent directories of `file`, one level at a time. Not `mkdir({ recursive: true })`: under
 * /proc that never returns (it retries ENOENT), while a plain mkdir there fails at once. Throws the first error.
 */
export function ensureParentDirectories(file: string): void {
  const missing: string[] = [];
  let dir = dirname(resolve(file));
  for (let depth = 0; depth < MAX_DIRECTORY_DEPTH; depth++) {
    try {
      if (!statSync(dir).isDirectory()) throw failure('ENOTDIR', `"${dir}" is not a directory`);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      missing.unshift(dir);
      const up = dirname(dir);
      if (up === dir) break;
      dir = up;
    }
  }
  for (const d of missing) mkdirSync(d);
}

/** Where a write to `file` lands and the mode the file keeps (undefined: a new file). */
interface WriteTarget {
  readonly path: string;
  readonly mode?: number;
}

/**
 * The file a write to `file` replaces: `file` itself, or the regular file a symbolic link names. Throws (code
 * `EDANGLING`) for a link to nothing and (code `ENOTREG`) for anything but a regular file: a device, a FIFO or a
 * directory is never a report's place (`/dev/full` would take the write and fail, a FIFO would hang).
 */
export function resolveWriteTarget(file: string): WriteTarget {
  let link: ReturnType<typeof lstatSync>;
  try {
    link = lstatSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { path: resolve(file) };
    throw error;
  }
  let path = resolve(file);
  if (link.isSymbolicLink())
    try {
      path = realpathSync(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error; // a loop: ELOOP
      throw failure('EDANGLING', 'a symbolic link to a file that does not exist (not followed)');
    }
  const info = statSync(path);
  if (!info.isFile()) throw failure('ENOTREG', 'not a regular file');
  return { path, mode: info.mode & 0o7777 };
}

/**
 * A fresh temporary name beside `path` (same folder, so the rename is atomic); the file's name is cut to 100
 * characters in it, so a long name still leaves room under the file system's 255.
 */
const temporaryBeside = (path: string): string =>
  join(
    dirname(path),
    `.${basename(path).slice(0, 100)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`,
  );

/**
 * Writes `data` to `file` atomically (parent folders created): the temporary file is flushed before the rename, and
 * removed when anything fails. `sensitive`: a new file is created 0600 (an existing one keeps its mode); `mode`: the
 * file has this mode whatever it had (a file that holds secrets: 0600). Throws the system error (or `EDANGLING`,
 * `ENOTREG` from `resolveWriteTarget`).
 */
export function writeFileAtomic(
  file: string,
  data: string | Uint8Array,
  options: { readonly sensitive?: boolean; readonly mode?: number } = {},
): void {
  ensureParentDirectories(file);
  const target = resolveWriteTarget(file);
  const temporary = temporaryBeside(target.path);
  const mode = options.mode ?? target.mode;
  const fd = openSync(temporary, 'wx', options.sensitive === true ? 0o600 : (mode ?? 0o666));
  try {
    try {
      if (mode !== undefined) fchmodSync(fd, mode);
      const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
      for (let offset = 0; offset < bytes.length;)
        offset += writeSync(fd, bytes, offset, bytes.length - offset);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, target.path);
  } catch (error) {
    try {
      unlinkSync(temporary);
    } catch {
      // already renamed or never written: nothing to remove
    }
    throw error;
  }
  syncDirectory(dirname(target.path));
}

/** Flushes a folder's entries (the rename) where the platform allows it; best effort. */
function syncDirectory(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // not every platform or file system can fsync a folder
  }
}

/**
 * Whether `file` can be written, checked before a run starts: its folders are created, its target resolved as the
 * writer resolves it, and a temporary file made and removed beside it (the file itself is never touched). The reason
 * when it cannot (`CODE (path)` or the message), else undefined.
 */
export function unwritableReason(file: string): string | undefined {
  try {
    ensureParentDirectories(file);
    const target = resolveWriteTarget(file);
    const probe = temporaryBeside(target.path);
    closeSync(openSync(probe, 'wx', 0o600));
    unlinkSync(probe);
    return undefined;
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    if (e.code === 'EDANGLING' || e.code === 'ENOTREG') return e.message;
    return e.code !== undefined
      ? `${e.code}${e.path !== undefined ? ` (${e.path})` : ''}`
      : e.message;
  }
}
