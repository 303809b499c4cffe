// `tsx bench/pool-healing.ts`: the worker pool's throughput before a worker fails and after its replacement is ready
// (the goal: throughput back within noise after recovery), and what the fault costs the requests in flight. Rounds
// of distinct signed 600-byte payouts through verifyRequestAsync, `--in-flight` at a time; each cycle measures rounds
// before a worker is killed under load and after its replacement is ready, seconds apart, so their medians compare.
// A benchmark, never a timed test; bounded by counts.
// Keys and the application secret are TEST ONLY (test/fixtures/keys/).
// Usage: tsx bench/pool-healing.ts [--threads N] [--requests N] [--rounds R] [--in-flight K] [--cycles C]
import { performance } from 'node:perf_hooks';
import {
  applySignedHeaders,
  configureVerifyPool,
  MemoryNonceStore,
  onVerifyPoolEvent,
  signRequest,
  startVerifyPool,
  verifyPoolInfo,
  verifyRequestAsync,
  type ApplicationRecord,
  type HttpRequest,
  type VerifyPoolEvent,
} from '../index.js';
import { injectVerifyPoolFault } from '../net/verify-pool/config.js';
import { loadTestKeys } from '../test/fixtures/keys.js';
import { median } from './harness.js';
import { payoutBody } from './signing.js';

const flag = (name: string, fallback: number): number => {
  const at = process.argv.indexOf(`--${name}`);
  const value = at < 0 ? fallback : Number(process.argv[at + 1]);
  if (!Number.isInteger(value) || value <= 0)
    throw new RangeError(`--${name} must be a positive integer`);
  return value;
};
const THREADS = flag('threads', 2);
const REQUESTS = flag('requests', 2_000);
const ROUNDS = flag('rounds', 3);
const IN_FLIGHT = flag('in-flight', 64);

const keys = loadTestKeys();
const APPLICATION_ID = 'test-only-bench-application';
const SECRET = 'test-only-bench-application-secret';
const record: ApplicationRecord = {
  secret: SECRET,
  publicKeys: new Map([['test-only-bench-key', keys.clientEd25519.publicKey]]),
};
const resolveApplication = (id: string) => (id === APPLICATION_ID ? record : undefined);
const body = payoutBody();
let nonces = 0;

function signed(count: number): HttpRequest[] {
  const created = Math.floor(Date.now() / 1000);
  return Array.from({ length: count }, () => {
    const request: HttpRequest = {
      method: 'POST',
      url: 'https://api.example.com/api/payouts',
      headers: [['content-type', 'application/vnd.service.v1.0+json']],
      body,
    };
    const credentials = {
      applicationId: APPLICATION_ID,
      applicationSecret: SECRET,
      keyId: 'test-only-bench-key',
      privateKey: keys.clientEd25519.privateKey,
    };
    return applySignedHeaders(
      request,
      signRequest(request, credentials, { created, nonce: `bench-${++nonces}` }).headers,
    );
  });
}

/** CPU µs per request of the last round (every thread of the process): steadier than req/s on a shared machine. */
let lastCpuPerRequest = 0;

/** Requests per second through verifyRequestAsync, IN_FLIGHT at a time; every one must verify. */
async function round(requests: HttpRequest[]): Promise<number> {
  const cpu = process.cpuUsage();
  const options = { nonceStore: new MemoryNonceStore(), resolveApplication };
  let next = 0;
  let failures = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < requests.length) {
        const result = await verifyRequestAsync(requests[next++]!, options);
        if (!result.ok) failures++;
      }
    }),
  );
  if (failures > 0) throw new Error(`${failures} requests did not verify`);
  const used = process.cpuUsage(cpu);
  lastCpuPerRequest = (used.user + used.system) / requests.length;
  return requests.length / ((performance.now() - started) / 1000);
}

/** The median rate of ROUNDS rounds; `cpu` collects the median CPU µs per request. */
async function rounds(label: string, cpu: number[]): Promise<number> {
  const rates: number[] = [];
  const cpus: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    rates.push(await round(signed(REQUESTS)));
    cpus.push(lastCpuPerRequest);
  }
  const m = median(rates);
  cpu.push(median(cpus));
  console.log(
    `${label}: median ${Math.round(m)} req/s (${rates.map(Math.round).join(', ')}), CPU ${median(cpus).toFixed(0)} µs/request`,
  );
  return m;
}

const CYCLES = flag('cycles', 6);
const events: VerifyPoolEvent[] = [];
onVerifyPoolEvent((event) => events.push(event));
configureVerifyPool({ threads: THREADS, restarts: { maxRestarts: 2 * CYCLES } });
await startVerifyPool();
await round(signed(REQUESTS)); // warm-up, untimed

/** Kills worker 0 with a load in flight; resolves once every request settled and the replacement is ready. */
async function fault(): Promise<string> {
  const load = signed(REQUESTS);
  const options = { nonceStore: new MemoryNonceStore(), resolveApplication };
  const from = events.length;
  const started = performance.now();
  const pending = load.map((r) => verifyRequestAsync(r, options));
  await new Promise((resolve) => setImmediate(resolve));
  injectVerifyPoolFault('exit', 0);
  const results = await Promise.all(pending);
  const settledMs = performance.now() - started;
  while (!events.slice(from).some((e) => e.type === 'worker-restarted'))
    await new Promise((resolve) => setTimeout(resolve, 10));
  await startVerifyPool();
  const failed = events.slice(from).find((e) => e.type === 'worker-failed');
  const held = failed?.type === 'worker-failed' ? failed.inFlight : -1;
  return `${results.filter((r) => r.ok).length}/${load.length} verified in ${Math.round(settledMs)} ms, ${held} held by the failed worker`;
}

// Each cycle: ROUNDS rounds with the pool as it is, a worker killed under load and replaced, ROUNDS rounds again.
// The two medians of a cycle were measured seconds apart; the ratio says whether the replacement brought it back.
const ratios: number[] = [];
const cpuBefore: number[] = [];
const cpuAfter: number[] = [];
for (let c = 0; c < CYCLES; c++) {
  const before = await rounds(`cycle ${c + 1}, before`, cpuBefore);
  console.log(`cycle ${c + 1}, fault: ${await fault()}`);
  // The replacement starts cold, as the first workers did before their untimed warm-up round: one round measured
  // as it comes (what the first seconds after a failure cost), then one untimed, then the rounds compared.
  console.log(
    `cycle ${c + 1}, first round after: ${Math.round(await round(signed(REQUESTS)))} req/s`,
  );
  await round(signed(REQUESTS));
  const after = await rounds(`cycle ${c + 1}, after `, cpuAfter);
  ratios.push(after / before);
}
const info = verifyPoolInfo();
console.log(
  `after / before per cycle: ${ratios.map((r) => r.toFixed(2)).join(', ')} (median ${median(ratios).toFixed(2)}); pool at the end: ${JSON.stringify(info)}`,
);
const cpuRatios = cpuAfter.map((a, i) => a / cpuBefore[i]!);
console.log(
  `CPU per request after / before per cycle: ${cpuRatios.map((r) => r.toFixed(2)).join(', ')} (median ${median(cpuRatios).toFixed(2)})`,
);
configureVerifyPool({ threads: 0 });
