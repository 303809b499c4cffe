// `npm run bench:startup`: start-up time of the installed `payconform` command (a benchmark, never a timed test).
// Packs the package (`npm pack`, which builds dist/), installs the tarball into a temporary project (needs the npm
// registry for the dependencies), then times whole processes, interleaved round by round:
//   node -e 0                     the floor: Node's own start-up on this machine
//   payconform --help             the installed command (dist/ JavaScript)
//   payconform --version
//   from sources through tsx      `node --import tsx cli/bin.ts --help`: what every start cost before the build
//   the single executable         --help and --version of `npm run build:binary`'s executable, with --executable
// and prints the minimum (the figure quoted in the README) and the median of each.
// Usage: tsx bench/startup.ts [--runs N] [--bin PATH] [--executable PATH] [--json]
//   --bin PATH  time this payconform executable instead of packing and installing (e.g. bin/payconform.js after a build)
//   --executable PATH  also time the single executable (docs/performance.md compares it with `node dist/...`)
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = fileURLToPath(new URL('..', import.meta.url));
const USAGE =
  'usage: npm run bench:startup -- [--runs N] [--bin PATH] [--executable PATH] [--json]\n';

interface Row {
  readonly name: string;
  readonly command: readonly string[];
  readonly times: number[];
}

function fail(message: string): never {
  process.stderr.write(`bench:startup: ${message}\n`);
  process.exit(2);
}

function must(command: string, args: readonly string[], cwd: string): string {
  const r = spawnSync(command, [...args], {
    cwd,
    encoding: 'utf8',
    timeout: 300_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.error || r.status !== 0)
    fail(`${command} ${args.join(' ')} failed (status ${r.status}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** Packs and installs the package into a temporary project; returns the installed bin and the directory to remove. */
function install(): { bin: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'payconform-startup-'));
  const packed = must('npm', ['pack', '--json', '--pack-destination', dir], root);
  const tarball = join(
    dir,
    (JSON.parse(packed.slice(packed.indexOf('['))) as Array<{ filename: string }>)[0]!.filename,
  );
  const project = join(dir, 'project');
  mkdirSync(project);
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'startup-bench', private: true, type: 'module' }),
  );
  must('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], project);
  return { bin: join(project, 'node_modules', '.bin', 'payconform'), dir };
}

/** Wall time of one whole process, in milliseconds; the process must exit 0. */
function time(command: readonly string[]): number {
  const start = process.hrtime.bigint();
  const r = spawnSync(command[0]!, command.slice(1), { stdio: 'ignore', timeout: 30_000 });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.error || r.status !== 0)
    fail(`${command.join(' ')} exited ${r.status}${r.error ? ` (${r.error.message})` : ''}`);
  return ms;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

let values: { runs?: string; bin?: string; executable?: string; json?: boolean };
try {
  ({ values } = parseArgs({
    options: {
      runs: { type: 'string' },
      bin: { type: 'string' },
      executable: { type: 'string' },
      json: { type: 'boolean' },
    },
    strict: true,
    allowPositionals: false,
  }));
} catch (error) {
  fail(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
}
const runs = values.runs === undefined ? 20 : Number(values.runs);
if (!Number.isSafeInteger(runs) || runs < 1 || runs > 1000)
  fail(`--runs must be an integer from 1 to 1000\n${USAGE}`);

const installed = values.bin === undefined ? install() : { bin: values.bin, dir: undefined };
const tsx = join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs');
const source = join(root, 'cli', 'bin.ts');
const rows: Row[] = [
  { name: 'node -e 0 (floor)', command: [process.execPath, '-e', '0'], times: [] },
  { name: 'payconform --help', command: [installed.bin, '--help'], times: [] },
  { name: 'payconform --version', command: [installed.bin, '--version'], times: [] },
  {
    name: 'from sources through tsx: --help',
    command: [process.execPath, '--import', tsx, source, '--help'],
    times: [],
  },
  ...(values.executable === undefined
    ? []
    : ['--help', '--version'].map((flag) => ({
        name: `single executable ${flag}`,
        command: [values.executable!, flag],
        times: [],
      }))),
];
try {
  for (const row of rows) time(row.command); // one untimed run each: file-system caches warm
  for (let i = 0; i < runs; i++) for (const row of rows) row.times.push(time(row.command));
} finally {
  if (installed.dir !== undefined) rmSync(installed.dir, { recursive: true, force: true });
}

if (values.json) {
  for (const row of rows)
    process.stdout.write(
      `${JSON.stringify({ name: row.name, minMs: Number(Math.min(...row.times).toFixed(1)), medianMs: Number(median(row.times).toFixed(1)), runs })}\n`,
    );
} else {
  process.stdout.write(
    `start-up, ${runs} runs each, interleaved; Node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'})\n`,
  );
  for (const row of rows) {
    process.stdout.write(
      `  ${row.name.padEnd(34)} min ${Math.min(...row.times)
        .toFixed(1)
        .padStart(7)} ms   median ${median(row.times).toFixed(1).padStart(7)} ms\n`,
    );
  }
}
