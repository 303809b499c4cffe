// `npm run bench:cores`: how far one process feeds many cores. For each configuration a fresh child
// process verifies distinct signed 600-byte payouts with verifyRequestAsync and measures, in the same run, one raw
// synchronous Ed25519 verify against the event loop's busy time per verified request
// (`performance.eventLoopUtilization()`; with Linux also the main thread's CPU time from /proc), and the throughput
// in times one core. Configurations: the worker pool at each size (PAYCONFORM_VERIFY_THREADS), the pool off (step 10
// on libuv's pool, UV_THREADPOOL_SIZE set per child), the raw callback verify on libuv's pool (its ceiling), and
// several processes at once. A benchmark, never a timed test; bounded: every child has a timeout, every loop a count.
// Keys and the application secret are TEST ONLY (test/fixtures/keys/); nothing secret is printed.
// Usage: tsx bench/cores.ts [--json] [--requests N] [--rounds R] [--in-flight K] [--threads LIST] [--processes LIST]
//        [--seconds S]

import { spawn } from 'node:child_process';
import { createPublicKey, verify as nodeVerify, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseBenchFlags, UsageError } from './usage.js';
import {
  applySignedHeaders,
  MemoryNonceStore,
  signRequest,
  startVerifyPool,
  verifyPoolInfo,
  verifyRequestAsync,
  type ApplicationRecord,
  type HttpRequest,
} from '../index.js';
import { exportEd25519PublicKeyDer } from '../src/keys/index.js';
import { loadTestKeys } from '../test/fixtures/keys.js';
import { median } from './harness.js';
import { payoutBody } from './signing.js';

/** The issue's target: one loop feeds at least this many cores' worth of raw Ed25519 verification. */
export const LOOP_RATIO_TARGET = 11;
const CHILD_TIMEOUT_MS = 300_000;
const TEST_ONLY_APPLICATION_ID = '2f0b5a43-9d8e-4c3b-9a59-0e6f1c7d2b11';
const TEST_ONLY_APPLICATION_SECRET = 'test-only-bench-application-secret';
const KEY_ID = 'test-only-bench-key';

export interface Machine {
  readonly cores: number;
  readonly model: string;
  readonly loadAverage: readonly number[];
  readonly node: string;
  readonly platform: string;
}

/** One child's figures. `mode`: workers (the pool), libuv (pool off), raw-libuv (callback verify only). */
export interface CoresRow {
  readonly name: 'pool' | 'processes';
  readonly mode: 'workers' | 'libuv' | 'raw-libuv';
  readonly threads: number;
  readonly processes: number;
  readonly inFlight: number;
  readonly requests: number;
  /** One raw synchronous verify, µs (median of rounds). */
  readonly rawVerifyUs: number;
  /** Event loop busy time per verified request, µs (best round), and the ratio raw ÷ that (best round). */
  readonly loopBusyUs: number | null;
  readonly loopRatio: number | null;
  /** The main thread's CPU time per request (Linux /proc schedstat), µs, and raw CPU ÷ that; null elsewhere. */
  readonly loopCpuUs: number | null;
  readonly cpuRatio: number | null;
  /** Verified requests per second (best round; for processes the sum over them), and ÷ one thread's raw rate. */
  readonly opsPerSec: number;
  readonly timesOneCore: number;
  /** Worker rows: the share of the measured requests whose step 10 ran with their parse (one round trip). */
  readonly aheadShare: number | null;
  readonly machine: Machine;
}

export function machine(): Machine {
  return {
    cores: availableParallelism(),
    model: cpus()[0]?.model.trim() ?? 'unknown',
    loadAverage: loadavg().map((l) => Math.round(l * 100) / 100),
    node: process.version,
    platform: `${process.platform}/${process.arch}`,
  };
}

// ---- child: one configuration ----

interface ChildSpec {
  readonly mode: CoresRow['mode'];
  readonly requests: number;
  readonly rounds: number;
  readonly inFlight: number;
  /** For the processes rows: measure for `seconds` once the parent says go (on stdin). */
  readonly window?: boolean;
  readonly seconds?: number;
}

