// The starter adapters (vectors/adapters/python/starter.py, vectors/adapters/go/starter.go) as an implementer meets
// them: in a release archive built here, run by the CI recipes of vectors/README.md through run-vectors.py, each passes
// every `digest` case and skips the rest; a deliberate mistake in each (the body's trailing newline dropped before
// hashing) fails exactly the cases it should, each with its expected and received values. Then run-vectors.py's
// --only and reports, and `payconform vectors run` reading alike. Without python3 or go the tests skip and say why;
// with CI=true a missing one is a failure (.ci/run installs golang-go). Budget: about 15 s (a Go build with a warm cache).
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { main } from '../cli/main.js';
import { writeVectorRelease } from '../scripts/vectors-release.js';
import type { VectorCase, VectorFile } from '../vectors/format.js';
import { libraryAnswer } from '../vectors/adapters/node/answer.js';
import { gradeAnswer } from '../vectors/harness/compare.js';
import { showValue } from '../vectors/harness/report.js';
import type { CaseReport, HarnessReport } from '../vectors/harness/run.js';
import { memoryIo } from './fixtures/memory-io.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'payconform-starters-'));
const CI = process.env.CI === 'true';

// ---------------------------------------------------------------------------------------------------------------
// What the tests expect, computed from the vector files and the library, not from the starters or the runner
// ---------------------------------------------------------------------------------------------------------------

const index = JSON.parse(readFileSync(join(root, 'vectors/index.json'), 'utf8')) as {
  readonly version: string;
  readonly totalCases: number;
  readonly files: readonly { readonly path: string }[];
};
const cases: readonly { readonly file: string; readonly vector: VectorCase }[] =
  index.files.flatMap((f) =>
    (JSON.parse(readFileSync(join(root, 'vectors', f.path), 'utf8')) as VectorFile).cases.map(
      (vector) => ({ file: f.path, vector }),
    ),
  );
const TOTAL = index.totalCases;
const DIGEST = cases.filter((c) => c.vector.op === 'digest').length;
const countOf = (pred: (c: (typeof cases)[number]) => boolean): number => cases.filter(pred).length;

/** The deliberate mistake, as a text edit of each starter: the UTF-8 body's trailing newlines dropped before hashing. */
const MISTAKES = {
  python: ['input["bodyUtf8"].encode("utf-8")', 'input["bodyUtf8"].rstrip("\\n").encode("utf-8")'],
  go: ['body := []byte(in.BodyUtf8)', 'body := []byte(strings.TrimRight(in.BodyUtf8, "\\n"))'],
} as const;

function withMistake(kind: keyof typeof MISTAKES, text: string): string {
  const [from, to] = MISTAKES[kind];
  expect(text, `the ${kind} starter no longer contains ${from}`).toContain(from);
  return text.replace(from, to);
}

/**
 * The failures the mistake must cause: payconform's library given the same altered body, graded by the harness.
 * Each with the values a failure line shows.
 */
async function expectedFailures(): Promise<CaseReport[]> {
  const out: CaseReport[] = [];
  for (const { file, vector } of cases) {
    if (vector.op !== 'digest' || !('bodyUtf8' in vector.input)) continue;
    const input = { ...vector.input, bodyUtf8: vector.input.bodyUtf8.replace(/\n+$/, '') };
    const result = await libraryAnswer('digest', input as never);
    const grade = gradeAnswer(vector, { id: vector.id, result });
    if (grade.status === 'fail')
      out.push({
        id: vector.id,
        file,
        op: vector.op,
        result: vector.result,
        status: 'fail',
        message: grade.message!,
        expected: grade.expected,
        received: grade.received,
        durationMs: 0,
      });
  }
  return out;
}

/** The lines a failure prints (run-vectors.py and `payconform vectors run` alike). */
const failureLines = (f: CaseReport): string =>
  `FAIL ${f.id} (${f.file}, ${f.op}): ${f.message}\n  expected: ${showValue(f.expected)}\n  received: ${showValue(f.received)}\n`;

