// verifyRequestAsync (steps 1-3, 8-10 in worker threads; Ed25519 on libuv's thread pool for other backends or with the
// pool off) against verifyRequest (calling thread): the same result, field for field, on every verify vector and on
// random valid and tampered requests; one acceptance per nonce however many requests carrying it are in flight. No
// timing assertions.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { backends, nodeBackend, type Ed25519Backend } from '../src/ed25519/index.js';
import type { HttpRequest } from '../src/http/message.js';
import { MemoryNonceStore, type NonceStore } from '../src/profile/nonce-store.js';
import { DeferredNonceStore } from './fixtures/deferred-nonce-store.js';
import {
  applySignedHeaders,
  signRequest,
  type SigningCredentials,
} from '../src/profile/sign-request.js';
import { verifyRequestAsync } from '../net/verify-pool/verify-request-async.js';
import {
  verifyRequest,
  type ApplicationRecord,
  type VerifyOptions,
  type VerifyResult,
} from '../src/profile/verify-request.js';
import { createVerificationPolicy } from '../src/profile/verification-policy.js';
import {
  configureVerifyPool,
  startVerifyPool,
  verifyPoolInfo,
  verifyPoolThreads,
} from '../net/verify-pool/config.js';
import { verifyCaseSetup } from '../vectors/adapters/node/answer.js';
import type { KeysFile, VectorFile } from '../vectors/format.js';
import { messageInput, type VectorIndex } from '../vectors/harness/load.js';
import { loadTestKeys } from './fixtures/keys.js';

const dir = fileURLToPath(new URL('../vectors/', import.meta.url));
const read = <T>(path: string): T => JSON.parse(readFileSync(dir + path, 'utf8')) as T;
const index = read<VectorIndex & { files: Array<{ path: string }> }>('index.json');
const vectorKeys = read<KeysFile>('keys.json');
const verifyCases = index.files.flatMap((f) =>
  read<VectorFile>(f.path).cases.filter((c) => c.op === 'verify'),
);

beforeAll(async () => {
  // The worker pool starts on first use and serves requests once its workers are ready; these tests wait for that,
  // so that the node backend's cases go through the workers (counted below), not the fallback on this thread.
  configureVerifyPool({ threads: 2 });
  expect(await startVerifyPool()).toMatchObject({ threads: 2, running: true, failed: false });
}, 60_000);

describe('every verify vector: verifyRequestAsync gives the recorded result and exactly what verifyRequest gives', () => {
  it('there are verify vectors to compare', () => {
    expect(verifyCases.length).toBeGreaterThan(40);
  });
  for (const backend of backends) {
    it(`${verifyCases.length} cases, ${backend.name} backend`, async () => {
      const sentBefore = verifyPoolInfo().requests;
      for (const c of verifyCases) {
        const input = messageInput(vectorKeys, c);
        const sync = verifyCaseSetup(input, backend);
        const async = verifyCaseSetup(input, backend);
        const expected = await verifyRequest(sync.request, sync.options);
        const received = await verifyRequestAsync(async.request, async.options);
        expect(received, c.id).toEqual(expected);
        const answer = received.ok
          ? { ok: true, signatureBase: received.signatureBase }
          : { ok: false, code: received.code, step: received.step };
        expect(answer, c.id).toEqual(c.expected);
      }
      if (backend === nodeBackend)
        expect(verifyPoolInfo().requests - sentBefore).toBe(verifyCases.length);
    });
  }
});

const keys = loadTestKeys();
const credentials: SigningCredentials = {
  applicationId: 'app-1',
  applicationSecret: 'test-only-secret',
  keyId: 'key-1',
  privateKey: keys.clientEd25519.privateKey,
};
const application: ApplicationRecord = {
  secret: 'test-only-secret',
  publicKeys: new Map([
    ['key-1', keys.clientEd25519.publicKey],
    ['key-other', keys.rfc9421Ed25519.publicKey],
  ]),
};
const NOW = 1_767_225_600;
const resolveApplication = (id: string) => (id === 'app-1' ? application : undefined);
const options = (extra: Partial<VerifyOptions> = {}): VerifyOptions => ({
  now: NOW,
  nonceStore: new MemoryNonceStore(),
  resolveApplication,
  ...extra,
});

