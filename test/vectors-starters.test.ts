// The starter adapters (vectors/adapters/python/starter.py, vectors/adapters/go/starter.go) as an implementer meets
// them: in a release archive built here, run by the CI recipes of vectors/README.md through run-vectors.py, each passes
// every `digest` case and skips the rest; a deliberate mistake in each (the body's trailing newline dropped before
// hashing) fails exactly the cases it should, each with its expected and received values; every line each prints
// matches the protocol's schemas. Without python3 or go the tests skip and say why; with CI=true a missing one is a
// failure (.ci/run installs golang-go). Budget: about 10 s.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { main } from '../cli/main.js';
import { writeVectorRelease } from '../scripts/vectors-release.js';
import type { CaseReport } from '../vectors/harness/run.js';
import { memoryIo } from './fixtures/memory-io.js';
import {
  cases,
  count,
  countOf,
  DIGEST,
  expectedFailures,
  failureLines,
  goMissing,
  need,
  pythonMissing,
  runs,
  TOTAL,
  withMistake,
} from './fixtures/starters.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'payconform-starters-'));
const pythonRuns = runs('the Python starter', pythonMissing);
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

describe('the starters speak the harness protocol (vectors/harness/protocol/ schemas), through payconform vectors run', () => {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  const schema = (name: string) =>
    ajv.compile(
      JSON.parse(
        readFileSync(join(root, `vectors/harness/protocol/${name}.schema.json`), 'utf8'),
      ) as object,
    );
  const helloAnswer = schema('hello-answer');
  const caseAnswer = schema('case-answer');

  async function linesOf(command: string, name: string): Promise<Record<string, unknown>[]> {
    const log = join(work, `${name}.ndjson`);
    const io = memoryIo();
    const code = await main(['vectors', 'run', '--exec', `${command} | tee "${log}"`], io);
    expect(code, io.out.join('')).toBe(4);
    expect(io.out.join('')).toContain(`${TOTAL} cases: ${DIGEST} passed, 0 failed`);
    return readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  }

  function expectSchemaValid(lines: readonly Record<string, unknown>[]): void {
    expect(helloAnswer(lines[0]), JSON.stringify(helloAnswer.errors)).toBe(true);
    expect(lines).toHaveLength(TOTAL + 1);
    for (const line of lines.slice(1))
      expect(caseAnswer(line), `${String(line.id)}: ${JSON.stringify(caseAnswer.errors)}`).toBe(
        true,
      );
  }

  it.skipIf(!pythonRuns)('python/starter.py', async () => {
    need(pythonMissing);
    expectSchemaValid(
      await linesOf(`python3 "${join(root, 'vectors/adapters/python/starter.py')}"`, 'py'),
    );
  });

  it.skipIf(!goRuns)(
    'go/starter.go, built with go build into a temp dir',
    async () => {
      need(goMissing);
      const binary = join(mkdtempSync(join(tmpdir(), 'payconform-go-starter-')), 'starter');
      const build = spawnSync(
        'go',
        ['build', '-o', binary, join(root, 'vectors/adapters/go/starter.go')],
        { cwd: work, encoding: 'utf8', env: { ...process.env, GOPROXY: 'off' }, timeout: 240_000 },
      );
      expect(build.status, build.stderr).toBe(0);
      expectSchemaValid(await linesOf(`"${binary}"`, 'go'));
    },
    240_000,
  );
});
