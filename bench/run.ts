// `npm run bench`: runs every benchmark suite in one process, then prints a table and the ratios within this run.
// `--json` prints one `{ "name": ..., "opsPerSec": ... }` line per benchmark on stdout and nothing else.
// Usage: tsx bench/run.ts [--json] [--iterations N] [--warmup N] [--max-ms T] [--rounds R] [--server-requests N]
//        [--server-rounds R] [--server-rate R] [--explore-seconds S]

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseBenchFlags, UsageError } from './usage.js';
import type { ServerRow } from './reference-service.js';
import {
  compare,
  defaultHarnessOptions,
  runBenchmarks,
  type Benchmark,
  type BenchmarkSuite,
  type Comparison,
  type HarnessOptions,
  type Measurement,
} from './harness.js';

/**
 * The in-process suites, in run order. To add one, add a line: a module that exports a function returning a
 * BenchmarkSuite and does nothing on import. The server benchmark (bench/reference-service.ts) needs servers in child
 * processes and its own request loop, so it runs after these as a child process (`runServerBenchmark`).
 */
const suites: readonly { readonly name: string; readonly load: () => Promise<BenchmarkSuite> }[] = [
  { name: 'signing', load: async () => (await import('./signing.js')).createSigningSuite() },
];

const SERVER_DEFAULTS = { requests: 3000, rounds: 5, rate: 1000 } as const;
/** reference-service ÷ bare-node-http-verify should reach this. */
const SERVER_RATIO_TARGET = 0.85;
const SERVER_TIMEOUT_MS = 300_000;

const USAGE = `usage: npm run bench -- [--json] [--iterations N] [--warmup N] [--max-ms T] [--rounds R]
  --json          one {"name","opsPerSec"} JSON line per benchmark on stdout, nothing else
  --iterations N  timed iterations per round, at most (default ${defaultHarnessOptions.iterations})
  --warmup N      untimed iterations before each round (default ${defaultHarnessOptions.warmupIterations})
  --max-ms T      timed milliseconds per round, at most (default ${defaultHarnessOptions.maxMilliseconds})
  --rounds R      interleaved rounds; each figure is the median (default ${defaultHarnessOptions.rounds})
  --server-requests N  signed payouts per server round over loopback (default ${SERVER_DEFAULTS.requests}; 0 skips the server benchmark)
  --server-rounds R    alternating server rounds; the best of each is shown (default ${SERVER_DEFAULTS.rounds})
  --server-rate R      requests/s offered to each server for the p50/p99 latency rows (default ${SERVER_DEFAULTS.rate}; 0 skips them)
  --explore-seconds S  seconds of exploring for each explorer row (embedded, serve over loopback; default 5; 0 skips)
`;

const LIMITS = {
  iterations: 1_000_000,
  warmup: 100_000,
  'max-ms': 60_000,
  rounds: 21,
  'server-requests': 100_000,
  'server-rounds': 10,
  'server-rate': 20_000,
  'explore-seconds': 120,
} as const;

function integerOption(
  raw: string | undefined,
  flag: keyof typeof LIMITS,
  fallback: number,
  min: number,
): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw))
    throw new UsageError(`--${flag} must be an integer, got ${JSON.stringify(raw)}`);
  const value = Number(raw);
  if (value < min || value > LIMITS[flag])
    throw new UsageError(`--${flag} must be between ${min} and ${LIMITS[flag]}`);
  return value;
}

interface ServerOptions {
  readonly requests: number;
  readonly rounds: number;
  readonly rate: number;
}

