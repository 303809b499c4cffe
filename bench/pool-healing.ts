// `tsx bench/pool-healing.ts`: the worker pool's throughput before a worker fails and after its replacement is ready
// (issue 39: "throughput back within noise after recovery"), and what the fault costs the requests in flight. Rounds
// of distinct signed 600-byte payouts through verifyRequestAsync, `--in-flight` at a time; the rounds before and after
// alternate with nothing else changed, so their medians compare. A benchmark, never a timed test; bounded by counts.
// Keys and the application secret are TEST ONLY (test/fixtures/keys/).
// Usage: tsx bench/pool-healing.ts [--threads N] [--requests N] [--rounds R] [--in-flight K]
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
} from '../src/index.js';
import { injectVerifyPoolFault } from '../src/profile/verify-pool.js';
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
const REQUESTS = flag('requests', 4_000);
const ROUNDS = flag('rounds', 5);
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

/** Requests per second through verifyRequestAsync, IN_FLIGHT at a time; every one must verify. */
async function round(requests: HttpRequest[]): Promise<number> {
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
  return requests.length / ((performance.now() - started) / 1000);
}

async function rounds(label: string): Promise<number> {
  const rates: number[] = [];
  for (let r = 0; r < ROUNDS; r++) rates.push(await round(signed(REQUESTS)));
  const m = median(rates);
  console.log(`${label}: median ${Math.round(m)} req/s (${rates.map(Math.round).join(', ')})`);
  return m;
}

const events: VerifyPoolEvent[] = [];
onVerifyPoolEvent((event) => events.push(event));
configureVerifyPool({ threads: THREADS });
await startVerifyPool();
await round(signed(REQUESTS)); // warm-up, untimed
const before = await rounds('before the fault');

// The fault, under load: a worker ends while it holds requests.
const load = signed(REQUESTS);
const options = { nonceStore: new MemoryNonceStore(), resolveApplication };
const faultStart = performance.now();
const pending = load.map((r) => verifyRequestAsync(r, options));
await new Promise((resolve) => setImmediate(resolve));
injectVerifyPoolFault('exit', 0);
const results = await Promise.all(pending);
console.log(
  `fault: ${load.length} requests in flight, ${results.filter((r) => r.ok).length} verified, in ${Math.round(performance.now() - faultStart)} ms`,
);
while (!events.some((e) => e.type === 'worker-restarted'))
  await new Promise((resolve) => setTimeout(resolve, 10));
await startVerifyPool();
const failed = events.find((e) => e.type === 'worker-failed');
console.log(
  `events: ${events.map((e) => e.type).join(', ')}; held by the failed worker: ${failed?.type === 'worker-failed' ? failed.inFlight : '?'}`,
);
const after = await rounds('after the replacement');
const info = verifyPoolInfo();
// Control: a fresh pool of the same size, measured the same way right after.
configureVerifyPool({ threads: 0 });
configureVerifyPool({ threads: THREADS });
await startVerifyPool();
await round(signed(REQUESTS));
const fresh = await rounds('a fresh pool (control)');
console.log(
  `after / before: ${(after / before).toFixed(3)}; after / fresh: ${(after / fresh).toFixed(3)}; pool after the replacement: ${JSON.stringify(info)}`,
);
configureVerifyPool({ threads: 0 });
