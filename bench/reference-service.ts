// Benchmark: signed payout creation over loopback against the reference service (which verifies with
// verifyRequestAsync, the Ed25519 step on the thread pool), beside a bare node:http server that only verifies the same
// signature with the synchronous verifyRequest (the limit, unchanged, so the ratio shows what the service adds), and the
// service with its portal watched by 16 live views (every request then fans out a change event: the portal must not
// slow the API). Servers run in a child process; this process signs and sends. Throughput: a closed loop of C
// connections, rounds alternating between the servers (the machine is shared and noisy); each reports its best round
// and its rounds. Latency: an open loop at a fixed offered rate below saturation (requests sent on schedule, whatever
// the answers), p50 and p99 for the bare server and the service, so the cost of the thread-pool hop is visible too.
// Usage: npx tsx bench/reference-service.ts [--json] [--requests N] [--concurrency C] [--rounds R] [--rate R]
import { fork } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  exportEd25519SeedBase64,
  generateEd25519PrivateKey,
  parseEd25519PrivateKey,
} from '../src/keys/index.js';
import { MemoryNonceStore } from '../src/profile/nonce-store.js';
import { signRequest } from '../src/profile/sign-request.js';
import { verifyRequest } from '../src/profile/verify-request.js';
import { toHttpRequest } from '../net/http-io.js';
import { startReferenceService } from '../server/index.js';
import { listen } from '../net/listen.js';
import { PAYOUT_MEDIA_TYPE as PAYOUT_TYPE } from '../server/representations.js';
import { payoutCreateBody } from './payout-body.js';
import { percentile } from './harness.js';

interface Credentials {
  readonly applicationId: string;
  readonly applicationSecret: string;
  readonly keyId: string;
  readonly merchantId: string;
  /** Bench only: the seed crosses the IPC channel to the child, never any output. */
  readonly seed: string;
}

/**
 * Requests sent to each fresh server process before timing, so its code is optimised (the service has far more than
 * the bare server): 1,000, or ten times a smaller run's requests (a smoke run of a few requests proves the benchmark
 * runs, not its figures, and 1,000 signed requests to each of five servers were most of its cost).
 */
const WARMUP = 1000;
const warmupFor = (total: number): number => Math.min(WARMUP, 10 * total);
const RUN_TIMEOUT_MS = 60_000;

// ---------------------------------------------------------------- child: one server
async function serveChild(kind: string, creds: Credentials): Promise<void> {
  const privateKey = parseEd25519PrivateKey(creds.seed);
  let port: number;
  if (kind === 'reference' || kind === 'portal') {
    const { createPortal } = await import('../server/portal/index.js');
    const service = await startReferenceService({
      applications: [
        { ...creds, publicKey: privateKey.publicKey, payInAccountSelector: 'main-account' },
      ],
      seedPayments: false,
      ...(kind === 'portal' ? { extensions: [createPortal()] } : {}),
    });
    port = service.port;
    // 16 open live views (the portal's cap), each reading its event stream.
    if (kind === 'portal')
      for (let i = 0; i < 16; i++)
        http.get(`${service.baseUrl}/portal/events`, (res) => res.resume());
  } else {
    const nonceStore = new MemoryNonceStore();
    // One record, as the service keeps one per application (verifyRequest caches the secret's digest per record).
    const record = {
      secret: creds.applicationSecret,
      publicKeys: new Map([[creds.keyId, privateKey.publicKey]]),
    };
    const resolveApplication = (id: string) => (id === creds.applicationId ? record : undefined);
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        // The request as the service builds it (server/http-io.ts), so the limit differs only by what the service adds.
        void verifyRequest(toHttpRequest(req, new Uint8Array(Buffer.concat(chunks))), {
          nonceStore,
          resolveApplication,
        }).then((r) => {
          res
            .writeHead(r.ok ? 201 : 401, { 'content-type': 'application/json' })
            .end(r.ok ? '{"ok":true}' : `{"code":"${r.code}"}`);
        });
      });
    });
    port = (await listen(server, '127.0.0.1', 0)).port;
  }
  process.send!({ port });
}

// ---------------------------------------------------------------- parent: sign, send, measure
interface Result {
  readonly name: string;
  readonly opsPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly ok: number;
  readonly failed: number;
}

/** The latency percentile `q` (0..1) of sorted milliseconds, rounded to 0.01 ms. */
function latencyPercentile(sorted: readonly number[], q: number): number {
  return Math.round((percentile(sorted, q) ?? 0) * 100) / 100;
}