function parseOptions(
  argv: readonly string[],
):
  | { json: boolean; harness: HarnessOptions; server: ServerOptions; exploreSeconds: number }
  | 'help' {
  const values = parseBenchFlags(argv, {
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
    iterations: { type: 'string' },
    warmup: { type: 'string' },
    'max-ms': { type: 'string' },
    rounds: { type: 'string' },
    'server-requests': { type: 'string' },
    'server-rounds': { type: 'string' },
    'server-rate': { type: 'string' },
    'explore-seconds': { type: 'string' },
  });
  if (values.help === true) return 'help';
  const d = defaultHarnessOptions;
  return {
    json: values.json === true,
    harness: {
      iterations: integerOption(values.iterations, 'iterations', d.iterations, 1),
      warmupIterations: integerOption(values.warmup, 'warmup', d.warmupIterations, 0),
      maxMilliseconds: integerOption(values['max-ms'], 'max-ms', d.maxMilliseconds, 1),
      rounds: integerOption(values.rounds, 'rounds', d.rounds, 1),
    },
    server: {
      requests: integerOption(
        values['server-requests'],
        'server-requests',
        SERVER_DEFAULTS.requests,
        0,
      ),
      rounds: integerOption(values['server-rounds'], 'server-rounds', SERVER_DEFAULTS.rounds, 1),
      rate: integerOption(values['server-rate'], 'server-rate', SERVER_DEFAULTS.rate, 0),
    },
    exploreSeconds: integerOption(values['explore-seconds'], 'explore-seconds', 5, 0),
  };
}

/** Runs a benchmark script in a child process (bounded by a timeout) and returns its stdout lines. */
function runChildLines(script: string, args: readonly string[], what: string): Promise<string[]> {
  const path = fileURLToPath(new URL(script, import.meta.url));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, path, ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    const timer = setTimeout(() => child.kill(), SERVER_TIMEOUT_MS);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (code !== 0)
        return reject(new Error(`${what} ended with ${signal ?? `exit code ${code}`}`));
      resolve(out.split('\n').filter((line) => line !== ''));
    });
  });
}

/** bench/reference-service.ts in a child process: its JSON rows. */
async function runServerBenchmark(options: ServerOptions): Promise<ServerRow[]> {
  const lines = await runChildLines(
    './reference-service.ts',
    [
      '--json',
      '--requests',
      String(options.requests),
      '--rounds',
      String(options.rounds),
      '--rate',
      String(options.rate),
    ],
    'server benchmark',
  );
  try {
    return lines.map((line) => JSON.parse(line) as ServerRow);
  } catch {
    throw new Error('server benchmark printed something other than JSON lines');
  }
}

/** bench/explore.ts in a child process: its JSON lines (explored steps per second, embedded and over loopback). */
function runExploreBenchmark(seconds: number): Promise<string[]> {
  return runChildLines(
    './explore.ts',
    ['--json', '--seconds', String(seconds)],
    'explore benchmark',
  );
}

function serverTable(results: readonly ServerRow[], options: ServerOptions): string {
  const throughput = results.filter((r) => r.offeredPerSec === undefined);
  const fixedLoad = results.filter((r) => r.offeredPerSec !== undefined);
  const lines = [
    '',
    `signed POST /api/payouts over loopback: ${options.requests} requests, 16 connections, best of ${options.rounds} alternating rounds`,
    ...throughput.map(
      (r) =>
        `  ${r.name.padEnd(36)} ${formatOps(r.opsPerSec).padStart(9)} req/s   p50 ${r.p50Ms} ms   p99 ${r.p99Ms} ms`,
    ),
  ];
  const limit = throughput.find((r) => r.name === 'bare-node-http-verify')?.roundOpsPerSec;
  const reference = throughput.find((r) => r.name === 'reference-service')?.roundOpsPerSec;
  if (limit && reference && limit.length === reference.length && limit.length > 0) {
    // Rounds alternate bare, reference: each ratio compares two figures taken seconds apart.
    const ratios = reference.map((ops, i) => ops / limit[i]!).sort((a, b) => a - b);
    const ratio = ratios[ratios.length >> 1]!;
    const verdict = ratio >= SERVER_RATIO_TARGET ? 'met' : 'MISSED';
    lines.push(
      `  reference service / bare verifying server (median of per-round ratios): ${ratio.toFixed(2)}  target ≥ ${SERVER_RATIO_TARGET}: ${verdict}`,
    );
  }
  if (fixedLoad.length > 0) {
    lines.push(
      `at a fixed offered load of ${formatOps(fixedLoad[0]!.offeredPerSec!)} req/s (open loop, ${options.requests} requests each):`,
    );
    for (const r of fixedLoad)
      lines.push(
        `  ${r.name.padEnd(36)} ${formatOps(r.opsPerSec).padStart(9)} req/s   p50 ${r.p50Ms} ms   p99 ${r.p99Ms} ms`,
      );
  }
  return `${lines.join('\n')}\n`;
}

