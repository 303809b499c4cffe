// run-vectors.py (vectors/release/run-vectors.py) as a CI without Node runs it, on an archive built here with the
// Python starter: --only by vector file, op and case id; and the same failure lines, summaries per file and per op,
// JSON cases and JUnit counts as `payconform vectors run` on the same adapter, so Node and non-Node CI read alike.
// Without python3 the tests skip and say why; with CI=true that is a failure. Budget: about 10 s.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { main } from '../cli/main.js';
import { writeVectorRelease } from '../scripts/vectors-release.js';
import { showValue } from '../vectors/harness/report.js';
import type { CaseReport, HarnessReport } from '../vectors/harness/run.js';
import { memoryIo } from './fixtures/memory-io.js';
import {
  cases,
  count,
  countOf,
  DIGEST,
  expectedFailures,
  failureLines,
  need,
  pythonMissing,
  runs,
  TOTAL,
  withMistake,
} from './fixtures/starters.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'payconform-runner-'));
const pythonRuns = runs('run-vectors.py', pythonMissing);
const release = writeVectorRelease(join(work, 'release'));
const top = `payconform-vectors-${release.version}`;

const unpacked = join(work, 'unpacked');
mkdirSync(unpacked);
const untar = spawnSync('tar', ['xzf', release.archive, '-C', unpacked], { encoding: 'utf8' });
const dir = join(unpacked, top);
const mistaken = join(work, 'mistaken-starter.py');
writeFileSync(
  mistaken,
  withMistake('python', readFileSync(join(root, 'vectors/adapters/python/starter.py'), 'utf8')),
);

function runner(args: readonly string[]): SpawnSyncReturns<string> {
  return spawnSync('python3', ['run-vectors.py', ...args], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 60_000,
  });
}

async function harness(
  args: readonly string[],
): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIo();
  const code = await main(['vectors', 'run', '--dir', dir, ...args], io);
  return { code, out: io.out.join(''), err: io.err.join('') };
}

describe('run-vectors.py --only: vector files, ops and case ids, several at once', () => {
  const STARTER = ['--exec', 'python3 adapters/python/starter.py'];
  it.skipIf(!pythonRuns).each([
    [['content-digest.json'], (c: (typeof cases)[number]) => c.file === 'content-digest.json'],
    [['digest'], (c: (typeof cases)[number]) => c.vector.op === 'digest'],
    [
      ['rfc/rfc9530.json,verify-nonce-replayed', 'sign'],
      (c: (typeof cases)[number]) =>
        c.file === 'rfc/rfc9530.json' ||
        c.vector.id === 'verify-nonce-replayed' ||
        c.vector.op === 'sign',
    ],
  ])('--only %j', (only, keep) => {
    need(pythonMissing);
    expect(untar.status, untar.stderr).toBe(0);
    const r = runner([...STARTER, ...only.flatMap((o) => ['--only', o]), '--report', 'json:-']);
    const report = JSON.parse(r.stdout) as HarnessReport;
    const wanted = cases.filter(keep);
    expect(report.cases.map((c) => c.id)).toEqual(wanted.map((c) => c.vector.id));
    const digest = wanted.filter((c) => c.vector.op === 'digest').length;
    expect(report.summary).toMatchObject({ total: wanted.length, passed: digest, failed: 0 });
    expect(r.status).toBe(digest === wanted.length ? 0 : 4);
  });

  it.skipIf(!pythonRuns)(
    'a name that is no file, op or case id is a usage error (exit 2) naming it',
    () => {
      need(pythonMissing);
      const r = runner([...STARTER, '--only', 'digest,no-such-thing']);
      expect(r.status).toBe(2);
      expect(r.stderr).toContain('--only: no vector file, op or case id "no-such-thing"');
    },
  );
});

