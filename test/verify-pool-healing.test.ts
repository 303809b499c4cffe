// The verification pool heals: a worker that exits, throws (a message it cannot read) or errors mid-load is replaced
// after its back-off and announced; every request it held settles with exactly what verifyRequest gives; the pool is
// used again once the replacement is ready; too many failures in the window stop it, saying why, and requests are
// still answered the same. payconform/node logs each event once per process. No timing assertions but bounds.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createExpressVerifier, createFastifyVerifier, describePoolEvent } from '../node/index.js';
import type { HttpRequest } from '../src/http/message.js';
import { MemoryNonceStore, type NonceStore } from '../src/profile/nonce-store.js';
import { DeferredNonceStore } from './fixtures/deferred-nonce-store.js';
import { applySignedHeaders, signRequest } from '../src/profile/sign-request.js';
import { verifyRequestAsync } from '../net/verify-pool/verify-request-async.js';
import {
  verifyRequest,
  type ApplicationRecord,
  type VerifyOptions,
  type VerifyResult,
} from '../src/profile/verify-request.js';
import {
  configureVerifyPool,
  injectVerifyPoolFault,
  startVerifyPool,
  verifyPoolInfo,
} from '../net/verify-pool/config.js';
import {
  DEFAULT_RESTART_POLICY,
  onVerifyPoolEvent,
  type VerifyPoolEvent,
} from '../net/verify-pool/health.js';
import { loadTestKeys } from './fixtures/keys.js';

const keys = loadTestKeys();
const application: ApplicationRecord = {
  secret: 'test-only-secret',
  publicKeys: new Map([['key-1', keys.clientEd25519.publicKey]]),
};
const NOW = 1_767_225_600;
/** Back-off for these tests: the default's doubling, from 10 ms. */
const RESTARTS = { ...DEFAULT_RESTART_POLICY, backoffMs: 10 };
/** How long a replacement may take to load (from sources, through tsx, on two busy cores). */
const REPLACEMENT_MS = 30_000;

/** Looked up asynchronously, as a database answers. */
const resolveApplication = async (id: string) => (id === 'app-1' ? application : undefined);

const POST: HttpRequest = {
  method: 'POST',
  url: 'https://api.example.com/api/payouts',
  headers: [['Content-Type', 'application/vnd.service.v1.0+json']],
  body: new TextEncoder().encode('{"amount":10.5,"reference":"INV-1"}'),
};

function sign(nonce: string, applicationId = 'app-1'): HttpRequest {
  const credentials = {
    applicationId,
    applicationSecret: 'test-only-secret',
    keyId: 'key-1',
    privateKey: keys.clientEd25519.privateKey,
  };
  return applySignedHeaders(POST, signRequest(POST, credentials, { created: NOW, nonce }).headers);
}

/**
 * `count` mixed requests: valid, a flipped signature byte, a changed body, a nonce the store saw already, an unknown
 * application; each with its own nonce, so the results do not depend on the order they are verified in.
 */
function mixedLoad(tag: string, count: number): { requests: HttpRequest[]; seen: string[] } {
  const seen: string[] = [];
  const requests = Array.from({ length: count }, (_, i) => {
    const nonce = `${tag}-${i}`;
    const signed = sign(nonce, i % 5 === 4 ? 'app-unknown' : 'app-1');
    switch (i % 5) {
      case 1: {
        const headers = signed.headers.map(([n, v]): [string, string] =>
          n.toLowerCase() === 'signature'
            ? [n, v.replace(/:(.)/, (_m, c: string) => `:${c === 'A' ? 'B' : 'A'}`)]
            : [n, v],
        );
        return { ...signed, headers };
      }
      case 2:
        return { ...signed, body: new TextEncoder().encode('{"amount":99.5,"reference":"INV-1"}') };
      case 3:
        seen.push(nonce);
        return signed;
      default:
        return signed;
    }
  });
  return { requests, seen };
}

