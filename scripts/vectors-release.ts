// `npm run vectors:release [-- --out DIR]`: writes the vector set as a versioned, reproducible archive another
// language's CI can pin without Node: payconform-vectors-<version>.tar.gz (cases, keys, payload cases, schemas, the
// harness protocol schemas, the Python adapter and its library, the Python and Go starter adapters, the starter
// state hook with its contract and page, the SDK adapter protocol's schemas and the Python and Go SDK adapters,
// run-vectors.py and SHA256SUMS inside) and SHA256SUMS beside it.
// The tar is written here (POSIX ustar, no dependency) and gzipped with node:zlib; every mtime is the release date.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { STARTER_FILES } from '../cli/package-files.js';
import { currentRelease, fingerprintOf } from '../vectors/build/releases.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const VECTORS = join(ROOT, 'vectors');

/** The starter adapters an implementer copies (vectors/README.md, "Start here"), as paths under vectors/: the same
 * files `payconform vectors starter` prints (cli/package-files.ts). */
export const STARTERS = Object.values(STARTER_FILES).map((path) => relative('vectors', path));

export interface ArchiveEntry {
  /** Path inside the archive (without the top folder). */
  readonly path: string;
  readonly bytes: Buffer;
  readonly executable?: boolean;
}

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

/** One 512-byte ustar header; a path over 100 bytes is split at a "/" into prefix and name. */
function tarHeader(
  path: string,
  size: number,
  mode: number,
  mtime: number,
  type: '0' | '5',
): Buffer {
  const header = Buffer.alloc(512);
  let name = path;
  let prefix = '';
  if (Buffer.byteLength(path) > 100) {
    const cut = path.lastIndexOf('/', 155);
    if (cut <= 0 || Buffer.byteLength(path.slice(cut + 1)) > 100)
      throw new Error(`path too long for ustar: ${path}`);
    prefix = path.slice(0, cut);
    name = path.slice(cut + 1);
  }
  header.write(name, 0, 100, 'utf8');
  header.write(octal(mode, 8), 100, 'ascii');
  header.write(octal(0, 8), 108, 'ascii'); // uid
  header.write(octal(0, 8), 116, 'ascii'); // gid
  header.write(octal(size, 12), 124, 'ascii');
  header.write(octal(mtime, 12), 136, 'ascii');
  header.write('        ', 148, 'ascii'); // checksum field counts as spaces while summing
  header.write(type, 156, 'ascii');
  header.write('ustar\0', 257, 'ascii');
  header.write('00', 263, 'ascii');
  header.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return header;
}