describe('run-vectors.py and payconform vectors run read alike (console, JSON, JUnit)', () => {
  it.skipIf(!pythonRuns)(
    'a value shows the same from both: one-line text quoted and escaped, multi-line text one row per line, JSON',
    () => {
      need(pythonMissing);
      const values: unknown[] = [
        'sha-512=:AAAA:',
        'caf\u00e9 \u0001\u007f \u{1f600}',
        '"@method": POST\n"@path": /caf\u00e9\n',
        { valid: false, code: 'DIGEST_MISMATCH' },
        [['Signature', 'sig1=:x:']],
        null,
      ];
      const py = spawnSync(
        'python3',
        [
          '-c',
          'import importlib.util, json, sys\n' +
            'spec = importlib.util.spec_from_file_location("rv", "run-vectors.py")\n' +
            'rv = importlib.util.module_from_spec(spec); spec.loader.exec_module(rv)\n' +
            'print(json.dumps([rv.show(v) for v in json.load(sys.stdin)] + [rv.show(rv.MISSING)]))',
        ],
        { cwd: dir, input: JSON.stringify(values), encoding: 'utf8' },
      );
      expect(py.status, py.stderr).toBe(0);
      const shown = [...values.map((v) => showValue(v)), showValue(undefined)];
      expect(JSON.parse(py.stdout)).toEqual(shown);
      expect(shown[1]).toBe('"caf\\u00e9 \\u0001\\u007f \\ud83d\\ude00"');
      expect(shown[2]).toBe(
        '(3 lines)\n    | "@method": POST\n    | "\\"@path\\": /caf\\u00e9"\n    | ',
      );
    },
  );

  it.skipIf(!pythonRuns)(
    'on the mistaken starter: the same failure lines, the same summaries per file and per op, the same cases and values in JSON',
    async () => {
      need(pythonMissing);
      const failures = await expectedFailures();
      const pyJson = join(work, 'py.json');
      const pyXml = join(work, 'py.xml');
      const py = runner([
        '--exec',
        `python3 ${mistaken}`,
        '--report',
        `json:${pyJson}`,
        '--report',
        `junit:${pyXml}`,
      ]);
      expect(py.status, py.stderr).toBe(1);
      const nodeJson = join(work, 'node.json');
      const nodeXml = join(work, 'node.xml');
      const node = await harness([
        '--exec',
        `python3 ${mistaken}`,
        '--report',
        `json:${nodeJson}`,
        '--report',
        `junit:${nodeXml}`,
      ]);
      expect(node.code).toBe(1);
      for (const f of failures) {
        expect(py.stdout).toContain(failureLines(f));
        expect(node.out).toContain(failureLines(f));
      }
      const summaries = (text: string): string =>
        text.slice(text.indexOf('\nby file:\n'), text.indexOf('\n\n', text.indexOf('\nby op:\n')));
      expect(summaries(py.stdout)).toMatch(/^\nby file:\n {2}content-digest\.json +22 cases: /);
      expect(summaries(py.stdout)).toBe(summaries(node.out));

      const a = JSON.parse(readFileSync(pyJson, 'utf8')) as HarnessReport & Record<string, unknown>;
      const b = JSON.parse(readFileSync(nodeJson, 'utf8')) as HarnessReport &
        Record<string, unknown>;
      for (const key of Object.keys(b)) expect(Object.keys(a), key).toContain(key);
      for (const key of [
        'summary',
        'byFile',
        'byOp',
        'verdict',
        'protocol',
        'implementation',
        'started',
      ])
        expect(a[key], key).toEqual(b[key]);
      const shape = (c: CaseReport) => [
        c.id,
        c.file,
        c.op,
        c.result,
        c.status,
        c.message,
        c.expected,
        c.received,
      ];
      expect(a.cases.map(shape)).toEqual(b.cases.map(shape));

      const tally = (xml: string) =>
        [/<testcase /g, /<failure /g, /<skipped /g].map((p) => count(xml, p));
      expect(tally(readFileSync(pyXml, 'utf8'))).toEqual([TOTAL, failures.length, TOTAL - DIGEST]);
      expect(tally(readFileSync(nodeXml, 'utf8'))).toEqual(tally(readFileSync(pyXml, 'utf8')));
    },
  );

  it('payconform vectors run --only takes files and ops too, and names what it does not know', async () => {
    const none = join(work, 'none.mjs');
    writeFileSync(
      none,
      "import { createInterface } from 'node:readline';\nfor await (const line of createInterface({ input: process.stdin })) console.log(JSON.stringify({ id: JSON.parse(line).id, unsupported: true }));\n",
    );
    const exec = ['--exec', `"${process.execPath}" "${none}"`, '--allow-skips'];
    const byFile = await harness([...exec, '--only', 'key-parsing.json,digest']);
    const n = countOf((c) => c.file === 'key-parsing.json' || c.vector.op === 'digest');
    expect(byFile.out).toContain(`${n} cases: 0 passed, 0 failed, ${n} skipped`);
    expect(byFile.code).toBe(0);
    const unknown = await harness([...exec, '--only', 'verify,nope.json']);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('--only: no vector file, op or case id "nope.json"');
  });
});