const optionsWith = (nonceStore: NonceStore): VerifyOptions => ({
  now: NOW,
  nonceStore,
  resolveApplication,
});

async function expectedResults(requests: HttpRequest[], seen: string[]): Promise<VerifyResult[]> {
  const options = optionsWith(new DeferredNonceStore(seen, NOW));
  return Promise.all(requests.map((r) => verifyRequest(r, options)));
}

const events: VerifyPoolEvent[] = [];
let unsubscribe: () => void = () => {};

async function until(what: string, done: () => boolean, ms = REPLACEMENT_MS): Promise<void> {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

beforeAll(async () => {
  unsubscribe = onVerifyPoolEvent((event) => events.push(event));
  configureVerifyPool({ threads: 0 });
  configureVerifyPool({ threads: 2, restarts: RESTARTS });
  expect(await startVerifyPool()).toMatchObject({ threads: 2, running: true, failed: false });
}, 60_000);

afterAll(() => {
  unsubscribe();
  configureVerifyPool({ threads: 0 });
});

describe('a worker that fails under load is replaced, and no request is lost or answered differently', () => {
  const kinds = ['exit', 'throw', 'error'] as const;
  const held: number[] = [];
  for (const [i, kind] of kinds.entries()) {
    it(`${kind}: 500 mixed requests in flight settle as verifyRequest's; the worker is replaced and used again`, async () => {
      const { requests, seen } = mixedLoad(`heal-${kind}`, 500);
      const expected = await expectedResults(requests, seen);
      expect(expected.filter((r) => r.ok).length).toBe(100); // a fifth valid, the rest refused at steps 4, 5, 8, 10
      const before = verifyPoolInfo();
      const from = events.length;
      const options = optionsWith(new DeferredNonceStore(seen, NOW));
      const pending = requests.map((r) => verifyRequestAsync(r, options));
      expect(verifyPoolInfo().requests - before.requests).toBe(500);
      // The poison goes ahead of the batches (sent after this turn); the other faults hit a worker at work on them.
      if (kind === 'throw') expect(injectVerifyPoolFault(kind, 0)).toBe(true);
      await new Promise((resolve) => setImmediate(resolve));
      if (kind !== 'throw') expect(injectVerifyPoolFault(kind, 0)).toBe(true);
      expect(await Promise.all(pending)).toEqual(expected);

      await until('a replacement', () =>
        events.slice(from).some((e) => e.type === 'worker-restarted'),
      );
      const failed = events.slice(from).find((e) => e.type === 'worker-failed');
      expect(failed).toMatchObject({
        type: 'worker-failed',
        reason:
          kind === 'exit'
            ? 'worker exited with code 1'
            : kind === 'throw'
              ? expect.stringMatching(/^worker threw: TypeError/)
              : 'worker threw: Error: injected fault',
        restartInMs: RESTARTS.backoffMs * 2 ** i, // doubling with each failure in the window
      });
      held.push((failed as { inFlight: number }).inFlight);
      await startVerifyPool(); // both workers ready again
      expect(verifyPoolInfo()).toMatchObject({
        running: true,
        failed: false,
        workersReady: 2,
        workerFailures: before.workerFailures + 1,
        restarts: before.restarts + 1,
      });

      // Recovered: the pool takes the next load (its requests go to the workers), with the same results.
      const again = mixedLoad(`after-${kind}`, 100);
      const sentBefore = verifyPoolInfo().requests;
      const againOptions = optionsWith(new DeferredNonceStore(again.seen, NOW));
      expect(
        await Promise.all(again.requests.map((r) => verifyRequestAsync(r, againOptions))),
      ).toEqual(await expectedResults(again.requests, again.seen));
      expect(verifyPoolInfo().requests - sentBefore).toBe(100);
    }, 60_000);
  }
  it('the failed workers held requests when they failed (so the comparisons above covered them)', () => {
    expect(held.length).toBe(kinds.length);
    expect(Math.min(...held)).toBeGreaterThan(0);
  });
});

describe('too many failures in the window stop the pool, which says why', () => {
  it('with restarts.maxRestarts 1: the second failure stops it; requests are still answered as verifyRequest answers them', async () => {
    configureVerifyPool({ threads: 0 });
    configureVerifyPool({ threads: 2, restarts: { ...RESTARTS, maxRestarts: 1 } });
    await startVerifyPool();
    const from = events.length;
    expect(injectVerifyPoolFault('exit', 0)).toBe(true);
    await until('a replacement', () =>
      events.slice(from).some((e) => e.type === 'worker-restarted'),
    );
    await startVerifyPool();
    const { requests, seen } = mixedLoad('stop', 200);
    const expected = await expectedResults(requests, seen);
    const options = optionsWith(new DeferredNonceStore(seen, NOW));
    const pending = requests.map((r) => verifyRequestAsync(r, options));
    await new Promise((resolve) => setImmediate(resolve));
    expect(injectVerifyPoolFault('exit', 1)).toBe(true);
    expect(await Promise.all(pending)).toEqual(expected);
    await until('the stop', () => events.slice(from).some((e) => e.type === 'pool-stopped'));
    const info = verifyPoolInfo();
    expect(info).toMatchObject({ running: false, failed: true });
    expect(info.stoppedReason).toMatch(
      /^2 worker failures within 60000 ms \(more than restarts\.maxRestarts, 1\); the last: worker exited with code 1$/,
    );
    expect(events.slice(from).map((e) => e.type)).toEqual([
      'worker-failed',
      'worker-restarted',
      'worker-failed',
      'pool-stopped',
    ]);
    // Off for good: requests are verified on the calling thread and libuv's pool, still the same answers.
    const sentBefore = info.requests;
    const later = mixedLoad('stopped', 50);
    const laterOptions = optionsWith(new DeferredNonceStore(later.seen, NOW));
    expect(
      await Promise.all(later.requests.map((r) => verifyRequestAsync(r, laterOptions))),
    ).toEqual(await expectedResults(later.requests, later.seen));
    expect(verifyPoolInfo().requests).toBe(sentBefore);
    // Configuring it again starts it afresh.
    configureVerifyPool({ threads: 2, restarts: RESTARTS });
    expect(await startVerifyPool()).toMatchObject({
      running: true,
      failed: false,
      stoppedReason: undefined,
    });
  }, 90_000);
});

describe('payconform/node logs the pool events once per process', () => {
  it('two adapters with signatureOnThreadPool and no hook: one console.warn line per event; a hook gets the events', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const hooked: VerifyPoolEvent[] = [];
    try {
      const base = {
        nonceStore: new MemoryNonceStore(),
        resolveApplication,
        signatureOnThreadPool: true,
      };
      createExpressVerifier(base);
      createFastifyVerifier({ ...base });
      createExpressVerifier({ ...base, onPoolEvent: (event) => hooked.push(event) });
      await startVerifyPool();
      const from = events.length;
      expect(injectVerifyPoolFault('error', 0)).toBe(true);
      await until('a replacement', () =>
        events.slice(from).some((e) => e.type === 'worker-restarted'),
      );
      const lines = warn.mock.calls.map((call) => String(call[0]));
      expect(lines).toEqual([
        'payconform: verification worker failed (worker threw: Error: injected fault); 0 requests it held are verified on the event loop; a replacement starts in 10 ms',
        expect.stringMatching(
          /^payconform: verification worker replaced \(\d+ replacements so far\)$/,
        ),
      ]);
      expect(hooked.map((e) => e.type)).toEqual(['worker-failed', 'worker-restarted']);
      expect(describePoolEvent({ type: 'pool-stopped', reason: 'why' })).toBe(
        "verification pool stopped, requests are verified on the event loop and libuv's pool: why",
      );
    } finally {
      warn.mockRestore();
    }
  }, 60_000);
});
