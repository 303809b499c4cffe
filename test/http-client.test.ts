// The audit HTTP client against hostile loopback servers: exact bytes on the wire, timeouts, size limits, resets,
// non-JSON, redirects, garbage responses; plus curl reproduction and the loopback rule for --allow-live.
import net from 'node:net';
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { curlFor } from '../conformance/report/curl.js';
import { requestTarget, sendRequest } from '../conformance/http/http-client.js';
import { isLoopbackTarget } from '../net/loopback.js';
import { createRedactor } from '../conformance/report/redact.js';

const servers: Array<net.Server> = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise<void>((r) => s.close(() => r()));
});

/** A raw TCP server: `onConnection` gets the socket and everything received so far once the request head is in. */
async function rawServer(
  onRequest: (socket: net.Socket, received: Buffer) => void,
): Promise<string> {
  const server = net.createServer((socket) => {
    let buf: Buffer = Buffer.alloc(0);
    let handled = false;
    socket.on('error', () => undefined);
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      const end = buf.indexOf('\r\n\r\n');
      if (!handled && end !== -1) {
        const length = Number(
          /content-length: *(\d+)/i.exec(buf.subarray(0, end).toString('latin1'))?.[1] ?? 0,
        );
        if (buf.length >= end + 4 + length) {
          handled = true;
          onRequest(socket, buf);
        }
      }
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
}

async function httpServer(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
}

describe('sendRequest: what goes on the wire', () => {
  it('sends exactly the recorded header lines (order, case, duplicates) and the exact body bytes', async () => {
    let wire: Buffer = Buffer.alloc(0);
    const base = await rawServer((socket, received) => {
      wire = received;
      socket.end(
        'HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{"ok":true}',
      );
    });
    const body = new TextEncoder().encode('{"a": 1,  "b":"é"}');
    const exchange = await sendRequest(
      {
        method: 'POST',
        url: `${base}/api/payouts?x=1&y=%2F`,
        headers: [
          ['Content-Type', 'application/vnd.service.v1.0+json'],
          ['x-dup', 'one'],
          ['X-Dup', 'two'],
        ],
        body,
      },
      { timeoutMs: 2_000 },
    );
    expect(exchange.error).toBeUndefined();
    // The one line the request did not give but the client adds besides framing: a W3C traceparent, after its own.
    const traceparent = exchange.request.headers.find(([n]) => n === 'traceparent')?.[1] ?? '';
    expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const expectedHead = [
      'POST /api/payouts?x=1&y=%2F HTTP/1.1',
      `Host: ${base.slice('http://'.length)}`,
      'Content-Type: application/vnd.service.v1.0+json',
      'x-dup: one',
      'X-Dup: two',
      `traceparent: ${traceparent}`,
      `Content-Length: ${body.length}`,
      'Connection: close',
    ];
    expect(wire.toString('latin1')).toBe(
      `${expectedHead.join('\r\n')}\r\n\r\n${Buffer.from(body).toString('latin1')}`,
    );
    expect(exchange.request.headers.map(([n, v]) => `${n}: ${v}`)).toEqual(expectedHead.slice(1));
    expect(exchange.response).toMatchObject({
      status: 201,
      json: { ok: true },
      bodyText: '{"ok":true}',
    });
  });

  it('adds Content-Length: 0 to a bodyless POST (instead of chunked), nothing to a GET, and keeps a given Host', async () => {
    const heads: string[] = [];
    const base = await rawServer((socket, received) => {
      heads.push(received.toString('latin1'));
      socket.end('HTTP/1.1 204 No Content\r\n\r\n');
    });
    await sendRequest(
      { method: 'POST', url: `${base}/api/payouts/1/commit`, headers: {} },
      { timeoutMs: 2_000 },
    );
    await sendRequest(
      { method: 'GET', url: `${base}/.well-known/signature/pem`, headers: { Host: 'example.com' } },
      { timeoutMs: 2_000 },
    );
    expect(heads[0]).toContain('Content-Length: 0\r\n');
    expect(heads[0]).not.toMatch(/transfer-encoding/i);
    expect(heads[1]).toMatch(
      /^GET \/\.well-known\/signature\/pem HTTP\/1\.1\r\nHost: example\.com\r\ntraceparent: 00-[0-9a-f]{32}-[0-9a-f]{16}-01\r\nConnection: close\r\n\r\n$/,
    );
  });
});

describe('sendRequest against hostile servers', () => {
  it('a server that never answers gives TIMEOUT within the timeout', async () => {
    const base = await rawServer(() => undefined);
    const started = Date.now();
    const exchange = await sendRequest(
      { method: 'GET', url: `${base}/`, headers: {} },
      { timeoutMs: 150 },
    );
    expect(exchange.error?.code).toBe('TIMEOUT');
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('a server that sends headers then stalls gives TIMEOUT with the partial response', async () => {
    const base = await rawServer((socket) =>
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc'),
    );
    const exchange = await sendRequest(
      { method: 'GET', url: `${base}/`, headers: {} },
      { timeoutMs: 150 },
    );
    expect(exchange.error?.code).toBe('TIMEOUT');
    expect(exchange.response?.status).toBe(200);
    expect(exchange.error?.message).toContain('body incomplete');
  });

  it('a huge body gives RESPONSE_TOO_LARGE, cut at the limit', async () => {
    const base = await httpServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      let sent = 0;
      const pump = (): void => {
        while (sent < 200 && res.write(chunk)) sent += 1;
        if (sent < 200) res.once('drain', pump);
        else res.end();
      };
      res.on('error', () => undefined);
      pump();
    });
    const exchange = await sendRequest(
      { method: 'GET', url: `${base}/`, headers: {} },
      { timeoutMs: 5_000, maxResponseBytes: 100_000 },
    );
    expect(exchange.error?.code).toBe('RESPONSE_TOO_LARGE');
    expect(exchange.response?.body.length).toBe(100_000);
    expect(exchange.response?.truncated).toBe(true);
  });

  it('a reset connection gives CONNECTION_RESET', async () => {
    const base = await rawServer((socket) => socket.resetAndDestroy());
    const exchange = await sendRequest(
      { method: 'GET', url: `${base}/`, headers: {} },
      { timeoutMs: 2_000 },
    );
    expect(exchange.error?.code).toBe('CONNECTION_RESET');
  });

  it('a closed port gives CONNECTION_REFUSED', async () => {
    const base = await rawServer(() => undefined);
    const port = Number(new URL(base).port);
    await new Promise<void>((r) => servers.pop()!.close(() => r()));
    const exchange = await sendRequest(
      { method: 'GET', url: `http://127.0.0.1:${port}/`, headers: {} },
      { timeoutMs: 2_000 },
    );
    expect(exchange.error?.code).toBe('CONNECTION_REFUSED');
  });

  it('garbage instead of HTTP gives PROTOCOL_ERROR', async () => {
    const base = await rawServer((socket) => socket.end('SMTP ready\r\n\r\n'));
    const exchange = await sendRequest(
      { method: 'GET', url: `${base}/`, headers: {} },
      { timeoutMs: 2_000 },
    );
    expect(exchange.error?.code).toBe('PROTOCOL_ERROR');
  });

  it('a non-JSON body is recorded as text without json, and binary bytes without text', async () => {
    const base = await httpServer((req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(req.url === '/bin' ? Buffer.from([0xff, 0xfe, 0x00]) : '<html>not json</html>');
    });
    const text = await sendRequest(
      { method: 'GET', url: `${base}/`, headers: {} },
      { timeoutMs: 2_000 },
    );
    expect(text.response?.bodyText).toBe('<html>not json</html>');
    expect(text.response && 'json' in text.response).toBe(false);
    const bin = await sendRequest(
      { method: 'GET', url: `${base}/bin`, headers: {} },
      { timeoutMs: 2_000 },
    );
    expect(bin.response?.bodyText).toBeUndefined();
    expect([...(bin.response?.body ?? [])]).toEqual([0xff, 0xfe, 0x00]);
  });

  it('records a redirect and does not follow it', async () => {
    let hits = 0;
    const base = await httpServer((req, res) => {
      hits += 1;
      res.writeHead(302, { Location: '/elsewhere' });
      res.end();
    });
    const exchange = await sendRequest(
      { method: 'POST', url: `${base}/api/payouts`, headers: {}, body: new Uint8Array([1]) },
      { timeoutMs: 2_000 },
    );
    expect(exchange.response?.status).toBe(302);
    expect(exchange.response?.headers).toContainEqual(['Location', '/elsewhere']);
    expect(hits).toBe(1);
  });

  it('a header value with a newline, a bad URL or a bad scheme gives INVALID_REQUEST, never a throw', async () => {
    const base = await rawServer((socket) =>
      socket.end('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n'),
    );
    const injected = await sendRequest(
      { method: 'GET', url: `${base}/`, headers: { 'x-a': 'a\r\nx-b: b' } },
      { timeoutMs: 2_000 },
    );
    expect(injected.error?.code).toBe('INVALID_REQUEST');
    expect(
      (await sendRequest({ method: 'GET', url: 'not a url', headers: {} }, { timeoutMs: 100 }))
        .error?.code,
    ).toBe('INVALID_REQUEST');
    expect(
      (
        await sendRequest(
          { method: 'GET', url: 'ftp://127.0.0.1/', headers: {} },
          { timeoutMs: 100 },
        )
      ).error?.code,
    ).toBe('INVALID_REQUEST');
  });

  it('an aborted signal ends the exchange at once', async () => {
    const base = await rawServer(() => undefined);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const exchange = await sendRequest(
      { method: 'GET', url: `${base}/`, headers: {} },
      { timeoutMs: 5_000, signal: controller.signal },
    );
    expect(exchange.error?.code).toBe('ABORTED');
  });
});

describe('requestTarget, isLoopbackTarget', () => {
  it('keeps the request target as written', () => {
    expect(requestTarget('http://h:1/a/../b?x=%2f#frag')).toBe('/a/../b?x=%2f');
    expect(requestTarget('http://h:1')).toBe('/');
    expect(requestTarget('http://h:1?q=1')).toBe('/?q=1');
  });

  it('accepts 127.0.0.0/8, ::1 and localhost; refuses everything else', () => {
    for (const t of [
      'http://127.0.0.1:8080',
      'https://127.12.0.3/',
      'http://localhost:1',
      'http://[::1]:9/',
      'http://api.localhost/',
    ])
      expect(isLoopbackTarget(t), t).toBe(true);
    for (const t of [
      'https://api.example.com',
      'http://128.0.0.1',
      'http://10.0.0.1',
      'http://127.0.0.1.example.com',
      'http://[::2]/',
      'not a url',
      'http://0.0.0.0/',
    ])
      expect(isLoopbackTarget(t), t).toBe(false);
  });
});

describe('curlFor', () => {
  it('reproduces the request with secrets as environment references', () => {
    const secret = 'app-secret-DO-NOT-LEAK-123';
    const cmd = curlFor(
      {
        method: 'POST',
        url: 'http://127.0.0.1:8080/api/payouts?x=1',
        headers: [
          ['Host', '127.0.0.1:8080'],
          ['Content-Type', 'application/vnd.service.v1.0+json'],
          ['x-application-secret', secret],
          ['Content-Length', '9'],
          ['Connection', 'close'],
        ],
        body: new TextEncoder().encode(`{"a":"'"}`),
      },
      createRedactor({ applicationSecret: secret }),
    );
    expect(cmd).not.toContain(secret);
    expect(cmd).toContain(`'x-application-secret: '"$PAYCONFORM_APPLICATION_SECRET"`);
    expect(cmd).toContain(`--data-binary '{"a":"'\\''"}'`);
    expect(cmd).toContain('--path-as-is');
    expect(cmd).toContain(`-H 'User-Agent:'`);
    expect(cmd).not.toContain('Content-Length');
    expect(cmd.endsWith(`'http://127.0.0.1:8080/api/payouts?x=1'`)).toBe(true);
  });

  it('pipes a binary body through printf', () => {
    const cmd = curlFor({
      method: 'PUT',
      url: 'http://127.0.0.1:1/',
      headers: [],
      body: new Uint8Array([0xff, 0x00]),
    });
    expect(cmd.startsWith(`printf '%b' '\\0377\\0000' | curl`)).toBe(true);
    expect(cmd).toContain('--data-binary @-');
  });
});