function sign(
  request: HttpRequest,
  created: number,
  nonce: string,
  creds: SigningCredentials = credentials,
): HttpRequest {
  return applySignedHeaders(request, signRequest(request, creds, { created, nonce }).headers);
}
function setHeader(request: HttpRequest, name: string, value: string | undefined): HttpRequest {
  const headers = request.headers.filter(([n]) => n.toLowerCase() !== name);
  return { ...request, headers: value === undefined ? headers : [...headers, [name, value]] };
}
function header(request: HttpRequest, name: string): string {
  return request.headers.find(([n]) => n.toLowerCase() === name)?.[1] ?? '';
}
function flipByte(bytes: Uint8Array, at: number): Uint8Array {
  const copy = Uint8Array.from(bytes);
  if (copy.length > 0) copy[at % copy.length]! ^= 1 << (at % 8);
  return copy;
}
/** The Signature header with one bit of the signature flipped. */
function flipSignatureBit(request: HttpRequest, at: number): HttpRequest {
  const match = /^sig1=:([A-Za-z0-9+/=]+):$/.exec(header(request, 'signature'));
  if (match === null) return request;
  return setHeader(
    request,
    'signature',
    `sig1=:${Buffer.from(flipByte(Buffer.from(match[1]!, 'base64'), at)).toString('base64')}:`,
  );
}

/** Ways to spoil a signed request, each aimed at a different step (the index picks a byte or a variant). */
const tamperings: ReadonlyArray<readonly [string, (r: HttpRequest, i: number) => HttpRequest]> = [
  ['signature bit', flipSignatureBit],
  ['body byte', (r, i) => ({ ...r, body: flipByte(r.body, i) })],
  ['method', (r) => ({ ...r, method: r.method === 'POST' ? 'PUT' : 'POST' })],
  ['path', (r) => ({ ...r, url: `${r.url}x` })],
  [
    'authority port',
    (r) => ({ ...r, url: r.url.replace('://api.example.com', '://api.example.com:8443') }),
  ],
  ['content-type', (r) => setHeader(r, 'content-type', 'text/plain')],
  ['secret', (r) => setHeader(r, 'x-application-secret', 'wrong')],
  ['application id', (r) => setHeader(r, 'x-application-id', 'app-2')],
  ['no Signature', (r) => setHeader(r, 'signature', undefined)],
  ['no Content-Digest', (r) => setHeader(r, 'content-digest', undefined)],
  [
    'nonce edited',
    (r) =>
      setHeader(
        r,
        'signature-input',
        header(r, 'signature-input').replace(';nonce="', ';nonce="x'),
      ),
  ],
  [
    'created edited',
    (r) =>
      setHeader(
        r,
        'signature-input',
        header(r, 'signature-input').replace(
          /created=(\d+)/,
          (_, n: string) => `created=${Number(n) - 1}`,
        ),
      ),
  ],
  [
    'keyid other key',
    (r) =>
      setHeader(
        r,
        'signature-input',
        header(r, 'signature-input').replace('keyid="key-1"', 'keyid="key-other"'),
      ),
  ],
  [
    'keyid unknown',
    (r) =>
      setHeader(
        r,
        'signature-input',
        header(r, 'signature-input').replace('keyid="key-1"', 'keyid="key-9"'),
      ),
  ],
  [
    'label',
    (r) =>
      setHeader(
        setHeader(r, 'signature', header(r, 'signature').replace('sig1=', 'sig2=')),
        'signature-input',
        header(r, 'signature-input').replace('sig1=', 'sig2='),
      ),
  ],
  [
    'duplicate content-type',
    (r) => ({ ...r, headers: [...r.headers, ['Content-Type', 'application/json']] }),
  ],
  [
    'signature truncated',
    (r) => setHeader(r, 'signature', header(r, 'signature').replace(/[A-Za-z0-9+/]{4}=*:$/, ':')),
  ],
];

const requestArb = fc.record({
  method: fc.constantFrom('POST', 'PUT', 'PATCH', 'GET', 'DELETE'),
  path: fc.stringMatching(/^\/[a-z0-9/._~-]{0,20}$/),
  query: fc.option(fc.stringMatching(/^[a-z0-9=&%]{0,12}$/), { nil: undefined }),
  body: fc.uint8Array({ maxLength: 200 }),
  created: fc.integer({ min: NOW - 400, max: NOW + 400 }),
  nonce: fc
    .stringMatching(/^[\x21-\x7e]{1,60}$/)
    .filter((n) => !n.includes('"') && !n.includes('\\')),
  tamper: fc.option(fc.nat(tamperings.length - 1), { nil: undefined, freq: 3 }),
  at: fc.nat(1000),
  /** The nonce was seen before (step 4). */
  replayed: fc.boolean(),
});