function startChild(kind: string, creds: Credentials): Promise<{ port: number; stop: () => void }> {
  const child = fork(fileURLToPath(import.meta.url), ['--child', kind], {
    execArgv: process.execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`${kind} server did not start in 15 s`));
    }, 15_000);
    child.once('message', (m: { port: number }) => {
      clearTimeout(timer);
      resolve({ port: m.port, stop: () => child.kill() });
    });
    child.send(creds);
    child.once('exit', (code) => reject(new Error(`${kind} server exited ${code}`)));
  });
}

/** Signed payout requests (distinct nonces and references), built before any timing. */
function signedPayouts(
  port: number,
  creds: Credentials,
  count: number,
): { headers: Record<string, string>; body: Uint8Array }[] {
  const privateKey = parseEd25519PrivateKey(creds.seed);
  const base = `http://127.0.0.1:${port}`;
  return Array.from({ length: count }, (_, i) => {
    const body = payoutCreateBody(creds.applicationId, 'main-account', `BENCH-${i}`);
    const { headers } = signRequest(
      {
        method: 'POST',
        url: `${base}/api/payouts`,
        headers: [['content-type', PAYOUT_TYPE]],
        body,
      },
      {
        applicationId: creds.applicationId,
        applicationSecret: creds.applicationSecret,
        keyId: creds.keyId,
        privateKey,
      },
    );
    return { headers: { 'content-type': PAYOUT_TYPE, ...headers }, body };
  });
}

