// `npm run bench`: runs every benchmark suite in one process, then prints a table and the ratios within this run.
// `--json` prints one `{ "name": ..., "opsPerSec": ... }` line per benchmark on stdout and nothing else.
// Usage: tsx bench/run.ts [--json] [--iterations N] [--warmup N] [--max-ms T] [--rounds R]

import { parseArgs } from 'node:util';
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
 * The suites, in run order. To add one, add a line: a module that exports a function returning a BenchmarkSuite and
 * does nothing on import. (bench/reference-service.ts is, for now, a standalone script that runs on import and parses
 * its own arguments; once it exports e.g. `createReferenceServiceSuite`, add:
 *   { name: 'reference-service', load: async () => (await import('./reference-service.js')).createReferenceServiceSuite() },
 */
const suites: readonly { readonly name: string; readonly load: () => Promise<BenchmarkSuite> }[] = [
  { name: 'signing', load: async () => (await import('./signing.js')).createSigningSuite() },
];

const USAGE = `usage: npm run bench -- [--json] [--iterations N] [--warmup N] [--max-ms T] [--rounds R]
  --json          one {"name","opsPerSec"} JSON line per benchmark on stdout, nothing else
  --iterations N  timed iterations per round, at most (default ${defaultHarnessOptions.iterations})
  --warmup N      untimed iterations before each round (default ${defaultHarnessOptions.warmupIterations})
  --max-ms T      timed milliseconds per round, at most (default ${defaultHarnessOptions.maxMilliseconds})
  --rounds R      interleaved rounds; each figure is the median (default ${defaultHarnessOptions.rounds})
`;

const LIMITS = { iterations: 1_000_000, warmup: 100_000, 'max-ms': 60_000, rounds: 21 } as const;

class UsageError extends Error {}

function integerOption(raw: string | undefined, flag: keyof typeof LIMITS, fallback: number, min: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new UsageError(`--${flag} must be an integer, got ${JSON.stringify(raw)}`);
  const value = Number(raw);
  if (value < min || value > LIMITS[flag]) throw new UsageError(`--${flag} must be between ${min} and ${LIMITS[flag]}`);
  return value;
}

function parseOptions(argv: readonly string[]): { json: boolean; harness: HarnessOptions } | 'help' {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        iterations: { type: 'string' },
        warmup: { type: 'string' },
        'max-ms': { type: 'string' },
        rounds: { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
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
  };
}

const formatOps = (ops: number): string => Math.round(ops).toLocaleString('en-US');

function table(measurements: readonly Measurement[], comparisons: readonly Comparison[], options: HarnessOptions): string {
  const lines: string[] = [];
  const nameWidth = Math.max(...measurements.map((m) => m.name.length), 4);
  lines.push(
    `rounds ${options.rounds} (median shown), per round ${options.warmupIterations} warm-up + at most ${options.iterations} iterations or ${options.maxMilliseconds} ms`,
    '',
    `${'name'.padEnd(nameWidth)}  ${'ops/s'.padStart(9)}  ${'rounds min-max'.padEnd(15)}  what`,
  );
  for (const m of measurements) {
    const range = `${formatOps(Math.min(...m.roundOpsPerSec))}-${formatOps(Math.max(...m.roundOpsPerSec))}`;
    lines.push(`${m.name.padEnd(nameWidth)}  ${formatOps(m.opsPerSec).padStart(9)}  ${range.padEnd(15)}  ${m.title}`);
  }
  if (comparisons.length > 0) lines.push('', 'ratios (median of the per-round ratios):');
  for (const c of comparisons) {
    const value = compare(measurements, c);
    const shown = value === undefined ? 'n/a' : value.toFixed(2);
    const verdict = c.target === undefined || value === undefined ? '' : value >= c.target ? `  target ≥ ${c.target}: met` : `  target ≥ ${c.target}: MISSED`;
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
  const { json, harness } = parsed;
  const loaded: BenchmarkSuite[] = [];
  try {
    for (const suite of suites) loaded.push(await suite.load());
    const benchmarks: Benchmark[] = loaded.flatMap((s) => s.benchmarks);
    const comparisons: Comparison[] = loaded.flatMap((s) => s.comparisons ?? []);
    const progress = json
      ? undefined
      : (name: string, round: number, ops: number) => process.stderr.write(`  round ${round + 1} ${name}: ${formatOps(ops)} ops/s\n`);
    const measurements = await runBenchmarks(benchmarks, harness, progress);
    if (json) {
      for (const m of measurements) process.stdout.write(`${JSON.stringify({ name: m.name, opsPerSec: Math.round(m.opsPerSec * 10) / 10 })}\n`);
    } else {
      process.stdout.write(table(measurements, comparisons, harness));
    }
    return 0;
  } finally {
    for (const suite of loaded) await suite.close?.();
  }
}

process.exitCode = await main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  return 1;
});
