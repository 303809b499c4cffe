// `npm run vectors`: regenerates every vector file (and the vector schema) deterministically. Never edit the
// outputs by hand; test/vectors-drift.test.ts fails when a committed file differs from what this writes.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildVectorFiles } from './build/index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const files = await buildVectorFiles();
for (const [path, text] of files) {
  await mkdir(dirname(join(root, path)), { recursive: true });
  await writeFile(join(root, path), text);
}
process.stdout.write(`wrote ${files.size} files: ${[...files.keys()].join(', ')}\n`);