/** This thread's CPU time in µs (Linux: the main thread's schedstat), or undefined elsewhere. */
function threadCpuUs(): number | undefined {
  try {
    const text = readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8');
    return Number(text.split(' ')[0]) / 1000;
  } catch {
    return undefined;
  }
}

interface Signed {
  readonly request: HttpRequest;
  readonly base: Buffer;
  readonly signature: Buffer;
}

function signer(): {
  sign: (created: number) => Signed;
  apps: Map<string, ApplicationRecord>;
  key: KeyObject;
} {
  const key = loadTestKeys().clientEd25519;
  const unsigned: HttpRequest = {
    method: 'POST',
    url: 'https://api.sandbox.example.com/api/payouts',
    headers: [['Content-Type', 'application/vnd.service.v1.0+json']],
    body: payoutBody(),
  };
  const credentials = {
    applicationId: TEST_ONLY_APPLICATION_ID,
    applicationSecret: TEST_ONLY_APPLICATION_SECRET,
    keyId: KEY_ID,
    privateKey: key.privateKey,
  };
  const apps = new Map<string, ApplicationRecord>([
    [
      TEST_ONLY_APPLICATION_ID,
      { secret: TEST_ONLY_APPLICATION_SECRET, publicKeys: new Map([[KEY_ID, key.publicKey]]) },
    ],
  ]);
  const keyObject = createPublicKey({
    key: Buffer.from(exportEd25519PublicKeyDer(key.publicKey)),
    format: 'der',
    type: 'spki',
  });
  return {
    apps,
    key: keyObject,
    sign(created) {
      const signed = signRequest(unsigned, credentials, { created });
      const value = signed.headers['signature'] ?? '';
      return {
        request: applySignedHeaders(unsigned, signed.headers),
        base: Buffer.from(signed.signatureBase, 'utf8'),
        signature: Buffer.from(value.slice('sig1=:'.length, -1), 'base64'),
      };
    },
  };
}

/** One thread's raw synchronous verifies of these bases: µs each (wall) and µs each (thread CPU, when known). */
function rawVerify(items: readonly Signed[], key: KeyObject): { us: number; cpuUs?: number } {
  const c0 = threadCpuUs();
  const t0 = performance.now();
  for (const item of items)
    if (!nodeVerify(null, item.base, key, item.signature)) throw new Error('raw verify failed');
  const us = ((performance.now() - t0) * 1000) / items.length;
  const c1 = threadCpuUs();
  return c0 === undefined || c1 === undefined ? { us } : { us, cpuUs: (c1 - c0) / items.length };
}

/** Keeps `inFlight` operations going over `count` items (or until `deadline`); returns how many completed. */
async function keepInFlight(
  count: number,
  inFlight: number,
  operation: (i: number) => Promise<void>,
  deadline = Infinity,
): Promise<number> {
  let next = 0;
  let done = 0;
  const lane = async (): Promise<void> => {
    while (next < count && performance.now() < deadline) {
      await operation(next++);
      done++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, count) }, lane));
  return done;
}

function verifierFor(
  mode: ChildSpec['mode'],
  items: readonly Signed[],
  apps: Map<string, ApplicationRecord>,
  key: KeyObject,
  now: number,
): (i: number) => Promise<void> {
  if (mode === 'raw-libuv') {
    return (i) =>
      new Promise((resolve, reject) =>
        nodeVerify(null, items[i]!.base, key, items[i]!.signature, (error, ok) =>
          error === null && ok ? resolve() : reject(new Error('raw verify failed')),
        ),
      );
  }
  const options = {
    now,
    nonceStore: new MemoryNonceStore(),
    resolveApplication: (id: string) => apps.get(id),
  };
  return async (i) => {
    const result = await verifyRequestAsync(items[i]!.request, options);
    if (!result.ok) throw new Error(`${result.code} at step ${result.step}: ${result.message}`);
  };
}

interface RoundFigures {
  readonly rawUs: number;
  readonly rawCpuUs?: number;
  readonly busyUs: number;
  readonly cpuUs?: number;
  readonly opsPerSec: number;
  /** Worker pool: requests of the measured window verified with their parse, ÷ requests sent to the workers. */
  readonly aheadShare?: number;
}