// ---------------------------------------------------------------------------------------------------------------
// What is installed: python3 for the runner and the Python starter, go for the Go starter
// ---------------------------------------------------------------------------------------------------------------

function missing(command: string, args: readonly string[], install: string): string | undefined {
  const r = spawnSync(command, args, { encoding: 'utf8', timeout: 30_000 });
  if (r.error || r.status !== 0) return `${command} is not installed (${install})`;
  return undefined;
}
const pythonMissing = missing('python3', ['--version'], 'apt-get install python3');
const goMissing = missing('go', ['version'], 'apt-get install golang-go; .ci/run installs it');

/** Whether a test needing `reason`'s tool runs: a missing tool skips it, loudly, except under CI=true. */
function runs(what: string, reason: string | undefined): boolean {
  if (reason === undefined || CI) return true;
  console.warn(`SKIPPED: ${what}: ${reason}`);
  return false;
}
function need(reason: string | undefined): void {
  if (reason !== undefined)
    throw new Error(`${reason} (CI=true: a missing tool is a failure, not a skip)`);
}
const pythonRuns = runs('the Python starter and run-vectors.py', pythonMissing);
const goRuns = runs('the Go starter', goMissing);

// ---------------------------------------------------------------------------------------------------------------
// The release and the README's recipes, run as written
// ---------------------------------------------------------------------------------------------------------------

const releaseDir = join(work, 'release');
const release = writeVectorRelease(releaseDir);
const top = `payconform-vectors-${release.version}`;
const RELEASE_URL = `https://github.com/payconform/payconform/releases/download/vectors-v${release.version}/${top}.tar.gz`;

/** A `curl` that answers from the release folder (no network): the last argument is the URL. */
const shims = join(work, 'bin');
mkdirSync(shims);
writeFileSync(
  join(shims, 'curl'),
  '#!/bin/sh\nfor url; do :; done\necho "$url" >> "$CURL_LOG"\nname=${url##*/}\n[ -f "$RELEASE_DIR/$name" ] || exit 22\ncp "$RELEASE_DIR/$name" "./$name"\n',
);
chmodSync(join(shims, 'curl'), 0o755);

const readme = readFileSync(join(root, 'vectors/README.md'), 'utf8');

/** The recipe's text from vectors/README.md (the sh block after its marker). */
function recipe(kind: 'python' | 'go'): string {
  const marker = `<!-- ci-recipe: ${kind} -->\n\`\`\`sh\n`;
  const start = readme.indexOf(marker);
  expect(start, `vectors/README.md has no ${marker.trim()}`).toBeGreaterThan(-1);
  return readme.slice(start + marker.length, readme.indexOf('```', start + marker.length));
}

/** The recipe with its two pinned values replaced by this build's (each must be there to be replaced). */
function pinned(text: string, sum: string): string {
  expect(text).toMatch(/^V=.*$/m);
  expect(text).toMatch(/^SUM=.*$/m);
  return text.replace(/^V=.*$/m, `V=${release.version}`).replace(/^SUM=.*$/m, `SUM=${sum}`);
}

interface RecipeRun {
  readonly r: SpawnSyncReturns<string>;
  readonly out: string;
  readonly junit: string;
  readonly urls: string[];
  readonly seconds: number;
}

/** Runs a recipe in `team` (the implementer's repository) as CI would: `sh -e`, curl answered locally. */
function runRecipe(kind: 'python' | 'go', team: string, sum = release.archiveSha256): RecipeRun {
  const log = join(team, 'curl.log');
  writeFileSync(log, '');
  const t0 = Date.now();
  const r = spawnSync('sh', ['-e', '-c', pinned(recipe(kind), sum)], {
    cwd: team,
    env: {
      ...process.env,
      PATH: `${shims}:${process.env.PATH ?? ''}`,
      RELEASE_DIR: releaseDir,
      CURL_LOG: log,
      GOPROXY: 'off',
      GOFLAGS: '-mod=mod',
    },
    encoding: 'utf8',
    timeout: 240_000,
  });
  let junit = '';
  try {
    junit = readFileSync(join(team, 'vectors.xml'), 'utf8');
  } catch {
    // no report: the assertions on it say so
  }
  return {
    r,
    out: r.stdout + r.stderr,
    junit,
    urls: readFileSync(log, 'utf8').trim().split('\n'),
    seconds: (Date.now() - t0) / 1000,
  };
}