/** Sends one request; resolves with the status (0 for a network error or a 10 s timeout). */
function send(
  agent: http.Agent,
  port: number,
  r: { headers: Record<string, string>; body: Uint8Array },
): Promise<number> {
  return new Promise((resolve) => {
    const req = http.request(
      { host: '127.0.0.1', port, method: 'POST', path: '/api/payouts', headers: r.headers, agent },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.setTimeout(10_000, () => req.destroy());
    req.on('error', () => resolve(0));
    req.end(r.body);
  });
}

async function measure(
  name: string,
  port: number,
  creds: Credentials,
  total: number,
  concurrency: number,
): Promise<Result> {
  // Pre-sign every request (distinct nonces) so the client's signing cost is not in the timed loop.
  const warmup = warmupFor(total);
  const requests = signedPayouts(port, creds, total + warmup);
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const run = async (from: number, to: number, latencies: number[] | undefined) => {
    let next = from;
    let ok = 0;
    let failed = 0;
    const deadline = Date.now() + RUN_TIMEOUT_MS;
    const worker = async () => {
      while (next < to && Date.now() < deadline) {
        const i = next++;
        const started = performance.now();
        const status = await send(agent, port, requests[i]!);
        latencies?.push(performance.now() - started);
        if (status === 201) ok++;
        else failed++;
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    return { ok, failed };
  };
  await run(0, warmup, undefined);
  const latencies: number[] = [];
  const started = performance.now();
  const { ok, failed } = await run(warmup, warmup + total, latencies);
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    name,
    opsPerSec: Math.round(((ok + failed) / seconds) * 10) / 10,
    p50Ms: latencyPercentile(latencies, 0.5),
    p99Ms: latencyPercentile(latencies, 0.99),
    ok,
    failed,
  };
}

/**
 * An open loop: `total` requests at `rate` per second on a fixed schedule (request i is due at i / rate s), sent
 * whether or not earlier ones were answered, each timed from its due time (so a client that falls behind counts
 * as latency, not as a lower offered rate). Bounded by RUN_TIMEOUT_MS.
 */
async function measureAtRate(
  name: string,
  port: number,
  creds: Credentials,
  total: number,
  rate: number,
): Promise<Result> {
  const warmup = warmupFor(total);
  const requests = signedPayouts(port, creds, total + warmup);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  for (let i = 0; i < warmup; i += 16)
    await Promise.all(requests.slice(i, i + 16).map((r) => send(agent, port, r)));
  const latencies: number[] = [];
  let ok = 0;
  let failed = 0;
  const pending: Promise<void>[] = [];
  const start = performance.now();
  const deadline = start + RUN_TIMEOUT_MS;
  let next = 0;
  while (next < total && performance.now() < deadline) {
    const elapsed = performance.now() - start;
    const due = Math.min(total, Math.floor((elapsed * rate) / 1000) + 1);
    for (; next < due; next++) {
      const dueAt = start + (next * 1000) / rate;
      pending.push(
        send(agent, port, requests[warmup + next]!).then((status) => {
          latencies.push(performance.now() - dueAt);
          if (status === 201) ok++;
          else failed++;
        }),
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await Promise.all(pending);
  const seconds = (performance.now() - start) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    name,
    opsPerSec: Math.round(((ok + failed) / seconds) * 10) / 10,
    p50Ms: latencyPercentile(latencies, 0.5),
    p99Ms: latencyPercentile(latencies, 0.99),
    ok,
    failed,
  };
}

/** A JSON line: `name` and `opsPerSec` as every bench row, then this benchmark's extras. */
export interface ServerRow {
  readonly name: string;
  readonly opsPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Throughput rows: each round's req/s, in order (rounds alternate between the servers). */
  readonly roundOpsPerSec?: readonly number[];
  /** Fixed-load rows: the offered rate (req/s). */
  readonly offeredPerSec?: number;
}

const SERVERS = [
  ['bare-node-http-verify', 'bare'],
  ['reference-service', 'reference'],
  ['reference-service-portal-16-live', 'portal'],
] as const;
/** The fixed-load phase compares the service with the limit only. */
const FIXED_LOAD_SERVERS = SERVERS.slice(0, 2);

/** Row name of a server's fixed-load latency measurement. */
const fixedLoadName = (name: string): string => `${name}-fixed-load`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      json: { type: 'boolean' },
      requests: { type: 'string' },
      concurrency: { type: 'string' },
      rounds: { type: 'string' },
      rate: { type: 'string' },
      child: { type: 'string' },
    },
    strict: true,
  });
  if (values.child !== undefined) {
    process.once('message', (creds: Credentials) => void serveChild(values.child!, creds));
    return;
  }
  const total = Math.min(Number(values.requests ?? 3000) || 3000, 100_000);
  const concurrency = Math.min(Number(values.concurrency ?? 16) || 16, 256);
  const rounds = Math.min(Number(values.rounds ?? 3) || 3, 10);
  const rate = Math.min(Math.max(Number(values.rate ?? 1000) || 0, 0), 20_000);
  const key = generateEd25519PrivateKey();
  const creds: Credentials = {
    applicationId: '0b7f4b52-3c1e-4d6a-9f00-6a4b2c1d0e9f',
    applicationSecret: 'bench-only-secret',
    keyId: 'bench-key',
    merchantId: 'bench-merchant',
    seed: exportEd25519SeedBase64(key),
  };
  const best = new Map<string, Result>();
  const perRound = new Map<string, number[]>(SERVERS.map(([name]) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const [name, kind] of SERVERS) {
      const child = await startChild(kind, creds);
      try {
        const r = await measure(name, child.port, creds, total, concurrency);
        perRound.get(name)!.push(r.opsPerSec);
        const prev = best.get(name);
        if (prev === undefined || r.opsPerSec > prev.opsPerSec) best.set(name, r);
      } finally {
        child.stop();
      }
    }
  }
  const fixedLoad: Result[] = [];
  if (rate > 0) {
    for (const [name, kind] of FIXED_LOAD_SERVERS) {
      const child = await startChild(kind, creds);
      try {
        fixedLoad.push(await measureAtRate(fixedLoadName(name), child.port, creds, total, rate));
      } finally {
        child.stop();
      }
    }
  }
  const rows: ServerRow[] = [
    ...[...best.values()].map((r) => ({
      name: r.name,
      opsPerSec: r.opsPerSec,
      p50Ms: r.p50Ms,
      p99Ms: r.p99Ms,
      roundOpsPerSec: perRound.get(r.name)!,
    })),
    ...fixedLoad.map((r) => ({
      name: r.name,
      opsPerSec: r.opsPerSec,
      p50Ms: r.p50Ms,
      p99Ms: r.p99Ms,
      offeredPerSec: rate,
    })),
  ];
  if (values.json === true) {
    for (const row of rows) process.stdout.write(`${JSON.stringify(row)}\n`);
  } else {
    process.stdout.write(
      `signed POST /api/payouts over loopback, ${total} requests, ${concurrency} connections (after ${warmupFor(total)} warm-up), best of ${rounds} alternating rounds\n`,
    );
    for (const r of [...best.values(), ...fixedLoad]) {
      process.stdout.write(
        `  ${r.name.padEnd(36)} ${String(r.opsPerSec).padStart(9)} req/s   p50 ${r.p50Ms} ms   p99 ${r.p99Ms} ms   (${r.ok} accepted, ${r.failed} other)\n`,
      );
    }
    const [, ref, portal] = [...best.values()];
    if (ref && portal)
      process.stdout.write(
        `  ratio with-portal/reference: ${(portal.opsPerSec / ref.opsPerSec).toFixed(2)} (the portal should cost nothing: about 1.0)\n`,
      );
  }
}

await main();