async function measureRound(
  spec: ChildSpec,
  tools: ReturnType<typeof signer>,
): Promise<RoundFigures> {
  const now = Math.floor(Date.now() / 1000);
  const items = Array.from({ length: spec.requests }, () => tools.sign(now));
  const raw = rawVerify(items.slice(0, Math.min(items.length, 2000)), tools.key);
  const operation = verifierFor(spec.mode, items, tools.apps, tools.key, now);
  await keepInFlight(Math.min(200, items.length), spec.inFlight, operation); // warm-up on the round's first items
  const start = Math.min(200, items.length);
  const pool0 = verifyPoolInfo();
  const e0 = performance.eventLoopUtilization();
  const c0 = threadCpuUs();
  const t0 = performance.now();
  const done = await keepInFlight(items.length - start, spec.inFlight, (i) => operation(start + i));
  const elapsed = performance.now() - t0;
  const c1 = threadCpuUs();
  const busy = performance.eventLoopUtilization(e0).active;
  const pool1 = verifyPoolInfo();
  const sent = pool1.requests - pool0.requests;
  return {
    ...(spec.mode === 'workers' && sent > 0
      ? { aheadShare: (pool1.verifiedAhead - pool0.verifiedAhead) / sent }
      : {}),
    rawUs: raw.us,
    ...(raw.cpuUs === undefined ? {} : { rawCpuUs: raw.cpuUs }),
    busyUs: (busy * 1000) / done,
    ...(c0 === undefined || c1 === undefined ? {} : { cpuUs: (c1 - c0) / done }),
    opsPerSec: (done * 1000) / elapsed,
  };
}

/**
 * The processes rows: verify for `seconds` from `startAt`, so that every process measures the same window. The
 * signed requests are used in turn, each pass with a fresh nonce store (the window may outlast them).
 */
async function measureWindow(
  spec: ChildSpec,
  tools: ReturnType<typeof signer>,
): Promise<RoundFigures> {
  const now = Math.floor(Date.now() / 1000);
  const items = Array.from({ length: spec.requests }, () => tools.sign(now));
  const raw = rawVerify(items.slice(0, 500), tools.key);
  const n = items.length;
  let pass = -1;
  let options: Parameters<typeof verifyRequestAsync>[1] | undefined;
  const operation = async (i: number): Promise<void> => {
    if (Math.floor(i / n) !== pass) {
      pass = Math.floor(i / n);
      const nonceStore = new MemoryNonceStore();
      options = { now, nonceStore, resolveApplication: (id: string) => tools.apps.get(id) };
    }
    const result = await verifyRequestAsync(items[i % n]!.request, options!);
    if (!result.ok) throw new Error(`${result.code} at step ${result.step}: ${result.message}`);
  };
  await keepInFlight(Math.min(200, n), spec.inFlight, operation);
  // Ready: the parent answers once every process is, so that all measure the same window.
  process.stdout.write('ready\n');
  await new Promise((resolve) => process.stdin.once('data', resolve));
  process.stdin.pause();
  const t0 = performance.now();
  const done = await keepInFlight(
    1_000_000_000,
    spec.inFlight,
    (i) => operation(n + i),
    t0 + (spec.seconds ?? 1) * 1000,
  );
  const elapsed = performance.now() - t0;
  return { rawUs: raw.us, busyUs: Number.NaN, opsPerSec: (done * 1000) / elapsed };
}

async function child(spec: ChildSpec): Promise<void> {
  const tools = signer();
  if (spec.mode === 'workers') {
    const info = await startVerifyPool();
    if (!info.running) throw new Error(`the worker pool did not start: ${JSON.stringify(info)}`);
  }
  const rounds: RoundFigures[] = [];
  if (spec.window === true) rounds.push(await measureWindow(spec, tools));
  else for (let r = 0; r < spec.rounds; r++) rounds.push(await measureRound(spec, tools));
  if (spec.mode === 'workers' && verifyPoolInfo().requests === 0)
    throw new Error('no request went through the worker pool');
  process.stdout.write(`${JSON.stringify(rounds)}\n`);
}

