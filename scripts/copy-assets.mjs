// Build step after `tsc -p tsconfig.build.json`: copies the JSON files the package ships into dist/, beside the compiled
// code, so dist/ mirrors the repository: dist/schemas/*.json, dist/vectors/**/*.json (and the vectors' READMEs), and
// dist/conformance/requirements.json. Code reads them at the same relative paths from sources and from dist/.
import { cpSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');

function copy(file) {
  const target = join(dist, relative(root, file));
  mkdirSync(dirname(target), { recursive: true });
  cpSync(file, target);
}

/** Directories of the repository's own tooling, not shipped: vectors/adapters/ (other libraries' adapters, the interop matrix). */
const SKIPPED = new Set([join(root, 'vectors', 'adapters')]);

function walk(dir, keep) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED.has(path)) walk(path, keep);
    } else if (keep(entry.name)) copy(path);
  }
}

walk(join(root, 'schemas'), (name) => name.endsWith('.json'));
walk(join(root, 'vectors'), (name) => name.endsWith('.json') || name === 'README.md');
copy(join(root, 'conformance', 'requirements.json'));
