// The two tiers of the suite (README, "The two commands"): the quick tier's list names existing test files, and its
// guard is in force (this file runs in the quick tier, so listening or spawning here must throw).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { OWN_WORKER, PROCESS_WIDE_CALLS } from './tiers/own-worker.js';
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

describe('the files with a worker of their own (test/tiers/own-worker.ts)', () => {
  const testFiles = readdirSync('test')
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => `test/${name}`);
  /** The process-wide calls in `text`, ignoring this guard's own mention of them. */
  const callsIn = (text: string): string[] =>
    PROCESS_WIDE_CALLS.filter((pattern) => pattern.test(text)).map(String);

  it('are existing end-to-end test files, each once', () => {
    for (const file of OWN_WORKER) {
      expect(testFiles).toContain(file);
      expect(QUICK_TIER).not.toContain(file);
    }
    expect(new Set(OWN_WORKER).size).toBe(OWN_WORKER.length);
  });

  it('hold every test file that changes process-wide state, since the others share their worker', () => {
    const sharing = testFiles.filter(
      (file) => !OWN_WORKER.includes(file) && file !== 'test/tiers.test.ts',
    );
    const changing = sharing.filter((file) => callsIn(readFileSync(file, 'utf8')).length > 0);
    expect(changing).toEqual([]);
    // The guard sees what it looks for: each listed file makes such a call.
    for (const file of OWN_WORKER)
      expect(callsIn(readFileSync(file, 'utf8')), file).not.toEqual([]);
  });
});