describe('property: verifyRequestAsync and verifyRequest agree on random valid and tampered requests', () => {
  for (const backend of backends) {
    it(`${backend.name} backend`, async () => {
      let accepted = 0;
      let rejected = 0;
      await fc.assert(
        fc.asyncProperty(requestArb, async (c) => {
          const bodyless = c.method === 'GET' || c.method === 'DELETE';
          const unsigned: HttpRequest = {
            method: c.method,
            url: `https://api.example.com${c.path}${c.query === undefined ? '' : `?${c.query}`}`,
            headers: [['Content-Type', 'application/vnd.service.v1.0+json']],
            body: bodyless ? new Uint8Array() : c.body,
          };
          let request = sign(unsigned, c.created, c.nonce);
          if (c.tamper !== undefined) request = tamperings[c.tamper]![1](request, c.at);
          const stores = [new MemoryNonceStore(), new MemoryNonceStore()];
          if (c.replayed) for (const store of stores) store.checkAndRecord(c.nonce, NOW, NOW + 300);
          const expected = await verifyRequest(
            request,
            options({ nonceStore: stores[0]!, backend }),
          );
          const received = await verifyRequestAsync(
            request,
            options({ nonceStore: stores[1]!, backend }),
          );
          expect(received).toEqual(expected);
          // The nonce store ends in the same state: recorded exactly when the request was accepted.
          expect(stores[1]!.has(c.nonce, NOW)).toBe(stores[0]!.has(c.nonce, NOW));
          if (received.ok) accepted++;
          else rejected++;
        }),
        { numRuns: 250 },
      );
      // Both kinds were generated (the arbitrary is not degenerate).
      expect(accepted).toBeGreaterThan(10);
      expect(rejected).toBeGreaterThan(10);
    });
  }
});

