// payconform/node under dependencies and clients that do not keep time, in real node:http, Express 5 and Fastify 5
// servers on loopback: a key lookup that never answers is refused 503 within its deadline; a body shorter than its
// Content-Length, or trickled, is answered 408 within its deadline or minimum rate and the connection closed; the
// verified authority reaches the application whatever Host says; what a retry of the same bytes gets after each 503.
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import express from 'express';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import {
  createExpressVerifier,
  createFastifyVerifier,
  DEFAULT_BODY_RATE_GRACE_MS,
  DEFAULT_BODY_TIMEOUT_MS,
  DEFAULT_LOOKUP_TIMEOUT_MS,
  DEFAULT_MIN_BODY_BYTES_PER_SECOND,
  verifyIncomingRequest,
  writeRefusal,
  type IncomingVerifyOptions,
  type Refusal,
  type VerifiedApplication,
} from '../node/index.js';
import { toFieldLines } from '../src/http/message.js';
import { MemoryNonceStore, type NonceStore } from '../src/profile/nonce-store.js';
import { applySignedHeaders, signRequest } from '../src/profile/sign-request.js';
import { APP, keys, MEDIA, resolveApplication } from './fixtures/node-application.js';

/** Deadlines small enough for a fast suite, large enough for two busy cores to meet with room. */
const LOOKUP_MS = 150;
const BODY_MS = 400;
const RATE = { minBodyBytesPerSecond: 200, bodyRateGraceMs: 100 } as const;
/** How late past a deadline an answer may come on a loaded machine. */
const SLACK_MS = 1_500;

interface Running {
  readonly port: number;
  close(): Promise<void>;
}

/** What the routes answer: the verified application and what the framework believes the host is. */
interface Seen {
  readonly payconform: VerifiedApplication;
  readonly frameworkHost: string;
  readonly tenant: string;
}

/** Tenants by verified authority: the application's own routing, which must follow the signature. */
const TENANTS: Readonly<Record<string, string>> = {
  'api.example.com': 'api tenant',
  'evil.example': 'evil tenant',
};
const tenantOf = (application: VerifiedApplication) =>
  TENANTS[application.target.authority] ?? 'no tenant';

async function startNode(options: IncomingVerifyOptions): Promise<Running> {
  const server = http.createServer((req, res) => {
    void verifyIncomingRequest(req, options).then((v) => {
      if (!v.ok) return writeRefusal(res, v);
      const seen: Seen = {
        payconform: v.application,
        frameworkHost: req.headers.host ?? '',
        tenant: tenantOf(v.application),
      };
      const text = JSON.stringify(seen);
      res
        .writeHead(201, {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(text),
        })
        .end(text);
    });
  });
  return listen(server);
}

async function startExpress(options: IncomingVerifyOptions): Promise<Running> {
  const app = express();
  app.use(createExpressVerifier(options));
  app.post('/api/payouts', (req, res) => {
    const seen: Seen = {
      payconform: req.payconform!,
      frameworkHost: req.hostname,
      tenant: tenantOf(req.payconform!),
    };
    res.status(201).json(seen);
  });
  return listen(http.createServer(app));
}

async function startFastify(options: IncomingVerifyOptions): Promise<Running> {
  const app = Fastify();
  await app.register(createFastifyVerifier(options));
  app.addContentTypeParser(
    MEDIA,
    { parseAs: 'string' },
    app.getDefaultJsonParser('error', 'error'),
  );
  app.post('/api/payouts', async (request, reply) => {
    const payconform = (request as unknown as { payconform: VerifiedApplication }).payconform;
    const seen: Seen = { payconform, frameworkHost: request.host, tenant: tenantOf(payconform) };
    return reply.code(201).send(seen);
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { port: (app.server.address() as AddressInfo).port, close: () => app.close() };
}

function listen(server: http.Server): Promise<Running> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: (server.address() as AddressInfo).port,
        close: () =>
          new Promise((r) => {
            server.closeAllConnections();
            server.close(() => r());
          }),
      }),
    ),
  );
}

