// The files of the package a command reads (the vector set, the starter adapters): from the package's folder when
// payconform runs from its sources or dist/, from the assets embedded in the single executable when it runs there
// (net/embedded.ts; scripts/build-binary.ts embeds the vector set index.json lists and STARTER_FILES).
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { embeddedAsset, isEmbedded } from '../net/embedded.js';

/** Reads one file of a vector set or package folder as text; throws with a readable message when it is missing. */
export type TextReader = (path: string) => Promise<string>;

/** The starter adapters (vectors/README.md), by the language `payconform vectors starter` takes. */
export const STARTER_FILES: Readonly<Record<string, string>> = {
  python: 'vectors/adapters/python/starter.py',
  go: 'vectors/adapters/go/starter.go',
};

/** The folder of the shipped vector set as the executable's asset names start (vectors/index.json, ...). */
const EMBEDDED_VECTORS = 'vectors';

/** The package's root folder: cli/ from sources, dist/cli/ once built. */
const here = dirname(fileURLToPath(import.meta.url));
const packageRoot = resolve(here, import.meta.url.endsWith('.ts') ? '..' : '../..');
/** The shipped vector JSON: vectors/ from sources, dist/vectors/ once built (scripts/copy-assets.mjs). */
const vectorsFolder = resolve(here, '../vectors');

const fromDisk: TextReader = (path) => readFile(path, 'utf8');

const fromAssets: TextReader = async (path) => {
  const text = embeddedAsset(path);
  if (text === undefined) throw new Error(`${path} is not embedded in this executable`);
  return text;
};

/** Where the shipped vector set is and how to read it. */
export function shippedVectors(): { readonly dir: string; readonly read: TextReader } {
  return isEmbedded()
    ? { dir: EMBEDDED_VECTORS, read: fromAssets }
    : { dir: vectorsFolder, read: fromDisk };
}

/** The source of a starter adapter (a key of STARTER_FILES). */
export function starterSource(language: string): Promise<string> {
  const file = STARTER_FILES[language];
  if (file === undefined) return Promise.reject(new Error(`no starter for "${language}"`));
  return isEmbedded() ? fromAssets(file) : fromDisk(join(packageRoot, file));
}
