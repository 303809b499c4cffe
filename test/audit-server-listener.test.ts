// The runner's webhook listener: records the exact bytes, headers and method; answers non-200 on demand for the
// matching calls only, then 200 again; waits are bounded; oversized bodies are cut and refused; hostile input is
// answered, never a crash.
import http from 'node:http';
import net from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  startWebhookListener,
  type WebhookListener,
} from '../conformance/http/webhook-listener.js';
import { getFieldValues } from '../src/http/message.js';

let listener: WebhookListener;
beforeEach(async () => {
  listener = await startWebhookListener({ maxBodyBytes: 1024 });
});
afterEach(() => listener.close());

function put(
  url: string,
  body: string | Buffer,
  headers: Record<string, string> = { 'content-type': 'application/json' },
  method = 'PUT',
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        timeout: 3000,
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(body);
  });
}

describe('webhook listener', () => {
  it('records the exact bytes, method, path and headers, and answers 200', async () => {
    const body = '{ "payoutId" : "x",  "n": 1.50 }';
    expect(
      await put(listener.urlFor('payout'), body, {
        'content-type': 'application/json',
        authorization: 'SHA256withRSA abc',
      }),
    ).toBe(200);
    const [w] = listener.received();
    expect(new TextDecoder().decode(w!.body)).toBe(body);
    expect(w!.method).toBe('PUT');
    expect(w!.path).toBe('/webhooks/payout');
    expect(getFieldValues(w!.headers, 'authorization')).toEqual(['SHA256withRSA abc']);
    expect(w!.json).toEqual({ payoutId: 'x', n: 1.5 });
    expect(w!.answeredStatus).toBe(200);
  });

  it('answers non-200 to the next N matching calls only, then 200', async () => {
    listener.answerNonOk((c) => new TextDecoder().decode(c.body).includes('fail-me'), 2, 503);
    const statuses = [];
    statuses.push(await put(listener.url, '{"ref":"other"}'));
    for (let i = 0; i < 3; i++) statuses.push(await put(listener.url, '{"ref":"fail-me"}'));
    expect(statuses).toEqual([200, 503, 503, 200]);
    expect(listener.received().map((w) => w.answeredStatus)).toEqual([200, 503, 503, 200]);
  });

  it('a withdrawn rule no longer applies', async () => {
    const withdraw = listener.answerNonOk(() => true, 5, 500);
    expect(await put(listener.url, '{}')).toBe(500);
    withdraw();
    expect(await put(listener.url, '{}')).toBe(200);
  });

  it('waitFor resolves true when the condition holds, false at the timeout', async () => {
    const waiting = listener.waitFor((all) => all.length >= 1, { timeoutMs: 3000 });
    await put(listener.url, '{}');
    expect(await waiting).toBe(true);
    const started = Date.now();
    expect(await listener.waitFor((all) => all.length >= 5, { timeoutMs: 100 })).toBe(false);
    expect(Date.now() - started).toBeLessThan(1000);
    const controller = new AbortController();
    const aborted = listener.waitFor(() => false, { timeoutMs: 10_000, signal: controller.signal });
    controller.abort();
    expect(await aborted).toBe(false);
  });

  it('cuts and refuses an oversized body (413), and records non-JSON bodies without json', async () => {
    expect(await put(listener.url, Buffer.alloc(5000, 0x61))).toBe(413);
    expect(await put(listener.url, 'not json', { 'content-type': 'text/plain' }, 'POST')).toBe(200);
    const [big, text] = listener.received();
    expect(big!.truncated).toBe(true);
    expect(big!.body.length).toBe(1024);
    expect(text!.json).toBeUndefined();
    expect(text!.method).toBe('POST');
  });

  it('keeps the newest records within its count and byte bounds, numbering on', async () => {
    const bounded = await startWebhookListener({ maxRecords: 3, maxKeptBytes: 1500 });
    try {
      for (let i = 1; i <= 5; i++)
        expect(await put(bounded.urlFor('payout'), `{"n":${i}}`)).toBe(200);
      expect(bounded.received().map((w) => w.seq)).toEqual([3, 4, 5]);
      // Three bodies of 698 bytes are over 1,500: the oldest goes. One larger than the bound is still kept.
      for (let i = 6; i <= 8; i++)
        expect(await put(bounded.urlFor('payout'), `{"n":${i},"pad":"${'x'.repeat(682)}"}`)).toBe(
          200,
        );
      expect(bounded.received().map((w) => [w.seq, w.body.length])).toEqual([
        [7, 698],
        [8, 698],
      ]);
      const big = await startWebhookListener({ maxKeptBytes: 10 });
      try {
        expect(await put(big.urlFor('payout'), '{"n":"bigger than the bound"}')).toBe(200);
        expect(await put(big.urlFor('payout'), '{"n":"the newest"}')).toBe(200);
        expect(big.received().map((w) => w.seq)).toEqual([2]);
      } finally {
        await big.close();
      }
    } finally {
      await bounded.close();
    }
  });

  it('survives garbage on the socket', async () => {
    const port = Number(new URL(listener.url).port);
    await new Promise<void>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => s.end('\x00\x01 NOT HTTP\r\n\r\n'));
      s.on('close', () => resolve());
      s.on('error', () => resolve());
      s.resume();
    });
    expect(await put(listener.url, '{}')).toBe(200);
  });
});
