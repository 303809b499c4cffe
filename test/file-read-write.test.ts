// The one reader and the one writer (net/file-read.ts, net/file-write.ts): a FIFO, /dev/zero,
// a directory and a file over its limit are refused at once (never a hang, never read to the end of memory), a
// byte-order mark is accepted; a write keeps the mode of the file it replaces, makes a sensitive new file 0600, writes
// through a link to a regular file but never follows a dangling one, refuses a device; and a writer killed at any
// moment of a write leaves the earlier file whole (a child process killed with SIGKILL: the kill is the point).
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  FILE_SIZE_LIMITS,
  MAX_JSON_DEPTH,
  parseJsonFile,
  readRegularFile,
  textOf,
} from '../net/file-read.js';
import { main } from '../cli/main.js';
import { memoryIo } from './fixtures/memory-io.js';
import { unwritableReason, writeFileAtomic } from '../net/file-write.js';
import { CLI_ARGS } from './fixtures/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'payconform-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The reader's error code for `path`, or 'read' when it read. */
function readCode(path: string, kind: keyof typeof FILE_SIZE_LIMITS = 'baseline'): string {
  try {
    readRegularFile(path, kind);
    return 'read';
  } catch (error) {
    return (error as { code: string }).code;
  }
}

describe('the one reader: regular files only, bounded, a byte-order mark accepted', () => {
  it('refuses a FIFO with no writer at once (no hang), /dev/zero, a directory', () => {
    const fifo = join(dir, 'fifo');
    const made = spawnSync('mkfifo', [fifo]);
    expect(made.status, String(made.stderr)).toBe(0);
    const started = Date.now();
    expect(readCode(fifo)).toBe('NOT_REGULAR');
    expect(readCode('/dev/zero')).toBe('NOT_REGULAR');
    expect(readCode(dir)).toBe('NOT_REGULAR');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(readCode(join(dir, 'missing.json'))).toBe('ENOENT');
  });

  it('refuses a file over its limit before reading it; reads one at the limit', () => {
    const key = join(dir, 'big.pem');
    writeFileSync(key, Buffer.alloc(FILE_SIZE_LIMITS.key + 1, 'k'));
    expect(readCode(key, 'key')).toBe('TOO_LARGE');
    writeFileSync(key, Buffer.alloc(FILE_SIZE_LIMITS.key, 'k'));
    expect(readCode(key, 'key')).toBe('read');
  });

  it('drops a UTF-8 byte-order mark, and only a leading one', () => {
    expect(textOf(Buffer.from('\uFEFF{"a":1}', 'utf8'))).toBe('{"a":1}');
    expect(textOf(Buffer.from('{"a":"\uFEFF"}', 'utf8'))).toBe('{"a":"\uFEFF"}');
  });
});

