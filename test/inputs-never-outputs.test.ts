// The reproductions of files in and out, each run in-process through the CLI's main(): an output that is an
// input (the baseline, the config, another output, by link or by `./`) is a usage error naming both and nothing is
// written; `--baseline-update` on a dangling link is refused before the run and its target never created; duplicate
// baseline keys are refused naming both entries; a baseline or request JSON with a byte-order mark is read as without
// one; a FIFO (baseline, report, attestation, diff, attest verify) or /dev/zero is refused at once; `--attest
// /dev/full` exits 2 and the report says exit 2, as does the report written when another cannot be at the end; the
// printed re-run command has no --attest; `attest verify` with `{"results":[null]}` answers "not verified", and
// `--public-key ./missing.pub` is a missing file, not bad base64.
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rerunCommandFor } from '../cli/audit-command.js';
import { main } from '../cli/main.js';
import { createAuditStatement } from '../conformance/report/attestation.js';
import { serializeDsseEnvelope, signDsseEnvelope } from '../src/attest/dsse.js';
import { IN_TOTO_PAYLOAD_TYPE } from '../src/attest/statement.js';
import { parseEd25519PrivateKey } from '../src/keys/index.js';
import { memoryIo } from './fixtures/memory-io.js';
import { signingEnv } from './fixtures/cli.js';
import { loadTestKeys } from './fixtures/keys.js';

