// `npm run release:pin [-- --release DIR] [--version V]`: the release step that pins each executable's SHA-256 in the
// Action's own files (action/checksums.txt), committed with the Action at the release's tag, so that
// action/install.sh checks a download against what was pinned there and never against a file served beside it.
// Run after `npm run build:binary` has written every machine's executable into DIR (default release/); the digest is
// computed from each executable's bytes (its `.sha256` is not read), and each must carry build:binary's version
// marker for V (default package.json's). A pinned line never changes: the same digest again is a no-op, another
// digest for a pinned name is refused.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { writeFileAtomic } from '../net/file-write.js';
import { versionMarker } from './build-binary.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The Action's pinned checksums, relative to the Action's root: the one file install.sh reads them from. */
export const CHECKSUMS_FILE = 'action/checksums.txt';

/** A released executable's file name: payconform-<version>-<os>-<arch> (install.sh builds the same name). */
const ASSET = /^payconform-(\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?)-(linux|darwin)-(x64|arm64)$/;
/** One pinned line, as `sha256sum` writes it; install.sh matches the same shape. */
const PIN_LINE = /^([0-9a-f]{64}) {2}(\S+)$/;

/**
 * The pins of a checksums file's text, by file name. Lines starting with `#` and blank lines are notes; any other
 * line must be a pin for a release asset name, each name once (install.sh refuses a file that breaks this too).
 */
export function parsePins(text: string): Map<string, string> {
  const pins = new Map<string, string>();
  for (const [n, line] of text.split('\n').entries()) {
    if (line === '' || line.startsWith('#')) continue;
    const m = PIN_LINE.exec(line);
    if (m === null || !ASSET.test(m[2]!))
      throw new Error(
        `${CHECKSUMS_FILE} line ${n + 1}: not "<sha256>  payconform-<version>-<os>-<arch>"`,
      );
    if (pins.has(m[2]!)) throw new Error(`${CHECKSUMS_FILE} line ${n + 1}: "${m[2]}" pinned twice`);
    pins.set(m[2]!, m[1]!);
  }
  return pins;
}

export interface PinResult {
  /** The names pinned by this run (already pinned with the same digest: not listed). */
  readonly added: readonly string[];
  readonly file: string;
}

/** Pins every executable of `version` in `releaseDir` into `actionRoot`'s checksums file. */
export function pinExecutables(options: {
  readonly releaseDir: string;
  readonly actionRoot: string;
  readonly version: string;
}): PinResult {
  const { releaseDir, actionRoot, version } = options;
  const names = readdirSync(releaseDir)
    .filter((name) => ASSET.exec(name)?.[1] === version)
    .sort();
  if (names.length === 0)
    throw new Error(`no payconform-${version}-<os>-<arch> executable in ${releaseDir}`);
  const file = join(actionRoot, CHECKSUMS_FILE);
  const text = readFileSync(file, 'utf8');
  const pins = parsePins(text);
  const marker = Buffer.from(versionMarker(version));
  const added: string[] = [];
  for (const name of names) {
    const bytes = readFileSync(join(releaseDir, name));
    if (!bytes.includes(marker))
      throw new Error(
        `${name}: no payconform ${version} version marker inside (not made by build:binary)`,
      );
    const digest = createHash('sha256').update(bytes).digest('hex');
    const pinned = pins.get(name);
    if (pinned === digest) continue;
    if (pinned !== undefined)
      throw new Error(`${name} is pinned as ${pinned}; a released executable never changes`);
    added.push(`${digest}  ${name}`);
  }
  if (added.length > 0)
    writeFileAtomic(
      file,
      `${text}${text === '' || text.endsWith('\n') ? '' : '\n'}${added.join('\n')}\n`,
    );
  return { added: added.map((line) => line.slice(66)), file };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({
    options: { release: { type: 'string' }, version: { type: 'string' } },
  });
  const version =
    values.version ??
    (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  try {
    const out = pinExecutables({
      releaseDir: resolve(values.release ?? join(ROOT, 'release')),
      actionRoot: ROOT,
      version,
    });
    process.stdout.write(
      out.added.length === 0
        ? `${CHECKSUMS_FILE}: every ${version} executable was already pinned\n`
        : `${CHECKSUMS_FILE}: pinned ${out.added.join(', ')}; commit it with the release\n`,
    );
  } catch (error) {
    process.stderr.write(`release:pin: ${(error as Error).message}\n`);
    process.exitCode = 2;
  }
}