/** The implementer's repository: the starter (or its altered copy) where the recipe expects it. */
function team(kind: 'python' | 'go', name: string, mistake: boolean): string {
  const dir = join(work, name);
  const source = readFileSync(
    join(
      root,
      kind === 'python' ? 'vectors/adapters/python/starter.py' : 'vectors/adapters/go/starter.go',
    ),
    'utf8',
  );
  const text = mistake ? withMistake(kind, source) : source;
  if (kind === 'python') {
    mkdirSync(join(dir, 'ci'), { recursive: true });
    writeFileSync(join(dir, 'ci/vectors_adapter.py'), text);
  } else {
    mkdirSync(join(dir, 'ci/vectors-adapter'), { recursive: true });
    writeFileSync(join(dir, 'go.mod'), 'module example.com/payments\n\ngo 1.19\n');
    writeFileSync(join(dir, 'ci/vectors-adapter/main.go'), text);
  }
  return dir;
}

const count = (text: string, pattern: RegExp): number => text.match(pattern)?.length ?? 0;

/** The starter as shipped: every digest case passes, every other case is skipped with the reason, INCOMPLETE. */
function expectDigestOnly(run: RecipeRun): void {
  expect(run.urls).toEqual([RELEASE_URL]);
  expect(run.out).toContain(`${top}.tar.gz: OK`);
  expect(run.out).toContain(`payconform vectors ${release.version}: checksums verified`);
  expect(run.out).not.toMatch(/^FAIL /m);
  expect(run.out).toMatch(
    new RegExp(`^  digest +${DIGEST} cases: ${DIGEST} passed, 0 failed, 0 skipped$`, 'm'),
  );
  for (const op of new Set(cases.map((c) => c.vector.op))) {
    if (op === 'digest') continue;
    const n = countOf((c) => c.vector.op === op);
    expect(run.out).toMatch(
      new RegExp(`^  ${op} +${n} cases: 0 passed, 0 failed, ${n} skipped$`, 'm'),
    );
  }
  expect(run.out).toContain(
    `${TOTAL} cases: ${DIGEST} passed, 0 failed, ${TOTAL - DIGEST} skipped`,
  );
  expect(run.out).toContain('verdict: INCOMPLETE');
  expect(run.r.status, run.out).toBe(4);
  // JUnit: one testcase per vector, the skipped ones with the reason.
  expect(count(run.junit, /<testcase /g)).toBe(TOTAL);
  expect(count(run.junit, /<skipped /g)).toBe(TOTAL - DIGEST);
  expect(run.junit).not.toContain('<failure');
  expect(run.junit).toMatch(
    /<testcase classname="request-signing\.json" name="verify-nonce-replayed" time="[\d.]+">\s*<skipped message="implementation does not support op &quot;verify&quot;: not implemented yet" \/>/,
  );
}

/** The starter with the mistake: exactly the predicted cases fail, each with both values, in the console and JUnit. */
function expectMistakeShown(run: RecipeRun, failures: readonly CaseReport[]): void {
  expect(run.r.status, run.out).toBe(1);
  expect(run.out).toContain('verdict: FAIL');
  const failed = [...run.out.matchAll(/^FAIL (\S+) /gm)].map((m) => m[1]);
  expect(failed).toEqual(failures.map((f) => f.id));
  for (const f of failures) {
    // The received value as the adapter wrote it: Go's encoder sorts an object's keys, so compare it parsed.
    const [line, expected, received] = failureLines(f).split('\n');
    const at = run.out.indexOf(`${line!}\n`);
    expect(at, line).toBeGreaterThan(-1);
    const [, shownExpected, shownReceived] = run.out.slice(at).split('\n');
    expect(shownExpected).toBe(expected);
    expect(shownReceived).toMatch(/^ {2}received: /);
    expect(JSON.parse(shownReceived!.slice('  received: '.length))).toEqual(
      JSON.parse(received!.slice('  received: '.length)),
    );
  }
  expect(run.out).toContain(
    `${TOTAL} cases: ${DIGEST - failures.length} passed, ${failures.length} failed, ${TOTAL - DIGEST} skipped`,
  );
  expect(count(run.junit, /<failure /g)).toBe(failures.length);
  const example = failures.find((f) => f.id === 'digest-sha512-trailing-newline')!;
  expect(run.junit).toContain(`"expected": ${JSON.stringify(example.expected)}`);
  expect(run.junit).toContain(`"received": ${JSON.stringify(example.received)}`);
}

