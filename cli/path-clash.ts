// Inputs are never outputs: before an audit runs, every file it will write (reports, HAR, attestation, the updated
// baseline) is compared with every file it reads (config, baseline, keys, CA) and with each other by what they resolve
// to (device and inode for a file that exists; the real path of its folder and its name for one that does not), so
// `--report json:b.json --baseline b.json`, a symbolic link to the config, or `./r.json` beside `r.json` is a usage
// error naming both, never a user's file silently replaced.
import { realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

/** A file named on the command line: how the user gave it (`--config a.json`) and its path. */
export interface NamedPath {
  readonly given: string;
  readonly path: string;
}

/** Directory levels walked up to the nearest folder that exists. */
const MAX_DEPTH = 64;

/**
 * What `path` resolves to: `dev:ino` of the file when it exists (through any link), else the real path of its nearest
 * existing folder joined with the rest.
 */
export function fileIdentity(path: string): string {
  try {
    const info = statSync(path);
    return `inode ${info.dev}:${info.ino}`;
  } catch {
    // does not exist (or cannot be seen): name it by where it would be created
  }
  const rest: string[] = [basename(resolve(path))];
  let dir = dirname(resolve(path));
  for (let depth = 0; depth < MAX_DEPTH; depth++) {
    try {
      return `path ${join(realpathSync(dir), ...rest)}`;
    } catch {
      rest.unshift(basename(dir));
      const up = dirname(dir);
      if (up === dir) break;
      dir = up;
    }
  }
  return `path ${resolve(path)}`;
}

/**
 * The first clash among `outputs` (each against every input and every earlier output), as a message naming both; an
 * output that is also given as an input by the same flag (the baseline `--baseline-update` rewrites) is not one.
 * `-` (standard input or output) is never a file.
 */
export function pathClash(
  inputs: readonly NamedPath[],
  outputs: readonly NamedPath[],
): string | undefined {
  const seen: Array<NamedPath & { readonly id: string }> = inputs
    .filter((p) => p.path !== '-')
    .map((p) => ({ ...p, id: fileIdentity(p.path) }));
  for (const out of outputs) {
    if (out.path === '-') continue;
    const id = fileIdentity(out.path);
    const other = seen.find((s) => s.id === id && s.given !== out.given);
    if (other !== undefined)
      return `${out.given} would overwrite ${other.given}: both are the same file; an output must not replace an input or another output`;
    seen.push({ ...out, id });
  }
  return undefined;
}