const dir = mkdtempSync(join(tmpdir(), 'payconform-in-out-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const at = (name: string): string => join(dir, name);

/** `payconform ARGS` in-process: the exit code and what it printed. */
async function run(args: readonly string[], env: Record<string, string> = {}) {
  const io = memoryIo({ env });
  const code = await main([...args], io);
  return { code, out: io.out.join(''), err: io.err.join('') };
}

const AUDIT = ['audit', 'server', '--no-explore', '--only', 'public-key-form'];
const baselineText = JSON.stringify({ baselineVersion: '1', entries: [] }, null, 2);

describe('inputs are never outputs', () => {
  const cases: ReadonlyArray<readonly [string, () => string[], RegExp]> = [
    [
      'the report over the baseline',
      () => ['--baseline', at('b.json'), '--report', `json:${at('b.json')}`],
      /--report json:\S+b\.json would overwrite --baseline \S+b\.json/,
    ],
    [
      'the report over the config',
      () => ['--config', at('a.json'), '--report', `json:${at('a.json')}`],
      /--report json:\S+a\.json would overwrite --config \S+a\.json/,
    ],
    [
      'the attestation over the report',
      () => ['--report', `json:${at('r.json')}`, '--attest', at('r.json')],
      /--attest \S+r\.json would overwrite --report json:\S+r\.json/,
    ],
    [
      'a HAR beside the report as ./r.json',
      () => ['--report', `json:${at('r.json')}`, '--report', `har:${dir}/./r.json`],
      /--report har:\S+r\.json would overwrite --report json:\S+r\.json/,
    ],
    [
      'a report through a link to the config',
      () => ['--config', at('a.json'), '--report', `junit:${at('link-to-a.json')}`],
      /link-to-a\.json would overwrite --config/,
    ],
  ];
  for (const [name, args, message] of cases)
    it(`${name}: a usage error naming both, nothing written`, async () => {
      writeFileSync(at('b.json'), baselineText);
      writeFileSync(at('a.json'), '{}');
      writeFileSync(at('r.json'), 'the earlier report');
      rmSync(at('link-to-a.json'), { force: true });
      symlinkSync(at('a.json'), at('link-to-a.json'));
      const r = await run([...AUDIT, ...args()]);
      expect(r.code, r.err).toBe(2);
      expect(r.err).toMatch(message);
      expect(readFileSync(at('b.json'), 'utf8')).toBe(baselineText);
      expect(readFileSync(at('a.json'), 'utf8')).toBe('{}');
      expect(readFileSync(at('r.json'), 'utf8')).toBe('the earlier report');
    });
});

describe('the programs payconform runs are inputs too', () => {
  const script = '#!/bin/sh\nexit 0\n';
  const runs: ReadonlyArray<readonly [string, () => string[], RegExp]> = [
    [
      "the report over the SDK adapter's script",
      () => [
        'audit',
        'client',
        '--adapter',
        `sh ${at('adapter.sh')}`,
        '--report',
        `json:${at('adapter.sh')}`,
      ],
      /--report json:\S+adapter\.sh would overwrite --adapter \(runs \S+adapter\.sh\)/,
    ],
    [
      "the report over the --exec client's script",
      () => [
        'audit',
        'client',
        '--exec',
        `sh ${at('adapter.sh')}`,
        '--report',
        `junit:${at('adapter.sh')}`,
      ],
      /would overwrite --exec \(runs \S+adapter\.sh\)/,
    ],
    [
      "the report over the config's state hook script",
      () => [...AUDIT, '--config', at('hooked.json'), '--report', `html:${at('hook.py')}`],
      /--report html:\S+hook\.py would overwrite the state hook of --config \S+hooked\.json \(runs \S+hook\.py\)/,
    ],
  ];
  for (const [name, args, message] of runs)
    it(`${name}: a usage error naming both, the script kept`, async () => {
      writeFileSync(at('adapter.sh'), script);
      writeFileSync(at('hook.py'), script);
      writeFileSync(
        at('hooked.json'),
        JSON.stringify({ stateHook: { command: ['python3', at('hook.py')] } }),
      );
      const r = await run(args());
      expect(r.code, r.err).toBe(2);
      expect(r.err).toMatch(message);
      expect(readFileSync(at('adapter.sh'), 'utf8')).toBe(script);
      expect(readFileSync(at('hook.py'), 'utf8')).toBe(script);
    });

  it('serve: --credentials-out over --config or --write-audit-config is refused (exit 2), nothing written', async () => {
    writeFileSync(at('serve.json'), '{}');
    for (const args of [
      ['--config', at('serve.json'), '--credentials-out', at('serve.json')],
      ['--write-audit-config', at('serve.json'), '--credentials-out', at('serve.json')],
    ]) {
      const r = await run(['serve', '--port', '0', ...args]);
      expect(r.code, r.err).toBe(2);
      expect(r.err).toMatch(
        /--credentials-out \S+serve\.json would overwrite --(config|write-audit-config) \S+serve\.json/,
      );
      expect(readFileSync(at('serve.json'), 'utf8')).toBe('{}');
    }
  });
});

describe('the baseline read and written safely', () => {
  it('--baseline-update on a dangling link: refused before the run, its target never created', async () => {
    const link = at('dangling-baseline.json');
    const target = join(dir, 'nowhere', 'baseline.json');
    symlinkSync(target, link);
    const r = await run([...AUDIT, '--baseline', link, '--baseline-update']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/cannot write --baseline "\S+dangling-baseline\.json": a symbolic link/);
    expect(() => statSync(target)).toThrow();
  });

  it('two entries with the same key: refused, naming both', async () => {
    const entry = {
      check: 'public-key-form',
      requirement: 'KEY-PEM-BODY',
      class: 'fail',
      reason: 'a',
    };
    writeFileSync(
      at('dup.json'),
      JSON.stringify({
        baselineVersion: '1',
        entries: [entry, { ...entry, check: 'other' }, { ...entry, reason: 'b' }],
      }),
    );
    const r = await run([...AUDIT, '--baseline', at('dup.json')]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('two entries with the same key');
    expect(r.err).toContain('/entries/0 and /entries/2');
  });

  it('a byte-order mark is accepted, as in the config', async () => {
    writeFileSync(at('bom.json'), `\uFEFF${baselineText}`);
    const r = await run([...AUDIT, '--baseline', at('bom.json')]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/baseline \S+bom\.json: 0 known, 0 new/);
  }, 60_000);

  it('a FIFO or /dev/zero as the baseline: refused at once, never read', async () => {
    const fifo = at('baseline.fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    for (const path of [fifo, '/dev/zero']) {
      const started = Date.now();
      const r = await run([...AUDIT, '--baseline', path]);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(
        /cannot read --baseline "\S+": NOT_REGULAR \(a (FIFO|character device)/,
      );
      expect(Date.now() - started).toBeLessThan(10_000);
    }
  });
});

describe('a byte-order mark is accepted in every file read as text', () => {
  it('a request JSON with one signs exactly as without', async () => {
    const env = signingEnv('test-only-bom-secret', loadTestKeys().clientEd25519);
    const request = JSON.stringify({ method: 'GET', url: 'https://api.example.com/api/payouts/1' });
    writeFileSync(at('plain.request.json'), request);
    writeFileSync(at('bom.request.json'), `\uFEFF${request}`);
    const sign = (file: string) =>
      run(['sign', '--request', file, '--created', '1767225600', '--nonce', 'bom-1'], env);
    const [plain, bom] = [await sign(at('plain.request.json')), await sign(at('bom.request.json'))];
    expect(plain.code, plain.err).toBe(0);
    expect(bom.code, bom.err).toBe(0);
    expect(bom.out).toBe(plain.out);
  });
});

describe('a FIFO anywhere a file is named: refused at once, never waited on', () => {
  it('--report, --attest, diff and attest verify', async () => {
    const fifo = at('anywhere.fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    writeFileSync(at('ok.json'), '{}');
    const started = Date.now();
    const report = await run([...AUDIT, '--report', `json:${fifo}`]);
    expect(report.code).toBe(2);
    expect(report.err).toMatch(
      /cannot write json report to "\S+anywhere\.fifo": not a regular file/,
    );
    const attest = await run([...AUDIT, '--report', `json:${at('ok.json')}`, '--attest', fifo]);
    expect(attest.code).toBe(2);
    expect(attest.err).toMatch(/cannot write --attest "\S+anywhere\.fifo": not a regular file/);
    const diff = await run(['diff', fifo, at('ok.json')]);
    expect(diff.code).toBe(2);
    expect(diff.err).toMatch(/cannot read "\S+anywhere\.fifo": NOT_REGULAR \(a FIFO/);
    const pub = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' });
    writeFileSync(at('fifo-test.pub'), pub);
    const verify = await run(['attest', 'verify', fifo, '--public-key', at('fifo-test.pub')]);
    expect(verify.code).toBe(2);
    expect(verify.err).toMatch(/cannot read attestation "\S+anywhere\.fifo": NOT_REGULAR/);
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});

describe('the exit code stated is the exit code returned', () => {
  it('--attest /dev/full: exit 2 before the run, and the JSON report says exit 2', async () => {
    const r = await run([...AUDIT, '--report', `json:${at('full.json')}`, '--attest', '/dev/full']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('cannot write --attest "/dev/full": not a regular file');
    const report = JSON.parse(readFileSync(at('full.json'), 'utf8')) as { exitCode: number };
    expect(report.exitCode).toBe(2);
  });

  it('a report that cannot be written at the end: exit 2, and the report that was written says exit 2', async () => {
    // junit:link.xml names a regular file when the run starts; once the checks run, the file is gone and the link
    // dangles, so that report cannot be written at the end (the writer never follows a dangling link).
    writeFileSync(at('real.xml'), 'earlier');
    symlinkSync(at('real.xml'), at('late-link.xml'));
    const io = memoryIo();
    const watched = {
      ...io,
      stdout: (text: string) => {
        rmSync(at('real.xml'), { force: true });
        io.stdout(text);
      },
    };
    const args = [
      '--report',
      `json:${at('late.json')}`,
      '--report',
      `junit:${at('late-link.xml')}`,
    ];
    const code = await main([...AUDIT, ...args], watched);
    expect(code, io.err.join('')).toBe(2);
    expect(io.err.join('')).toMatch(/cannot write junit report to "\S+late-link\.xml"/);
    expect(io.out.join('')).toMatch(/1 report\(s\) not written, exit 2/);
    const report = JSON.parse(readFileSync(at('late.json'), 'utf8')) as {
      exitCode: number;
      verdictReasons: string[];
    };
    expect(report.exitCode).toBe(2);
    expect(report.verdictReasons).toEqual(['1 report(s) not written']);
    expect(() => statSync(at('real.xml'))).toThrow();
  }, 60_000);

  it('the printed re-run command drops --attest (it needs the --report the re-run drops)', () => {
    const rerun = rerunCommandFor('audit server', [
      '--report',
      'json:r.json',
      '--attest',
      'run.intoto.json',
      '--attest=other.json',
      '--config',
      'c.json',
    ])('public-key-form');
    expect(rerun).toBe('payconform audit server --only public-key-form --config c.json');
  });
});

describe('attest verify on hostile files', () => {
  const pair = generateKeyPairSync('ed25519');
  const privatePem = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const publicPem = pair.publicKey.export({ type: 'spki', format: 'pem' }).toString();

  it('a report with {"results":[null]}: not verified (exit 1), never a throw', async () => {
    const report = Buffer.from(JSON.stringify({ target: 't', verdict: 'pass', results: [] }));
    const statement = createAuditStatement({ report, config: Buffer.from('{}') });
    const envelope = signDsseEnvelope(
      IN_TOTO_PAYLOAD_TYPE,
      Buffer.from(JSON.stringify(statement)),
      parseEd25519PrivateKey(privatePem),
    );
    writeFileSync(at('run.intoto.json'), serializeDsseEnvelope(envelope));
    writeFileSync(at('null-results.json'), '{"results":[null]}');
    writeFileSync(at('attest.pub'), publicPem);
    const verify = ['attest', 'verify', at('run.intoto.json'), '--public-key', at('attest.pub')];
    expect((await run(verify)).code).toBe(0);
    const r = await run([...verify, '--report', at('null-results.json')]);
    expect(r.code).toBe(1);
    expect(r.out).toContain('"results"[0] is not a result with a string "id" and "outcome"');
  });

  it('--public-key ./missing.pub is a missing file, not bad base64', async () => {
    writeFileSync(at('some.intoto.json'), '{}');
    const r = await run([
      'attest',
      'verify',
      at('some.intoto.json'),
      '--public-key',
      './missing.pub',
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('cannot read --public-key "./missing.pub": ENOENT (no such file)');
  });
});
