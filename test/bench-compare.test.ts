// `npm run bench:compare -- REF` (docs/performance.md, "Before a change to the verification path"): bad usage and a
// REF that is not a commit end with exit 2 and a message, before any worktree or benchmark starts. Spawned: the
// script's exit code is the point. A whole comparison is a benchmark, never a timed test.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './fixtures/cli.js';

function compare(args: readonly string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'bench/compare.ts', ...args], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('bench:compare refuses what it cannot run (exit 2, nothing on stdout)', () => {
  it.each([
    [[], 'REF is missing'],
    [['--rounds', '3'], 'REF is missing'],
    [['HEAD', '--rounds', '0'], '--rounds must be at least 1'],
    [['HEAD', '--rounds', 'many'], '--rounds must be an integer'],
    [['HEAD', '--suite-files', '99'], '--suite-files must be an integer from 0 to 40'],
    [['HEAD', '--bogus'], "Unknown option '--bogus'"],
    [['no-such-ref-7c2d'], 'cannot build "no-such-ref-7c2d"'],
  ])('%j: %s', (args, message) => {
    const r = compare(args);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stdout).toBe('');
  });
});
