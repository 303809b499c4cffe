// payconform/node in real Express 5 and Fastify 5 servers on loopback: requests signed by the library and by
// independent signers (vectors/adapters: http-message-signatures, the Python example) are accepted and the verified
// application attached; a tampered or unsigned request gets 401 with the spec's error body; a key lookup that fails
// gets 503; a replay is refused across two instances that share one real redis-server.
import { spawnSync } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createExpressVerifier,
  createFastifyVerifier,
  type IncomingVerifyOptions,
} from '../node/index.js';
import { toFieldLines } from '../src/http/message.js';
import { MemoryNonceStore } from '../src/profile/nonce-store.js';
import { applySignedHeaders, signRequest } from '../src/profile/sign-request.js';
import { connectRedis, RedisNonceStore, type RedisConnection } from '../redis/index.js';
import {
  INDEPENDENT_SIGNERS,
  startIndependentSigner,
  type IndependentSigner,
} from './fixtures/independent-signer.js';
import { APP, keys, MEDIA, resolveApplication } from './fixtures/node-application.js';
import { redisTestsEnabled, startRedisServer, type RunningRedis } from './fixtures/redis-server.js';

interface Running {
  readonly port: number;
  close(): Promise<void>;
}

/** The Express service a user writes (docs/library.md): the verifier mounted under /api, then a route. */
async function startExpress(options: IncomingVerifyOptions): Promise<Running> {
  const app = express();
  app.use('/api', createExpressVerifier(options));
  app.post('/api/payouts', (req, res) => {
    const payout = JSON.parse((req.body as Buffer).toString('utf8')) as { amount: number };
    res.status(201).json({ ...req.payconform, amount: payout.amount });
  });
  app.get('/api/payouts/:id', (req, res) => {
    res.json({ ...req.payconform, id: req.params.id });
  });
  return listen(http.createServer(app));
}

/** The Fastify service a user writes: the plugin registered, the profile's media type parsed as JSON. */
async function startFastify(options: IncomingVerifyOptions): Promise<Running> {
  const app = Fastify();
  await app.register(createFastifyVerifier(options));
  app.addContentTypeParser(
    MEDIA,
    { parseAs: 'string' },
    app.getDefaultJsonParser('error', 'error'),
  );
  app.post('/api/payouts', async (request, reply) => {
    const { payconform } = request as unknown as { payconform: object };
    return reply
      .code(201)
      .send({ ...payconform, amount: (request.body as { amount: number }).amount });
  });
  app.get('/api/payouts/:id', async (request) => ({
    ...(request as unknown as { payconform: object }).payconform,
    id: (request.params as { id: string }).id,
  }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { port: (app.server.address() as AddressInfo).port, close: () => app.close() };
}

function listen(server: http.Server): Promise<Running> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: (server.address() as AddressInfo).port,
        close: () => new Promise((r) => server.close(() => r())),
      }),
    ),
  );
}

interface Wire {
  readonly method: string;
  readonly path: string;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body: string;
}

interface Answer {
  readonly status: number;
  readonly json: Record<string, unknown>;
}

/** Sends the exact header lines (Host included) over loopback to `port`; bounded by a 10 s timeout. */
function send(port: number, wire: Wire): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const raw: string[] = wire.headers.flatMap(([n, v]) => [n, v]);
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: wire.method,
        path: wire.path,
        headers: raw,
        timeout: 10_000,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            json: JSON.parse(text) as Record<string, unknown>,
          });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer within 10 s')));
    req.on('error', reject);
    req.end(wire.body);
  });
}

const nowSeconds = () => Math.floor(Date.now() / 1000);
let nonceCounter = 0;
const freshNonce = () => `nonce-${process.pid}-${++nonceCounter}`;

/** A POST signed by payconform's signRequest for `authority` (what the client called). */
function librarySigned(
  authority: string,
  body = '{"amount":10.5}',
  method = 'POST',
  path = '/api/payouts',
): Wire {
  const request = {
    method,
    url: `http://${authority}${path}`,
    headers: toFieldLines(
      method === 'GET' ? { host: authority } : { host: authority, 'content-type': MEDIA },
    ),
    body: new TextEncoder().encode(method === 'GET' ? '' : body),
  };
  const { headers } = signRequest(
    request,
    {
      applicationId: APP.id,
      applicationSecret: APP.secret,
      keyId: APP.keyId,
      privateKey: keys.clientEd25519.privateKey,
    },
    { created: nowSeconds(), nonce: freshNonce() },
  );
  const signed = applySignedHeaders(request, headers);
  return { method, path, headers: signed.headers, body: method === 'GET' ? '' : body };
}

async function independentlySigned(signer: IndependentSigner, authority: string): Promise<Wire> {
  const body = '{"amount":7.25}';
  const base = [
    ['host', authority],
    ['content-type', MEDIA],
  ] as const;
  const added = await signer.sign({
    method: 'POST',
    url: `http://${authority}/api/payouts`,
    headers: base,
    body,
    applicationId: APP.id,
    applicationSecret: APP.secret,
    keyId: APP.keyId,
    privatePem: keys.clientEd25519.privatePem,
    created: nowSeconds(),
    nonce: freshNonce(),
  });
  return { method: 'POST', path: '/api/payouts', headers: [...base, ...added], body };
}

