// `payconform vectors starter LANGUAGE` in-process: it prints the shipped starter adapters byte for byte (the same
// files the release archive carries: scripts/vectors-release.ts takes its list from cli/package-files.ts) and refuses
// anything else as a usage error. The executable's copy of the same command: test/executable.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { main } from '../cli/main.js';
import { STARTER_FILES } from '../cli/package-files.js';
import { STARTERS } from '../scripts/vectors-release.js';
import { memoryIo } from './fixtures/memory-io.js';

const root = fileURLToPath(new URL('..', import.meta.url));

describe('payconform vectors starter', () => {
  it.each(Object.entries(STARTER_FILES))('%s prints %s exactly', async (language, file) => {
    const io = memoryIo();
    expect(await main(['vectors', 'starter', language], io)).toBe(0);
    expect(io.out.join('')).toBe(readFileSync(join(root, file), 'utf8'));
  });

  it.each([[[]], [['rust']], [['python', 'go']]])(
    'refuses %j as a usage error naming the languages',
    async (args) => {
      const io = memoryIo();
      expect(await main(['vectors', 'starter', ...args], io)).toBe(2);
      expect(io.err.join('')).toMatch(/give one language: python or go/);
      expect(io.out.join('')).toBe('');
    },
  );

  it('the release archive carries the same starters (one list)', () => {
    expect(STARTERS.map((p) => `vectors/${p}`)).toEqual(Object.values(STARTER_FILES));
  });
});
