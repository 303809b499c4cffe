// payconform's single executable (scripts/build-binary.ts) and the wheel that carries it (scripts/build-wheel.py), as a
// user without Node meets them: each run in an empty folder with a PATH that has no `node` (only the tools a step
// names). The executable answers --version with package.json's version, audits the embedded service with the explorer
// (exit 0), serves, starts the verify pool's embedded worker, prints the Python starter that vectors run then passes,
// and verifies an attestation it wrote; the wheel is tagged manylinux_2_X for the newest glibc the executable needs
// (read here by a second ELF reader, and by readelf where installed), refuses what is not this version's executable,
// and `pip install` of it in a fresh venv puts the same on the venv's PATH.
// Budget: one build (about 10 s here, or none: test/fixtures/executable.ts caches it for the sources it was built
// from), a 2 s explorer budget (it proves the explorer runs inside the executable, not what it finds), the wheel's
// zip and install (about 30 s). With CI=true a missing python3 is a failure.
import { spawnSync } from 'node:child_process';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BinaryOutput } from '../scripts/build-binary.js';
import {
  buildExecutable,
  pathWithout,
  readCredentials,
  runProcess,
  startServe,
  type Ran,
} from './fixtures/executable.js';
import { newestGlibcMinor, readVersionNeeds } from './fixtures/elf-version-needs.js';
import { redisTestsEnabled, startRedisServer } from './fixtures/redis-server.js';
import { need, pythonMissing, runs } from './fixtures/starters.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const version = (
  JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }
).version;
const noNode = pathWithout(['sh', 'python3']);
const pythonRuns = runs('the executable with the Python starter and the wheel', pythonMissing);
let built: BinaryOutput;
/** Everything this file writes (the 100 MB executable, the wheel, a venv), removed after it. */
const work = mkdtempSync(join(tmpdir(), 'payconform-executable-test-'));