const pythonReady =
  spawnSync('python3', ['-c', 'import cryptography'], { encoding: 'utf8' }).status === 0;
if (!pythonReady)
  console.warn('SKIPPED: the Python signer (python3 with the cryptography package is missing)');
const signerNames = (
  Object.keys(INDEPENDENT_SIGNERS) as Array<keyof typeof INDEPENDENT_SIGNERS>
).filter((n) => n !== 'python' || pythonReady);
const signers: IndependentSigner[] = [];

beforeAll(async () => {
  signers.push(...(await Promise.all(signerNames.map((n) => startIndependentSigner(n)))));
}, 60_000);
afterAll(() => {
  for (const s of signers) s.close();
});

const FRAMEWORKS = { express: startExpress, fastify: startFastify } as const;

describe.each(Object.entries(FRAMEWORKS))('%s with payconform/node', (_, start) => {
  let server: Running;
  let refusals: string[] = [];
  let lookupDown = false;
  beforeAll(async () => {
    server = await start({
      nonceStore: new MemoryNonceStore(),
      resolveApplication: async (id) => {
        if (lookupDown) throw new Error('db down at 10.0.0.7:5432');
        return resolveApplication(id);
      },
      maxBodyBytes: 4096,
      onRefusal: (refusal) => refusals.push(`${refusal.code}: ${refusal.detail}`),
    });
  });
  afterAll(() => server.close());
  const authority = () => `127.0.0.1:${server.port}`;

  it('accepts a request signed by the library and attaches the verified application', async () => {
    const answer = await send(server.port, librarySigned(authority()));
    expect(answer).toMatchObject({
      status: 201,
      json: { applicationId: APP.id, keyId: APP.keyId, amount: 10.5 },
    });
    const get = await send(
      server.port,
      librarySigned(authority(), '', 'GET', '/api/payouts/p-1?x=1'),
    );
    expect(get).toMatchObject({ status: 200, json: { applicationId: APP.id, id: 'p-1' } });
  });

  it('accepts requests signed by the independent signers', async () => {
    expect(signers.length).toBeGreaterThanOrEqual(1);
    for (const signer of signers) {
      const answer = await send(server.port, await independentlySigned(signer, authority()));
      expect(answer, signer.name).toMatchObject({
        status: 201,
        json: { applicationId: APP.id, amount: 7.25 },
      });
    }
  });

  it('refuses a tampered body, a replay and an unsigned request with 401 and the spec error body', async () => {
    const signed = librarySigned(authority());
    const tampered = await send(server.port, { ...signed, body: '{"amount":99.5}' });
    expect(tampered.status).toBe(401);
    expect(tampered.json).toMatchObject({
      statusCode: 401,
      statusName: 'UNAUTHORIZED',
      source: 'MERCHANT',
    });
    expect(tampered.json.errorMessage).toMatch(/DIGEST_MISMATCH/);
    expect(tampered.json.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(Object.keys(tampered.json).sort()).toEqual([
      'errorMessage',
      'source',
      'statusCode',
      'statusName',
      'traceId',
    ]);
    expect((await send(server.port, signed)).status).toBe(201);
    const replay = await send(server.port, signed);
    expect(replay).toMatchObject({ status: 401 });
    expect(replay.json.errorMessage).toMatch(/NONCE_REPLAYED/);
    const unsigned = await send(server.port, {
      ...signed,
      headers: signed.headers.filter(([n]) => !n.startsWith('signature')),
    });
    expect(unsigned.json.errorMessage).toMatch(/SIGNATURE_MISSING/);
  });

  it('answers 503 when the key lookup fails, without the cause in the body; the nonce stays usable', async () => {
    const signed = librarySigned(authority());
    refusals = [];
    lookupDown = true;
    const down = await send(server.port, signed);
    lookupDown = false;
    expect(down.status).toBe(503);
    expect(down.json).toMatchObject({
      statusCode: 503,
      statusName: 'SERVICE_UNAVAILABLE',
      source: 'SERVICE',
    });
    expect(down.json.errorMessage).toMatch(/application lookup is unavailable/);
    expect(JSON.stringify(down.json)).not.toContain('10.0.0.7');
    expect(refusals).toEqual([
      expect.stringMatching(/^APPLICATION_LOOKUP_FAILED: .*db down at 10\.0\.0\.7/),
    ]);
    expect((await send(server.port, signed)).status).toBe(201);
  });

  it('refuses a body over the cap with 413 before verifying it', async () => {
    const big = librarySigned(authority(), JSON.stringify({ amount: 1, pad: 'x'.repeat(5000) }));
    const answer = await send(server.port, big);
    expect(answer).toMatchObject({ status: 413, json: { statusName: 'PAYLOAD_TOO_LARGE' } });
  });

  it('a hostile Host that would move the path is a 400, never verified against another path', async () => {
    const signed = librarySigned(authority());
    const hostile = signed.headers.map(([n, v]) =>
      n === 'host' ? (['host', `${v}/api/payouts#`] as const) : ([n, v] as const),
    );
    const answer = await send(server.port, { ...signed, path: '/api/other', headers: hostile });
    expect(answer).toMatchObject({ status: 400 });
    expect(answer.json.errorMessage).toMatch(/^HOST_INVALID/);
  });
});

describe('Express body parsers before the verifier', () => {
  async function startWith(parser: express.RequestHandler): Promise<Running> {
    const app = express();
    app.use(parser);
    app.use(createExpressVerifier({ nonceStore: new MemoryNonceStore(), resolveApplication }));
    app.post('/api/payouts', (req, res) => {
      res.status(201).json({ ...req.payconform, bytes: (req.body as Buffer).length });
    });
    return listen(http.createServer(app));
  }

  it('after express.raw() the Buffer it read is verified; after express.json() the bytes are gone: 500', async () => {
    const raw = await startWith(express.raw({ type: '*/*' }));
    const json = await startWith(express.json({ type: '*/*' }));
    try {
      const accepted = await send(raw.port, librarySigned(`127.0.0.1:${raw.port}`));
      expect(accepted).toMatchObject({ status: 201, json: { applicationId: APP.id, bytes: 15 } });
      const refused = await send(json.port, librarySigned(`127.0.0.1:${json.port}`));
      expect(refused).toMatchObject({ status: 500, json: { statusName: 'INTERNAL_SERVER_ERROR' } });
      expect(refused.json.errorMessage).toMatch(/^BODY_ALREADY_READ: /);
    } finally {
      await Promise.all([raw.close(), json.close()]);
    }
  });
});

describe('behind a proxy: X-Forwarded-* read only when trusted', () => {
  it('a request signed for https://api.example.com verifies through a trusted proxy and not otherwise', async () => {
    const common = { nonceStore: new MemoryNonceStore(), resolveApplication };
    const trusting = await startExpress({
      ...common,
      trustProxy: { headers: 'x-forwarded', addresses: ['127.0.0.1'] },
    });
    const direct = await startExpress(common);
    const elsewhere = await startExpress({
      ...common,
      trustProxy: { headers: 'x-forwarded', addresses: ['10.9.9.9'] },
    });
    try {
      const proxied = (port: number): Wire => {
        const signed = librarySigned('api.example.com');
        return {
          ...signed,
          headers: [
            ...signed.headers.map(([n, v]) =>
              n === 'host' ? (['host', `127.0.0.1:${port}`] as const) : ([n, v] as const),
            ),
            ['x-forwarded-proto', 'https'],
            ['x-forwarded-host', 'api.example.com'],
          ],
        };
      };
      expect((await send(trusting.port, proxied(trusting.port))).status).toBe(201);
      const untrusted = await send(direct.port, proxied(direct.port));
      expect(untrusted.status).toBe(401);
      expect(untrusted.json.errorMessage).toMatch(/SIGNATURE_INVALID/);
      expect((await send(elsewhere.port, proxied(elsewhere.port))).status).toBe(401);
    } finally {
      await Promise.all([trusting.close(), direct.close(), elsewhere.close()]);
    }
  });
});

describe.runIf(redisTestsEnabled())(
  'two instances sharing one redis-server (RedisNonceStore)',
  () => {
    let redis: RunningRedis;
    const connections: RedisConnection[] = [];
    beforeAll(async () => {
      redis = await startRedisServer();
    }, 30_000);
    afterAll(async () => {
      await Promise.all(connections.map((c) => c.close()));
      await redis?.close();
    });

    async function store(): Promise<RedisNonceStore> {
      const client = await connectRedis(redis.url);
      connections.push(client);
      const nonceStore = new RedisNonceStore({ client, keyPrefix: 'node-mw:' });
      await nonceStore.open();
      return nonceStore;
    }

    it.each(Object.entries(FRAMEWORKS))(
      '%s: a request accepted by one instance is refused by the other, and of 20 concurrent copies one is accepted',
      async (_, start) => {
        const [a, b] = await Promise.all([
          start({ nonceStore: await store(), resolveApplication }),
          start({ nonceStore: await store(), resolveApplication }),
        ]);
        try {
          // Signed once for the authority both instances are reached by (as behind a load balancer).
          const signed = librarySigned('payments.test');
          expect((await send(a.port, signed)).status).toBe(201);
          const replay = await send(b.port, signed);
          expect(replay.status).toBe(401);
          expect(replay.json.errorMessage).toMatch(/NONCE_REPLAYED/);
          for (const signer of signers) {
            const other = await independentlySigned(signer, 'payments.test');
            expect((await send(b.port, other)).status, signer.name).toBe(201);
            expect((await send(a.port, other)).status, signer.name).toBe(401);
          }
          const burst = librarySigned('payments.test');
          const answers = await Promise.all(
            Array.from({ length: 20 }, (_, i) => send(i % 2 === 0 ? a.port : b.port, burst)),
          );
          expect(answers.filter((x) => x.status === 201)).toHaveLength(1);
          expect(answers.filter((x) => x.status === 401)).toHaveLength(19);
        } finally {
          await Promise.all([a.close(), b.close()]);
        }
      },
      60_000,
    );
  },
);