// ---- parent: the configurations, children, table ----

const round2 = (x: number): number => Math.round(x * 100) / 100;

function summarise(
  rounds: readonly RoundFigures[],
  base: Pick<CoresRow, 'name' | 'mode' | 'threads' | 'processes' | 'inFlight' | 'requests'>,
  at: Machine,
): CoresRow {
  const rawUs = median(rounds.map((r) => r.rawUs));
  const loop = base.mode === 'raw-libuv' || base.name === 'processes';
  const best = <T>(values: T[], key: (v: T) => number): T =>
    values.reduce((a, b) => (key(b) > key(a) ? b : a));
  const byRatio = best([...rounds], (r) => r.rawUs / r.busyUs);
  const withCpu = rounds.filter((r) => r.cpuUs !== undefined && r.rawCpuUs !== undefined);
  const byCpu = withCpu.length === 0 ? undefined : best(withCpu, (r) => r.rawCpuUs! / r.cpuUs!);
  const opsPerSec = Math.max(...rounds.map((r) => r.opsPerSec));
  return {
    ...base,
    rawVerifyUs: round2(rawUs),
    loopBusyUs: loop ? null : round2(byRatio.busyUs),
    loopRatio: loop ? null : round2(byRatio.rawUs / byRatio.busyUs),
    loopCpuUs: loop || byCpu === undefined ? null : round2(byCpu.cpuUs!),
    cpuRatio: loop || byCpu === undefined ? null : round2(byCpu.rawCpuUs! / byCpu.cpuUs!),
    opsPerSec: Math.round(opsPerSec),
    timesOneCore: round2((opsPerSec * rawUs) / 1e6),
    aheadShare: rounds.some((r) => r.aheadShare !== undefined)
      ? round2(median(rounds.flatMap((r) => (r.aheadShare === undefined ? [] : [r.aheadShare]))))
      : null,
    machine: at,
  };
}

interface Child {
  /** Settles when the child printed "ready" (window children only). */
  readonly ready: Promise<void>;
  go(): void;
  readonly result: Promise<RoundFigures[]>;
}

function startChild(spec: ChildSpec, env: Record<string, string>): Child {
  const script = fileURLToPath(import.meta.url);
  const proc = spawn(
    process.execPath,
    [...process.execArgv, script, '--child', JSON.stringify(spec)],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: { ...process.env, ...env },
    },
  );
  let out = '';
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  proc.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    if (out.startsWith('ready\n')) {
      out = out.slice('ready\n'.length);
      markReady();
    }
  });
  const result = new Promise<RoundFigures[]>((resolve, reject) => {
    const timer = setTimeout(() => proc.kill(), CHILD_TIMEOUT_MS);
    proc.once('error', reject);
    proc.once('close', (code, signal) => {
      clearTimeout(timer);
      markReady();
      if (code !== 0) return reject(new Error(`bench:cores child ended with ${signal ?? code}`));
      try {
        resolve(JSON.parse(out) as RoundFigures[]);
      } catch {
        reject(new Error('bench:cores child printed something other than its JSON line'));
      }
    });
  });
  return { ready, result, go: () => proc.stdin.end('go\n') };
}

function runChild(spec: ChildSpec, env: Record<string, string>): Promise<RoundFigures[]> {
  const child = startChild(spec, env);
  child.go();
  return child.result;
}

interface Options {
  readonly json: boolean;
  readonly requests: number;
  readonly rounds: number;
  readonly inFlight: number;
  readonly threads: readonly number[];
  readonly processes: readonly number[];
  readonly seconds: number;
}

/** 1, 2, 4, … up to `cores`, and `cores` itself. */
function doublings(cores: number): number[] {
  const sizes: number[] = [];
  for (let n = 1; n < cores; n *= 2) sizes.push(n);
  sizes.push(cores);
  return sizes;
}