beforeAll(async () => {
  built = await buildExecutable(work);
}, 180_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

const emptyFolder = (): string => mkdtempSync(join(work, 'user-'));

/** Runs the executable in `cwd` with only `env` (and the PATH without node). */
function run(
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
  command = built.executable,
): Promise<Ran> {
  return runProcess(command, args, {
    cwd,
    env: { PATH: noNode, HOME: cwd, ...env },
    timeoutMs: 90_000,
  });
}

describe('npm run build:binary: one executable and its .sha256', () => {
  it('is named for the version and machine, and the .sha256 line is its digest in sha256sum form', () => {
    expect(basename(built.executable)).toBe(
      `payconform-${version}-${process.platform}-${process.arch}`,
    );
    const bytes = readFileSync(built.executable);
    const digest = createHash('sha256').update(bytes).digest('hex');
    expect(readFileSync(`${built.executable}.sha256`, 'utf8')).toBe(
      `${digest}  ${basename(built.executable)}\n`,
    );
    console.log(`executable: ${(bytes.length / 1e6).toFixed(1)} MB`);
  });
});

describe('the executable in an empty folder with no node on PATH', () => {
  it('--version is package.json version', async () => {
    const ran = await run(['--version'], emptyFolder());
    expect(ran.stdout.trim()).toBe(version);
    expect(ran.code).toBe(0);
  });

  it('audit server against the embedded service, explorer included: exit 0', async () => {
    const ran = await run(['audit', 'server', '--explore-seconds', '2'], emptyFolder());
    expect(ran.stdout).toMatch(/^ {2}explore +1 pass$/m);
    expect(ran.stdout).toContain('verdict: PASS');
    expect(ran.code, ran.stderr).toBe(0);
  }, 120_000);

  it.skipIf(!pythonRuns)(
    'vectors starter python prints the starter, and vectors run passes its digest cases',
    async () => {
      need(pythonMissing);
      const cwd = emptyFolder();
      const starter = await run(['vectors', 'starter', 'python'], cwd);
      expect(starter.stdout).toBe(
        readFileSync(join(root, 'vectors/adapters/python/starter.py'), 'utf8'),
      );
      writeFileSync(join(cwd, 'starter.py'), starter.stdout);
      const ran = await run(
        ['vectors', 'run', '--exec', 'python3 starter.py', '--only', 'digest'],
        cwd,
      );
      expect(ran.stdout).toMatch(/(\d+) cases: \1 passed, 0 failed, 0 skipped/);
      expect(ran.code, ran.stderr).toBe(0);
    },
  );

  it('serve answers on loopback, and the verify pool runs its embedded worker thread', async () => {
    const cwd = emptyFolder();
    const probe = join(root, 'test/fixtures/worker-probe.cjs');
    const env = { PAYCONFORM_VERIFY_THREADS: '2', NODE_OPTIONS: `--require ${probe}` };
    const serve = await startServe(built.executable, cwd, [], {
      PATH: noNode,
      HOME: cwd,
      ...env,
    });
    try {
      expect(serve.log()).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
      const creds = readCredentials(join(cwd, 'creds.env'));
      // This check sends identical signed requests at once: enough in flight to start the pool (four at once). On a
      // loaded machine the copies may arrive one by one and never overlap, so it is sent up to three times (bounded).
      for (let attempt = 0; attempt < 3 && !/probe: worker started/.test(serve.log()); attempt++) {
        const audit = await run(
          [
            'audit',
            'server',
            '--config',
            'a.json',
            '--no-explore',
            '--only',
            'nonce-concurrent-once',
          ],
          cwd,
          creds,
        );
        expect(audit.code, audit.stdout).toBe(0);
      }
      expect(serve.log()).toMatch(/probe: worker started \(eval true\)/);
      expect(serve.log()).toMatch(/probe: worker said "ready"/);
    } finally {
      serve.child.kill('SIGTERM');
    }
  }, 120_000);

  it.runIf(redisTestsEnabled())(
    'serve --workers 2 forks the executable itself: both workers listen (nonces in Redis)',
    async () => {
      const redis = await startRedisServer();
      const cwd = emptyFolder();
      try {
        const serve = await startServe(
          built.executable,
          cwd,
          ['--workers', '2', '--redis-url', redis.url],
          { PATH: noNode, HOME: cwd },
        );
        try {
          expect(serve.log()).toContain('workers: 2 processes sharing the port');
          const port = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(serve.log())![1];
          const answer = await fetch(`http://127.0.0.1:${port}/portal`);
          expect(answer.status).toBeLessThan(500);
        } finally {
          serve.child.kill('SIGTERM');
          await new Promise((r) => serve.child.once('exit', r));
        }
      } finally {
        await redis.close();
      }
    },
    120_000,
  );

  it('attest verify checks the attestation an audit wrote (and refuses another key)', async () => {
    const cwd = emptyFolder();
    const pair = generateKeyPairSync('ed25519');
    const key = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    writeFileSync(join(cwd, 'attest.pub'), pair.publicKey.export({ type: 'spki', format: 'pem' }));
    const other = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' });
    writeFileSync(join(cwd, 'other.pub'), other);
    const audit = await run(
      // One check is enough to sign a verdict; the full audit ran in the tests above.
      [
        'audit',
        'server',
        '--only',
        'payout-signed-accepted',
        '--report',
        'json:r.json',
        '--attest',
        'r.intoto.json',
      ],
      cwd,
      { PAYCONFORM_ATTEST_KEY: key },
    );
    expect(audit.code, audit.stderr).toBe(0);
    expect(audit.stdout + audit.stderr).not.toContain(key.split('\n')[1]!);
    const verify = (pub: string): Promise<Ran> =>
      run(['attest', 'verify', 'r.intoto.json', '--public-key', pub, '--report', 'r.json'], cwd);
    const good = await verify('attest.pub');
    expect(good.stdout).toMatch(/^verified: signed by keyid/);
    expect(good.code).toBe(0);
    const bad = await verify('other.pub');
    expect(bad.stdout).toMatch(/^not verified/);
    expect(bad.code).toBe(1);
  }, 120_000);
});

describe('scripts/build-wheel.py: the wheel that carries the executable', () => {
  const buildWheel = (file: string, out: string, extra: readonly string[] = []): Promise<Ran> =>
    runProcess('python3', [join(root, 'scripts/build-wheel.py'), file, '--out', out, ...extra], {
      cwd: out,
      env: { PATH: process.env['PATH'] },
      timeoutMs: 120_000,
    });
  /** The wheel's name for this machine's architecture (PEP 600 uses uname's). */
  const arch = ({ x64: 'x86_64', arm64: 'aarch64' } as Record<string, string>)[process.arch];

  it.skipIf(!pythonRuns)(
    'refuses a README, another program and another version, with exit 2 and the reason; writes no wheel',
    async () => {
      need(pythonMissing);
      const out = emptyFolder();
      const refusals: [readonly string[], RegExp][] = [
        [[join(root, 'README.md')], /refusing .*README\.md: not an ELF executable/],
        [[process.execPath], /no payconform version marker inside/],
        [
          [built.executable, '--version', '9.9.9'],
          new RegExp(`is payconform ${version}, not 9\\.9\\.9`),
        ],
      ];
      for (const [args, reason] of refusals) {
        const ran = await buildWheel(args[0]!, out, args.slice(1));
        expect(ran.stderr, args.join(' ')).toMatch(reason);
        expect(ran.code, args.join(' ')).toBe(2);
      }
      expect(readdirSync(out)).toEqual([]);
    },
  );

  it.skipIf(!pythonRuns)(
    'pip install in a fresh venv puts payconform on its PATH; it audits with no node',
    async () => {
      need(pythonMissing);
      const out = emptyFolder();
      const wheel = await buildWheel(built.executable, out);
      expect(wheel.code, wheel.stderr).toBe(0);
      const file = wheel.stdout.trim();
      // The tag's X is the newest GLIBC_2.X the executable needs, read here by a second reader (program headers and
      // the dynamic segment, where the script reads the section headers), and by readelf -V where binutils is here.
      const glibc = newestGlibcMinor(readVersionNeeds(built.executable));
      expect(glibc).toBeGreaterThanOrEqual(17);
      const readelf = spawnSync('readelf', ['-V', '-W', built.executable], { encoding: 'utf8' });
      if (readelf.status === 0) {
        const minors = [...readelf.stdout.matchAll(/Name: GLIBC_2\.(\d+)/g)].map((m) =>
          Number(m[1]),
        );
        expect(Math.max(...minors)).toBe(glibc);
      }
      const tag = `manylinux_2_${glibc}_${arch}`;
      expect(basename(file)).toBe(`payconform-${version}-py3-none-${tag}.whl`);
      const wheelMeta = await runProcess(
        'python3',
        [
          '-c',
          'import sys, zipfile; sys.stdout.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]).decode())',
          file,
          `payconform-${version}.dist-info/WHEEL`,
        ],
        { cwd: out, env: { PATH: process.env['PATH'] }, timeoutMs: 60_000 },
      );
      expect(wheelMeta.stdout).toContain(`Tag: py3-none-${tag}\n`);
      // A fresh venv without a pip of its own (ensurepip's copy costs more than all the rest here), into which the
      // system's pip installs the wheel; where python3 has no pip (or one too old for --python), the venv's own.
      const venv = join(out, 'venv');
      const made = await runProcess('python3', ['-m', 'venv', '--without-pip', venv], {
        cwd: out,
        env: { PATH: noNode },
        timeoutMs: 120_000,
      });
      expect(made.code, made.stderr).toBe(0);
      const pipEnv = { cwd: out, env: { PATH: noNode, HOME: out }, timeoutMs: 120_000 };
      const install = ['install', '--no-index', '--disable-pip-version-check', file];
      let pip = await runProcess(
        'python3',
        ['-m', 'pip', '--python', join(venv, 'bin/python'), ...install],
        pipEnv,
      );
      if (pip.code !== 0) {
        const ensured = await runProcess(join(venv, 'bin/python'), ['-m', 'ensurepip'], pipEnv);
        expect(ensured.code, `${pip.stderr}\n${ensured.stderr}`).toBe(0);
        pip = await runProcess(join(venv, 'bin/pip'), install, pipEnv);
      }
      expect(pip.code, pip.stderr).toBe(0);
      const cwd = join(out, 'empty');
      mkdirSync(cwd);
      const venvPath = { PATH: `${join(venv, 'bin')}:${noNode}` };
      const shown = await run(['--version'], cwd, venvPath, 'payconform');
      expect(shown.stdout.trim()).toBe(version);
      // What pip put on the PATH is the executable built above, byte for byte (whose full audit, explorer included,
      // passed above): one check shows it audits from there, with no node.
      expect(
        createHash('sha256')
          .update(readFileSync(join(venv, 'bin/payconform')))
          .digest('hex'),
      ).toBe(built.sha256);
      const audit = await run(
        ['audit', 'server', '--no-explore', '--only', 'payout-signed-accepted'],
        cwd,
        venvPath,
        'payconform',
      );
      expect(audit.stdout).toContain('verdict: PASS');
      expect(audit.code).toBe(0);
    },
    240_000,
  );
});
