// `npm run build:binary [-- --out DIR]`: payconform as one executable for this machine, with no Node needed where it
// runs (Node's single-executable applications, on Node 20: docs/install.md). Steps:
//   1. esbuild bundles cli/executable.ts into one CommonJS file (Node 20 injects CommonJS only), and the verify pool's
//      worker into another (a worker thread cannot load a file the executable does not have: net/embedded.ts);
//   2. `node --experimental-sea-config` turns the bundle and the assets (the vector set, the starter adapters, the
//      worker) into a blob;
//   3. postject injects the blob into a copy of this `node`;
//   4. DIR/payconform-<version>-<os>-<arch> and its `.sha256` (the `sha256sum` line) are written.
// Each bundle opens with a version marker (versionMarker) by which the wheel's builder knows the executable.
// Schemas, the requirements catalogue and package.json's version are inlined by the bundler (JSON imports, a define).
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { build, type BuildOptions } from 'esbuild';
import { STARTER_FILES } from '../cli/package-files.js';
import { EMBEDDED_WORKER_ASSET } from '../net/verify-pool/pool.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The fuse Node's single-executable support looks for (Node's documentation, "Single executable applications"). */
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

/**
 * The line every bundle opens with: scripts/build-wheel.py finds it in the executable's bytes (running nothing) and
 * refuses a file without it, or with another version's.
 */
export function versionMarker(version: string): string {
  return `// payconform-executable-version: ${version}\n`;
}

/** The file name of the executable for this version and machine. */
export function executableName(version: string): string {
  return `payconform-${version}-${process.platform}-${process.arch}`;
}

/** The vector set's files as the executable names its assets: index.json, the keys and every file it lists. */
function vectorAssets(): string[] {
  const index = JSON.parse(readFileSync(join(ROOT, 'vectors', 'index.json'), 'utf8')) as {
    readonly keys: string;
    readonly files: ReadonlyArray<{ readonly path: string }>;
  };
  return ['index.json', index.keys, ...index.files.map((f) => f.path)].map((p) => `vectors/${p}`);
}

/** The two entry points the executable bundles: the CLI, and the verification pool's worker (an embedded asset). */
export const BUNDLED_ENTRIES = {
  main: 'cli/executable.ts',
  worker: 'net/verify-pool/worker.ts',
} as const;

/**
 * How an entry is bundled into one CommonJS file (import.meta.url becomes the running file's URL): the options the
 * build uses, and what test/fixtures/executable.ts reads the bundle's inputs with.
 */
export function bundleOptions(version: string): BuildOptions {
  return {
    absWorkingDir: ROOT,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    logLevel: 'error',
    banner: {
      js: `${versionMarker(version)}var __payconform_import_meta_url = require("node:url").pathToFileURL(__filename).href;`,
    },
    define: {
      'import.meta.url': '__payconform_import_meta_url',
      PAYCONFORM_BUNDLED_VERSION: JSON.stringify(version),
    },
  };
}

/** Bundles one entry into one CommonJS file. */
async function bundle(entry: string, outfile: string, version: string): Promise<void> {
  await build({ ...bundleOptions(version), entryPoints: [join(ROOT, entry)], outfile });
}

export interface BinaryOutput {
  readonly executable: string;
  readonly sha256: string;
  readonly bytes: number;
}

/** Builds the executable into `outDir` (a work folder beside it is removed at the end). */
export async function buildBinary(outDir: string): Promise<BinaryOutput> {
  const version = (
    JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }
  ).version;
  const work = join(outDir, `.build-${process.pid}`);
  mkdirSync(work, { recursive: true });
  try {
    const main = join(work, 'payconform.cjs');
    const worker = join(work, 'worker.cjs');
    await bundle(BUNDLED_ENTRIES.main, main, version);
    await bundle(BUNDLED_ENTRIES.worker, worker, version);
    const assets: Record<string, string> = { [EMBEDDED_WORKER_ASSET]: worker };
    for (const name of [...vectorAssets(), ...Object.values(STARTER_FILES)])
      assets[name] = join(ROOT, name);
    const blob = join(work, 'sea.blob');
    const config = join(work, 'sea-config.json');
    writeFileSync(
      config,
      JSON.stringify({
        main,
        output: blob,
        disableExperimentalSEAWarning: true,
        useCodeCache: true,
        assets,
      }),
    );
    execFileSync(process.execPath, ['--experimental-sea-config', config], { stdio: 'pipe' });
    const executable = join(outDir, executableName(version));
    rmSync(executable, { force: true });
    copyFileSync(process.execPath, executable);
    chmodSync(executable, 0o755);
    await inject(executable, readFileSync(blob));
    const bytes = readFileSync(executable);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    writeFileSync(`${executable}.sha256`, `${sha256}  ${basename(executable)}\n`);
    return { executable, sha256, bytes: bytes.length };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** postject's inject (a CommonJS package) of the blob under Node's resource name. */
async function inject(executable: string, blob: Buffer): Promise<void> {
  const postject = createRequire(import.meta.url)('postject') as {
    inject(
      file: string,
      name: string,
      data: Buffer,
      options: { sentinelFuse: string },
    ): Promise<void>;
  };
  // postject's ELF writer (LIEF, as WebAssembly) warns through console.warn about the string offsets of section names
  // it does not rewrite; the executable runs (test/executable.test.ts runs it). Those are counted in one line that says
  // so; any other warning is printed as it came.
  const warned: string[] = [];
  const warn = console.warn;
  console.warn = (...args: unknown[]) => warned.push(args.map(String).join(' '));
  try {
    await postject.inject(executable, 'NODE_SEA_BLOB', blob, { sentinelFuse: SEA_FUSE });
  } finally {
    console.warn = warn;
  }
  const known = warned.filter((w) => KNOWN_POSTJECT_WARNING.test(w));
  for (const w of warned.filter((w) => !KNOWN_POSTJECT_WARNING.test(w))) warn(w);
  if (known.length > 0)
    process.stderr.write(
      `postject: ${known.length} warning(s) that its ELF writer cannot find the string offset of a section name (the sections stay as node had them; the executable is run by the tests)\n`,
    );
}

/** The warning postject's ELF writer gives for each section name it leaves as it was. */
const KNOWN_POSTJECT_WARNING = /string offset for section name/i;

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { out: { type: 'string' } } });
  const out = await buildBinary(resolve(values.out ?? join(ROOT, 'release')));
  process.stdout.write(
    `${out.executable} (${(out.bytes / 1e6).toFixed(1)} MB)\nsha256 ${out.sha256}\n`,
  );
}