async function parent(options: Options): Promise<CoresRow[]> {
  const rows: CoresRow[] = [];
  const { requests, rounds } = options;
  const progress = (row: CoresRow): void => {
    rows.push(row);
    if (!options.json)
      process.stderr.write(
        `  ${row.name} ${row.mode} threads ${row.threads} processes ${row.processes}: ${row.opsPerSec}/s\n`,
      );
  };
  for (const threads of options.threads) {
    // Deep enough that every thread has work: at least 8 requests per thread.
    const inFlight = Math.max(options.inFlight, 8 * threads);
    const env = { UV_THREADPOOL_SIZE: String(threads) };
    for (const mode of ['workers', 'libuv', 'raw-libuv'] as const) {
      const spec = { mode, requests, rounds, inFlight };
      const figures = await runChild(spec, {
        ...env,
        PAYCONFORM_VERIFY_THREADS: mode === 'workers' ? String(threads) : '0',
      });
      progress(
        summarise(
          figures,
          { name: 'pool', mode, threads, processes: 1, inFlight, requests },
          machine(),
        ),
      );
    }
  }
  const cores = availableParallelism();
  for (const processes of options.processes) {
    const threads = Math.max(1, Math.floor(cores / processes));
    const inFlight = Math.max(options.inFlight, 8 * threads);
    const spec: ChildSpec = {
      mode: 'workers',
      requests: Math.min(requests, 2000),
      rounds: 1,
      inFlight,
      window: true,
      seconds: options.seconds,
    };
    const env = { PAYCONFORM_VERIFY_THREADS: String(threads), UV_THREADPOOL_SIZE: String(threads) };
    const all = await Promise.all(Array.from({ length: processes }, () => runChild(spec, env)));
    const figures = all.map((r) => r[0]!);
    const total: RoundFigures = {
      rawUs: median(figures.map((f) => f.rawUs)),
      busyUs: Number.NaN,
      opsPerSec: figures.reduce((sum, f) => sum + f.opsPerSec, 0),
    };
    progress(
      summarise(
        [total],
        { name: 'processes', mode: 'workers', threads, processes, inFlight, requests: 0 },
        machine(),
      ),
    );
  }
  return rows;
}

const show = (x: number | null): string => (x === null ? '–' : x.toFixed(2));

export function coresTable(rows: readonly CoresRow[], at: Machine): string {
  const lines = [
    `machine: ${at.cores} cores, ${at.model}, load average ${at.loadAverage.join(' ')}, node ${at.node} ${at.platform}`,
    '',
    'one process (verifyRequestAsync over distinct signed 600-byte payouts; raw = one synchronous Ed25519 verify):',
    `${'mode'.padEnd(10)} ${'threads'.padStart(7)} ${'in flight'.padStart(9)} ${'raw µs'.padStart(7)} ${'loop µs/req'.padStart(11)} ${'raw ÷ loop'.padStart(10)} ${'CPU µs/req'.padStart(10)} ${'raw ÷ CPU'.padStart(9)} ${'req/s'.padStart(8)} ${'× 1 core'.padStart(8)}`,
  ];
  for (const r of rows.filter((row) => row.name === 'pool'))
    lines.push(
      `${r.mode.padEnd(10)} ${String(r.threads).padStart(7)} ${String(r.inFlight).padStart(9)} ${r.rawVerifyUs.toFixed(1).padStart(7)} ${show(r.loopBusyUs).padStart(11)} ${show(r.loopRatio).padStart(10)} ${show(r.loopCpuUs).padStart(10)} ${show(r.cpuRatio).padStart(9)} ${String(r.opsPerSec).padStart(8)} ${r.timesOneCore.toFixed(2).padStart(8)}`,
    );
  const processes = rows.filter((row) => row.name === 'processes');
  if (processes.length > 0) {
    lines.push(
      '',
      'several processes at once (each with its own worker pool), summed over one window:',
    );
    for (const r of processes)
      lines.push(
        `  ${r.processes} processes × ${r.threads} threads: ${r.opsPerSec} req/s, ${r.timesOneCore.toFixed(2)} × one core`,
      );
  }
  const workers = rows.filter((row) => row.mode === 'workers' && row.loopRatio !== null);
  if (workers.length > 0) {
    const best = Math.max(...workers.map((r) => r.loopRatio!));
    const verdict = best >= LOOP_RATIO_TARGET ? 'met' : 'MISSED';
    lines.push(
      '',
      `one event loop feeds ${best.toFixed(2)} cores' worth of raw verification (best pool row; target ≥ ${LOOP_RATIO_TARGET}: ${verdict})`,
      'loop µs/req: performance.eventLoopUtilization() busy time per verified request (best round); CPU: the main thread',
      "from /proc (Linux), which a busy machine's other processes do not inflate; × 1 core: req/s × raw µs.",
      `step 10 ran with the parse (one round trip) for ${workers.map((r) => `${Math.round((r.aheadShare ?? 0) * 100)}%`).join(', ')} of the worker rows' measured requests.`,
    );
  }
  return `${lines.join('\n')}\n`;
}

