// Benchmark of the service as a fleet (npm run bench:fleet): `payconform serve --workers N` on memory, on one Redis
// and on a three-node Redis Cluster; signed payouts per second, Redis commands over a payout's whole life (request,
// lifecycle step, both webhooks delivered: INFO commandstats with the idle rate subtracted, and MONITOR to tell the
// commands clients send from those scripts run inside Redis), an idle fleet's commands per second, Redis CPU and
// memory per payout, and the ceiling one Redis then allows. Redis, the service and the load generator are pinned to
// cores of their own (taskset) where the machine has at least 4; otherwise the table says they share.
// Usage: tsx bench/fleet.ts [--json] [--workers 1,2] [--stores memory,redis,cluster] [--payouts N] [--seconds S]
//        [--warmup N] [--count N] [--idle-seconds S]
import { existsSync } from 'node:fs';
import { fork, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { cpus, loadavg } from 'node:os';
import { awaitServeReady, postPayout, type ServeChild } from './serve-child.js';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  exportEd25519PublicKeyBase64,
  exportEd25519SeedBase64,
  generateEd25519PrivateKey,
  parseEd25519PrivateKey,
} from '../src/keys/index.js';
import { signRequest } from '../src/profile/sign-request.js';
import type { HttpRequest } from '../src/http/message.js';
import { PAYOUT_MEDIA_TYPE } from '../server/representations.js';
import { startRedisServer } from '../test/fixtures/redis-server.js';
import { startRedisCluster } from '../test/fixtures/redis-cluster.js';
import { unusedLoopbackPort } from '../test/fixtures/ports.js';
import { payoutCreateBody } from './payout-body.js';

const creds = {
  applicationId: '0b7f4b52-3c1e-4d6a-9f00-6a4b2c1d0e9f',
  applicationSecret: 'bench-only-secret-0123456789',
  keyId: 'bench-key',
  merchantId: 'bench-merchant',
};

// ---------------------------------------------------------------- load children (one per load core)
/** In a load child: signs its share before the start signal, then sends it over keep-alive connections. */
async function loadChild(): Promise<void> {
  const key = parseEd25519PrivateKey(process.env.FLEET_BENCH_SEED!);
  const { port, count, connections, tag, seconds } = JSON.parse(process.env.FLEET_BENCH_LOAD!) as {
    port: number;
    count: number;
    connections: number;
    tag: string;
    seconds: number;
  };
  const requests = Array.from({ length: count }, (_, i) => {
    const request: HttpRequest = {
      method: 'POST',
      url: `http://127.0.0.1:${port}/api/payouts`,
      headers: [['content-type', PAYOUT_MEDIA_TYPE]],
      body: payoutCreateBody(creds.applicationId, 'main', `FLEET-${tag}-${i}`),
    };
    const { headers } = signRequest(request, { ...creds, privateKey: key });
    return { headers: { 'content-type': PAYOUT_MEDIA_TYPE, ...headers }, body: request.body };
  });
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const send = (r: (typeof requests)[number]): Promise<number> =>
    postPayout(port, agent, r.headers, r.body);
  process.send!({ type: 'ready' });
  await new Promise<void>((go) => process.once('message', () => go()));
  let next = 0;
  const statuses: Record<string, number> = {};
  const deadline = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < requests.length && performance.now() < deadline) {
        const status = await send(requests[next++]!);
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    }),
  );
  agent.destroy();
  process.send!({ type: 'done', statuses }, () => process.exit(0));
}

/**
 * Sends up to `total` signed payouts (for at most `seconds`) from `children` load processes (pinned to `cores`);
 * accepted per second.
 */
