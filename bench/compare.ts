// `npm run bench:compare -- REF`: the core benchmarks of this working tree against the commit REF, built in a
// temporary git worktree, the two builds alternating round by round in one run (the machine drifts; docs/performance.md
// "Comparing two commits"). Per round, each build runs `bench/run.ts --json` (verifyRequest and verifyRequestAsync
// against raw Ed25519 and http-message-signatures, the reference service against a bare verifying server, the
// explorer's steps per second) and times the suite's slowest test files (vitest.config.ts SLOWEST_FIRST). Printed:
// each row's ratio this tree ÷ REF (median of the per-round ratios, with their spread), then the ratios within each
// build that the targets are stated in, each with its spread.
// Usage: tsx bench/compare.ts REF [--rounds N] [--suite-files N] [--explore-seconds S] [--bench-rounds R]
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseBenchFlags, UsageError } from './usage.js';

const USAGE = `usage: npm run bench:compare -- REF [--rounds N] [--suite-files N] [--explore-seconds S] [--bench-rounds R]
  REF                a commit, branch or tag: built in a temporary git worktree and compared with this working tree
  --rounds N         alternating rounds (default 3, at most 15); each ratio is the median of the per-round ratios
  --bench-rounds R   bench/run.ts --rounds inside each round (default 3)
  --suite-files N    the slowest test files timed in each round (default 10; 0 skips the suite)
  --explore-seconds S  seconds of exploring for each explorer row (default 5; 0 skips them)
`;

/** One side of the comparison: where its tree is. */
interface Build {
  readonly label: string;
  readonly dir: string;
}

/** Per build, per row name, the figure of each round (ops/s, or seconds for the suite rows). */
type Samples = Map<string, Map<string, number[]>>;

/** The ratios the targets are stated in (docs/performance.md): numerator and denominator row names. */
const WITHIN_BUILD: ReadonlyArray<readonly [string, string, string]> = [
  ['verifyRequest / raw Ed25519', 'verify-request-node', 'ed25519-verify-node-crypto'],
  [
    'verifyRequestAsync 64 in flight / raw Ed25519 (one thread)',
    'verify-request-async-64',
    'ed25519-verify-node-crypto',
  ],
  [
    'verifyRequestAsync 16 in flight / raw Ed25519 (one thread)',
    'verify-request-async-16',
    'ed25519-verify-node-crypto',
  ],
  [
    'verifyRequest / http-message-signatures',
    'verify-request-node',
    'http-message-signatures-verify',
  ],
  ['reference service / bare verifying server', 'reference-service', 'bare-node-http-verify'],
];

interface Options {
  readonly ref: string;
  readonly rounds: number;
  readonly benchRounds: number;
  readonly suiteFiles: number;
  readonly exploreSeconds: number;
}

function integer(raw: string | undefined, flag: string, fallback: number, max: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) > max)
    throw new UsageError(
      `--${flag} must be an integer from 0 to ${max}, got ${JSON.stringify(raw)}`,
    );
  return Number(raw);
}

function parseOptions(argv: readonly string[]): Options {
  const [ref, ...rest] = argv;
  if (ref === undefined || ref.startsWith('-')) throw new UsageError('REF is missing');
  const values = parseBenchFlags(rest, {
    rounds: { type: 'string' },
    'bench-rounds': { type: 'string' },
    'suite-files': { type: 'string' },
    'explore-seconds': { type: 'string' },
  });
  const rounds = integer(values.rounds, 'rounds', 3, 15);
  if (rounds < 1) throw new UsageError('--rounds must be at least 1');
  return {
    ref,
    rounds,
    benchRounds: Math.max(1, integer(values['bench-rounds'], 'bench-rounds', 3, 21)),
    suiteFiles: integer(values['suite-files'], 'suite-files', 10, 40),
    exploreSeconds: integer(values['explore-seconds'], 'explore-seconds', 5, 120),
  };
}

