// Benchmark of the Redis scale-out (npm run bench:redis): verifyRequest with RedisNonceStore against the in-memory
// store, the reference service on Redis against in memory, `--workers 2` against one worker, and Redis bytes per
// remembered nonce. Starts its own redis-server (Debian's package) on a Unix socket in a temp dir, and the services
// as `payconform serve` child processes; the load generator is this process, on the same machine (and cores).
// Usage: tsx bench/redis.ts [--json] [--requests N] [--rounds R] [--nonces N]
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { cpus, loadavg } from 'node:os';
import { awaitServeReady, postPayout, type ServeChild } from './serve-child.js';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { connectRedis, RedisNonceStore, type RedisNonceStoreOptions } from '../redis/index.js';
import {
  exportEd25519PublicKeyBase64,
  exportEd25519SeedBase64,
  generateEd25519PrivateKey,
} from '../src/keys/index.js';
import { MemoryNonceStore, type NonceStore } from '../src/profile/nonce-store.js';
import { signRequest } from '../src/profile/sign-request.js';
import { verifyRequest, type ApplicationRecord } from '../src/profile/verify-request.js';
import type { HttpRequest } from '../src/http/message.js';
import { startRedisServer } from '../test/fixtures/redis-server.js';
import { PAYOUT_MEDIA_TYPE as PAYOUT_TYPE } from '../server/representations.js';
import { median } from './harness.js';
import { payoutCreateBody } from './payout-body.js';

const key = generateEd25519PrivateKey();
const creds = {
  applicationId: '0b7f4b52-3c1e-4d6a-9f00-6a4b2c1d0e9f',
  applicationSecret: 'bench-only-secret-0123456789',
  keyId: 'bench-key',
  merchantId: 'bench-merchant',
};
const record: ApplicationRecord = {
  secret: creds.applicationSecret,
  publicKeys: new Map([[creds.keyId, key.publicKey]]),
};
const resolveApplication = (id: string) => (id === creds.applicationId ? record : undefined);

/** `count` signed create-payout requests for `url`, each with its own nonce (signed before timing). */
function signedRequests(url: string, count: number): HttpRequest[] {
  return Array.from({ length: count }, (_, i) => {
    const body = payoutCreateBody(creds.applicationId, 'main', `BENCH-${i}`);
    const request: HttpRequest = {
      method: 'POST',
      url,
      headers: [['content-type', PAYOUT_TYPE]],
      body,
    };
    const { headers } = signRequest(request, { ...creds, privateKey: key });
    return { ...request, headers: [...request.headers, ...Object.entries(headers)] };
  });
}

/** verifyRequest over `requests` with `inFlight` at once; ops/s. Throws when one is not accepted. */
async function verifyAll(
  requests: readonly HttpRequest[],
  nonceStore: NonceStore,
  inFlight: number,
): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < requests.length) {
        const r = await verifyRequest(requests[next++]!, {
          nonceStore,
          resolveApplication,
          now: Math.floor(Date.now() / 1000),
        });
        if (!r.ok) throw new Error(`verification failed: ${r.code} ${r.message}`);
      }
    }),
  );
  return (requests.length * 1000) / (performance.now() - started);
}

// ---------------------------------------------------------------- services as child processes
type Service = ServeChild;

function startServe(args: readonly string[]): Promise<Service> {
  const bin = fileURLToPath(new URL('../bin/payconform.js', import.meta.url));
  const child: ChildProcess = spawn(
    process.execPath,
    [bin, 'serve', '--port', '0', '--quiet', '--no-portal', ...args],
    {
      env: {
        PATH: process.env.PATH ?? '',
        PAYCONFORM_APPLICATION_ID: creds.applicationId,
        PAYCONFORM_APPLICATION_SECRET: creds.applicationSecret,
        PAYCONFORM_KEY_ID: creds.keyId,
        PAYCONFORM_MERCHANT_ID: creds.merchantId,
        PAYCONFORM_PUBLIC_KEY: exportEd25519PublicKeyBase64(key.publicKey),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  return awaitServeReady(child, args, 30_000);
}

/** Signed POST /api/payouts over loopback, `connections` keep-alive connections; req/s of accepted requests. */
async function load(
  port: number,
  total: number,
  connections: number,
): Promise<{ opsPerSec: number; failed: number }> {
  const requests = signedRequests(`http://127.0.0.1:${port}/api/payouts`, total + 200);
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const send = (r: HttpRequest): Promise<number> =>
    postPayout(port, agent, Object.fromEntries(r.headers), r.body);
  const run = async (from: number, to: number) => {
    let next = from;
    let failed = 0;
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (next < to) if ((await send(requests[next++]!)) !== 201) failed += 1;
      }),
    );
    return failed;
  };
  await run(0, 200); // warm-up
  const started = performance.now();
  const failed = await run(200, 200 + total);
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  return { opsPerSec: (total - failed) / seconds, failed };
}