/** A POSIX ustar archive of `entries` under `top/`, directories first, padded to whole 10240-byte records. */
export function tarArchive(top: string, entries: readonly ArchiveEntry[], mtime: number): Buffer {
  const parts: Buffer[] = [];
  const dirs = new Set<string>([`${top}/`]);
  for (const e of entries) {
    const segments = e.path.split('/').slice(0, -1);
    for (let i = 1; i <= segments.length; i++)
      dirs.add(`${top}/${segments.slice(0, i).join('/')}/`);
  }
  for (const d of [...dirs].sort()) parts.push(tarHeader(d, 0, 0o755, mtime, '5'));
  for (const e of [...entries].sort((a, b) => (a.path < b.path ? -1 : 1))) {
    parts.push(
      tarHeader(`${top}/${e.path}`, e.bytes.length, e.executable ? 0o755 : 0o644, mtime, '0'),
    );
    parts.push(e.bytes, Buffer.alloc((512 - (e.bytes.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  const body = Buffer.concat(parts);
  return Buffer.concat([body, Buffer.alloc((10240 - (body.length % 10240)) % 10240)]);
}

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** `sha256sum` lines for the entries, sorted by path. */
export function sha256sums(entries: readonly ArchiveEntry[]): string {
  return [...entries]
    .sort((a, b) => (a.path < b.path ? -1 : 1))
    .map((e) => `${sha256(e.bytes)}  ${e.path}\n`)
    .join('');
}

/**
 * The SDK adapter protocol (docs/sdk-adapters.md): its four schemas (from schemas/, as sdk-adapter-protocol/) and the
 * Python and Go reference SDK adapters, for an SDK's CI that pins the archive.
 */
function sdkAdapterFiles(
  file: (path: string, executable?: boolean) => ArchiveEntry,
): ArchiveEntry[] {
  const schemas = join(VECTORS, '..', 'schemas');
  const protocol = readdirSync(schemas)
    .filter((n) => n.startsWith('sdk-adapter-') && n.endsWith('.schema.json'))
    .sort()
    .map((n) => ({ path: `sdk-adapter-protocol/${n}`, bytes: readFileSync(join(schemas, n)) }));
  return [
    ...protocol,
    file('adapters/python/sdk_adapter.py', true),
    file('adapters/go/sdk/adapter.go'),
  ];
}

/** Every file the release holds (without SHA256SUMS), read from vectors/. */
export function releaseEntries(): ArchiveEntry[] {
  const index = JSON.parse(readFileSync(join(VECTORS, 'index.json'), 'utf8')) as {
    readonly version: string;
    readonly sha256: Readonly<Record<string, string>>;
  };
  const release = currentRelease();
  if (index.version !== release.version || fingerprintOf(index.sha256) !== release.fingerprint)
    throw new Error(
      `vectors/index.json is not release ${release.version} (run npm run vectors; a changed file needs a new entry in vectors/build/releases.ts)`,
    );
  const file = (path: string, executable = false): ArchiveEntry => ({
    path,
    bytes: readFileSync(join(VECTORS, path)),
    ...(executable ? { executable } : {}),
  });
  const protocol = readdirSync(join(VECTORS, 'harness/protocol'))
    .filter((n) => n.endsWith('.json'))
    .map((n) => file(`harness/protocol/${n}`));
  const entries = [
    file('index.json'),
    ...Object.keys(index.sha256).map((p) => file(p)),
    file('README.md'),
    file('payloads/README.md'),
    ...protocol,
    file('adapters/python/adapter.py', true),
    file('adapters/python/payconform_profile.py'),
    ...sdkAdapterFiles(file),
    ...STARTERS.map((path) => file(path, path.endsWith('.py'))),
    // The state hook's starter, contract and page (docs/state-hook.md): an implementer's test environment needs them too.
    file('adapters/python/state_hook.py', true),
    {
      path: 'schemas/state-hook.schema.json',
      bytes: readFileSync(join(ROOT, 'schemas/state-hook.schema.json')),
    },
    { path: 'docs/state-hook.md', bytes: readFileSync(join(ROOT, 'docs/state-hook.md')) },
    { ...file('release/run-vectors.py', true), path: 'run-vectors.py' },
  ];
  const sum = (bytes: Buffer): string => sha256(bytes);
  for (const [path, hex] of Object.entries(index.sha256)) {
    const entry = entries.find((e) => e.path === path)!;
    if (sum(entry.bytes) !== hex)
      throw new Error(`${path} does not match its sha256 in index.json: run npm run vectors`);
  }
  return entries;
}

export interface ReleaseOutput {
  readonly version: string;
  readonly archive: string;
  readonly sums: string;
  readonly archiveSha256: string;
  readonly files: number;
}

/** Writes payconform-vectors-<version>.tar.gz and SHA256SUMS into `outDir`. Reproducible: same inputs, same bytes. */
export function writeVectorRelease(outDir: string): ReleaseOutput {
  const release = currentRelease();
  const entries = releaseEntries();
  const inner: ArchiveEntry = { path: 'SHA256SUMS', bytes: Buffer.from(sha256sums(entries)) };
  const top = `payconform-vectors-${release.version}`;
  const mtime = Math.floor(Date.parse(`${release.date}T00:00:00Z`) / 1000);
  const gz = gzipSync(tarArchive(top, [...entries, inner], mtime), { level: 9 });
  mkdirSync(outDir, { recursive: true });
  const archive = join(outDir, `${top}.tar.gz`);
  writeFileSync(archive, gz);
  const archiveSha256 = sha256(gz);
  const sums = join(outDir, 'SHA256SUMS');
  writeFileSync(sums, `${archiveSha256}  ${top}.tar.gz\n`);
  return { version: release.version, archive, sums, archiveSha256, files: entries.length + 1 };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const i = process.argv.indexOf('--out');
  const out = resolve(i > 0 && process.argv[i + 1] ? process.argv[i + 1]! : join(ROOT, 'release'));
  const r = writeVectorRelease(out);
  process.stdout.write(
    `vectors ${r.version}: ${r.archive} (${r.files} files)\n${r.archiveSha256}  ${r.archive.split('/').pop()}\nchecksums: ${r.sums}\n`,
  );
}