const git = (args: readonly string[], cwd: string): string =>
  execFileSync('git', [...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();

/**
 * REF checked out in a temporary worktree. Its node_modules is this tree's (linked) when the lockfiles are the same
 * bytes; else `npm ci` from the local cache first (`--prefer-offline`, no install scripts), linked only if that fails.
 */
function prepareRef(root: string, ref: string): Build {
  const commit = git(['rev-parse', '--verify', `${ref}^{commit}`], root);
  const dir = join(mkdtempSync(join(tmpdir(), 'payconform-compare-')), 'tree');
  git(['worktree', 'add', '--detach', dir, commit], root);
  const lock = (d: string): string => readFileSync(join(d, 'package-lock.json'), 'utf8');
  let linked = lock(dir) === lock(root);
  if (!linked) {
    try {
      execFileSync(
        'npm',
        ['ci', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'],
        {
          cwd: dir,
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
    } catch {
      process.stderr.write(`npm ci failed in ${dir}: linking this tree's node_modules instead\n`);
      linked = true;
    }
  }
  if (linked) symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return { label: `${ref} (${commit.slice(0, 7)})`, dir };
}

/** Runs `node ARGS` in `cwd` to its end; its stdout, or an error with its stderr's tail. */
function runNode(args: readonly string[], cwd: string, what: string): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString('utf8')));
    child.stderr.on('data', (b: Buffer) => (err += b.toString('utf8')));
    child.on('close', (code) =>
      code === 0
        ? done(out)
        : fail(new Error(`${what} in ${cwd} exited ${code}:\n${err.slice(-2000)}`)),
    );
  });
}

/** One `bench/run.ts --json` of a build: each row's ops/s. */
async function benchRows(build: Build, options: Options): Promise<Map<string, number>> {
  const out = await runNode(
    [
      '--import',
      'tsx',
      'bench/run.ts',
      '--json',
      '--rounds',
      String(options.benchRounds),
      '--server-rounds',
      '1',
      '--server-rate',
      '0',
      '--explore-seconds',
      String(options.exploreSeconds),
    ],
    build.dir,
    'bench/run.ts',
  );
  const rows = new Map<string, number>();
  for (const line of out.split('\n').filter((l) => l.startsWith('{'))) {
    const row = JSON.parse(line) as { name: string; opsPerSec: number };
    rows.set(row.name, row.opsPerSec);
  }
  return rows;
}

/** The first `n` files of this tree's SLOWEST_FIRST (vitest.config.ts), as the suite rows time them. */
function slowestFiles(root: string, n: number): string[] {
  const config = readFileSync(join(root, 'vitest.config.ts'), 'utf8');
  const list = /SLOWEST_FIRST[^=]*=\s*\[([\s\S]*?)\];/.exec(config)?.[1] ?? '';
  return [...list.matchAll(/'(test\/[^']+)'/g)].map((m) => m[1]!).slice(0, n);
}

/**
 * The files run by one vitest in the build: the wall seconds of the whole run and of each file. A file that does not
 * pass is named on stderr (its time still counts: a flaky file under load is part of what the suite costs).
 */
async function suiteRows(build: Build, files: readonly string[]): Promise<Map<string, number>> {
  const present = files.filter((f) => existsSync(join(build.dir, f)));
  const report = join(mkdtempSync(join(tmpdir(), 'payconform-compare-suite-')), 'vitest.json');
  const started = performance.now();
  const args = ['node_modules/vitest/vitest.mjs', 'run', ...present, '--reporter=json'];
  await runNode([...args, `--outputFile.json=${report}`], build.dir, 'vitest').catch(
    () => undefined, // a failing file: named below from the report
  );
  const wall = (performance.now() - started) / 1000;
  const rows = new Map<string, number>([['suite: slowest files, wall s', wall]]);
  if (!existsSync(report)) {
    process.stderr.write(`${build.label}: vitest wrote no report\n`);
    return rows;
  }
  const json = JSON.parse(readFileSync(report, 'utf8')) as {
    testResults: Array<{ name: string; startTime: number; endTime: number; status: string }>;
  };
  for (const r of json.testResults) {
    const file = r.name.slice(build.dir.length + 1);
    rows.set(`suite: ${file} s`, (r.endTime - r.startTime) / 1000);
    if (r.status !== 'passed') process.stderr.write(`${build.label}: ${file} ${r.status}\n`);
  }
  return rows;
}