describe('the one writer: atomic, the mode kept, links never followed to create a file', () => {
  it("keeps an existing file's mode; a new sensitive file is 0600", () => {
    const kept = join(dir, 'kept.json');
    writeFileSync(kept, 'old');
    chmodSync(kept, 0o640);
    writeFileAtomic(kept, 'new');
    expect(readFileSync(kept, 'utf8')).toBe('new');
    expect(statSync(kept).mode & 0o777).toBe(0o640);
    const secret = join(dir, 'new.har');
    writeFileAtomic(secret, '{}', { sensitive: true });
    expect(statSync(secret).mode & 0o777).toBe(0o600);
    // No temporary file is left beside them.
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('writes through a link to a regular file (the link stays a link); refuses a dangling link and a device', () => {
    const real = join(dir, 'real.json');
    const link = join(dir, 'link.json');
    writeFileSync(real, 'old');
    symlinkSync(real, link);
    writeFileAtomic(link, 'through');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, 'utf8')).toBe('through');

    const dangling = join(dir, 'dangling.json');
    const nowhere = join(dir, 'sub', 'created-by-following.json');
    symlinkSync(nowhere, dangling);
    expect(unwritableReason(dangling)).toMatch(/symbolic link to a file that does not exist/);
    expect(() => writeFileAtomic(dangling, 'x')).toThrow(/not followed/);
    expect(() => statSync(nowhere)).toThrow();

    expect(unwritableReason('/dev/full')).toBe('not a regular file');
    expect(() => writeFileAtomic('/dev/full', 'x')).toThrow(/not a regular file/);
  });

  it('a writer killed at any moment of a write leaves the earlier file whole', async () => {
    const file = join(dir, 'killed.json');
    const size = 4 * 1024 * 1024;
    writeFileSync(file, Buffer.alloc(size, 'a'));
    const writer = fileURLToPath(new URL('./fixtures/atomic-writer.ts', import.meta.url));
    // Kills land at different moments of the writes: after the first write, then a little later each time.
    for (const delayMs of [0, 7, 23, 61]) {
      await new Promise<void>((resolve, reject) => {
        const child = spawn(
          process.execPath,
          [...CLI_ARGS.slice(0, 2), writer, file, String(size), '200'],
          {
            stdio: ['ignore', 'pipe', 'inherit'],
          },
        );
        const guard = setTimeout(() => child.kill('SIGKILL'), 30_000);
        let killing = false;
        child.stdout.on('data', () => {
          if (killing) return;
          killing = true;
          setTimeout(() => child.kill('SIGKILL'), delayMs);
        });
        child.on('error', reject);
        child.on('close', () => {
          clearTimeout(guard);
          resolve();
        });
      });
      const bytes = readFileSync(file);
      expect(bytes.length, `killed ${delayMs} ms after a write`).toBe(size);
      const first = bytes[0]!;
      expect([0x61, 0x62]).toContain(first);
      expect(bytes.every((b) => b === first)).toBe(true);
    }
  }, 120_000);
});

describe('names', () => {
  it('a file name of 250 characters is written (its temporary name stays under 255)', () => {
    const long = join(dir, `${'n'.repeat(245)}.json`);
    writeFileAtomic(long, 'x');
    expect(readFileSync(long, 'utf8')).toBe('x');
  });
});

describe('parent folders', () => {
  it('are created one level at a time', () => {
    const deep = join(dir, 'a', 'b', 'c.json');
    writeFileAtomic(deep, 'x');
    expect(readFileSync(deep, 'utf8')).toBe('x');
    mkdirSync(join(dir, 'd'));
    expect(unwritableReason(join(dir, 'd', 'e.json'))).toBeUndefined();
    expect(() => statSync(join(dir, 'd', 'e.json'))).toThrow();
  });
});

describe('JSON read from a file: nesting bounded before it is parsed', () => {
  const nested = (n: number): string => `${'['.repeat(n)}1${']'.repeat(n)}`;

  it(`refuses more than ${MAX_JSON_DEPTH} levels, naming where; brackets inside strings do not count`, () => {
    expect(parseJsonFile(nested(MAX_JSON_DEPTH))).toBeDefined();
    expect(() => parseJsonFile(nested(MAX_JSON_DEPTH + 1))).toThrow(
      `nested deeper than ${MAX_JSON_DEPTH} levels (at offset ${MAX_JSON_DEPTH})`,
    );
    expect(parseJsonFile(JSON.stringify({ s: `\\"${'['.repeat(1000)}` }))).toEqual({
      s: `\\"${'['.repeat(1000)}`,
    });
    expect(() => parseJsonFile('{"a": ')).toThrow(/^not JSON: /);
  });

  it('a 100,000-deep member of a baseline is refused before the run (exit 2), never after it', async () => {
    const file = join(dir, 'deep-baseline.json');
    writeFileSync(file, `{"baselineVersion":"1","entries":[],"x":${nested(100_000)}}`);
    const io = memoryIo();
    const code = await main(
      [
        'audit',
        'server',
        '--only',
        'payout-signed-accepted',
        '--no-explore',
        '--baseline',
        file,
        '--baseline-update',
      ],
      io,
    );
    expect(code).toBe(2);
    expect(io.err.join('')).toContain(`nested deeper than ${MAX_JSON_DEPTH} levels`);
    expect(io.out.join('')).not.toContain('payout-signed-accepted');
  });
});
