// `npm run vectors`: regenerates every vector file (and the vector schema) and the payload vectors deterministically.
// Never edit the outputs by hand; test/vectors-drift.test.ts and test/payload-vectors.test.ts fail when a committed
// file differs from what this writes.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildVectorFiles } from './build/index.js';
import { writePayloadVectors } from './payloads/generate.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const files = await buildVectorFiles();
for (const [path, text] of files) {
  await mkdir(dirname(join(root, path)), { recursive: true });
  await writeFile(join(root, path), text);
}
process.stdout.write(`wrote ${files.size} files: ${[...files.keys()].join(', ')}\n`);
const payloadCases = writePayloadVectors();
process.stdout.write(`wrote the payload vectors: ${payloadCases} cases in vectors/payloads/\n`);