const USAGE = `usage: npm run bench:cores -- [--json] [--requests N] [--rounds R] [--in-flight K] [--threads LIST] [--processes LIST] [--seconds S]
  --json            one JSON row per configuration on stdout, nothing else
  --requests N      distinct signed requests per round (default 4000; the issue's method: 10000)
  --rounds R        rounds per configuration, best shown (default 3)
  --in-flight K     requests in flight, at least 8 per thread (default 64)
  --threads LIST    pool sizes, comma-separated (default 1, 2, 4, … up to the cores)
  --processes LIST  process counts for the several-processes rows (default the cores when more than 1; 0 skips)
  --seconds S       measured window of the several-processes rows (default 3)
`;

function list(raw: string | undefined, fallback: number[], flag: string): number[] {
  if (raw === undefined) return fallback;
  if (!/^\d{1,3}(,\d{1,3})*$/.test(raw))
    throw new UsageError(`--${flag} must be numbers, comma-separated`);
  return raw.split(',').map(Number);
}

function integer(
  raw: string | undefined,
  fallback: number,
  min: number,
  max: number,
  flag: string,
): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max)
    throw new UsageError(`--${flag} must be an integer from ${min} to ${max}`);
  return value;
}

function parseOptions(argv: readonly string[]): Options | 'help' | { child: ChildSpec } {
  const values = parseBenchFlags(argv, {
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
    child: { type: 'string' },
    requests: { type: 'string' },
    rounds: { type: 'string' },
    'in-flight': { type: 'string' },
    threads: { type: 'string' },
    processes: { type: 'string' },
    seconds: { type: 'string' },
  });
  if (values.help === true) return 'help';
  if (values.child !== undefined) return { child: JSON.parse(values.child) as ChildSpec };
  const cores = availableParallelism();
  const threads = list(values.threads, doublings(cores), 'threads').filter((n) => n > 0);
  if (threads.some((n) => n > 256)) throw new UsageError('--threads: at most 256');
  const processes = list(values.processes, cores > 1 ? [cores] : [], 'processes').filter(
    (n) => n > 1,
  );
  if (processes.some((n) => n > 64)) throw new UsageError('--processes: at most 64');
  return {
    json: values.json === true,
    requests: integer(values.requests, 4000, 300, 100_000, 'requests'),
    rounds: integer(values.rounds, 3, 1, 10, 'rounds'),
    inFlight: integer(values['in-flight'], 64, 1, 4096, 'in-flight'),
    threads,
    processes,
    seconds: integer(values.seconds, 3, 1, 60, 'seconds'),
  };
}

async function main(argv: readonly string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseOptions(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`bench:cores: ${error.message}\n${USAGE}`);
    return 2;
  }
  if (parsed === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  if ('child' in parsed) {
    await child(parsed.child);
    return 0;
  }
  const before = machine();
  const rows = await parent(parsed);
  if (parsed.json) for (const row of rows) process.stdout.write(`${JSON.stringify(row)}\n`);
  else process.stdout.write(coresTable(rows, { ...before, loadAverage: machine().loadAverage }));
  return 0;
}

// Run as a script (npm run bench:cores, or a child of it); imported (the smoke test's table check), do nothing.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(
      `bench:cores: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return 1;
  });
}
