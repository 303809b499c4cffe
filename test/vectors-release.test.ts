// The vector set as a release: index.json carries the set's semver and a SHA-256 per file, a changed file without a new
// version fails here, and `npm run vectors:release` writes a reproducible tar.gz with SHA256SUMS that a CI with no
// Node checks and runs (sha256sum, tar and python3 only on PATH). Budget: about 10 s (two archives, three runs).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { currentRelease, fingerprintOf, VECTOR_RELEASES } from '../vectors/build/releases.js';
import { writeVectorRelease } from '../scripts/vectors-release.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'payconform-release-'));
const index = JSON.parse(readFileSync(join(root, 'vectors/index.json'), 'utf8')) as {
  version: string;
  totalCases: number;
  sha256: Record<string, string>;
  files: { path: string }[];
  payloads: { path: string }[];
};
const sha256 = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');

describe('the vector set has its own version, pinned by a fingerprint of every file', () => {
  it('index.json carries the newest release version (semver)', () => {
    expect(index.version).toBe(currentRelease().version);
    expect(index.version).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('the sha256 map covers keys, every case file, every payload file and every schema, and matches the files', () => {
    const listed = Object.keys(index.sha256);
    for (const p of [
      'keys.json',
      ...index.files.map((f) => f.path),
      ...index.payloads.map((f) => f.path),
    ])
      expect(listed, p).toContain(p);
    expect(listed.filter((p) => p.startsWith('schemas/')).length).toBeGreaterThan(2);
    for (const [path, hex] of Object.entries(index.sha256))
      expect(sha256(readFileSync(join(root, 'vectors', path))), path).toBe(hex);
  });

  it('the files are exactly the newest release: a change without a new version in vectors/build/releases.ts fails', () => {
    const now = fingerprintOf(index.sha256);
    expect(
      now,
      `the vector files changed since release ${currentRelease().version}: add an entry to VECTOR_RELEASES in vectors/build/releases.ts with a new version (semver: major for changed verdicts or format, minor for added cases, patch otherwise) and fingerprint "${now}", then run npm run vectors`,
    ).toBe(currentRelease().fingerprint);
  });

  it('the check can fail: one changed byte in one case file gives another fingerprint', () => {
    const path = index.files[0]!.path;
    const edited = readFileSync(join(root, 'vectors', path), 'utf8').replace(
      '"valid"',
      '"invalid"',
    );
    expect(fingerprintOf({ ...index.sha256, [path]: sha256(edited) })).not.toBe(
      currentRelease().fingerprint,
    );
  });

  it('releases are in increasing semver order with distinct fingerprints', () => {
    const key = (v: string) => v.split('.').map(Number);
    for (let i = 1; i < VECTOR_RELEASES.length; i++) {
      const [a, b] = [key(VECTOR_RELEASES[i - 1]!.version), key(VECTOR_RELEASES[i]!.version)];
      const cmp = a[0]! - b[0]! || a[1]! - b[1]! || a[2]! - b[2]!;
      expect(cmp, VECTOR_RELEASES[i]!.version).toBeLessThan(0);
    }
    expect(new Set(VECTOR_RELEASES.map((r) => r.fingerprint)).size).toBe(VECTOR_RELEASES.length);
  });
});

describe('vectors/README.md: which code each class of failure gets', () => {
  const readme = readFileSync(join(root, 'vectors/README.md'), 'utf8');
  const codes = (text: string) =>
    new Set([...text.matchAll(/`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)`/g)].map((m) => m[1]!));
  const errorSection = readme.slice(
    readme.indexOf('## Error codes'),
    readme.indexOf('### Which code each class of failure gets'),
  );
  const classTable = readme.slice(
    readme.indexOf('### Which code each class of failure gets'),
    readme.indexOf('## Choices where the spec is silent'),
  );

  it('the class table names exactly the codes of the error-code section, and every code a vector expects', () => {
    expect([...codes(classTable)].sort()).toEqual([...codes(errorSection)].sort());
    const expected = new Set<string>();
    for (const f of index.files) {
      const file = JSON.parse(readFileSync(join(root, 'vectors', f.path), 'utf8')) as {
        cases: { expected: { code?: string; error?: string } }[];
      };
      for (const c of file.cases) {
        if (c.expected.code) expected.add(c.expected.code);
        if (c.expected.error) expected.add(c.expected.error);
      }
    }
    for (const code of expected) expect(codes(classTable), code).toContain(code);
  });
});

/** A PATH holding only these system tools (symlinks), so no `node` can be found. */
function toolsOnlyPath(tools: readonly string[]): string | undefined {
  const bin = join(work, 'bin');
  mkdirSync(bin, { recursive: true });
  for (const tool of tools) {
    // python3 may be a version manager's shim (a script needing its own PATH): link the interpreter itself.
    const where =
      tool === 'python3'
        ? spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' })
        : spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' });
    if (where.status !== 0) return undefined;
    const target = realpathSync(where.stdout.trim());
    if (!existsSync(join(bin, tool))) symlinkSync(target, join(bin, tool));
  }
  return bin;
}

function pythonWithCryptography(): string | undefined {
  const r = spawnSync('python3', ['-c', 'import cryptography'], { encoding: 'utf8' });
  if (r.error) return 'python3 not found';
  return r.status === 0 ? undefined : 'python3 cannot import cryptography';
}
const pythonMissing = pythonWithCryptography();
// As the harness's Python adapter tests (test/vectors-harness.test.ts): skipped, loudly, where python3 lacks the
// `cryptography` package the example adapter needs; run-vectors.py itself needs only the standard library.
if (pythonMissing) console.warn(`SKIPPED: the no-Node release run: ${pythonMissing}`);

describe('npm run vectors:release: a versioned archive usable with no Node', () => {
  const out = join(work, 'out');
  const release = writeVectorRelease(out);
  const top = `payconform-vectors-${release.version}`;

  it('is reproducible: a second build is byte-identical', () => {
    const again = writeVectorRelease(join(work, 'again'));
    expect(again.archiveSha256).toBe(release.archiveSha256);
    expect(readFileSync(join(out, 'SHA256SUMS'), 'utf8')).toBe(
      `${release.archiveSha256}  ${top}.tar.gz\n`,
    );
  });

  const bin = toolsOnlyPath(['sh', 'python3', 'sha256sum', 'tar', 'gzip']);
  const env = { PATH: bin ?? '', HOME: work, LANG: 'C.UTF-8' };
  const sh = (script: string, cwd: string) =>
    spawnSync(join(bin ?? '', 'sh'), ['-c', script], {
      cwd,
      env,
      encoding: 'utf8',
      timeout: 120_000,
    });

  it.skipIf(bin === undefined || pythonMissing !== undefined)(
    'a CI without Node checks the archive, unpacks it, verifies every file and passes every case with the Python adapter',
    () => {
      expect(sh('command -v node', out).status, 'node must not be on this PATH').not.toBe(0);
      const r = sh(
        `sha256sum -c SHA256SUMS && tar xzf ${top}.tar.gz && cd ${top} && sha256sum -c --quiet SHA256SUMS && python3 run-vectors.py --exec "python3 adapters/python/adapter.py"`,
        out,
      );
      expect(r.stdout + r.stderr).toContain(`${top}.tar.gz: OK`);
      expect(r.stdout).toContain(
        `payconform vectors ${release.version}: checksums verified (${Object.keys(index.sha256).length} files)`,
      );
      expect(r.stdout).toContain(`${index.totalCases} cases: ${index.totalCases} passed, 0 failed`);
      expect(r.status, r.stderr).toBe(0);
    },
  );

  it.skipIf(bin === undefined || pythonMissing !== undefined)(
    'the runner is a gate: a tampered file (exit 2), no adapter (exit 3), skips (exit 4, --allow-skips 0), a wrong verdict (exit 1)',
    () => {
      const dir = join(out, top);
      if (!existsSync(dir)) expect(sh(`tar xzf ${top}.tar.gz`, out).status).toBe(0);
      const none = join(work, 'none.py');
      writeFileSync(
        none,
        'import json, sys\nfor line in sys.stdin:\n    print(json.dumps({"id": json.loads(line)["id"], "unsupported": True}), flush=True)\n',
      );
      const liar = join(work, 'liar.py');
      writeFileSync(
        liar,
        [
          'import json, sys',
          `sys.path.insert(0, ${JSON.stringify(join(dir, 'adapters/python'))})`,
          'import adapter',
          'for line in sys.stdin:',
          '    m = json.loads(line); a = adapter.answer(m)',
          '    if m["op"] == "verify": a = {"id": m["id"], "result": {"ok": True}}',
          '    print(json.dumps(a), flush=True)',
        ].join('\n'),
      );
      const runner = (args: string) => sh(`python3 run-vectors.py ${args}`, dir);
      const missing = runner(`--exec "python3 ${join(work, 'no-such-adapter.py')}"`);
      expect(missing.status).toBe(3);
      expect(missing.stdout).toContain('ERROR the implementation did not start');
      expect(missing.stdout).not.toContain('FAIL ');
      expect(runner(`--exec "python3 ${none}"`).status).toBe(4);
      expect(runner(`--exec "python3 ${none}" --allow-skips`).status).toBe(0);
      const lying = runner(`--exec "python3 ${liar}"`);
      expect(lying.status).toBe(1);
      expect(lying.stdout).toContain('FAIL verify-nonce-replayed');
      const path = join(dir, index.files[0]!.path);
      writeFileSync(path, readFileSync(path, 'utf8').replace('"valid"', '"invalid"'));
      const tampered = runner('--check-only');
      expect(tampered.status).toBe(2);
      expect(tampered.stderr).toContain(`${index.files[0]!.path}: checksum mismatch`);
    },
  );
});
