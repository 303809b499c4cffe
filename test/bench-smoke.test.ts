// The benchmark entry (npm run bench) runs end to end in a tiny mode and prints what it promises;
// the harness is bounded in count and time. No timing assertions: only shape, counts and bounds.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { runBenchmarks, type Benchmark } from '../bench/harness.js';
import { coresTable, LOOP_RATIO_TARGET, type CoresRow } from '../bench/cores.js';
import { BODY_BYTES, payoutBody, SIGNING_BENCHMARK_NAMES } from '../bench/signing.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const EXPECTED_NAMES = [
  SIGNING_BENCHMARK_NAMES.full,
  SIGNING_BENCHMARK_NAMES.raw,
  SIGNING_BENCHMARK_NAMES.async16,
  SIGNING_BENCHMARK_NAMES.async64,
  SIGNING_BENCHMARK_NAMES.rawAsync64,
  SIGNING_BENCHMARK_NAMES.rawAsync16,
  SIGNING_BENCHMARK_NAMES.httpMessageSignatures,
  SIGNING_BENCHMARK_NAMES.fullNoble,
  SIGNING_BENCHMARK_NAMES.sign,
];

function runBench(args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'bench/run.ts', ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 150_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const TINY = [
  '--iterations',
  '20',
  '--warmup',
  '2',
  '--rounds',
  '1',
  '--max-ms',
  '5000',
  '--explore-seconds',
  '0',
  '--server-requests',
  '0',
];

describe('npm run bench (bench/run.ts), tiny mode', () => {
  // One --json run with the server benchmark and the explorer rows on (their child processes are most of the cost),
  // read by the three tests below: the signing rows, then the server rows, then the explorer rows, and nothing else.
  describe('--json with --server-requests and --explore-seconds (one run)', () => {
    const SERVERS = ['bare-node-http-verify', 'reference-service'];
    const SERVER_NAMES = [
      ...SERVERS,
      'reference-service-portal-16-live',
      ...SERVERS.map((s) => `${s}-fixed-load`),
    ];
    const EXPLORE_NAMES = ['explore-steps-embedded', 'explore-steps-loopback-serve'];
    let r: ReturnType<typeof runBench>;
    let parsed: Record<string, unknown>[];
    beforeAll(() => {
      r = runBench([
        '--json',
        ...TINY.slice(0, -4),
        '--server-requests',
        '2', // the rows' shape, not their figures: 2 timed requests (after 20 warm-up) per server and per rate
        '--server-rounds',
        '1',
        '--server-rate',
        '200',
        '--explore-seconds',
        '1',
      ]);
      parsed =
        r.status === 0
          ? r.stdout
              .trim()
              .split('\n')
              .map((line) => JSON.parse(line))
          : [];
    }, 180_000); // six child processes (five servers and a serve), each started under tsx: slow on a loaded machine

    it('--json prints exactly one {"name","opsPerSec"} line per benchmark, each positive, and nothing else', () => {
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(r.stdout.endsWith('\n')).toBe(true);
      const lines = r.stdout.slice(0, -1).split('\n');
      // Every line is one JSON row: the benchmarks, then the server rows, then the explorer rows.
      expect(lines.map((line) => (JSON.parse(line) as Record<string, unknown>)['name'])).toEqual([
        ...EXPECTED_NAMES,
        ...SERVER_NAMES,
        ...EXPLORE_NAMES,
      ]);
      for (const p of parsed.slice(0, EXPECTED_NAMES.length)) {
        expect(Object.keys(p).sort()).toEqual(['name', 'opsPerSec']);
        expect(typeof p['opsPerSec']).toBe('number');
        expect(Number.isFinite(p['opsPerSec'])).toBe(true);
        expect(p['opsPerSec'] as number).toBeGreaterThan(0);
      }
    });

    it('with --server-requests, adds the loopback server benchmark: req/s with p50/p99 per server (bare, service, service with 16 live portal views), then the fixed-load rows', () => {
      expect(r.status, r.stderr).toBe(0);
      const servers = parsed.slice(
        EXPECTED_NAMES.length,
        EXPECTED_NAMES.length + SERVER_NAMES.length,
      );
      expect(servers.map((p) => p['name'])).toEqual(SERVER_NAMES);
      for (const p of servers.slice(0, 3)) {
        expect(Object.keys(p).sort()).toEqual([
          'name',
          'opsPerSec',
          'p50Ms',
          'p99Ms',
          'roundOpsPerSec',
        ]);
        expect(p['roundOpsPerSec']).toHaveLength(1);
      }
      for (const p of servers.slice(3)) {
        expect(Object.keys(p).sort()).toEqual([
          'name',
          'offeredPerSec',
          'opsPerSec',
          'p50Ms',
          'p99Ms',
        ]);
        expect(p['offeredPerSec']).toBe(200);
      }
      for (const p of servers) {
        expect(p['opsPerSec'] as number).toBeGreaterThan(0);
        expect(p['p50Ms'] as number).toBeGreaterThan(0);
        expect(p['p99Ms'] as number).toBeGreaterThanOrEqual(p['p50Ms'] as number);
      }
    });

    it('with --explore-seconds, adds the explorer rows: steps/s against the embedded service and a serve process over loopback', () => {
      expect(r.status, r.stderr).toBe(0);
      const explore = parsed.filter((x) => (x['name'] as string).startsWith('explore-steps-'));
      expect(explore.map((x) => x['name'])).toEqual(EXPLORE_NAMES);
      for (const x of explore) {
        expect(x['opsPerSec']).toBeGreaterThan(0);
        expect(x['steps']).toBeGreaterThan(0);
      }
    });
  });

  it('prints a table with every benchmark and the targeted ratios', () => {
    const r = runBench(TINY);
    expect(r.status).toBe(0);
    for (const name of EXPECTED_NAMES) expect(r.stdout).toContain(name);
    expect(r.stdout).toMatch(
      /full verifyRequest \/ raw node:crypto verify: \d+\.\d\d {2}target ≥ 0\.9: (met|MISSED)/,
    );
    expect(r.stdout).toMatch(
      /full verifyRequest \/ http-message-signatures: \d+\.\d\d {2}target ≥ 1\.2: (met|MISSED)/,
    );
    for (const inFlight of [16, 64]) {
      expect(r.stdout).toMatch(
        new RegExp(
          `verifyRequestAsync, ${inFlight} in flight / raw synchronous verify: \\d+\\.\\d\\d {2}target ≥ 1\\.6: (met|MISSED)`,
        ),
      );
      // Informational: the thread pool's own ceiling at that depth, and the async path's share of it (no target).
      expect(r.stdout).toMatch(
        new RegExp(
          `raw callback verify, ${inFlight} in flight / raw synchronous verify: \\d+\\.\\d\\d\\n`,
        ),
      );
      expect(r.stdout).toMatch(
        new RegExp(
          `verifyRequestAsync / raw callback verify, ${inFlight} in flight \\(share of the thread pool's ceiling\\): \\d+\\.\\d\\d\\n`,
        ),
      );
    }
    // --server-requests 0 and --explore-seconds 0 skip the server benchmark and the explorer rows.
    expect(r.stdout).not.toContain('over loopback');
    expect(r.stdout).not.toContain('Explorer (');
    // Never print the (test-only) application secret.
    expect(r.stdout + r.stderr).not.toContain('test-only-bench-application-secret');
  });

  it('bad usage exits 2 with a message and no stdout', () => {
    for (const args of [
      ['--iterations', 'many'],
      ['--rounds', '0'],
      ['--iterations', '99999999'],
      ['--server-rate', 'fast'],
      ['--frobnicate'],
    ]) {
      const r = runBench(args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^bench: .+\nusage: /);
    }
  });
});

describe('bench/harness.ts: bounded in count and time', () => {
  it('runs warm-up + at most N iterations per round, prepares each round, and reports the median of the rounds', async () => {
    const prepared: number[] = [];
    let calls = 0;
    const benchmark: Benchmark = {
      name: 'count',
      title: 'counts calls',
      prepare(count) {
        prepared.push(count);
        return (i) => {
          if (i >= count) throw new Error(`iteration ${i} beyond prepared ${count}`);
          calls++;
        };
      },
    };
    const [m] = await runBenchmarks([benchmark], {
      warmupIterations: 3,
      iterations: 50,
      maxMilliseconds: 60_000,
      rounds: 3,
    });
    expect(prepared).toEqual([53, 53, 53]);
    expect(calls).toBe(3 * 53);
    expect(m?.iterations).toBe(150);
    expect(m?.roundOpsPerSec).toHaveLength(3);
    expect(m?.opsPerSec).toBe([...m!.roundOpsPerSec].sort((a, b) => a - b)[1]);
  });

  it('inFlight keeps that many operations outstanding (never more), each iteration index used once', async () => {
    let outstanding = 0;
    let most = 0;
    const seen: number[] = [];
    const benchmark: Benchmark = {
      name: 'in-flight',
      title: 'resolves after a macrotask',
      inFlight: 8,
      prepare: () => async (i) => {
        seen.push(i);
        outstanding++;
        most = Math.max(most, outstanding);
        await new Promise((resolve) => setImmediate(resolve));
        outstanding--;
      },
    };
    const [m] = await runBenchmarks([benchmark], {
      warmupIterations: 4,
      iterations: 100,
      maxMilliseconds: 60_000,
      rounds: 1,
    });
    expect(m?.iterations).toBe(100);
    expect(most).toBe(8);
    expect(outstanding).toBe(0);
    expect([...seen].sort((a, b) => a - b)).toEqual(Array.from({ length: 104 }, (_, i) => i));
    const bad: Benchmark = {
      name: 'bad-in-flight',
      title: 'x',
      inFlight: 0,
      prepare: () => () => undefined,
    };
    await expect(runBenchmarks([bad])).rejects.toThrow(TypeError);
  });

  it('stops a round at the time bound long before the count bound', async () => {
    const benchmark: Benchmark = {
      name: 'slow',
      title: 'sleeps 10 ms per call',
      prepare: () => () => new Promise((resolve) => setTimeout(resolve, 10)),
    };
    const [m] = await runBenchmarks([benchmark], {
      warmupIterations: 0,
      iterations: 10_000,
      maxMilliseconds: 50,
      rounds: 1,
    });
    expect(m?.iterations).toBeGreaterThan(0);
    expect(m?.iterations).toBeLessThan(100);
  });

  it('a wrong result fails the run instead of being timed', async () => {
    const benchmark: Benchmark = {
      name: 'bad',
      title: 'fails',
      prepare: () => () => {
        throw new Error('verify failed');
      },
    };
    await expect(
      runBenchmarks([benchmark], {
        warmupIterations: 0,
        iterations: 5,
        maxMilliseconds: 1000,
        rounds: 1,
      }),
    ).rejects.toThrow('verify failed');
  });

  it('rejects duplicate names and non-positive bounds', async () => {
    const b: Benchmark = { name: 'x', title: 'x', prepare: () => () => undefined };
    await expect(runBenchmarks([b, b])).rejects.toThrow(TypeError);
    await expect(
      runBenchmarks([b], { warmupIterations: 0, iterations: 0, maxMilliseconds: 10, rounds: 1 }),
    ).rejects.toThrow(TypeError);
  });

  it('npm run bench:host measures one-thread Ed25519 verifies in 50 ms windows, in order, bounded by --seconds', () => {
    const run = (args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', 'bench/host-steadiness.ts', ...args], {
        cwd: root,
        encoding: 'utf8',
        timeout: 60_000,
      });
    const r = run(['--seconds', '1', '--json']);
    expect(r.status).toBe(0);
    const result = JSON.parse(r.stdout) as {
      windowMs: number;
      windows: number[];
      p10: number;
      median: number;
      p90: number;
    };
    expect(result.windowMs).toBe(50);
    expect(result.windows.length).toBeGreaterThanOrEqual(10);
    expect(result.windows.length).toBeLessThanOrEqual(20);
    for (const rate of result.windows) expect(rate).toBeGreaterThan(0);
    expect(result.windows).toContain(result.p10);
    expect(result.windows).toContain(result.p90);
    expect(result.p10).toBeLessThanOrEqual(result.median);
    expect(result.median).toBeLessThanOrEqual(result.p90);
    for (const bad of [['--seconds', '0'], ['--seconds', '61'], ['--seconds', '2.5'], ['--nope']]) {
      const b = run(bad);
      expect(b.status).toBe(2);
      expect(b.stdout).toBe('');
      expect(b.stderr).toContain('usage: npm run bench:host');
    }
  });

  it(`the benchmark request body is exactly ${BODY_BYTES} bytes of JSON`, () => {
    const body = payoutBody();
    expect(body.length).toBe(600);
    expect(() => JSON.parse(new TextDecoder().decode(body))).not.toThrow();
  });

  it('npm run bench:cores prints one JSON row per configuration, each naming the machine, and a table', () => {
    const run = (args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', 'bench/cores.ts', ...args], {
        cwd: root,
        encoding: 'utf8',
        timeout: 170_000,
      });
    // Tiny: one pool size, one round of 300 requests, two processes for one second.
    const r = run([
      '--json',
      '--requests',
      '300',
      '--rounds',
      '1',
      '--threads',
      '1',
      '--seconds',
      '1',
    ]);
    expect(r.status, r.stderr).toBe(0);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as CoresRow);
    expect(rows.map((row) => `${row.name}/${row.mode}/${row.threads}`).slice(0, 3)).toEqual([
      'pool/workers/1',
      'pool/libuv/1',
      'pool/raw-libuv/1',
    ]);
    for (const row of rows) {
      expect(row.machine.cores).toBeGreaterThanOrEqual(1);
      expect(row.machine.model).not.toBe('');
      expect(row.machine.loadAverage).toHaveLength(3);
      expect(row.machine.node).toBe(process.version);
      expect(row.opsPerSec).toBeGreaterThan(0);
      expect(row.rawVerifyUs).toBeGreaterThan(0);
      expect(row.timesOneCore).toBeGreaterThan(0);
    }
    for (const row of rows.slice(0, 2)) {
      expect(row.loopBusyUs).toBeGreaterThan(0);
      expect(row.loopRatio).toBeCloseTo(row.rawVerifyUs / row.loopBusyUs!, 0);
      expect(row.inFlight).toBe(64);
    }
    expect(rows[2]!.loopBusyUs).toBeNull();
    // The warm-up's requests registered the application with the workers: the measured ones take one round trip.
    expect(rows[0]!.aheadShare).toBeGreaterThan(0.5);
    expect(rows[1]!.aheadShare).toBeNull();
    // With more than one core the default adds the several-processes row (one process per core).
    const processes = rows.filter((row) => row.name === 'processes');
    expect(processes).toHaveLength(rows[0]!.machine.cores > 1 ? 1 : 0);
    for (const row of processes) expect(row.processes).toBe(row.machine.cores);
    const table = coresTable(rows, rows[0]!.machine);
    expect(table).toMatch(/^machine: \d+ cores, .+, load average [\d. ]+, node v/);
    expect(table).toContain(`target ≥ ${LOOP_RATIO_TARGET}`);
    for (const bad of [['--threads', 'x'], ['--requests', '10'], ['--nope']]) {
      const b = run(bad);
      expect(b.status).toBe(2);
      expect(b.stdout).toBe('');
      expect(b.stderr).toContain('usage: npm run bench:cores');
    }
  }, 180_000);
});