describe('step 10 with the parse: the workers hold the keys of applications step 5 found', () => {
  /**
   * Verifies each request both ways (separate stores; `syncExtra` for verifyRequest when it must differ); returns
   * how many the pool verified ahead meanwhile.
   */
  async function compareBothWays(
    requests: HttpRequest[],
    extra: Partial<VerifyOptions>,
    syncExtra: Partial<VerifyOptions> = extra,
  ): Promise<number> {
    const before = verifyPoolInfo().verifiedAhead;
    const syncStore = new MemoryNonceStore();
    const asyncStore = new MemoryNonceStore();
    const received = await Promise.all(
      requests.map((r) => verifyRequestAsync(r, options({ ...extra, nonceStore: asyncStore }))),
    );
    for (const [i, request] of requests.entries())
      expect(received[i]).toEqual(
        await verifyRequest(request, options({ ...syncExtra, nonceStore: syncStore })),
      );
    return verifyPoolInfo().verifiedAhead - before;
  }

  it('requests of a known application: verified in one round trip, valid and tampered alike, as verifyRequest says', async () => {
    const requests = Array.from({ length: 120 }, (_, i) => {
      const signed = sign(POST, NOW, `ahead-${i}`);
      return i % 3 === 2 ? flipSignatureBit(signed, i) : signed;
    });
    await compareBothWays(requests.slice(0, 8), {}); // step 5 registers the application
    const ahead = await compareBothWays(requests.slice(8), {});
    expect(ahead).toBeGreaterThan(56); // more than half of the 112 (a worker may start meanwhile)
  });

  it('a resolver that builds an equal record per call: its keys go to the workers once, and requests still take one round trip', async () => {
    const fresh = (): ApplicationRecord => ({
      secret: 'test-only-secret',
      publicKeys: new Map([['key-1', { ...keys.clientEd25519.publicKey }]]),
    });
    const extra = { resolveApplication: (id: string) => (id === 'app-1' ? fresh() : undefined) };
    const requests = Array.from({ length: 72 }, (_, i) => sign(POST, NOW, `fresh-record-${i}`));
    await compareBothWays(requests.slice(0, 8), extra);
    const before = verifyPoolInfo().registrations;
    expect(await compareBothWays(requests.slice(8), extra)).toBeGreaterThan(32);
    // At most one registration (the first batch's record may differ from the one registered before it).
    expect(verifyPoolInfo().registrations - before).toBeLessThanOrEqual(1);
  });

  it('a record replaced, a key swapped in its map, or its bytes overwritten: never the answer of a key step 7 no longer finds', async () => {
    const other = keys.rfc9421Ed25519;
    const otherCredentials = { ...credentials, privateKey: other.privateKey };
    let record: ApplicationRecord = {
      secret: 'test-only-secret',
      publicKeys: new Map([['key-1', keys.clientEd25519.publicKey]]),
    };
    const extra = { resolveApplication: (id: string) => (id === 'app-1' ? record : undefined) };
    const batch = (tag: string): HttpRequest[] =>
      Array.from({ length: 24 }, (_, i) =>
        sign(POST, NOW, `${tag}-${i}`, i % 2 === 0 ? credentials : otherCredentials),
      );
    expect(await compareBothWays(batch('first'), extra)).toBeGreaterThanOrEqual(0);
    // A new record with the other key under the same keyid.
    record = { secret: 'test-only-secret', publicKeys: new Map([['key-1', other.publicKey]]) };
    await compareBothWays(batch('replaced'), extra);
    // The same record object, its key swapped in place.
    (record.publicKeys as Map<string, typeof other.publicKey>).set(
      'key-1',
      keys.clientEd25519.publicKey,
    );
    await compareBothWays(batch('swapped'), extra);
    // The same key object, its bytes overwritten with the other key's: the bytes step 10 reads now decide, as they
    // did before step 10 ran with the parse (node-backend's calling-thread path keeps the KeyObject it built for a
    // key object, so verifyRequest is asked with a fresh record holding the new bytes).
    const mutable = {
      kind: 'ed25519-public' as const,
      raw: Uint8Array.from(keys.clientEd25519.publicKey.raw),
    };
    record = { secret: 'test-only-secret', publicKeys: new Map([['key-1', mutable]]) };
    await compareBothWays(batch('before-overwrite'), extra);
    mutable.raw.set(other.publicKey.raw);
    const now: ApplicationRecord = {
      secret: 'test-only-secret',
      publicKeys: new Map([['key-1', other.publicKey]]),
    };
    await compareBothWays(batch('overwritten'), extra, {
      resolveApplication: (id: string) => (id === 'app-1' ? now : undefined),
    });
  });
});

const POST: HttpRequest = {
  method: 'POST',
  url: 'https://api.example.com/api/payouts',
  headers: [['Content-Type', 'application/vnd.service.v1.0+json']],
  body: new TextEncoder().encode('{"amount":10.5,"reference":"INV-1"}'),
};

