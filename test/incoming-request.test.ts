// The node:http adapter's rule (net/incoming-request.ts, docs/library.md): raw field lines in order, the target as
// sent, scheme from the connection (TLS or not), authority from the one Host line or an absolute-form target, and a
// proxy's X-Forwarded-* / Forwarded only when trusted; the body read exactly, under a cap. Real servers on loopback,
// requests written byte for byte on a socket.
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  httpRequestFromIncoming,
  readRequestBody,
  type IncomingRequestOptions,
} from '../net/incoming-request.js';
import { HttpError } from '../net/http-error.js';
import { toHttpRequest } from '../net/http-io.js';
import { generateLoopbackTls } from '../net/tls.js';

/** What the adapter made of a request: its url, header lines and body, or its failure code. */
function handler(options: IncomingRequestOptions, maxBytes = 64): http.RequestListener {
  return (req, res) => {
    void readRequestBody(req, { maxBytes }).then((read) => {
      const answer = !read.ok
        ? { code: read.code }
        : (() => {
            const built = httpRequestFromIncoming(req, read.body, options);
            return built.ok
              ? {
                  url: built.request.url,
                  headers: built.request.headers,
                  body: Buffer.from(built.request.body).toString('utf8'),
                }
              : { code: built.code };
          })();
      res.setHeader('connection', 'close');
      res.end(JSON.stringify(answer));
    });
  };
}

const servers: net.Server[] = [];
async function serve(options: IncomingRequestOptions, maxBytes?: number): Promise<number> {
  const server = http.createServer(handler(options, maxBytes));
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}
afterAll(() => Promise.all(servers.map((s) => new Promise((r) => s.close(r)))));

/** Writes `head` (CRLF line ends added) and `body` on a fresh socket; the answer's JSON. Bounded: 5 s. */
function exchange(
  port: number,
  head: readonly string[],
  body = '',
): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.setTimeout(5_000, () => socket.destroy(new Error('no answer within 5 s')));
    let text = '';
    socket.on('data', (d: Buffer) => (text += d.toString('utf8')));
    socket.on('error', reject);
    socket.on('close', () => {
      const at = text.indexOf('\r\n\r\n');
      try {
        resolve(JSON.parse(text.slice(at + 4)) as Record<string, unknown>);
      } catch {
        reject(new Error(`not a JSON answer: ${text.slice(0, 200)}`));
      }
    });
    socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
  });
}

describe('the target URI rule (direct connections)', () => {
  let port = 0;
  beforeAll(async () => {
    port = await serve({});
  });

  it('http, the Host line as written, the target as sent; every field line kept in order', async () => {
    const answer = await exchange(
      port,
      [
        'POST /api/payouts?b=2&a=1 HTTP/1.1',
        'Host: API.Example.com:8443',
        'Content-Type: application/json',
        'X-Dup: 1',
        'x-dup: 2',
        'Content-Length: 2',
      ],
      '{}',
    );
    expect(answer).toEqual({
      url: 'http://API.Example.com:8443/api/payouts?b=2&a=1',
      headers: [
        ['Host', 'API.Example.com:8443'],
        ['Content-Type', 'application/json'],
        ['X-Dup', '1'],
        ['x-dup', '2'],
        ['Content-Length', '2'],
      ],
      body: '{}',
    });
  });

  it('an absolute-form target carries its own authority (RFC 9112 §3.2.2)', async () => {
    const answer = await exchange(port, ['GET http://a.example/p?q HTTP/1.1', 'Host: b.example']);
    expect(answer.url).toBe('http://a.example/p?q');
  });

  it.each([
    ['no Host', ['GET / HTTP/1.0'], 'HOST_INVALID'],
    ['two Host lines', ['GET / HTTP/1.1', 'Host: a.example', 'Host: b.example'], 'HOST_INVALID'],
    [
      'a Host with a path and a fragment',
      ['GET /x HTTP/1.1', 'Host: a.example/admin#'],
      'HOST_INVALID',
    ],
    ['a Host with userinfo', ['GET /x HTTP/1.1', 'Host: user@a.example'], 'HOST_INVALID'],
    ['a Host with a query', ['GET /x HTTP/1.1', 'Host: a.example?'], 'HOST_INVALID'],
    ['asterisk-form', ['OPTIONS * HTTP/1.1', 'Host: a.example'], 'TARGET_INVALID'],
    ['a fragment in the target', ['GET /x#frag HTTP/1.1', 'Host: a.example'], 'TARGET_INVALID'],
  ])('%s → %s', async (_, head, code) => {
    expect(await exchange(port, head)).toEqual({ code });
  });

  it('X-Forwarded-* and Forwarded are ignored unless trusted', async () => {
    const answer = await exchange(port, [
      'GET /x HTTP/1.1',
      'Host: internal:8080',
      'X-Forwarded-Proto: https',
      'X-Forwarded-Host: api.example.com',
      'Forwarded: proto=https;host=api.example.com',
    ]);
    expect(answer.url).toBe('http://internal:8080/x');
  });
});

