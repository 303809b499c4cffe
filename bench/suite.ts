// `npm run bench:suite`: the suite as a newcomer and CI run it, timed, several times in a row. Each run clones the
// repository's committed HEAD into a fresh folder beside the repository (the developers' layout, where the tests find
// the spec: test/fixtures/spec.ts; or PAYCONFORM_SPEC_FILE) and runs `CI=true .ci/run` there (npm ci, prettier, tsc, vitest),
// optionally with one core kept busy beside it (`--load`: bench/load.ts). It prints each run's wall time, exit code and
// vitest's own duration, then whether every run passed within the limit: 300 s quiet and 450 s loaded by default
// (docs/performance.md, "The test suite's time"). A failing run's log is kept and named. Uncommitted changes are not
// in the clone: commit first. Runs are at most 20, each stopped after 900 s.
// Usage: tsx bench/suite.ts [--runs N] [--load] [--limit SECONDS] [--json]

import { execFileSync, spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, stripVTControlCharacters } from 'node:util';
import { describeLoad, startLoad, type LoadReport } from './load.js';

const USAGE = `usage: npm run bench:suite -- [--runs N] [--load] [--limit SECONDS] [--json]
  --runs N         runs in a row, 1 to 20 (default 1)
  --load           keep one core busy during each run (npm run bench:load)
  --limit SECONDS  the most a run may take (default 300, or 450 with --load)
  --json           one JSON line per run and a last summary line
`;
const MAX_RUNS = 20;
/** A run still going after this is stopped and counted as failed. */
const RUN_TIMEOUT_MS = 900_000;
/** Default limits, quiet and with one core busy. */
export const SUITE_LIMIT_SECONDS = { quiet: 300, loaded: 450 } as const;

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface SuiteRun {
  readonly run: number;
  readonly commit: string;
  readonly exitCode: number | null;
  readonly wallSeconds: number;
  /** vitest's "Duration" line, when it printed one. */
  readonly vitestSeconds: number | undefined;
  readonly load: LoadReport | undefined;
  /** The run's output, kept when it failed or went over the limit. */
  readonly log: string | undefined;
}

/** vitest's own duration from its summary line (`Duration  311.78s (...)`). */
export function vitestDuration(output: string): number | undefined {
  const plain = stripVTControlCharacters(output);
  const m = /^\s*Duration\s+([\d.]+)s/m.exec(plain);
  return m === null ? undefined : Number(m[1]);
}

/** One run: a fresh clone, `CI=true .ci/run` in it (its whole process group stopped after RUN_TIMEOUT_MS). */
async function runOnce(run: number, load: boolean, limit: number): Promise<SuiteRun> {
  const work = mkdtempSync(join(dirname(ROOT.replace(/\/$/, '')), 'payconform-suite-run-'));
  const clone = join(work, 'payconform');
  execFileSync('git', ['clone', '--quiet', ROOT, clone], { stdio: 'ignore' });
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: clone })
    .toString()
    .trim();
  const logPath = join(work, 'ci-run.log');
  const log = createWriteStream(logPath);
  const busy = load ? startLoad() : undefined;
  const started = performance.now();
  const exitCode = await new Promise<number | null>((resolve) => {
    const child = spawn('bash', ['.ci/run'], {
      cwd: clone,
      env: { ...process.env, CI: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    child.stdout.pipe(log, { end: false });
    child.stderr.pipe(log, { end: false });
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, RUN_TIMEOUT_MS);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
  const wallSeconds = (performance.now() - started) / 1000;
  const loadReport = await busy?.stop();
  await new Promise<void>((resolve) => log.end(resolve));
  const output = readFileSync(logPath, 'utf8');
  const kept = exitCode !== 0 || wallSeconds > limit;
  rmSync(clone, { recursive: true, force: true });
  if (!kept) rmSync(work, { recursive: true, force: true });
  return {
    run,
    commit,
    exitCode,
    wallSeconds,
    vitestSeconds: vitestDuration(output),
    load: loadReport,
    log: kept ? logPath : undefined,
  };
}

const describeRun = (r: SuiteRun, limit: number): string =>
  [
    `run ${r.run} (${r.commit}): ${r.exitCode === 0 ? 'green' : `RED (exit ${r.exitCode})`}`,
    `${r.wallSeconds.toFixed(0)} s${r.wallSeconds > limit ? ` OVER ${limit} s` : ''}`,
    r.vitestSeconds === undefined ? 'vitest: no duration' : `vitest ${r.vitestSeconds} s`,
    ...(r.load === undefined ? [] : [describeLoad(r.load)]),
    ...(r.log === undefined ? [] : [`log: ${r.log}`]),
  ].join(', ');

async function main(argv: readonly string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        runs: { type: 'string' },
        load: { type: 'boolean' },
        limit: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    process.stderr.write(
      `bench:suite: ${error instanceof Error ? error.message : String(error)}\n${USAGE}`,
    );
    return 2;
  }
  if (values.help === true) {
    process.stdout.write(USAGE);
    return 0;
  }
  const runs = Number(values.runs ?? '1');
  const load = values.load === true;
  const limit = Number(
    values.limit ?? (load ? SUITE_LIMIT_SECONDS.loaded : SUITE_LIMIT_SECONDS.quiet),
  );
  if (!Number.isInteger(runs) || runs < 1 || runs > MAX_RUNS) {
    process.stderr.write(`bench:suite: --runs must be a whole number from 1 to ${MAX_RUNS}\n`);
    return 2;
  }
  if (!Number.isFinite(limit) || limit <= 0) {
    process.stderr.write('bench:suite: --limit must be a positive number of seconds\n');
    return 2;
  }
  const results: SuiteRun[] = [];
  for (let run = 1; run <= runs; run++) {
    const r = await runOnce(run, load, limit);
    results.push(r);
    process.stdout.write(`${values.json === true ? JSON.stringify(r) : describeRun(r, limit)}\n`);
  }
  const passed = results.filter((r) => r.exitCode === 0 && r.wallSeconds <= limit).length;
  const times = results.map((r) => Math.round(r.wallSeconds));
  const summary = {
    runs,
    load,
    limitSeconds: limit,
    passed,
    wallSeconds: times,
    slowest: Math.max(...times),
  };
  process.stdout.write(
    values.json === true
      ? `${JSON.stringify(summary)}\n`
      : `${passed} of ${runs} green within ${limit} s${load ? ' with one core busy' : ''}; times ${times.join(', ')} s\n`,
  );
  return passed === runs ? 0 : 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  process.exitCode = await main(process.argv.slice(2));