describe('replay under concurrency: many requests in flight with one nonce give exactly one acceptance', () => {
  for (const [storeName, makeStore] of [
    ['MemoryNonceStore', () => new MemoryNonceStore()],
    ['a store answering through promises', () => new DeferredNonceStore()],
  ] as const) {
    it(`64 in flight, ${storeName}`, async () => {
      const nonceStore = makeStore();
      const request = sign(POST, NOW, 'one-nonce-for-all');
      const results = await Promise.all(
        Array.from({ length: 64 }, () => verifyRequestAsync(request, options({ nonceStore }))),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      for (const r of results.filter((r) => !r.ok))
        expect(r).toMatchObject({ ok: false, code: 'NONCE_REPLAYED' });
      // Behind a store that answers later, every copy passes step 4 before any is recorded, so the losers are
      // refused by step 11's atomic record. With a synchronous store, a worker that ran step 10 with the parse (the
      // application's keys registered) lets the first copy be recorded while later ones are still at step 4.
      if (storeName !== 'MemoryNonceStore')
        expect(results.some((r) => !r.ok && r.step === 11)).toBe(true);
      else expect(results.every((r) => r.ok || r.step === 4 || r.step === 11)).toBe(true);
    });
  }

  it('sync and async verifications of one nonce mixed in flight: still exactly one acceptance', async () => {
    const nonceStore = new DeferredNonceStore();
    const request = sign(POST, NOW, 'mixed-nonce');
    const results = await Promise.all(
      Array.from({ length: 32 }, (_, i) =>
        (i % 2 === 0 ? verifyRequestAsync : verifyRequest)(request, options({ nonceStore })),
      ),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(1);
  });

  it('64 in flight with distinct nonces are all accepted, each with its own nonce', async () => {
    const nonceStore = new MemoryNonceStore();
    const requests = Array.from({ length: 64 }, (_, i) => sign(POST, NOW, `nonce-${i}`));
    const results = await Promise.all(
      requests.map((r) => verifyRequestAsync(r, options({ nonceStore }))),
    );
    expect(results.map((r) => (r.ok ? r.nonce : r.code))).toEqual(
      requests.map((_, i) => `nonce-${i}`),
    );
  });
});

describe('verifyRequestAsync checks the signature through backend.verifyAsync, never backend.verify', () => {
  function spyBackend(): { backend: Ed25519Backend; calls: string[] } {
    const calls: string[] = [];
    const backend: Ed25519Backend = {
      name: 'node',
      sign: (m, k) => nodeBackend.sign(m, k),
      verify: (s, m, k) => (calls.push('verify'), nodeBackend.verify(s, m, k)),
      verifyAsync: (s, m, k) => (calls.push('verifyAsync'), nodeBackend.verifyAsync(s, m, k)),
    };
    return { backend, calls };
  }
  it('async path: verifyAsync once; sync path: verify once', async () => {
    const a = spyBackend();
    expect(
      (await verifyRequestAsync(sign(POST, NOW, 'n-1'), options({ backend: a.backend }))).ok,
    ).toBe(true);
    expect(a.calls).toEqual(['verifyAsync']);
    const s = spyBackend();
    expect((await verifyRequest(sign(POST, NOW, 'n-2'), options({ backend: s.backend }))).ok).toBe(
      true,
    );
    expect(s.calls).toEqual(['verify']);
  });
  it('a backend whose verifyAsync rejects or throws gives SIGNATURE_INVALID at step 10, as a throwing verify does', async () => {
    const failing = (how: 'reject' | 'throw'): Ed25519Backend => ({
      name: 'node',
      sign: (m, k) => nodeBackend.sign(m, k),
      verify: () => {
        throw new Error('engine down');
      },
      verifyAsync: () => {
        if (how === 'throw') throw new Error('engine down');
        return Promise.reject(new Error('engine down'));
      },
    });
    for (const how of ['reject', 'throw'] as const) {
      const nonceStore = new MemoryNonceStore();
      const received: VerifyResult = await verifyRequestAsync(
        sign(POST, NOW, 'n-3'),
        options({ backend: failing(how), nonceStore }),
      );
      expect(received).toEqual(
        await verifyRequest(sign(POST, NOW, 'n-3'), options({ backend: failing(how) })),
      );
      expect(received).toMatchObject({ ok: false, code: 'SIGNATURE_INVALID', step: 10 });
      expect(nonceStore.has('n-3', NOW)).toBe(false);
    }
  });
});

describe('after an awaited answer, an exception still gives a typed result (the returned promise never rejects)', () => {
  const unprintable = Object.create(null) as object; // String(unprintable) throws
  const throwing = (value: unknown) => (): never => {
    throw value;
  };
  for (const [name, verify] of [
    ['verifyRequest', verifyRequest],
    ['verifyRequestAsync', verifyRequestAsync],
  ] as const) {
    it(`${name}: resolveApplication throwing behind a store that answers later → APPLICATION_LOOKUP_FAILED at step 5`, async () => {
      for (const thrown of [new Error('directory down'), unprintable]) {
        const result = await verify(
          sign(POST, NOW, 'n-5'),
          options({ nonceStore: new DeferredNonceStore(), resolveApplication: throwing(thrown) }),
        );
        expect(result).toMatchObject({ ok: false, code: 'APPLICATION_LOOKUP_FAILED', step: 5 });
        if (!result.ok) expect(result.message).toMatch(/^resolveApplication threw: /);
      }
    });
    it(`${name}: a store rejecting with a value that cannot be printed → NONCE_STORE_UNAVAILABLE, nothing accepted`, async () => {
      const store: NonceStore = {
        has: () => Promise.reject(unprintable),
        checkAndRecord: () => Promise.reject(unprintable),
      };
      expect(await verify(sign(POST, NOW, 'n-6'), options({ nonceStore: store }))).toMatchObject({
        ok: false,
        code: 'NONCE_STORE_UNAVAILABLE',
        step: 4,
      });
      const late: NonceStore = {
        has: () => false,
        checkAndRecord: () => Promise.reject(unprintable),
      };
      expect(await verify(sign(POST, NOW, 'n-7'), options({ nonceStore: late }))).toMatchObject({
        ok: false,
        code: 'NONCE_STORE_UNAVAILABLE',
        step: 11,
      });
    });
  }
  it('verifyRequestAsync: a nonce store whose checkAndRecord throws after the signature came back → NONCE_STORE_UNAVAILABLE at step 11', async () => {
    const store: NonceStore = { has: () => false, checkAndRecord: throwing(unprintable) };
    expect(
      await verifyRequestAsync(sign(POST, NOW, 'n-8'), options({ nonceStore: store })),
    ).toMatchObject({ ok: false, code: 'NONCE_STORE_UNAVAILABLE', step: 11 });
  });
});

describe('the worker pool', () => {
  it('sized by configureVerifyPool (else PAYCONFORM_VERIFY_THREADS, else one per core from 8 cores); bad sizes refused', () => {
    expect(verifyPoolThreads()).toBe(2);
    for (const threads of [-1, 1.5, 257, Number.NaN])
      expect(() => configureVerifyPool({ threads })).toThrow(RangeError);
  });

  it('closed with 64 requests in flight: each is verified on the calling thread instead, with the same result', async () => {
    const nonceStore = new DeferredNonceStore();
    const requests = Array.from({ length: 64 }, (_, i) =>
      i % 4 === 3
        ? flipSignatureBit(sign(POST, NOW, `closing-${i}`), i)
        : sign(POST, NOW, `closing-${i}`),
    );
    const expected = await Promise.all(
      requests.map((r) => verifyRequest(r, options({ nonceStore: new MemoryNonceStore() }))),
    );
    const sentBefore = verifyPoolInfo().requests;
    const pending = requests.map((r) => verifyRequestAsync(r, options({ nonceStore })));
    await new Promise((resolve) => setImmediate(resolve)); // sent to the workers
    expect(verifyPoolInfo().requests - sentBefore).toBe(64);
    configureVerifyPool({ threads: 0 }); // ends the workers with the requests in flight
    expect(await Promise.all(pending)).toEqual(expected);
    expect(verifyPoolInfo()).toMatchObject({ threads: 0, running: false });
    // Off: verifyRequestAsync goes on without workers (libuv's pool), and a new pool can be started.
    expect((await verifyRequestAsync(sign(POST, NOW, 'off-1'), options())).ok).toBe(true);
    configureVerifyPool({ threads: 2 });
    expect(await startVerifyPool()).toMatchObject({ running: true, failed: false });
    expect((await verifyRequestAsync(sign(POST, NOW, 'on-again'), options())).ok).toBe(true);
  });

  it('starts by demand: not for one request at a time, once several are in flight at once', async () => {
    configureVerifyPool({ threads: 0 });
    configureVerifyPool({ threads: 2 });
    for (let i = 0; i < 3; i++)
      expect((await verifyRequestAsync(sign(POST, NOW, `one-${i}`), options())).ok).toBe(true);
    expect(verifyPoolInfo().running).toBe(false);
    const nonceStore = new MemoryNonceStore();
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        verifyRequestAsync(sign(POST, NOW, `many-${i}`), options({ nonceStore })),
      ),
    );
    expect(results.every((r) => r.ok)).toBe(true);
    expect(verifyPoolInfo().running).toBe(true);
    expect(await startVerifyPool()).toMatchObject({ running: true, failed: false });
  });

  it('odd input is verified on the calling thread, with the same result (no worker sees it)', async () => {
    const signed = sign(POST, NOW, 'odd-1');
    const cases: [HttpRequest, Partial<VerifyOptions>][] = [
      [{ ...signed, headers: [...signed.headers, ['x-extra', 7 as unknown as string]] }, {}],
      [signed, { policy: { ...createVerificationPolicy() } }], // not frozen: read live by the steps
      [signed, { now: '1767225600' as unknown as number }],
    ];
    for (const [request, extra] of cases) {
      const sentBefore = verifyPoolInfo().requests;
      const expected = await verifyRequest(request, options(extra));
      expect(await verifyRequestAsync(request, options(extra))).toEqual(expected);
      expect(verifyPoolInfo().requests).toBe(sentBefore);
    }
  });
});