async function runLoad(
  port: number,
  total: number,
  children: number,
  connections: number,
  seed: string,
  cores: string | undefined,
  seconds: number,
): Promise<{
  sent: number;
  accepted: number;
  perSecond: number;
  statuses: Record<string, number>;
}> {
  const procs = Array.from({ length: children }, (_, c) => {
    const child = fork(fileURLToPath(import.meta.url), ['--load-child'], {
      env: {
        ...process.env,
        FLEET_BENCH_SEED: seed,
        FLEET_BENCH_LOAD: JSON.stringify({
          port,
          count: Math.ceil(total / children),
          connections,
          tag: `${Date.now()}-${c}`,
          seconds,
        }),
      },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    if (cores !== undefined) spawnSync('taskset', ['-pc', cores, String(child.pid)]);
    return child;
  });
  const message = (child: ChildProcess, type: string) =>
    new Promise<{ statuses?: Record<string, number> }>((resolve, reject) => {
      child.on('message', (m: { type: string; statuses?: Record<string, number> }) => {
        if (m.type === type) resolve(m);
      });
      child.once('exit', (code) => reject(new Error(`load child exited ${code}`)));
    });
  await Promise.all(procs.map((p) => message(p, 'ready')));
  const started = performance.now();
  const done = procs.map((p) => message(p, 'done'));
  for (const p of procs) p.send('go');
  const results = await Promise.all(done);
  const elapsed = (performance.now() - started) / 1000;
  const statuses: Record<string, number> = {};
  for (const r of results)
    for (const [s, n] of Object.entries(r.statuses ?? {})) statuses[s] = (statuses[s] ?? 0) + n;
  const accepted = statuses['201'] ?? 0;
  const sent = Object.values(statuses).reduce((a, b) => a + b, 0);
  return { sent, accepted, perSecond: accepted / elapsed, statuses };
}

// ---------------------------------------------------------------- Redis: stats, MONITOR
interface RedisNodes {
  readonly url: string;
  readonly ports: readonly number[];
  close(): Promise<void>;
}

/** One command over a fresh TCP connection; the raw RESP reply text (bounded: 5 s). */
function command(port: number, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(port, '127.0.0.1');
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no reply to ${args[0]} within 5 s`));
    }, 5_000);
    socket.on('error', reject);
    socket.on('data', (d) => {
      text += d.toString('utf8');
      const end = text.indexOf('\r\n');
      if (end < 0) return;
      const length = text[0] === '$' ? Number(text.slice(1, end)) : -1;
      if (length < 0 || Buffer.byteLength(text) >= end + 4 + length) {
        clearTimeout(timer);
        socket.end();
        resolve(text);
      }
    });
    socket.write(
      `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`,
    );
  });
}

interface Stats {
  /** Calls per command name (scripts' own calls included), summed over the nodes. */
  readonly calls: Record<string, number>;
  /** Microseconds Redis spent in each command (commandstats `usec`; a script's own calls counted in the script too). */
  readonly usec: Record<string, number>;
  readonly cpuSeconds: number;
  readonly usedMemory: number;
}

async function readStats(nodes: RedisNodes): Promise<Stats> {
  const calls: Record<string, number> = {};
  const usec: Record<string, number> = {};
  let cpuSeconds = 0;
  let usedMemory = 0;
  for (const port of nodes.ports) {
    const text = await command(port, 'INFO', 'all');
    for (const m of text.matchAll(/cmdstat_([^:]+):calls=(\d+),usec=(\d+)/g)) {
      calls[m[1]!] = (calls[m[1]!] ?? 0) + Number(m[2]);
      usec[m[1]!] = (usec[m[1]!] ?? 0) + Number(m[3]);
    }
    cpuSeconds +=
      Number(/used_cpu_sys:([\d.]+)/.exec(text)?.[1]) +
      Number(/used_cpu_user:([\d.]+)/.exec(text)?.[1]);
    usedMemory += Number(/used_memory:(\d+)/.exec(text)?.[1]);
  }
  return { calls, usec, cpuSeconds, usedMemory };
}

/** Commands between two readings, without the bench's own (INFO of the readings, CONFIG, MONITOR). */
function commandsBetween(
  a: Stats,
  b: Stats,
  nodes: RedisNodes,
): { total: number; byName: Record<string, number> } {
  const byName: Record<string, number> = {};
  let total = 0;
  for (const [name, calls] of Object.entries(b.calls)) {
    // The first reading's own INFO (one per node) is counted once it has run.
    const n = calls - (a.calls[name] ?? 0) - (name === 'info' ? nodes.ports.length : 0);
    if (n <= 0 || name === 'config' || name === 'monitor') continue;
    byName[name] = n;
    total += n;
  }
  return { total, byName };
}

/** MONITOR on every node: counts commands clients send (top) and commands scripts run inside Redis (lua). */
function monitor(nodes: RedisNodes): {
  counts: {
    top: number;
    lua: number;
    /** Per command name: sent by clients, run inside scripts. */
    byName: Record<string, { sent: number; lua: number }>;
  };
  stop(): void;
} {
  const counts = { top: 0, lua: 0, byName: {} as Record<string, { sent: number; lua: number }> };
  const sockets = nodes.ports.map((port) => {
    const socket = net.createConnection(port, '127.0.0.1');
    let rest = '';
    socket.on('data', (d) => {
      const lines = (rest + d.toString('latin1')).split('\r\n');
      rest = lines.pop() ?? '';
      for (const line of lines) {
        const m = /^\+[\d.]+ \[\d+ ([^\]]+)\] "([^"]+)"/.exec(line);
        if (m === null) continue;
        const name = m[2]!.toLowerCase();
        const inScript = m[1] === 'lua';
        if (!inScript && name === 'info') continue; // the bench's own INFO readings
        if (inScript) counts.lua += 1;
        else counts.top += 1;
        const entry = (counts.byName[name] ??= { sent: 0, lua: 0 });
        if (inScript) entry.lua += 1;
        else entry.sent += 1;
      }
    });
    socket.on('error', () => {});
    socket.write('*1\r\n$7\r\nMONITOR\r\n');
    return socket;
  });
  return { counts, stop: () => sockets.forEach((s) => s.destroy()) };
}

// ---------------------------------------------------------------- the fleet
function startServe(
  args: readonly string[],
  publicKey: string,
  cores: string | undefined,
): Promise<ServeChild> {
  // The built command when there is one, else the sources under this process's loader (tsx).
  const built = fileURLToPath(new URL('../dist/cli/bin.js', import.meta.url));
  const bin = existsSync(built)
    ? [fileURLToPath(new URL('../bin/payconform.js', import.meta.url))]
    : [...process.execArgv, fileURLToPath(new URL('../cli/bin.ts', import.meta.url))];
  const argv = [...bin, 'serve', '--port', '0', '--quiet', '--no-portal', ...args];
  const child: ChildProcess = spawn(
    cores !== undefined ? 'taskset' : process.execPath,
    cores !== undefined ? ['-c', cores, process.execPath, ...argv] : argv,
    {
      env: {
        PATH: process.env.PATH ?? '',
        PAYCONFORM_APPLICATION_ID: creds.applicationId,
        PAYCONFORM_APPLICATION_SECRET: creds.applicationSecret,
        PAYCONFORM_KEY_ID: creds.keyId,
        PAYCONFORM_MERCHANT_ID: creds.merchantId,
        PAYCONFORM_PUBLIC_KEY: publicKey,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  return awaitServeReady(child, args, 60_000);
}

/** A webhook receiver answering 200; counts what it received. */
async function startReceiver(): Promise<{ url: string; count(): number; close(): Promise<void> }> {
  let received = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received += 1;
      res.writeHead(200).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    count: () => received,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

/** Waits until `done()` (bounded by `ms`); false when it did not happen in time. */
async function until(done: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (!done() && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  return done();
}

// ---------------------------------------------------------------- one measurement
interface Row {
  store: string;
  workers: number;
  payoutsPerSecond: number;
  /** Payouts sent in the throughput measurement (up to --payouts, for at most --seconds). */
  sent?: number;
  failed: number;
  /** Answers other than 201 (status → count), when there were any. */
  notAccepted?: Record<string, number>;
  idleCommandsPerSecondPerInstance?: number;
  /** Of those, the ones the instance sends (the rest run inside its scripts). */
  idleSentPerSecondPerInstance?: number;
  commandsPerPayout?: number;
  sentPerPayout?: number;
  inScriptsPerPayout?: number;
  byName?: Record<string, number>;
  /** From MONITOR, idle rate subtracted: per command name, sent by the service and run inside its scripts. */
  byNameSplit?: Record<string, { sent: number; inScripts: number }>;
  /**
   * Redis's own µs per payout in each command (commandstats `usec` over the counted payouts, idle included; an
   * EVALSHA's time includes the commands its script runs, which are also counted under their own names).
   */
  usecByName?: Record<string, number>;
  redisCpuMicrosPerPayout?: number;
  redisCommandsPerCpuSecond?: number;
  ceilingPayoutsPerSecond?: number;
  redisBytesPerPayout?: number;
  webhooksMissing: number;
}

interface Setup {
  readonly seed: string;
  readonly publicKey: string;
  readonly layout: Layout | undefined;
  readonly receiver: Awaited<ReturnType<typeof startReceiver>>;
  readonly payouts: number;
  readonly seconds: number;
  readonly warmup: number;
  readonly count: number;
  readonly idleSeconds: number;
  readonly loadChildren: number;
}

type Load = (n: number, connections?: number, seconds?: number) => ReturnType<typeof runLoad>;

async function measure(
  setup: Setup,
  store: string,
  workers: number,
  nodes: RedisNodes | undefined,
): Promise<Row> {
  const { receiver, layout } = setup;
  for (const port of nodes?.ports ?? []) await command(port, 'FLUSHALL');
  const serve = await startServe(
    [
      '--lifecycle-ms',
      '250',
      '--webhook-url',
      receiver.url,
      ...(nodes !== undefined ? ['--redis-url', nodes.url, '--workers', String(workers)] : []),
    ],
    setup.publicKey,
    layout?.service,
  );
  try {
    const load: Load = (n, connections = 16, seconds = 60) =>
      runLoad(serve.port, n, setup.loadChildren, connections, setup.seed, layout?.load, seconds);
    const row: Row = { store, workers, payoutsPerSecond: 0, failed: 0, webhooksMissing: 0 };
    await load(setup.warmup); // warm-up (JIT, connections)
    await new Promise((r) => setTimeout(r, 600)); // its lifecycle steps and webhooks
    if (nodes !== undefined) await countCommands(setup, nodes, workers, load, row);
    await measureThroughput(setup, nodes, load, row);
    return row;
  } finally {
    await serve.stop();
  }
}

/** The idle rate, then commands per payout over `setup.count` payouts sent one at a time, idle rate subtracted. */
async function countCommands(
  setup: Setup,
  nodes: RedisNodes,
  workers: number,
  load: Load,
  row: Row,
): Promise<void> {
  const { receiver } = setup;
  // Idle: nothing sent for a while; every command is the fleet's own.
  const idleFrom = await readStats(nodes);
  const idleMonitor = monitor(nodes);
  await new Promise((r) => setTimeout(r, setup.idleSeconds * 1000));
  idleMonitor.stop();
  const idle = commandsBetween(idleFrom, await readStats(nodes), nodes).total / setup.idleSeconds;
  const idleSent = idleMonitor.counts.top / setup.idleSeconds;
  row.idleSentPerSecondPerInstance = idleSent / workers;
  row.idleCommandsPerSecondPerInstance = idle / workers;
  // Counted payouts: request, lifecycle step, both webhooks delivered.
  const before = await readStats(nodes);
  const mon = monitor(nodes);
  const startedAt = performance.now();
  const hooks = receiver.count();
  // One at a time (one connection): writes of different payouts that happen to share a turn are sent together,
  // which under load lowers the count; this is the count without that help.
  const r = await load(setup.count, 1);
  const expected = hooks + 2 * r.accepted;
  if (!(await until(() => receiver.count() >= expected, 30_000)))
    row.webhooksMissing = expected - receiver.count();
  await new Promise((resolve) => setTimeout(resolve, 400)); // the step's record and the last results
  mon.stop();
  const seconds = (performance.now() - startedAt) / 1000;
  const after = await readStats(nodes);
  const counted = commandsBetween(before, after, nodes);
  row.commandsPerPayout = (counted.total - idle * seconds) / r.accepted;
  row.sentPerPayout = (mon.counts.top - idleSent * seconds) / r.accepted;
  row.inScriptsPerPayout = mon.counts.lua / r.accepted;
  row.byName = Object.fromEntries(
    Object.entries(counted.byName).map(([k, v]) => [k, Math.round((v / r.accepted) * 100) / 100]),
  );
  const perPayout = (n: number, idleN: number) =>
    Math.max(0, Math.round(((n - (idleN / setup.idleSeconds) * seconds) / r.accepted) * 100) / 100);
  row.usecByName = Object.fromEntries(
    Object.keys(counted.byName).map((name) => [
      name,
      Math.round((((after.usec[name] ?? 0) - (before.usec[name] ?? 0)) / r.accepted) * 10) / 10,
    ]),
  );
  row.byNameSplit = Object.fromEntries(
    Object.entries(mon.counts.byName).map(([name, c]) => {
      const idleC = idleMonitor.counts.byName[name];
      return [
        name,
        { sent: perPayout(c.sent, idleC?.sent ?? 0), inScripts: perPayout(c.lua, idleC?.lua ?? 0) },
      ];
    }),
  );
  row.redisBytesPerPayout = (after.usedMemory - before.usedMemory) / r.accepted;
}

/** Payouts per second, and Redis CPU over the payouts' whole life (until their webhooks are in). */
async function measureThroughput(
  setup: Setup,
  nodes: RedisNodes | undefined,
  load: Load,
  row: Row,
): Promise<void> {
  const { receiver } = setup;
  const before = nodes !== undefined ? await readStats(nodes) : undefined;
  const hooks = receiver.count();
  const r = await load(setup.payouts, 16, setup.seconds);
  row.payoutsPerSecond = r.perSecond;
  row.sent = r.sent;
  row.failed = r.sent - r.accepted;
  if (row.failed > 0) row.notAccepted = r.statuses;
  const expected = hooks + 2 * r.accepted;
  if (!(await until(() => receiver.count() >= expected, 60_000)))
    row.webhooksMissing += expected - receiver.count();
  if (nodes === undefined || before === undefined) return;
  const after = await readStats(nodes);
  const cpu = after.cpuSeconds - before.cpuSeconds;
  const commands = commandsBetween(before, after, nodes).total;
  row.redisCpuMicrosPerPayout = (cpu * 1e6) / r.accepted;
  row.redisCommandsPerCpuSecond = commands / cpu;
  // What one Redis core carries when its CPU is full: its measured command rate / commands per payout.
  row.ceilingPayoutsPerSecond = row.redisCommandsPerCpuSecond / row.commandsPerPayout!;
}

// ---------------------------------------------------------------- machine and layout
interface Layout {
  readonly redis: string;
  readonly load: string;
  readonly service: string;
}

/** Redis on the last core, the load on the one or two before it, the service on the rest (at least 4 cores, taskset). */
function cpuLayout(cores: number): Layout | undefined {
  if (cores < 4 || spawnSync('taskset', ['-V']).status !== 0) return undefined;
  const loadCores = cores >= 8 ? 2 : 1;
  const serviceEnd = cores - 2 - loadCores;
  return {
    redis: String(cores - 1),
    load: loadCores === 2 ? `${cores - 3},${cores - 2}` : String(cores - 2),
    service: serviceEnd === 0 ? '0' : `0-${serviceEnd}`,
  };
}

function list(text: string | undefined, fallback: string): string[] {
  return (text ?? fallback).split(',').filter((s) => s !== '');
}

async function main(): Promise<void> {
  if (process.argv.includes('--load-child')) return loadChild();
  const { values } = parseArgs({
    options: {
      json: { type: 'boolean' },
      workers: { type: 'string' },
      stores: { type: 'string' },
      payouts: { type: 'string' },
      seconds: { type: 'string' },
      warmup: { type: 'string' },
      count: { type: 'string' },
      'idle-seconds': { type: 'string' },
    },
    strict: true,
  });
  const cores = cpus().length;
  const layout = cpuLayout(cores);
  const serviceCores = layout === undefined ? cores : cores - 2 - (cores >= 8 ? 2 : 1);
  const defaultWorkers = [1, 2, 4, 8].filter((w) => w === 1 || w <= Math.max(2, serviceCores));
  const workers = list(values.workers, defaultWorkers.join(',')).map(Number);
  const stores = list(values.stores, 'memory,redis,cluster');
  // At most 6,000 payouts per throughput measurement: with the warm-up and the counted ones they stay below the
  // service's per-application limit of 10,000 (split over the cluster's 16 partitions: 625 each).
  const payouts = Math.min(Number(values.payouts ?? 3000) || 3000, 6000);
  const count = Math.min(Number(values.count ?? 150) || 150, 1000);
  const seconds = Math.min(Number(values.seconds ?? 5) || 5, 60);
  const load1 = loadavg();
  if (layout !== undefined) spawnSync('taskset', ['-pc', layout.load, String(process.pid)]);
  const key = generateEd25519PrivateKey();
  const setup: Setup = {
    seed: exportEd25519SeedBase64(key),
    publicKey: exportEd25519PublicKeyBase64(key.publicKey),
    layout,
    receiver: await startReceiver(),
    payouts,
    seconds,
    warmup: Math.min(Number(values.warmup ?? 300) || 300, 1000),
    count,
    idleSeconds: Math.min(Number(values['idle-seconds'] ?? 3) || 3, 30),
    loadChildren: layout !== undefined && cores >= 8 ? 2 : 1,
  };
  const progress = (line: string) => process.stderr.write(`  ${line}\n`);
  const wrap = layout !== undefined ? ['taskset', '-c', layout.redis] : [];
  const rows: Row[] = [];
  try {
    for (const store of stores) {
      const nodes = await startNodes(store, wrap);
      try {
        for (const w of store === 'memory' ? [1] : workers) {
          const row = await measure(setup, store, w, nodes);
          rows.push(row);
          progress(describeRow(row));
        }
      } finally {
        await nodes?.close();
      }
    }
  } finally {
    await setup.receiver.close();
  }
  const machine = {
    cores,
    model: cpus()[0]?.model ?? 'cpu',
    node: process.version,
    loadAverageAtStart: load1.map((l) => Math.round(l * 100) / 100),
    loadAverageAtEnd: loadavg().map((l) => Math.round(l * 100) / 100),
    pinned: layout ?? `no (${cores} cores: Redis, the service and the load share them)`,
  };
  if (values.json === true) {
    process.stdout.write(`${JSON.stringify({ machine })}\n`);
    for (const row of rows) process.stdout.write(`${JSON.stringify(row)}\n`);
    return;
  }
  process.stdout.write(`${table(machine, rows, setup)}\n`);
}

async function startNodes(store: string, wrap: readonly string[]): Promise<RedisNodes | undefined> {
  if (store === 'memory') return undefined;
  if (store === 'redis') {
    const port = await unusedLoopbackPort();
    const redis = await startRedisServer({ tcpPort: port, wrap });
    return { url: `redis://127.0.0.1:${port}`, ports: [port], close: () => redis.close() };
  }
  if (store === 'cluster') {
    const cluster = await startRedisCluster(wrap);
    return { url: cluster.url, ports: cluster.ports, close: () => cluster.close() };
  }
  throw new Error(`unknown store "${store}" (memory, redis, cluster)`);
}

const fmt = (n: number | undefined, digits = 0) =>
  n === undefined || !Number.isFinite(n)
    ? '-'
    : n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

function describeRow(row: Row): string {
  return `${row.store} × ${row.workers}: ${fmt(row.payoutsPerSecond)} payouts/s, ${fmt(row.commandsPerPayout, 1)} Redis commands per payout (${fmt(row.sentPerPayout, 1)} sent), idle ${fmt(row.idleCommandsPerSecondPerInstance, 1)}/s per instance`;
}

/** The answers other than 201, as `status×count` (`503×12`; `no answer` for a connection error), for the table. */
function notAcceptedText(row: Row): string {
  return Object.entries(row.notAccepted ?? {})
    .filter(([status]) => status !== '201')
    .map(([status, count]) => `${status === '0' ? 'no answer' : status}×${count}`)
    .join(', ');
}

function table(machine: Record<string, unknown>, rows: readonly Row[], setup: Setup): string {
  const head = [
    `fleet bench: up to ${setup.payouts} signed payouts for at most ${setup.seconds} s per throughput measurement (16 connections per load process, ${setup.loadChildren} load process(es)), ${setup.count} counted payouts one at a time (lifecycle 250 ms, both webhooks delivered to a receiver answering 200)`,
    `machine: ${machine.cores} × ${machine.model}, node ${machine.node}; load average at start ${(machine.loadAverageAtStart as number[]).join(' ')}, at end ${(machine.loadAverageAtEnd as number[]).join(' ')}`,
    `pinned: ${typeof machine.pinned === 'string' ? machine.pinned : `Redis on core ${setup.layout!.redis}, load on ${setup.layout!.load}, service on ${setup.layout!.service}`}`,
    '',
    '| store | workers | payouts/s | Redis commands per payout (sent + in scripts) | idle commands/s per instance | Redis CPU µs per payout | Redis commands per CPU-second | ceiling payouts/s per Redis node (its CPU full) | Redis bytes per payout |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  const body = rows.map(
    (r) =>
      `| ${r.store} | ${r.workers} | ${fmt(r.payoutsPerSecond)}${r.failed > 0 ? ` (${r.failed} not accepted: ${notAcceptedText(r)})` : ''} | ${r.commandsPerPayout === undefined ? '-' : `${fmt(r.commandsPerPayout, 1)} (${fmt(r.sentPerPayout, 1)} + ${fmt(r.inScriptsPerPayout, 1)})`} | ${fmt(r.idleCommandsPerSecondPerInstance, 1)} (${fmt(r.idleSentPerSecondPerInstance, 1)} sent) | ${fmt(r.redisCpuMicrosPerPayout)} | ${fmt(r.redisCommandsPerCpuSecond)} | ${fmt(r.ceilingPayoutsPerSecond)} | ${fmt(r.redisBytesPerPayout)} |${r.webhooksMissing > 0 ? ` ${r.webhooksMissing} webhooks missing` : ''}`,
  );
  const names = rows.find((r) => r.byName !== undefined)?.byName ?? {};
  const split = rows.find((r) => r.byNameSplit !== undefined)?.byNameSplit ?? {};
  const usec = rows.find((r) => r.usecByName !== undefined)?.usecByName ?? {};
  const part = (pick: 'sent' | 'inScripts') =>
    Object.entries(split)
      .filter(([, v]) => v[pick] >= 0.05)
      .sort((a, b) => b[1][pick] - a[1][pick])
      .map(([k, v]) => `${k} ${v[pick]}`)
      .join(', ');
  return [
    ...head,
    ...body,
    '',
    `commands per payout by name (first Redis row): ${Object.entries(names)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
    `of which sent (MONITOR, first Redis row): ${part('sent')}; inside scripts: ${part('inScripts')}`,
    `Redis µs per payout by command (commandstats usec, first Redis row; evalsha includes its scripts' commands): ${Object.entries(
      usec,
    )
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  ].join('\n');
}

await main();