describe('a trusted proxy', () => {
  it('X-Forwarded-Proto and -Host: the nearest proxy (last value) replaces each value it gives', async () => {
    const port = await serve({ trustProxy: { headers: 'x-forwarded' } });
    const head = (...lines: string[]) => ['GET /x?y HTTP/1.1', 'Host: internal:8080', ...lines];
    expect(
      (await exchange(port, head('X-Forwarded-Proto: https', 'X-Forwarded-Host: api.example.com')))
        .url,
    ).toBe('https://api.example.com/x?y');
    expect(
      (await exchange(port, head('X-Forwarded-Host: evil.example, api.example.com'))).url,
    ).toBe('http://api.example.com/x?y');
    expect(
      (await exchange(port, head('X-Forwarded-Proto: http', 'X-Forwarded-Proto: https'))).url,
    ).toBe('https://internal:8080/x?y');
    expect(await exchange(port, head('X-Forwarded-Proto: gopher'))).toEqual({
      code: 'FORWARDED_INVALID',
    });
    expect(await exchange(port, head('X-Forwarded-Host: a.example/x#'))).toEqual({
      code: 'HOST_INVALID',
    });
  });

  it('Forwarded (RFC 7239): proto and host of the last element, quoted values unquoted', async () => {
    const port = await serve({ trustProxy: { headers: 'forwarded' } });
    const head = (value: string) => ['GET /x HTTP/1.1', 'Host: internal', `Forwarded: ${value}`];
    expect(
      (
        await exchange(
          port,
          head(
            'for=1.2.3.4;proto=http;host=evil.example, for=10.0.0.1;proto=https;host="api.example.com:8443"',
          ),
        )
      ).url,
    ).toBe('https://api.example.com:8443/x');
    expect((await exchange(port, head('for=10.0.0.1'))).url).toBe('http://internal/x');
    expect(await exchange(port, head('proto=https;;host'))).toEqual({ code: 'FORWARDED_INVALID' });
  });

  it('only from the listed addresses (127.0.0.1 listed as ::ffff:127.0.0.1 matches)', async () => {
    const listed = await serve({
      trustProxy: { headers: 'x-forwarded', addresses: ['::ffff:127.0.0.1'] },
    });
    const other = await serve({ trustProxy: { headers: 'x-forwarded', addresses: ['10.0.0.5'] } });
    const head = ['GET /x HTTP/1.1', 'Host: internal', 'X-Forwarded-Host: api.example.com'];
    expect((await exchange(listed, head)).url).toBe('http://api.example.com/x');
    expect((await exchange(other, head)).url).toBe('http://internal/x');
  });
});

describe('the body and the scheme of a TLS connection', () => {
  it('a body over the cap is BODY_TOO_LARGE, by Content-Length or by the bytes of a chunked body', async () => {
    const port = await serve({}, 16);
    const head = ['POST /x HTTP/1.1', 'Host: a.example'];
    expect(await exchange(port, [...head, 'Content-Length: 17'], 'x'.repeat(17))).toEqual({
      code: 'BODY_TOO_LARGE',
    });
    const chunk = 'y'.repeat(20);
    expect(
      await exchange(port, [...head, 'Transfer-Encoding: chunked'], `14\r\n${chunk}\r\n0\r\n\r\n`),
    ).toEqual({ code: 'BODY_TOO_LARGE' });
    expect((await exchange(port, [...head, 'Content-Length: 16'], 'z'.repeat(16))).body).toBe(
      'z'.repeat(16),
    );
  });

  it('https when the connection is TLS', async () => {
    const tls = await generateLoopbackTls(1);
    const server = https.createServer({ cert: tls.cert, key: tls.key }, handler({}));
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const text = await new Promise<string>((resolve, reject) => {
      const socket = tlsConnect({
        host: '127.0.0.1',
        port,
        ca: tls.caCert,
        servername: 'localhost',
      });
      socket.setTimeout(5_000, () => socket.destroy(new Error('no answer within 5 s')));
      let received = '';
      socket.on('data', (d: Buffer) => (received += d.toString('utf8')));
      socket.on('error', reject);
      socket.on('close', () => resolve(received));
      socket.end('GET /x HTTP/1.1\r\nHost: localhost:8443\r\n\r\n');
    });
    expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toMatchObject({
      url: 'https://localhost:8443/x',
    });
  });
});

describe("the reference service's toHttpRequest (net/http-io.ts) refuses the same hostile Host", () => {
  it('a Host with a path and a fragment is a 400 bad_host; host[:port] passes', async () => {
    const server = http.createServer((req, res) => {
      let answer: Record<string, unknown>;
      try {
        answer = { url: toHttpRequest(req, new Uint8Array(0)).url };
      } catch (error) {
        answer = error instanceof HttpError ? { status: error.status, code: error.code } : {};
      }
      res.setHeader('connection', 'close');
      res.end(JSON.stringify(answer));
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    expect(
      await exchange(port, ['GET /api/other HTTP/1.1', 'Host: a.example/api/payouts#']),
    ).toEqual({
      status: 400,
      code: 'bad_host',
    });
    expect(await exchange(port, ['GET /api/other HTTP/1.1', 'Host: a.example:8443'])).toEqual({
      url: 'http://a.example:8443/api/other',
    });
  });
});
