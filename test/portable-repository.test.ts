// The repository works wherever it is cloned and speaks to its users: no tracked file holds an absolute path of a
// development machine (a home or work folder, a temp folder written into a fixture), and no tracked file cites the
// project's internal work items ("issue 29"), which no user can look up. Each finding names the file and line.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './fixtures/cli.js';

/** Absolute paths that only exist on somebody's machine: home, work and temp folders (POSIX, macOS, Windows). */
export const MACHINE_PATH =
  /(?<![\w.~%-])(?:\/(?:work|home|root|Users|tmp|mnt|var\/folders|private\/var)\/|[A-Za-z]:\\+(?:Users|Documents and Settings)\\)/;
/** A citation of an internal work item: "issue 29", "Issue 15 point 3", "issues 25-28". */
export const WORK_ITEM = /\bissues? #?\d+/i;

/**
 * Files exempt from the scan: ignore files (their lines are patterns relative to the repository, not paths on a
 * machine) and this file, whose examples below show what the patterns find.
 */
const EXEMPT = new Set(['.gitignore', '.prettierignore', 'test/portable-repository.test.ts']);

function trackedTextFiles(): Array<{ file: string; lines: string[] }> {
  const listed = spawnSync('git', ['ls-files', '-z'], { cwd: REPO_ROOT, encoding: 'utf8' });
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
  return listed.stdout
    .split('\0')
    .filter((file) => file !== '' && !EXEMPT.has(file))
    .flatMap((file) => {
      let bytes: Buffer;
      try {
        bytes = readFileSync(join(REPO_ROOT, file));
      } catch {
        return []; // listed but deleted in the work tree
      }
      if (bytes.includes(0)) return []; // binary
      return [{ file, lines: bytes.toString('utf8').split('\n') }];
    });
}

/** `file:line: text` for each line that matches. */
export function findLines(
  files: ReadonlyArray<{ file: string; lines: readonly string[] }>,
  pattern: RegExp,
): string[] {
  return files.flatMap(({ file, lines }) =>
    lines.flatMap((line, i) =>
      pattern.test(line) ? [`${file}:${i + 1}: ${line.trim().slice(0, 160)}`] : [],
    ),
  );
}

describe('a clone anywhere', () => {
  const files = trackedTextFiles();

  it('reads every tracked text file (the scan sees the repository)', () => {
    expect(files.map((f) => f.file)).toEqual(
      expect.arrayContaining(['README.md', 'package.json', '.ci/run']),
    );
  });

  it('no tracked file holds an absolute path of a development machine', () => {
    expect(findLines(files, MACHINE_PATH)).toEqual([]);
  });

  it('no tracked file cites an internal work item', () => {
    expect(findLines(files, WORK_ITEM)).toEqual([]);
  });
});

describe('the patterns themselves', () => {
  it.each([
    'cat /work/shared/spec/payments-service.md',
    'cd /home/dev/payconform',
    '`unix:///tmp/x/redis.sock`',
    '"/Users/ana/keys/client.pem"',
    'C:\\Users\\ana\\client.pem',
    '/var/folders/xy/T/payconform-1',
  ])('finds a machine path in %s', (line) => expect(MACHINE_PATH.test(line)).toBe(true));

  it.each([
    '/usr/bin/redis-server',
    'https://example.com/home/index.html',
    './tmp/out.json',
    '~/keys/client.pem',
    'join(tmpdir(), "payconform-")',
    '/api/payouts/{id}/commit',
  ])('finds none in %s', (line) => expect(MACHINE_PATH.test(line)).toBe(false));

  it.each(['(issue 29)', "issue 29's 10 not met", 'Issue 15 point 3', 'issues 25-28'])(
    'finds a work item in %s',
    (line) => expect(WORK_ITEM.test(line)).toBe(true),
  );

  it.each(['an issue with the key', 'tissue 5', 'issuer 3'])('finds none in %s', (line) =>
    expect(WORK_ITEM.test(line)).toBe(false),
  );
});