function record(samples: Samples, build: Build, rows: Map<string, number>): void {
  const byName = samples.get(build.label) ?? new Map<string, number[]>();
  samples.set(build.label, byName);
  for (const [name, value] of rows) byName.set(name, [...(byName.get(name) ?? []), value]);
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

/** `median (min–max over n rounds)` of per-round values. */
const spread = (xs: readonly number[]): string =>
  `${median(xs).toFixed(2)} (${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)} over ${xs.length})`;

/** Per-round ratios a[i] ÷ b[i] over the rounds both have. */
const ratios = (a: readonly number[] = [], b: readonly number[] = []): number[] =>
  a.slice(0, Math.min(a.length, b.length)).map((x, i) => x / b[i]!);

function report(samples: Samples, current: Build, ref: Build): string {
  const here = samples.get(current.label) ?? new Map<string, number[]>();
  const there = samples.get(ref.label) ?? new Map<string, number[]>();
  const lines = [
    `\nThis tree ÷ ${ref.label}, per row (ops/s rows: above 1 is faster here; suite rows in seconds: below 1 is faster here):`,
  ];
  for (const [name, values] of here) {
    const r = ratios(values, there.get(name));
    lines.push(`  ${name.padEnd(58)} ${r.length > 0 ? spread(r) : `only in this tree`}`);
  }
  for (const name of there.keys())
    if (!here.has(name)) lines.push(`  ${name.padEnd(58)} only in ${ref.label}`);
  lines.push('\nRatios within each build (median of per-round ratios, min–max):');
  for (const [title, numerator, denominator] of WITHIN_BUILD) {
    const cells = [current, ref].map((b) => {
      const rows = samples.get(b.label);
      const r = ratios(rows?.get(numerator), rows?.get(denominator));
      return `${b === current ? 'this tree' : ref.label} ${r.length > 0 ? spread(r) : '–'}`;
    });
    lines.push(`  ${title}\n    ${cells.join('   ')}`);
  }
  return `${lines.join('\n')}\n`;
}

async function compareBuilds(options: Options, current: Build, ref: Build): Promise<Samples> {
  const samples: Samples = new Map();
  const files = slowestFiles(current.dir, options.suiteFiles);
  for (let round = 0; round < options.rounds; round++) {
    // Alternate which build goes first, so neither always runs on the warmer (or busier) machine.
    for (const build of round % 2 === 0 ? [current, ref] : [ref, current]) {
      process.stderr.write(`round ${round + 1}/${options.rounds}: ${build.label}\n`);
      const rows = await benchRows(build, options);
      if (files.length > 0) for (const [k, v] of await suiteRows(build, files)) rows.set(k, v);
      record(samples, build, rows);
    }
  }
  return samples;
}

async function runCompare(argv: readonly string[]): Promise<number> {
  let options: Options;
  try {
    options = parseOptions(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message}\n${USAGE}`);
    return 2;
  }
  const root = resolve(git(['rev-parse', '--show-toplevel'], process.cwd()));
  const current: Build = {
    label: `this tree (${git(['rev-parse', '--short', 'HEAD'], root)}+)`,
    dir: root,
  };
  let ref: Build;
  try {
    ref = prepareRef(root, options.ref);
  } catch (error) {
    const detail = (error as { stderr?: Buffer | string }).stderr?.toString().trim();
    process.stderr.write(
      `bench:compare: cannot build ${JSON.stringify(options.ref)}: ${detail || (error instanceof Error ? error.message : String(error))}\n`,
    );
    return 2;
  }
  try {
    const samples = await compareBuilds(options, current, ref);
    process.stdout.write(report(samples, current, ref));
    return 0;
  } catch (error) {
    process.stderr.write(
      `bench:compare: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return 1;
  } finally {
    git(['worktree', 'remove', '--force', ref.dir], root);
    rmSync(join(ref.dir, '..'), { recursive: true, force: true });
  }
}

process.exitCode = await runCompare(process.argv.slice(2));