const FRAMEWORKS = { 'node:http': startNode, express: startExpress, fastify: startFastify };

let nonceCounter = 0;
const freshNonce = () => `deadline-${process.pid}-${++nonceCounter}`;

/** The head and body of a POST signed for `signedFor`, its request line `target`, its Host `host`. */
function signedPost(options: {
  signedFor: string;
  host?: string;
  absolute?: boolean;
  /** Sent with Transfer-Encoding: chunked (no Content-Length); signed with an empty content-length or the length. */
  chunked?: 'signed-empty' | 'signed-length';
}): {
  head: string;
  body: Buffer;
} {
  const body = '{"amount":10.5}';
  const request = {
    method: 'POST',
    url: `http://${options.signedFor}/api/payouts`,
    headers: toFieldLines({
      host: options.signedFor,
      'content-type': MEDIA,
      // The spec's rule for content-length: "value of the header; empty if absent", as a chunked request has it.
      ...(options.chunked === 'signed-empty' ? { 'content-length': '' } : {}),
    }),
    body: new TextEncoder().encode(body),
  };
  const { headers } = signRequest(
    request,
    {
      applicationId: APP.id,
      applicationSecret: APP.secret,
      keyId: APP.keyId,
      privateKey: keys.clientEd25519.privateKey,
    },
    { created: Math.floor(Date.now() / 1000), nonce: freshNonce() },
  );
  const signed = applySignedHeaders(request, headers);
  const lines = signed.headers
    .filter(([n]) => options.chunked === undefined || n !== 'content-length')
    .map(([n, v]) =>
      n === 'host' && options.host !== undefined ? `host: ${options.host}` : `${n}: ${v}`,
    );
  if (options.chunked !== undefined) {
    lines.push('transfer-encoding: chunked');
    const chunks = [body.slice(0, 6), body.slice(6)].map(
      (c) => `${Buffer.byteLength(c).toString(16)}\r\n${c}\r\n`,
    );
    return {
      head: `POST /api/payouts HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`,
      body: Buffer.from(`${chunks.join('')}0\r\n\r\n`),
    };
  }
  const target = options.absolute === true ? request.url : '/api/payouts';
  return {
    head: `POST ${target} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`,
    body: Buffer.from(body),
  };
}

interface Exchange {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly json: Record<string, unknown>;
  /** Milliseconds from the first byte sent to the answer's last. */
  readonly answeredMs: number;
  /** Whether the server closed the connection after answering (within SLACK_MS). */
  readonly closed: boolean;
}

/**
 * Writes `head`, then each part after its delay, over one raw loopback connection, and reads one answer (bounded:
 * no answer within 10 s rejects). The parts stop once the answer has come.
 */
