// The signing benchmark: verifyRequest on a 600-byte signed POST beside the raw node:crypto
// Ed25519 verify of the same signature base and beside the http-message-signatures package doing the same check;
// verifyRequestAsync with 16 and 64 requests in flight beside the raw synchronous verify (one thread) and
// the raw callback verify with 64 in flight (the limit a thread pool reaches on this machine).
// Keys and the application secret are TEST ONLY (test/fixtures/keys/); nothing secret is printed.

import { createHash, createPublicKey, verify as nodeVerify, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import {
  createVerifier,
  httpbis,
  type Request as HmsRequest,
  type VerifyConfig,
} from 'http-message-signatures';
import { parseDictionary } from 'structured-headers';
import {
  applySignedHeaders,
  MemoryNonceStore,
  nobleBackend,
  nodeBackend,
  serviceProfile,
  signRequest,
  startVerifyPool,
  verifyRequest,
  verifyRequestAsync,
  type ApplicationRecord,
  type Ed25519Backend,
  type HttpRequest,
  type SigningCredentials,
} from '../index.js';
import { exportEd25519PublicKeyDer } from '../src/keys/index.js';
import { loadTestKeys } from '../test/fixtures/keys.js';
import type { Benchmark, BenchmarkSuite, Operation } from './harness.js';

/** Stable benchmark ids (the `name` of the JSON lines). */
export const SIGNING_BENCHMARK_NAMES = Object.freeze({
  full: 'verify-request-node',
  raw: 'ed25519-verify-node-crypto',
  async16: 'verify-request-async-16',
  async64: 'verify-request-async-64',
  rawAsync64: 'ed25519-verify-node-crypto-async-64',
  rawAsync16: 'ed25519-verify-node-crypto-async-16',
  httpMessageSignatures: 'http-message-signatures-verify',
  fullNoble: 'verify-request-noble',
  sign: 'sign-request-node',
} as const);

export const BODY_BYTES = 600;
/** Requests that share the http-message-signatures pool (it keeps no nonce state, so they can be reused). */
const POOL_SIZE = 64;
/**
 * The nonce store's simulated clock: this many requests per simulated second, so the store fills to its 300 s window
 * (~3,000 nonces) and then evicts as it would in a server at steady state, instead of growing for the whole run.
 */
const REQUESTS_PER_SIMULATED_SECOND = 10;

const TEST_ONLY_APPLICATION_ID = '2f0b5a43-9d8e-4c3b-9a59-0e6f1c7d2b11';
const TEST_ONLY_APPLICATION_SECRET = 'test-only-bench-application-secret';

/** A payout creation body of exactly `BODY_BYTES` bytes (the reference is padded to fit). */
export function payoutBody(size = BODY_BYTES): Uint8Array {
  const payout = (reference: string): string =>
    JSON.stringify({
      applicationId: TEST_ONLY_APPLICATION_ID,
      payInAccountSelector: 'GBP-MAIN',
      amount: 1250.75,
      reference,
      destination: {
        destinationType: 'toAccount',
        accountType: 'SCAN',
        holderName: 'Jane Example',
        accountNumber: '12345678',
        sortCode: '040004',
        iban: null,
      },
      doNotCommitOnCoPMismatch: true,
    });
  const bare = Buffer.byteLength(payout(''));
  if (bare > size)
    throw new TypeError(`body size ${size} is below the ${bare} bytes of the bare payout`);
  const body = new TextEncoder().encode(payout('R'.repeat(size - bare)));
  if (body.length !== size)
    throw new Error(`payout body is ${body.length} bytes, expected ${size}`);
  return body;
}

interface Fixture {
  readonly request: HttpRequest;
  readonly credentials: SigningCredentials;
  readonly applications: ReadonlyMap<string, ApplicationRecord>;
  readonly keyObject: KeyObject;
}

function createFixture(): Fixture {
  const key = loadTestKeys().clientEd25519;
  const keyId = 'test-only-bench-key';
  const request: HttpRequest = {
    method: 'POST',
    url: 'https://api.sandbox.example.com/api/payouts',
    headers: [['Content-Type', 'application/vnd.service.v1.0+json']],
    body: payoutBody(),
  };
  const credentials: SigningCredentials = {
    applicationId: TEST_ONLY_APPLICATION_ID,
    applicationSecret: TEST_ONLY_APPLICATION_SECRET,
    keyId,
    privateKey: key.privateKey,
  };
  const applications = new Map<string, ApplicationRecord>([
    [
      TEST_ONLY_APPLICATION_ID,
      { secret: TEST_ONLY_APPLICATION_SECRET, publicKeys: new Map([[keyId, key.publicKey]]) },
    ],
  ]);
  const keyObject = createPublicKey({
    key: Buffer.from(exportEd25519PublicKeyDer(key.publicKey)),
    format: 'der',
    type: 'spki',
  });
  return { request, credentials, applications, keyObject };
}

interface SignedRequest {
  readonly request: HttpRequest;
  readonly signatureBase: string;
  readonly signature: Buffer;
  readonly headers: Readonly<Record<string, string>>;
}

/** Signs the fixture request (fresh UUIDv4 nonce unless given), outside any timed loop. */
function sign(fixture: Fixture, created: number, nonce?: string): SignedRequest {
  const signed = signRequest(
    fixture.request,
    fixture.credentials,
    nonce === undefined ? { created } : { created, nonce },
  );
  const request = applySignedHeaders(fixture.request, signed.headers);
  const match = /^sig1=:([A-Za-z0-9+/=]+):$/.exec(signed.headers['signature'] ?? '');
  if (match === null) throw new Error('signRequest returned an unexpected Signature header');
  const headers: Record<string, string> = {};
  for (const [name, value] of request.headers) headers[name.toLowerCase()] = value;
  return {
    request,
    signatureBase: signed.signatureBase,
    signature: Buffer.from(match[1]!, 'base64'),
    headers,
  };
}

const unixNow = (): number => Math.floor(Date.now() / 1000);

/**
 * 1. and 4.: the full verifyRequest, a fresh nonce per iteration, one windowed nonce store per benchmark; with
 * `inFlight`, verifyRequestAsync with that many requests outstanding.
 */
function verifyRequestBenchmark(
  fixture: Fixture,
  name: string,
  title: string,
  backend: Ed25519Backend,
  inFlight?: number,
): Benchmark {
  const verify = inFlight === undefined ? verifyRequest : verifyRequestAsync;
  const nonceStore = new MemoryNonceStore();
  const clockStart = unixNow();
  let serial = 0; // continues across rounds, so the simulated clock only moves forward
  const resolveApplication = (id: string): ApplicationRecord | undefined =>
    fixture.applications.get(id);
  return {
    name,
    title,
    ...(inFlight === undefined ? {} : { inFlight }),
    async prepare(count: number): Promise<Operation> {
      // verifyRequestAsync's worker pool starts on first use; the timed rounds measure it started.
      if (inFlight !== undefined) await startVerifyPool();
      const items = Array.from({ length: count }, () => {
        const now = clockStart + Math.floor(serial++ / REQUESTS_PER_SIMULATED_SECOND);
        return { now, request: sign(fixture, now).request };
      });
      return async (i) => {
        const item = items[i]!;
        const result = await verify(item.request, {
          now: item.now,
          nonceStore,
          resolveApplication,
          backend,
        });
        if (!result.ok)
          throw new Error(`${name}: ${result.code} at step ${result.step}: ${result.message}`);
      };
    },
  };
}

/**
 * The bases and signatures of `count` requests signed as the full benchmark signs them (a fresh nonce each), so the
 * raw verify works on as many distinct bases as verifyRequest does, not on a few that stay in the cache.
 */
function signedBases(fixture: Fixture, count: number): { base: Buffer; signature: Buffer }[] {
  const created = unixNow();
  return Array.from({ length: count }, () => {
    const s = sign(fixture, created);
    return { base: Buffer.from(s.signatureBase, 'utf8'), signature: s.signature };
  });
}

/** 2.: node:crypto Ed25519 verify of the already-built signature base bytes, with a cached KeyObject. */
function rawVerifyBenchmark(fixture: Fixture): Benchmark {
  return {
    name: SIGNING_BENCHMARK_NAMES.raw,
    title:
      'raw node:crypto Ed25519 verify of the same signature bases (one per iteration, cached KeyObject)',
    prepare(count: number): Operation {
      const items = signedBases(fixture, count);
      return (i) => {
        const item = items[i]!;
        if (!nodeVerify(null, item.base, fixture.keyObject, item.signature))
          throw new Error('raw Ed25519 verify failed');
      };
    },
  };
}

const verifyOnThreadPool = promisify(
  nodeVerify as (
    algorithm: null,
    data: Uint8Array,
    key: KeyObject,
    signature: Uint8Array,
    callback: (error: Error | null, verified: boolean) => void,
  ) => void,
);

/**
 * 2b.: the same raw verify in its callback form (libuv's thread pool) with `inFlight` outstanding: the ceiling for
 * verifyRequestAsync at that depth, since it adds its other steps to exactly this call.
 */
function rawVerifyAsyncBenchmark(fixture: Fixture, inFlight: 16 | 64): Benchmark {
  return {
    name: inFlight === 16 ? SIGNING_BENCHMARK_NAMES.rawAsync16 : SIGNING_BENCHMARK_NAMES.rawAsync64,
    title: `raw node:crypto Ed25519 verify, callback form (thread pool), ${inFlight} in flight (informational)`,
    inFlight,
    prepare(count: number): Operation {
      const items = signedBases(fixture, count);
      return async (i) => {
        const item = items[i]!;
        if (!(await verifyOnThreadPool(null, item.base, fixture.keyObject, item.signature)))
          throw new Error('raw Ed25519 verify failed');
      };
    },
  };
}

/**
 * 3.: http-message-signatures `httpbis.verifyMessage` (node:crypto ed25519 verifier over a cached KeyObject) plus the
 * Content-Digest check. The package has no Content-Digest support, so the check is what a user of it has to add: parse
 * the Dictionary with structured-headers (the package's own parser) and compare its sha-512 member with SHA-512(body).
 * It is given the same policy as far as the package can express it (required parameters and fields, 300 s max age);
 * it has no nonce store and no application secret check, which favours it.
 */
function httpMessageSignaturesBenchmark(fixture: Fixture): Benchmark {
  const verifier = createVerifier(fixture.keyObject, 'ed25519');
  const keyId = fixture.credentials.keyId;
  const config: VerifyConfig = {
    keyLookup: async (params) =>
      params.keyid === keyId ? { id: keyId, algs: ['ed25519'], verify: verifier } : null,
    maxAge: serviceProfile.maxAgeSeconds,
    requiredParams: [...serviceProfile.parameterOrder],
    requiredFields: [...serviceProfile.componentNames],
  };
  const body = Buffer.from(fixture.request.body);
  const digestMatches = (field: string | undefined): boolean => {
    if (field === undefined) return false;
    const member = parseDictionary(field).get('sha-512');
    if (member === undefined || !(member[0] instanceof ArrayBuffer)) return false;
    return Buffer.from(member[0]).equals(createHash('sha512').update(body).digest());
  };
  return {
    name: SIGNING_BENCHMARK_NAMES.httpMessageSignatures,
    title: 'http-message-signatures verifyMessage + Content-Digest (SHA-512) check',
    prepare(): Operation {
      const created = unixNow(); // the package checks created against the real clock
      const pool = Array.from({ length: POOL_SIZE }, () => {
        const s = sign(fixture, created);
        const request: HmsRequest = {
          method: s.request.method,
          url: s.request.url,
          headers: s.headers,
        };
        return { request, contentDigest: s.headers['content-digest'] };
      });
      return async (i) => {
        const item = pool[i % POOL_SIZE]!;
        if (!digestMatches(item.contentDigest))
          throw new Error('http-message-signatures: Content-Digest mismatch');
        if ((await httpbis.verifyMessage(config, item.request)) !== true)
          throw new Error('http-message-signatures: verify failed');
      };
    },
  };
}

/** 5.: signRequest with its defaults (created now, a UUIDv4 nonce): digest, base, Ed25519 sign, header serialisation. */
function signRequestBenchmark(fixture: Fixture): Benchmark {
  return {
    name: SIGNING_BENCHMARK_NAMES.sign,
    title: 'signRequest (node backend; digest, base, Ed25519 sign, headers)',
    prepare(): Operation {
      return () => {
        const signed = signRequest(fixture.request, fixture.credentials);
        if (signed.headers['signature'] === undefined)
          throw new Error('signRequest returned no Signature');
      };
    },
  };
}

/** The suite `bench/run.ts` runs: the benchmarks and the ratios (targeted ones with their goal). */
export function createSigningSuite(): BenchmarkSuite {
  const fixture = createFixture();
  const n = SIGNING_BENCHMARK_NAMES;
  return {
    benchmarks: [
      verifyRequestBenchmark(
        fixture,
        n.full,
        `verifyRequest, node backend (${BODY_BYTES}-byte POST, fresh nonce, windowed store)`,
        nodeBackend,
      ),
      rawVerifyBenchmark(fixture),
      verifyRequestBenchmark(
        fixture,
        n.async16,
        'verifyRequestAsync, node backend, 16 requests in flight',
        nodeBackend,
        16,
      ),
      verifyRequestBenchmark(
        fixture,
        n.async64,
        'verifyRequestAsync, node backend, 64 requests in flight',
        nodeBackend,
        64,
      ),
      rawVerifyAsyncBenchmark(fixture, 64),
      rawVerifyAsyncBenchmark(fixture, 16),
      httpMessageSignaturesBenchmark(fixture),
      verifyRequestBenchmark(
        fixture,
        n.fullNoble,
        'verifyRequest, noble backend (informational)',
        nobleBackend,
      ),
      signRequestBenchmark(fixture),
    ],
    comparisons: [
      {
        label: 'full verifyRequest / raw node:crypto verify',
        numerator: n.full,
        denominator: n.raw,
        target: 0.9,
      },
      {
        label: 'full verifyRequest / http-message-signatures',
        numerator: n.full,
        denominator: n.httpMessageSignatures,
        target: 1.2,
      },
      {
        label: 'verifyRequestAsync, 16 in flight / raw synchronous verify',
        numerator: n.async16,
        denominator: n.raw,
        target: 1.6,
      },
      {
        label: 'verifyRequestAsync, 64 in flight / raw synchronous verify',
        numerator: n.async64,
        denominator: n.raw,
        target: 1.6,
      },
      {
        label: 'raw callback verify, 16 in flight / raw synchronous verify',
        numerator: n.rawAsync16,
        denominator: n.raw,
      },
      {
        label: 'raw callback verify, 64 in flight / raw synchronous verify',
        numerator: n.rawAsync64,
        denominator: n.raw,
      },
      {
        label:
          "verifyRequestAsync / raw callback verify, 16 in flight (share of the thread pool's ceiling)",
        numerator: n.async16,
        denominator: n.rawAsync16,
      },
      {
        label:
          "verifyRequestAsync / raw callback verify, 64 in flight (share of the thread pool's ceiling)",
        numerator: n.async64,
        denominator: n.rawAsync64,
      },
      {
        label: 'noble verifyRequest / node verifyRequest',
        numerator: n.fullNoble,
        denominator: n.full,
      },
    ],
  };
}
