// The vector files are generated, never hand-edited: regenerating in memory must give the committed bytes.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildVectorFiles } from '../vectors/build/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Every .json under vectors/, except the folders other owners keep there (payloads/), adapters and the harness (its protocol schemas). */
function committedVectorJson(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) {
        if (!['payloads', 'adapters', 'harness', 'node_modules'].includes(name)) walk(path);
      } else if (name.endsWith('.json')) out.push(relative(root, path).split('\\').join('/'));
    }
  };
  walk(join(root, 'vectors'));
  return out.sort();
}

describe('vectors drift (npm run vectors regenerates every file deterministically)', async () => {
  const generated = await buildVectorFiles();

  it.each([...generated.keys()])('%s is exactly what the generator writes', (path) => {
    const committed = readFileSync(join(root, path), 'utf8');
    // On failure: run `npm run vectors`, review the diff, commit it (never edit the JSON by hand).
    expect(
      committed === generated.get(path),
      `${path} differs from the generator's output: run npm run vectors`,
    ).toBe(true);
  });

  it('no stale vector file lies around that the generator no longer writes', () => {
    const written = [...generated.keys()].filter((p) => p.startsWith('vectors/')).sort();
    expect(committedVectorJson()).toEqual(written);
  });

  it('a second generation in the same process is byte-identical (no clock, no randomness)', async () => {
    const again = await buildVectorFiles();
    for (const [path, text] of generated) expect(again.get(path) === text, path).toBe(true);
  });

  it('the drift check can fail: a one-character edit is detected', () => {
    const path = 'vectors/request-signing.json';
    const edited = readFileSync(join(root, path), 'utf8').replace('"valid"', '"invalid"');
    expect(edited === generated.get(path)).toBe(false);
  });
});