const formatOps = (ops: number): string => Math.round(ops).toLocaleString('en-US');

function table(
  measurements: readonly Measurement[],
  comparisons: readonly Comparison[],
  options: HarnessOptions,
): string {
  const lines: string[] = [];
  const nameWidth = Math.max(...measurements.map((m) => m.name.length), 4);
  lines.push(
    `rounds ${options.rounds} (median shown), per round ${options.warmupIterations} warm-up + at most ${options.iterations} iterations or ${options.maxMilliseconds} ms`,
    '',
    `${'name'.padEnd(nameWidth)}  ${'ops/s'.padStart(9)}  ${'rounds min-max'.padEnd(15)}  what`,
  );
  for (const m of measurements) {
    const range = `${formatOps(Math.min(...m.roundOpsPerSec))}-${formatOps(Math.max(...m.roundOpsPerSec))}`;
    lines.push(
      `${m.name.padEnd(nameWidth)}  ${formatOps(m.opsPerSec).padStart(9)}  ${range.padEnd(15)}  ${m.title}`,
    );
  }
  if (comparisons.length > 0) lines.push('', 'ratios (median of the per-round ratios):');
  for (const c of comparisons) {
    const value = compare(measurements, c);
    const shown = value === undefined ? 'n/a' : value.toFixed(2);
    const verdict =
      c.target === undefined || value === undefined
        ? ''
        : value >= c.target
          ? `  target ≥ ${c.target}: met`
          : `  target ≥ ${c.target}: MISSED`;
    lines.push(`  ${c.label}: ${shown}${verdict}`);
  }
  lines.push(
    '',
    `node ${process.version}, ${process.platform}/${process.arch}; ratios compare figures of this run only`,
  );
  return `${lines.join('\n')}\n`;
}

async function main(argv: readonly string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseOptions(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`bench: ${error.message}\n${USAGE}`);
    return 2;
  }
  if (parsed === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  const { json, harness, server, exploreSeconds } = parsed;
  const loaded: BenchmarkSuite[] = [];
  try {
    for (const suite of suites) loaded.push(await suite.load());
    const benchmarks: Benchmark[] = loaded.flatMap((s) => s.benchmarks);
    const comparisons: Comparison[] = loaded.flatMap((s) => s.comparisons ?? []);
    const progress = json
      ? undefined
      : (name: string, round: number, ops: number) =>
          process.stderr.write(`  round ${round + 1} ${name}: ${formatOps(ops)} ops/s\n`);
    const measurements = await runBenchmarks(benchmarks, harness, progress);
    const serverResults = server.requests > 0 ? await runServerBenchmark(server) : [];
    const exploreRows = exploreSeconds > 0 ? await runExploreBenchmark(exploreSeconds) : [];
    if (json) {
      for (const m of measurements)
        process.stdout.write(
          `${JSON.stringify({ name: m.name, opsPerSec: Math.round(m.opsPerSec * 10) / 10 })}\n`,
        );
      for (const r of serverResults) process.stdout.write(`${JSON.stringify(r)}\n`);
      for (const r of exploreRows) process.stdout.write(`${r}\n`);
    } else {
      process.stdout.write(table(measurements, comparisons, harness));
      if (serverResults.length > 0) process.stdout.write(serverTable(serverResults, server));
      if (exploreRows.length > 0)
        process.stdout.write(
          `\nExplorer (clean service, seed 1, ${exploreSeconds} s each; steps include waits):\n${exploreRows
            .map((line) => {
              const r = JSON.parse(line) as {
                name: string;
                opsPerSec: number;
                steps: number;
                sequences: number;
              };
              return `  ${r.name.padEnd(30)} ${String(r.opsPerSec).padStart(8)} steps/s (${r.steps} steps, ${r.sequences} sequences)`;
            })
            .join('\n')}\n`,
        );
    }
    return 0;
  } finally {
    for (const suite of loaded) await suite.close?.();
  }
}

process.exitCode = await main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(
    `bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  return 1;
});
