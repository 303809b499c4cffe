// The client audit's verifying endpoint on its own: what the audited client gets back when the reference service
// answers, when it does not, and when the body is over the limit (the endpoint's own answers, not the service's).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ClientSession } from '../conformance/client-audit/evaluate-request.js';
import {
  startVerifyingEndpoint,
  type RunningVerifyingEndpoint,
  type VerifyingEndpointOptions,
} from '../conformance/client-audit/verifying-endpoint.js';
import { loadTestKeys } from './fixtures/keys.js';

const key = loadTestKeys().clientEd25519;
const session = (): ClientSession =>
  new ClientSession(
    {
      applicationId: '6f1c1d2e-3b4a-4c5d-8e9f-0a1b2c3d4e5f',
      applicationSecret: 'test-only-secret-endpoint',
      keyId: 'test-key',
      publicKey: key.publicKey,
    },
    { fullDiagnoses: 0 },
  );

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A loopback backend that answers every request with `handler`; its origin. */
async function backend(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A loopback origin where nothing listens (a port bound, then released). */
async function closedOrigin(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

async function endpoint(
  options: Partial<VerifyingEndpointOptions> & { backendUrl: string },
): Promise<RunningVerifyingEndpoint> {
  const running = await startVerifyingEndpoint({
    host: '127.0.0.1',
    port: 0,
    session: session(),
    forwardTimeoutMs: 2_000,
    ...options,
  });
  closers.push(() => running.close(0));
  return running;
}

const post = (url: string, body: string): Promise<Response> =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

describe('client audit: the verifying endpoint forwards and relays', () => {
  it("relays the reference service's status, content type, other fields and body", async () => {
    const seen: http.IncomingHttpHeaders[] = [];
    const backendUrl = await backend((req, res) => {
      seen.push(req.headers);
      res.writeHead(201, { 'content-type': 'application/json', 'x-trace': 'abc' });
      res.end('{"ok":true}');
    });
    const running = await endpoint({ backendUrl });
    const response = await post(`${running.baseUrl}/api/payouts?x=1`, '{"a":1}');
    expect(response.status).toBe(201);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('x-trace')).toBe('abc');
    expect(await response.text()).toBe('{"ok":true}');
    expect(seen).toHaveLength(1);
    expect(running.exchanges()).toHaveLength(1);
    expect(running.exchanges()[0]?.response?.status).toBe(201);
  });

  it('forwards what the rewrite hook returns, after the original was examined', async () => {
    const targets: string[] = [];
    const backendUrl = await backend((req, res) => {
      targets.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('x');
    });
    const running = await endpoint({
      backendUrl,
      rewrite: (request) => ({ ...request, target: '/rewritten' }),
    });
    await (await post(`${running.baseUrl}/api/payouts`, '{}')).text();
    expect(targets).toEqual(['/rewritten']);
    expect(running.exchanges()[0]?.examined.request.url).toContain('/api/payouts');
  });

  it('answers 502 in the error body when the reference service does not answer', async () => {
    const running = await endpoint({ backendUrl: await closedOrigin() });
    const response = await post(`${running.baseUrl}/api/payouts`, '{}');
    expect(response.status).toBe(502);
    expect(response.headers.get('content-type')).toBe('application/json');
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ statusCode: 502, statusName: 'BAD_GATEWAY', source: 'SERVICE' });
    expect(String(body.errorMessage)).toMatch(/^the audit's reference service did not answer: /);
    expect(running.exchanges()[0]?.response?.status).toBe(502);
  });

  it('refuses a body over the limit with 413, unexamined and counted', async () => {
    const running = await endpoint({ backendUrl: await closedOrigin(), maxBodyBytes: 16 });
    const response = await post(
      `${running.baseUrl}/api/payouts`,
      JSON.stringify({ pad: 'x'.repeat(64) }),
    );
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({
      statusCode: 413,
      statusName: 'PAYLOAD_TOO_LARGE',
      errorMessage: 'request body exceeds 16 bytes; not examined',
      source: 'MERCHANT',
    });
    expect(running.refused()).toBe(1);
    expect(running.exchanges()).toHaveLength(0);
  });
});