function exchange(
  port: number,
  head: string,
  parts: ReadonlyArray<{ readonly afterMs: number; readonly bytes: Buffer }>,
): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const started = Date.now();
    let text = '';
    let answeredMs = -1;
    let answered: Omit<Exchange, 'closed'> | undefined;
    const timers: NodeJS.Timeout[] = [];
    const giveUp = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within 10 s: ${JSON.stringify(text.slice(0, 200))}`));
    }, 10_000);
    const finish = (closed: boolean) => {
      clearTimeout(giveUp);
      timers.forEach(clearTimeout);
      socket.destroy();
      if (answered === undefined) reject(new Error(`closed without an answer: ${text}`));
      else resolve({ ...answered, closed });
    };
    socket.on('error', () => {}); // a reset after the answer is a close
    socket.on('close', () => finish(true));
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0 || answered !== undefined) return;
      const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      const length = Number(headers['content-length'] ?? -1);
      const body = text.slice(end + 4);
      if (length < 0 || Buffer.byteLength(body, 'latin1') < length) return;
      answeredMs = Date.now() - started;
      timers.forEach(clearTimeout);
      answered = {
        status: Number(statusLine!.split(' ')[1]),
        headers,
        json: JSON.parse(Buffer.from(body, 'latin1').toString('utf8')) as Record<string, unknown>,
        answeredMs,
      };
      // Only a refusal that reads the body no further closes the connection: wait for that close.
      if (headers['connection'] === 'close') timers.push(setTimeout(() => finish(false), SLACK_MS));
      else finish(false);
    });
    socket.write(head);
    for (const part of parts)
      timers.push(setTimeout(() => socket.writable && socket.write(part.bytes), part.afterMs));
  });
}

const whole = (body: Buffer) => [{ afterMs: 0, bytes: body }];

describe('the defaults a payments API runs with (one constant each)', () => {
  it('lookup 1 s, body 10 s, at least 1 KiB/s after 2 s', () => {
    expect(DEFAULT_LOOKUP_TIMEOUT_MS).toBe(1_000);
    expect(DEFAULT_BODY_TIMEOUT_MS).toBe(10_000);
    expect(DEFAULT_MIN_BODY_BYTES_PER_SECOND).toBe(1024);
    expect(DEFAULT_BODY_RATE_GRACE_MS).toBe(2_000);
  });

  it('a deadline or rate that is not a usable number is a TypeError when the adapter is made', () => {
    const base = { nonceStore: new MemoryNonceStore(), resolveApplication };
    for (const bad of [
      { lookupTimeoutMs: 0 },
      { lookupTimeoutMs: Number.POSITIVE_INFINITY },
      { bodyTimeoutMs: -1 },
      { minBodyBytesPerSecond: Number.NaN },
      { bodyRateGraceMs: -5 },
    ]) {
      expect(() => createExpressVerifier({ ...base, ...bad }), JSON.stringify(bad)).toThrow(
        TypeError,
      );
      expect(() => createFastifyVerifier({ ...base, ...bad }), JSON.stringify(bad)).toThrow(
        TypeError,
      );
    }
  });
});

describe.each(Object.entries(FRAMEWORKS))('%s: deadlines', (_, start) => {
  it(`a lookup that never settles is refused 503 APPLICATION_LOOKUP_FAILED after ${LOOKUP_MS} ms; the same bytes are accepted once it answers`, async () => {
    const refusals: Refusal[] = [];
    let hung = true;
    const server = await start({
      nonceStore: new MemoryNonceStore(),
      resolveApplication: (id) => (hung ? new Promise<never>(() => {}) : resolveApplication(id)),
      lookupTimeoutMs: LOOKUP_MS,
      onRefusal: (refusal) => refusals.push(refusal),
    });
    try {
      const { head, body } = signedPost({ signedFor: `127.0.0.1:${server.port}` });
      const answers = await Promise.all(
        Array.from({ length: 5 }, () => exchange(server.port, head, whole(body))),
      );
      for (const answer of answers) {
        expect(answer).toMatchObject({
          status: 503,
          headers: { 'x-payconform-error-code': 'APPLICATION_LOOKUP_FAILED' },
          json: { statusCode: 503, statusName: 'SERVICE_UNAVAILABLE', source: 'SERVICE' },
        });
        expect(answer.answeredMs).toBeGreaterThanOrEqual(LOOKUP_MS - 5);
        expect(answer.answeredMs).toBeLessThan(LOOKUP_MS + SLACK_MS);
      }
      expect(refusals.map((r) => r.detail)).toEqual(
        Array(5).fill(
          `resolveApplication rejected: no answer within ${LOOKUP_MS} ms (the lookup deadline, lookupTimeoutMs)`,
        ),
      );
      hung = false; // step 5 refused before step 11: the nonce was not used up
      expect((await exchange(server.port, head, whole(body))).status).toBe(201);
    } finally {
      await server.close();
    }
  });

  it(`a body shorter than its Content-Length, the connection left open: 408 BODY_TIMEOUT after ${BODY_MS} ms, closed`, async () => {
    const refusals: Refusal[] = [];
    const server = await start({
      nonceStore: new MemoryNonceStore(),
      resolveApplication,
      bodyTimeoutMs: BODY_MS,
      minBodyBytesPerSecond: 0,
      onRefusal: (refusal) => refusals.push(refusal),
    });
    try {
      const { head, body } = signedPost({ signedFor: `127.0.0.1:${server.port}` });
      const answer = await exchange(server.port, head, whole(body.subarray(0, 5)));
      expect(answer).toMatchObject({
        status: 408,
        headers: { 'x-payconform-error-code': 'BODY_TIMEOUT', connection: 'close' },
        json: { statusCode: 408, statusName: 'REQUEST_TIMEOUT', source: 'MERCHANT' },
        closed: true,
      });
      expect(answer.answeredMs).toBeGreaterThanOrEqual(BODY_MS - 5);
      expect(answer.answeredMs).toBeLessThan(BODY_MS + SLACK_MS);
      expect(refusals[0]?.detail).toMatch(
        new RegExp(
          `^the body did not arrive within ${BODY_MS} ms \\(bodyTimeoutMs; 5 bytes received\\)$`,
        ),
      );
    } finally {
      await server.close();
    }
  });

  it('twenty clients trickling a byte every 40 ms (25 B/s < 200 B/s): each 408 within the grace period and a little, closed', async () => {
    const server = await start({
      nonceStore: new MemoryNonceStore(),
      resolveApplication,
      bodyTimeoutMs: 5_000,
      ...RATE,
    });
    try {
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => {
          const { head, body } = signedPost({ signedFor: `127.0.0.1:${server.port}` });
          const trickle = [...body].map((byte, i) => ({
            afterMs: 40 * (i + 1),
            bytes: Buffer.from([byte]),
          }));
          return exchange(server.port, head, trickle);
        }),
      );
      for (const answer of answers) {
        expect(answer).toMatchObject({
          status: 408,
          headers: { 'x-payconform-error-code': 'BODY_TIMEOUT' },
          closed: true,
        });
        expect(answer.json.errorMessage).toMatch(
          /slower than 200 bytes\/s \(minBodyBytesPerSecond/,
        );
        // The 15-byte body would take 600 ms at this pace; the rate ends it well before.
        expect(answer.answeredMs).toBeLessThan(RATE.bodyRateGraceMs + SLACK_MS);
      }
    } finally {
      await server.close();
    }
  });

  it('a body in pieces faster than the floor is read whole and accepted', async () => {
    const server = await start({
      nonceStore: new MemoryNonceStore(),
      resolveApplication,
      bodyTimeoutMs: 5_000,
      ...RATE,
    });
    try {
      const { head, body } = signedPost({ signedFor: `127.0.0.1:${server.port}` });
      const pieces = [0, 5, 10].map((at, i) => ({
        afterMs: 30 * i,
        bytes: body.subarray(at, at + 5),
      }));
      expect(await exchange(server.port, head, pieces)).toMatchObject({ status: 201 });
    } finally {
      await server.close();
    }
  });
});

describe.each(Object.entries(FRAMEWORKS))('%s: one authority', (_, start) => {
  it('POST http://api.example.com/… with Host: evil.example is accepted for api.example.com; the app routes by the verified authority', async () => {
    const server = await start({ nonceStore: new MemoryNonceStore(), resolveApplication });
    try {
      const steered = signedPost({
        signedFor: 'api.example.com',
        host: 'evil.example',
        absolute: true,
      });
      const answer = await exchange(server.port, steered.head, whole(steered.body));
      expect(answer.status).toBe(201);
      const seen = answer.json as unknown as Seen;
      expect(seen.payconform.target).toEqual({
        scheme: 'http',
        authority: 'api.example.com',
        path: '/api/payouts',
      });
      expect(seen.tenant).toBe('api tenant');
      // Why the docs say so: the framework's own host is the Host header, which no signature covers.
      expect(seen.frameworkHost).toBe('evil.example');
      // Signed for evil.example's path but sent to api.example.com: the signature does not follow the Host.
      const moved = signedPost({
        signedFor: 'evil.example',
        host: 'evil.example',
        absolute: false,
      });
      const head = moved.head.replace(
        'POST /api/payouts',
        'POST http://api.example.com/api/payouts',
      );
      expect((await exchange(server.port, head, whole(moved.body))).status).toBe(401);
    } finally {
      await server.close();
    }
  });
});

describe.each(Object.entries(FRAMEWORKS))(
  '%s: chunked bodies (docs/node-adapters.md)',
  (_, start) => {
    it('signed with its length, sent chunked: 401 SIGNATURE_INVALID; signed with content-length empty (none sent): verified, the body bound by Content-Digest', async () => {
      const server = await start({ nonceStore: new MemoryNonceStore(), resolveApplication });
      try {
        const signedFor = `127.0.0.1:${server.port}`;
        const withLength = signedPost({ signedFor, chunked: 'signed-length' });
        expect(await exchange(server.port, withLength.head, whole(withLength.body))).toMatchObject({
          status: 401,
          headers: { 'x-payconform-error-code': 'SIGNATURE_INVALID' },
        });
        const empty = signedPost({ signedFor, chunked: 'signed-empty' });
        expect(await exchange(server.port, empty.head, whole(empty.body))).toMatchObject({
          status: 201,
        });
        const other = signedPost({ signedFor, chunked: 'signed-empty' });
        const tampered = Buffer.from(
          other.body.toString('latin1').replace('10.5', '99.5'),
          'latin1',
        );
        expect(await exchange(server.port, other.head, whole(tampered))).toMatchObject({
          status: 401,
          headers: { 'x-payconform-error-code': 'DIGEST_MISMATCH' },
        });
      } finally {
        await server.close();
      }
    });
  },
);

/** A store that fails when told to, at step 4 (has) or step 11 (checkAndRecord, after recording: a lost reply). */
class FailingStore implements NonceStore {
  readonly #inner = new MemoryNonceStore();
  failAt: 4 | 11 | undefined;
  has(nonce: string, now: number): boolean {
    if (this.failAt === 4) throw new Error('store down');
    return this.#inner.has(nonce, now);
  }
  checkAndRecord(nonce: string, now: number, expiresAt: number): boolean {
    const recorded = this.#inner.checkAndRecord(nonce, now, expiresAt);
    if (this.failAt === 11) throw new Error('reply lost after the write');
    return recorded;
  }
}

describe('what a retry of the same bytes gets after a 503 (docs/library.md, "Retries")', () => {
  it('NONCE_STORE_UNAVAILABLE at step 4: not used up, the same bytes are accepted; at step 11: maybe used, so sign again', async () => {
    const nonceStore = new FailingStore();
    const server = await startExpress({ nonceStore, resolveApplication });
    try {
      const { head, body } = signedPost({ signedFor: `127.0.0.1:${server.port}` });
      nonceStore.failAt = 4;
      const early = await exchange(server.port, head, whole(body));
      expect(early).toMatchObject({
        status: 503,
        headers: { 'x-payconform-error-code': 'NONCE_STORE_UNAVAILABLE' },
      });
      expect(early.json.errorMessage).toBe('the replay check is unavailable, try again later');
      nonceStore.failAt = undefined;
      expect((await exchange(server.port, head, whole(body))).status).toBe(201);

      const second = signedPost({ signedFor: `127.0.0.1:${server.port}` });
      nonceStore.failAt = 11;
      const late = await exchange(server.port, second.head, whole(second.body));
      expect(late).toMatchObject({
        status: 503,
        headers: { 'x-payconform-error-code': 'NONCE_STORE_UNAVAILABLE' },
      });
      expect(late.json.errorMessage).toMatch(/the nonce may be used up: sign the request again/);
      nonceStore.failAt = undefined;
      const retried = await exchange(server.port, second.head, whole(second.body));
      expect(retried).toMatchObject({
        status: 401,
        headers: { 'x-payconform-error-code': 'NONCE_REPLAYED' },
      });
      const resigned = signedPost({ signedFor: `127.0.0.1:${server.port}` });
      expect((await exchange(server.port, resigned.head, whole(resigned.body))).status).toBe(201);
    } finally {
      await server.close();
    }
  });
});
