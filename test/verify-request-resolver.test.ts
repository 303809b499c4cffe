// Spec step 5 with the service's key lookup: resolveApplication may answer now or with a Promise; a resolver that
// throws, rejects or answers nonsense is the service's failure (APPLICATION_LOOKUP_FAILED, fail closed, the nonce not
// used up), never a client-error code; a synchronous resolver costs no microtask.
import { describe, expect, it } from 'vitest';
import { toFieldLines, type HttpRequest } from '../src/http/message.js';
import { MemoryNonceStore } from '../src/profile/nonce-store.js';
import { applySignedHeaders, signRequest } from '../src/profile/sign-request.js';
import { serviceFailureCodes, verifyErrorCodes } from '../src/profile/verify-error-codes.js';
import { verifyRequestAsync } from '../net/verify-pool/verify-request-async.js';
import {
  verifyRequest,
  type ApplicationRecord,
  type VerifyOptions,
} from '../src/profile/verify-request.js';
import { loadTestKeys } from './fixtures/keys.js';

const keys = loadTestKeys();
const NOW = 1_767_225_600;
const record: ApplicationRecord = {
  secret: 'test-only-secret-1',
  publicKeys: new Map([['key-1', keys.clientEd25519.publicKey]]),
};

function signed(nonce: string, applicationId = 'app-1'): HttpRequest {
  const request: HttpRequest = {
    method: 'POST',
    url: 'https://api.example.com/api/payouts',
    headers: toFieldLines({ 'content-type': 'application/vnd.service.v1.0+json' }),
    body: new TextEncoder().encode('{"amount":10.5}'),
  };
  const { headers } = signRequest(
    request,
    {
      applicationId,
      applicationSecret: record.secret,
      keyId: 'key-1',
      privateKey: keys.clientEd25519.privateKey,
    },
    { created: NOW, nonce },
  );
  return applySignedHeaders(request, headers);
}

const options = (
  resolveApplication: VerifyOptions['resolveApplication'],
  nonceStore = new MemoryNonceStore(),
): VerifyOptions => ({ now: NOW, nonceStore, resolveApplication });

const delayed = <T>(value: T): Promise<T> =>
  new Promise((resolve) => setTimeout(() => resolve(value), 5));

describe.each([
  ['verifyRequest', verifyRequest],
  ['verifyRequestAsync', verifyRequestAsync],
] as const)(
  '%s: spec step 5 with a synchronous or asynchronous resolveApplication',
  (_, verify) => {
    it('a synchronous and an asynchronous resolver (resolved now or later) accept the same request', async () => {
      for (const resolve of [
        (id: string) => (id === 'app-1' ? record : undefined),
        async (id: string) => (id === 'app-1' ? record : undefined),
        (id: string) => delayed(id === 'app-1' ? record : undefined),
      ]) {
        const result = await verify(signed('n-ok'), options(resolve));
        expect(result).toMatchObject({ ok: true, applicationId: 'app-1', keyId: 'key-1' });
      }
    });

    it('an unknown id is the client error APPLICATION_ID_UNKNOWN, sync or async', async () => {
      for (const resolve of [() => undefined, async () => undefined]) {
        const result = await verify(signed('n-unknown', 'app-9'), options(resolve));
        expect(result).toMatchObject({ ok: false, code: 'APPLICATION_ID_UNKNOWN', step: 5 });
      }
    });

    it('a resolver that throws, rejects or answers something else → APPLICATION_LOOKUP_FAILED at step 5', async () => {
      const failing: Array<[string, VerifyOptions['resolveApplication'], RegExp]> = [
        [
          'throws',
          () => {
            throw new Error('db down');
          },
          /resolveApplication threw: db down/,
        ],
        [
          'throws a non-Error',
          () => {
            throw 42;
          },
          /threw: 42/,
        ],
        ['rejects', () => Promise.reject(new Error('pool exhausted')), /rejected: pool exhausted/],
        [
          'async throws',
          async () => {
            throw new Error('timeout');
          },
          /rejected: timeout/,
        ],
        [
          'rejects later',
          () =>
            delayed(null).then(() => {
              throw new Error('late');
            }),
          /late/,
        ],
        ['answers null', () => null as unknown as undefined, /neither undefined nor/],
        ['answers a string', () => 'app-1' as unknown as ApplicationRecord, /neither/],
        [
          'answers keys without a secret',
          () => ({ publicKeys: record.publicKeys }) as unknown as ApplicationRecord,
          /neither/,
        ],
        ['resolves to a thenable-less object', async () => ({}) as ApplicationRecord, /neither/],
        [
          'answers a record whose getter throws',
          () =>
            Object.defineProperty({ publicKeys: record.publicKeys }, 'secret', {
              get: () => {
                throw new Error('x');
              },
            }) as ApplicationRecord,
          /neither/,
        ],
      ];
      for (const [what, resolve, message] of failing) {
        const result = await verify(signed(`n-${what}`), options(resolve));
        expect(result, what).toMatchObject({
          ok: false,
          code: 'APPLICATION_LOOKUP_FAILED',
          step: 5,
        });
        expect(!result.ok && result.message, what).toMatch(message);
      }
    });

    it('fails closed without using up the nonce: the same request verifies once the lookup works again', async () => {
      const store = new MemoryNonceStore();
      const request = signed('n-retry');
      let down = true;
      const resolve = async (id: string) => {
        if (down) throw new Error('db down');
        return id === 'app-1' ? record : undefined;
      };
      expect(await verify(request, options(resolve, store))).toMatchObject({
        code: 'APPLICATION_LOOKUP_FAILED',
      });
      down = false;
      expect(await verify(request, options(resolve, store))).toMatchObject({ ok: true });
      expect(await verify(request, options(resolve, store))).toMatchObject({
        code: 'NONCE_REPLAYED',
      });
    });
  },
);

describe('verifyRequest: the synchronous path stays synchronous', () => {
  it('with a synchronous resolver and store, the result is settled before one microtask turn', async () => {
    let settled = false;
    void verifyRequest(
      signed('n-sync'),
      options(() => record),
    ).then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(true);
  });

  it('an asynchronous resolver is awaited (the check above can fail)', async () => {
    let settled = false;
    void verifyRequest(
      signed('n-async'),
      options(async () => record),
    ).then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
  });
});

describe('the catalogue: whose fault a code is', () => {
  it('APPLICATION_LOOKUP_FAILED and NONCE_STORE_UNAVAILABLE are the service failures, both catalogued', () => {
    expect([...serviceFailureCodes].sort()).toEqual([
      'APPLICATION_LOOKUP_FAILED',
      'NONCE_STORE_UNAVAILABLE',
    ]);
    for (const code of serviceFailureCodes)
      expect(verifyErrorCodes[code].description).toMatch(/fail closed/);
  });
});