describe('vectors/README.md: the starters and the CI recipes', () => {
  it('each recipe is under twenty lines and pins the version and the archive sum', () => {
    for (const kind of ['python', 'go'] as const) {
      const text = recipe(kind);
      expect(text.trimEnd().split('\n').length, kind).toBeLessThan(20);
      expect(text).toContain('sha256sum -c');
      expect(text).toContain('--report junit:vectors.xml');
    }
  });

  it('the failure the README shows is the one the mistake prints, and the mistake does fail cases', async () => {
    const failures = await expectedFailures();
    expect(failures.length).toBeGreaterThan(2);
    const example = failures.find((f) => f.id === 'digest-sha512-trailing-newline');
    expect(example, 'the README example case must be among the failures').toBeDefined();
    expect(readme).toContain(failureLines(example!));
  });
});

describe('the Python starter through run-vectors.py, by the README recipe', () => {
  it.skipIf(!pythonRuns)(
    `passes every digest case and skips the rest (INCOMPLETE, JUnit with the skip reasons)${pythonMissing ? ` [${pythonMissing}]` : ''}`,
    () => {
      need(pythonMissing);
      const run = runRecipe('python', team('python', 'team-python', false));
      expectDigestOnly(run);
      console.info(`python starter by the recipe: ${run.seconds.toFixed(1)} s`);
    },
  );

  it.skipIf(!pythonRuns)(
    'with the body altered before hashing it fails exactly those cases, each with expected and received values',
    async () => {
      need(pythonMissing);
      expectMistakeShown(
        runRecipe('python', team('python', 'team-python-mistake', true)),
        await expectedFailures(),
      );
    },
  );

  it.skipIf(!pythonRuns)(
    'a pinned sum that does not match stops the recipe before anything runs',
    () => {
      need(pythonMissing);
      const run = runRecipe('python', team('python', 'team-python-pin', false), '0'.repeat(64));
      expect(run.r.status).not.toBe(0);
      expect(run.out).toContain(`${top}.tar.gz: FAILED`);
      expect(run.out).not.toContain('checksums verified');
    },
  );
});

describe('the Go starter through run-vectors.py, by the README recipe (go build into a temp dir)', () => {
  it.skipIf(!goRuns || !pythonRuns)(
    `passes every digest case and skips the rest${goMissing ? ` [${goMissing}]` : ''}`,
    () => {
      need(goMissing);
      need(pythonMissing);
      const run = runRecipe('go', team('go', 'team-go', false));
      expectDigestOnly(run);
      console.info(`go starter by the recipe (go build included): ${run.seconds.toFixed(1)} s`);
    },
    240_000,
  );

  it.skipIf(!goRuns || !pythonRuns)(
    'with the body altered before hashing it fails exactly those cases, each with expected and received values',
    async () => {
      need(goMissing);
      need(pythonMissing);
      expectMistakeShown(
        runRecipe('go', team('go', 'team-go-mistake', true)),
        await expectedFailures(),
      );
    },
    240_000,
  );
});

// ---------------------------------------------------------------------------------------------------------------
// run-vectors.py's filters and reports, and `payconform vectors run` reading alike
// ---------------------------------------------------------------------------------------------------------------

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