/** A RedisNonceStore that has noticed the empty Redis (a start counts as a loss) and waited out that second. */
async function openedStore(
  client: RedisNonceStoreOptions['client'],
  keyPrefix: string | undefined,
): Promise<RedisNonceStore> {
  const store = new RedisNonceStore({ client, keyPrefix });
  await store.open();
  return store;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      json: { type: 'boolean' },
      requests: { type: 'string' },
      rounds: { type: 'string' },
      nonces: { type: 'string' },
    },
    strict: true,
  });
  const total = Math.min(Number(values.requests ?? 2000) || 2000, 100_000);
  const rounds = Math.min(Number(values.rounds ?? 3) || 3, 10);
  const nonceCount = Math.min(Number(values.nonces ?? 100_000) || 100_000, 1_000_000);
  const progress = (line: string) => {
    if (values.json !== true) process.stderr.write(`  ${line}\n`);
  };
  const load1 = loadavg()[0]!;
  const redis = await startRedisServer();
  const results: Record<string, number> = {};
  try {
    // 1. verifyRequest: RedisNonceStore against MemoryNonceStore, interleaved rounds, median.
    const connection = await connectRedis(redis.url);
    try {
      const perRound: Record<string, number[]> = {
        'verify-memory-sequential': [],
        'verify-redis-sequential': [],
        'verify-memory-64-in-flight': [],
        'verify-redis-64-in-flight': [],
      };
      for (let round = 0; round < rounds; round += 1) {
        for (const [name, inFlight, redisStore] of [
          ['verify-memory-sequential', 1, false],
          ['verify-redis-sequential', 1, true],
          ['verify-memory-64-in-flight', 64, false],
          ['verify-redis-64-in-flight', 64, true],
        ] as const) {
          const store: NonceStore = redisStore
            ? await openedStore(connection, `bench:${round}:`)
            : new MemoryNonceStore();
          const ops = await verifyAll(
            signedRequests('https://api.example.com/api/payouts', total),
            store,
            inFlight,
          );
          perRound[name]!.push(ops);
          progress(`round ${round + 1} ${name}: ${Math.round(ops)} verifications/s`);
        }
      }
      for (const [name, xs] of Object.entries(perRound)) results[name] = median(xs);

      // 2. Bytes per nonce: INFO memory used_memory before and after `nonceCount` nonces (UUIDs, the default prefix).
      await connection.sendCommand(['FLUSHALL']);
      const used = async () =>
        Number(
          /used_memory:(\d+)/.exec(String(await connection.sendCommand(['INFO', 'memory'])))![1],
        );
      const before = await used();
      const store = await openedStore(connection, undefined);
      const now = Math.floor(Date.now() / 1000);
      let i = 0;
      await Promise.all(
        Array.from({ length: 64 }, async () => {
          while (i < nonceCount) {
            i += 1;
            if (!(await store.checkAndRecord(randomUUID(), now, now + 300)))
              throw new Error('a fresh nonce was refused');
          }
        }),
      );
      const after = await used();
      results['redis-bytes-per-nonce'] = (after - before) / nonceCount;
      const sample = String(await connection.sendCommand(['RANDOMKEY']));
      results['redis-memory-usage-one-key'] = Number(
        await connection.sendCommand(['MEMORY', 'USAGE', sample]),
      );
      progress(
        `${nonceCount} nonces: used_memory ${before} -> ${after} bytes; MEMORY USAGE of one key ${results['redis-memory-usage-one-key']}`,
      );
      await connection.sendCommand(['FLUSHALL']);
    } finally {
      await connection.close();
    }

    // 3. The service: memory, Redis, Redis with --workers 2 (16 keep-alive connections each; best of the rounds).
    const configurations = [
      ['service-memory', [] as string[]],
      ['service-redis', ['--redis-url', redis.url]],
      ['service-redis-workers-2', ['--redis-url', redis.url, '--workers', '2']],
    ] as const;
    for (const [name] of configurations) results[name] = 0;
    for (let round = 0; round < rounds; round += 1) {
      for (const [name, args] of configurations) {
        // Each measurement on an empty Redis, as a fresh deployment: the per-application counts (10,000 payouts)
        // would otherwise add up over the rounds.
        if (args.length > 0) await redis.command('FLUSHALL');
        const service = await startServe(args);
        try {
          const r = await load(service.port, total, 16);
          if (r.failed > 0) throw new Error(`${name}: ${r.failed} requests not accepted`);
          results[name] = Math.max(results[name]!, r.opsPerSec);
          progress(`round ${round + 1} ${name}: ${Math.round(r.opsPerSec)} req/s`);
        } finally {
          await service.stop();
        }
      }
    }
  } finally {
    await redis.close();
  }

  const ratios: Record<string, number> = {
    'verify redis/memory, sequential':
      results['verify-redis-sequential']! / results['verify-memory-sequential']!,
    'verify redis/memory, 64 in flight':
      results['verify-redis-64-in-flight']! / results['verify-memory-64-in-flight']!,
    'service redis/memory': results['service-redis']! / results['service-memory']!,
    'service redis --workers 2 / --workers 1':
      results['service-redis-workers-2']! / results['service-redis']!,
  };
  if (values.json === true) {
    for (const [name, value] of Object.entries(results))
      process.stdout.write(`${JSON.stringify({ name, value: Math.round(value * 10) / 10 })}\n`);
    return;
  }
  const out = [
    `redis bench: ${total} signed requests per measurement, ${rounds} rounds (verify: median; service: best round); ${nonceCount} nonces for memory`,
    `machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}; load average at start ${load1.toFixed(2)} (the load generator shares these cores)`,
    '',
    ...Object.entries(results).map(
      ([name, value]) =>
        `  ${name.padEnd(30)} ${name.startsWith('redis-') ? `${value.toFixed(1)} bytes` : `${Math.round(value).toLocaleString('en-US')} /s`}`,
    ),
    '',
    ...Object.entries(ratios).map(([label, value]) => `  ${label}: ${value.toFixed(2)}`),
  ];
  process.stdout.write(`${out.join('\n')}\n`);
}

await main();
