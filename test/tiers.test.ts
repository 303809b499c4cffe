// The two tiers of the suite (README, "The two commands"): the quick tier's list names existing test files, and its
// guard is in force (this file runs in the quick tier, so listening or spawning here must throw).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { QUICK_TIER } from './tiers/quick-tier.js';

describe('the quick tier (npm run test:quick)', () => {
  it('lists existing test files of test/, each once, this file among them', () => {
    const files = readdirSync('test').map((name) => `test/${name}`);
    for (const file of QUICK_TIER) {
      expect(file).toMatch(/^test\/[^/]+\.test\.ts$/);
      expect(existsSync(file), file).toBe(true);
      expect(files).toContain(file);
    }
    expect(new Set(QUICK_TIER).size).toBe(QUICK_TIER.length);
    expect(QUICK_TIER).toContain('test/tiers.test.ts');
  });

  it('refuses a listening socket and a child process, naming the tier list', () => {
    expect(() => createServer().listen(0, '127.0.0.1')).toThrow(/quick tier.*QUICK_TIER/);
    expect(() => spawnSync(process.execPath, ['-e', ''])).toThrow(/quick tier.*QUICK_TIER/);
  });
});
