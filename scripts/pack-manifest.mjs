// `prepack` / `postpack`: the packed package.json carries no `prepare` script. In the repository `prepare` builds dist/
// on `npm ci` (so `npm ci && npm start` works in a fresh clone); in the tarball it would only make npm 11 warn about an
// unapproved build script on install, since dist/ ships built. `strip` saves the manifest and removes the script
// before npm packs; `restore` puts the saved manifest back after (also run by hand if a pack was interrupted).
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const manifest = join(root, 'package.json');
const saved = join(root, 'package.json.prepack');

const mode = process.argv[2];
if (mode === 'strip') {
  const text = readFileSync(manifest, 'utf8');
  if (!existsSync(saved)) writeFileSync(saved, text);
  const pkg = JSON.parse(text);
  delete pkg.scripts?.prepare;
  writeFileSync(manifest, `${JSON.stringify(pkg, null, 2)}\n`);
} else if (mode === 'restore') {
  if (existsSync(saved)) renameSync(saved, manifest);
} else {
  process.stderr.write('usage: node scripts/pack-manifest.mjs strip|restore\n');
  process.exitCode = 2;
}
