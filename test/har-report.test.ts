// `--report har:FILE`: every exchange of an audit run as HAR 1.2. In process: header lines kept in order
// with repeats, a binary body as base64 with `encoding`, a body over the evidence cap cut and said in the entry's
// comment, real timings, secrets masked. From the outside (main() in-process): the three audits each write a HAR that validates
// against the HAR 1.2 JSON Schema (har-schema), every finding with evidence names the entries that show it, no secret
// reaches the file, and a run stopped before its checks still writes one. The explorer names each step's entry.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedTarget } from '../cli/commands/audit-server.js';
import { ExchangeLog, withExchangeLog } from '../conformance/http/exchange-log.js';
import { createExploreCheck, EXPLORE_DEFAULTS } from '../conformance/explore/explorer.js';
import { PUBLIC_KEY_PATH } from '../conformance/checks/webhooks/key-server.js';
import { EVIDENCE_BODY_BYTES } from '../conformance/run/grade.js';
import { sendRequest } from '../conformance/http/http-client.js';
import { createRedactor } from '../conformance/report/redact.js';
import { toHar, type HarDocument, type HarEntry } from '../conformance/reporters/har.js';
import { startReferenceService, type RunningReferenceService } from '../server/index.js';
import { validateAgainst } from '../src/schemas/index.js';
import { runMain, type CliRun } from './fixtures/cli.js';
import { harValidator } from './fixtures/har-schema.js';
import { loadTestKeys } from './fixtures/keys.js';
import { unusedLoopbackPort } from './fixtures/ports.js';
import { auditConfigFor } from './fixtures/test-application-service.js';

const keys = loadTestKeys();
const validateHar = harValidator();
// Random characters: a secret made of common words would mask those words wherever they appear (e.g. check ids).
const SECRET = 'Hq7vX2pLm9RtY4wK8sNb3cZf';
const dir = mkdtempSync(join(tmpdir(), 'payconform-har-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Finding {
  readonly evidence?: {
    readonly traceId?: string;
    readonly request?: {
      readonly method: string;
      readonly url: string;
      readonly headers: ReadonlyArray<readonly [string, string]>;
    };
  };
  readonly harEntries?: readonly number[];
}
interface Report {
  readonly results: ReadonlyArray<{ readonly id: string; readonly findings: readonly Finding[] }>;
}

const readHar = (path: string): HarDocument =>
  JSON.parse(readFileSync(path, 'utf8')) as HarDocument;
const readReport = (path: string): Report => JSON.parse(readFileSync(path, 'utf8')) as Report;

/** The HAR validates against the HAR 1.2 schema, and its timings add up (HAR 1.2: `time` is their sum). */
function expectValidHar(har: HarDocument): void {
  expect(validateHar(har), JSON.stringify(validateHar.errors?.slice(0, 3))).toBe(true);
  expect(har.log.version).toBe('1.2');
  har.log.entries.forEach((e, i) => {
    expect(e._payconform.index).toBe(i);
    const t = e.timings;
    for (const phase of [t.send, t.wait, t.receive]) expect(phase).toBeGreaterThanOrEqual(0);
    expect(e.time).toBeCloseTo(Math.max(0, t.connect) + t.send + t.wait + t.receive, 2);
    expect(Number.isNaN(Date.parse(e.startedDateTime))).toBe(false);
  });
}

/** Every finding with a request as evidence names at least one entry, and each named entry shows that request. */
function expectFindingsNameEntries(report: Report, har: HarDocument): number {
  let named = 0;
  for (const r of report.results)
    for (const f of r.findings) {
      const request = f.evidence?.request;
      if (request === undefined) continue;
      expect(f.harEntries, `${r.id}: ${request.method} ${request.url}`).toBeDefined();
      for (const index of f.harEntries!) {
        const entry = har.log.entries[index]!;
        expect(entry.request.method).toBe(request.method);
        expect(entry.request.url.endsWith(request.url)).toBe(true);
        // Every header line, in order, repeats kept: the same lines as the finding's own evidence.
        expect(entry.request.headers.map((h) => [h.name, h.value])).toEqual(
          request.headers.map(([n, v]) => [n, v]),
        );
        // The same trace id in the report and in the HAR: the one its traceparent carries.
        expect(entry._traceId).toBe(f.evidence?.traceId);
        named += 1;
      }
    }
  return named;
}

describe('HAR entries (in process)', () => {
  let server: http.Server;
  let base: string;
  const binary = new Uint8Array(EVIDENCE_BODY_BYTES + 3000).map((_, i) => (i * 7 + 0x80) & 0xff);
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, [
          'X-Rep',
          'a',
          'Content-Type',
          'application/octet-stream',
          'X-Rep',
          'b',
          'Content-Length',
          String(binary.length),
        ]);
        res.end(binary);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('keeps header lines in order with repeats, base64 with encoding, cuts at the cap and says so, masks secrets', async () => {
    const log = new ExchangeLog();
    const ex = await withExchangeLog(log, () =>
      sendRequest(
        {
          method: 'POST',
          url: `${base}/api/x?a=1&a=2`,
          headers: [
            ['X-Dup', '1'],
            ['content-type', 'application/json'],
            ['x-dup', '2'],
            ['x-application-secret', SECRET],
          ],
          body: new TextEncoder().encode(`{"note":"${SECRET}"}`),
        },
        { timeoutMs: 5000, maxResponseBytes: 1 << 20 },
      ),
    );
    expect(ex.response?.status).toBe(200);
    expect(log.entries()).toHaveLength(1);
    const har = toHar(log, {
      toolVersion: 'test',
      redactor: createRedactor({ applicationSecret: SECRET }),
    });
    expectValidHar(har);
    const entry: HarEntry = har.log.entries[0]!;
    expect(JSON.stringify(har)).not.toContain(SECRET);
    expect(entry.request.headers.map((h) => `${h.name}: ${h.value}`)).toEqual([
      `Host: ${base.slice('http://'.length)}`,
      'X-Dup: 1',
      'content-type: application/json',
      'x-dup: 2',
      'x-application-secret: [REDACTED]',
      `traceparent: 00-${entry._traceId}-${ex.request.headers.find(([n]) => n === 'traceparent')?.[1].slice(36)}`,
      `Content-Length: ${ex.request.body.length}`,
      'Connection: close',
    ]);
    expect(entry._traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(entry.request.queryString).toEqual([
      { name: 'a', value: '1' },
      { name: 'a', value: '2' },
    ]);
    expect(entry.request.postData).toEqual({
      mimeType: 'application/json',
      text: '{"note":"[REDACTED]"}',
    });
    expect(entry.response.headers.filter((h) => h.name === 'X-Rep').map((h) => h.value)).toEqual([
      'a',
      'b',
    ]);
    const content = entry.response.content;
    expect(content.encoding).toBe('base64');
    expect(content.size).toBe(binary.length);
    expect(Buffer.from(content.text!, 'base64')).toEqual(
      Buffer.from(binary.subarray(0, EVIDENCE_BODY_BYTES)),
    );
    expect(content.comment).toBe(`body cut at ${EVIDENCE_BODY_BYTES} bytes of ${binary.length}`);
    expect(entry.comment).toContain(`response body cut at ${EVIDENCE_BODY_BYTES} bytes`);
    expect(entry.time).toBeGreaterThan(0);
  });

  it('the log keeps each body only up to the cap, and the HAR still says how long it was', async () => {
    const log = new ExchangeLog();
    const body = new TextEncoder().encode('x'.repeat(40_000));
    await withExchangeLog(log, () =>
      sendRequest(
        { method: 'PUT', url: `${base}/big`, headers: [['content-type', 'text/plain']], body },
        { timeoutMs: 5000, maxResponseBytes: 1 << 20 },
      ),
    );
    const logged = log.entries()[0]!;
    expect(logged.request.body.length).toBe(EVIDENCE_BODY_BYTES);
    expect(logged.response!.body.length).toBe(EVIDENCE_BODY_BYTES);
    const entry = toHar(log, { toolVersion: 'test' }).log.entries[0]!;
    expect(entry.request.bodySize).toBe(40_000);
    expect(entry.request.postData?.text).toHaveLength(EVIDENCE_BODY_BYTES);
    expect(entry.request.postData?.comment).toBe(
      `body cut at ${EVIDENCE_BODY_BYTES} bytes of 40000`,
    );
    expect(entry.comment).toContain(`request body cut at ${EVIDENCE_BODY_BYTES} bytes of 40000`);
  });

  it('an exchange with no answer is an entry with status 0 and the reason', async () => {
    const log = new ExchangeLog();
    const port = await unusedLoopbackPort();
    await withExchangeLog(log, () =>
      sendRequest(
        { method: 'GET', url: `http://127.0.0.1:${port}/`, headers: [] },
        { timeoutMs: 2000 },
      ),
    );
    const har = toHar(log, { toolVersion: 'test' });
    expectValidHar(har);
    expect(har.log.entries[0]!.response.status).toBe(0);
    expect(har.log.entries[0]!.comment).toContain('CONNECTION_REFUSED');
  });

  it('the explorer names the HAR entry of each step of a shrunk sequence', async () => {
    const t = await startEmbeddedTarget({
      faults: ['amount-large-pence-dropped'],
      webhookSigningKey: keys.webhookRsa.privatePem,
    });
    const log = new ExchangeLog();
    try {
      // Seed 5 finds this fault within 11 sequences, shrinking included (seed 3 took 231, four times the CPU).
      const check = createExploreCheck({ ...EXPLORE_DEFAULTS, seed: 5, seconds: 15 });
      const findings = await withExchangeLog(log, () =>
        check.run(
          { ...t.context, webhookWaitMs: 800 },
          { signal: new AbortController().signal, deadline: Date.now() + 60_000 },
        ),
      );
      const notes = findings.find((f) => f.outcome === 'violation')?.evidence?.notes ?? '';
      const steps = [...notes.matchAll(/→ (\S+) (\S+) \[HAR entry (\d+)\]/g)];
      expect(steps.length).toBeGreaterThan(0);
      for (const [, method, url, index] of steps) {
        const entry = log.entries()[Number(index)]!;
        expect(entry.request.method).toBe(method);
        expect(entry.request.url).toBe(url);
      }
    } finally {
      await t.close();
    }
  }, 90_000);
});

/** A reference service with one application whose secret the audit gets from the environment. */
async function referenceService(): Promise<{ service: RunningReferenceService; config: string }> {
  const applicationId = '1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f';
  const merchantId = '2d3e4f5a-6b7c-4d8e-9f0a-1b2c3d4e5f6a';
  const webhookPort = await unusedLoopbackPort();
  const service = await startReferenceService({
    applications: [
      {
        applicationId,
        applicationSecret: SECRET,
        keyId: 'test-only-key-1',
        publicKey: keys.clientEd25519.publicKey,
        merchantId,
      },
    ],
    webhookUrls: {
      payment: `http://127.0.0.1:${webhookPort}/payment`,
      payout: `http://127.0.0.1:${webhookPort}/payout`,
      refund: `http://127.0.0.1:${webhookPort}/refund`,
    },
    webhookSigningKey: keys.webhookRsa.privatePem,
    lifecycleDelayMs: 250,
    retry: { initialDelayMs: 40, maxDelayMs: 200, maxAttempts: 6, requestTimeoutMs: 2000 },
  });
  const config = join(dir, 'target.json');
  writeFileSync(
    config,
    JSON.stringify(
      auditConfigFor(service, webhookPort, { applicationId, merchantId, keyId: 'test-only-key-1' }),
    ),
  );
  return { service, config };
}

const baseEnv = { PATH: process.env['PATH'] ?? '', NO_COLOR: '1' };

describe('audit server --report har:FILE (main() in-process, against a reference service)', () => {
  let service: RunningReferenceService;
  let ran: CliRun;
  beforeAll(async () => {
    const started = await referenceService();
    service = started.service;
    ran = await runMain(
      [
        'audit',
        'server',
        '--no-explore',
        '--target',
        service.baseUrl,
        '--config',
        started.config,
        '--report',
        `json:${join(dir, 'server.json')}`,
        '--report',
        `har:${join(dir, 'server.har')}`,
      ],
      {
        ...baseEnv,
        PAYCONFORM_APPLICATION_SECRET: SECRET,
        PAYCONFORM_PRIVATE_KEY: keys.clientEd25519.seedBase64,
      },
      { timeoutMs: 90_000 },
    );
  }, 120_000);
  afterAll(() => service?.close());

  it('exits 0 and writes a HAR 1.2 that validates, with the requests sent and the webhooks received', () => {
    expect(ran.code, ran.stderr + ran.stdout.slice(-2000)).toBe(0);
    const har = readHar(join(dir, 'server.har'));
    expectValidHar(har);
    const directions = new Set(har.log.entries.map((e) => e._payconform.direction));
    expect(directions).toEqual(new Set(['sent', 'received']));
    expect(
      har.log.entries.filter((e) => e.request.url.startsWith(service.baseUrl)).length,
    ).toBeGreaterThan(50);
    // Every request the audit sent names its trace: the trace id of its one traceparent line.
    for (const e of har.log.entries.filter((x) => x._payconform.direction === 'sent')) {
      const sent = e.request.headers.filter((h) => h.name === 'traceparent').map((h) => h.value);
      expect(sent).toHaveLength(1);
      expect(`00-${e._traceId}-`).toBe(sent[0]!.slice(0, 36));
    }
    for (const e of har.log.entries)
      if (e.response.content.size > EVIDENCE_BODY_BYTES)
        expect(e.response.content.comment).toMatch(/^body cut at \d+ bytes of/);
  });

  it('every finding with evidence names its entries (harEntries), and the report still validates', () => {
    const report = readReport(join(dir, 'server.json'));
    expect(
      validateAgainst('https://payconform.dev/schemas/conformance-report.schema.json', report),
    ).toEqual({ valid: true });
    expect(expectFindingsNameEntries(report, readHar(join(dir, 'server.har')))).toBeGreaterThan(40);
  });

  it('no secret reaches the HAR: the application secret and the private key are masked', () => {
    const text = readFileSync(join(dir, 'server.har'), 'utf8');
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(keys.clientEd25519.seedBase64);
    expect(text).toContain('[REDACTED]');
  });
});

describe('audit webhooks and audit client --report har:FILE (main() in-process)', () => {
  it('audit webhooks: every delivery and every fetch of the served key is an entry, and findings name theirs', async () => {
    const keyPort = await unusedLoopbackPort();
    const keyUrl = `http://127.0.0.1:${keyPort}${PUBLIC_KEY_PATH}`;
    // Fetches the served key at each delivery (as a receiver configured with the key URL does), then accepts it.
    const traceparents: Array<string | undefined> = [];
    const receiver = http.createServer((req, res) => {
      traceparents.push(req.headersDistinct.traceparent?.join(', '));
      req.resume();
      req.on('end', () => {
        void fetch(keyUrl).then(
          async (k) => {
            await k.text();
            res.writeHead(200).end();
          },
          () => res.writeHead(500).end(),
        );
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    try {
      const r = await runMain(
        [
          'audit',
          'webhooks',
          '--target',
          url,
          '--serve-key',
          `127.0.0.1:${keyPort}`,
          '--report',
          `json:${join(dir, 'webhooks.json')}`,
          '--report',
          `har:${join(dir, 'webhooks.har')}`,
        ],
        baseEnv,
      );
      // A verdict either way (the receiver accepts everything); what matters here is the HAR.
      expect([0, 1], r.stderr).toContain(r.code);
      const har = readHar(join(dir, 'webhooks.har'));
      expectValidHar(har);
      const deliveries = har.log.entries.filter((x) => x.request.url.startsWith(url));
      const keyFetches = har.log.entries.filter((x) => x.request.url === keyUrl);
      expect(deliveries.length).toBeGreaterThan(10);
      for (const e of deliveries) expect(e._payconform.direction).toBe('sent');
      // What the receiver got: one valid traceparent on each delivery, the one its HAR entry shows.
      expect(traceparents).toHaveLength(deliveries.length);
      for (const t of traceparents) expect(t).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
      expect(new Set(traceparents)).toEqual(
        new Set(
          deliveries.map((e) => e.request.headers.find((h) => h.name === 'traceparent')?.value),
        ),
      );
      expect(keyFetches.length).toBeGreaterThan(0);
      for (const e of keyFetches) {
        expect(e._payconform.direction).toBe('received');
        expect(e.response.status).toBe(200);
      }
      expect(
        expectFindingsNameEntries(readReport(join(dir, 'webhooks.json')), har),
      ).toBeGreaterThan(10);
    } finally {
      await new Promise<void>((r) => receiver.close(() => r()));
    }
  }, 90_000);

  it('audit client: each request of the client is a received entry with the answer it got, secret masked', async () => {
    const client = `${JSON.stringify(process.execPath)} -e ${JSON.stringify(
      "fetch(process.env.PAYCONFORM_BASE_URL + '/api/payouts', { method: 'POST', headers: { 'content-type': 'application/json', 'x-application-secret': process.env.PAYCONFORM_APPLICATION_SECRET }, body: '{}' }).then((r) => console.log(r.status))",
    )}`;
    const r = await runMain(
      [
        'audit',
        'client',
        '--exec',
        client,
        '--timeout-ms',
        '30000',
        '--report',
        `json:${join(dir, 'client.json')}`,
        '--report',
        `har:${join(dir, 'client.har')}`,
      ],
      {
        ...baseEnv,
        PAYCONFORM_APPLICATION_ID: '6f1c2a34-5b6d-4e7f-8a9b-0c1d2e3f4a5b',
        PAYCONFORM_APPLICATION_SECRET: SECRET,
        PAYCONFORM_KEY_ID: 'test-only-key-1',
        PAYCONFORM_PUBLIC_KEY: keys.clientEd25519.publicPem,
      },
    );
    // An unsigned request fails the client audit.
    expect(r.code, r.stderr).toBe(1);
    const har = readHar(join(dir, 'client.har'));
    expectValidHar(har);
    expect(har.log.entries).toHaveLength(1);
    const entry = har.log.entries[0]!;
    expect(entry._payconform.direction).toBe('received');
    expect(entry.request.method).toBe('POST');
    expect(entry.request.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/payouts$/);
    expect(entry.response.status).toBeGreaterThanOrEqual(400);
    expect(readFileSync(join(dir, 'client.har'), 'utf8')).not.toContain(SECRET);
    expect(expectFindingsNameEntries(readReport(join(dir, 'client.json')), har)).toBeGreaterThan(0);
  }, 90_000);

  it('a run stopped before its checks (target unreachable, exit 3) still writes a valid HAR', async () => {
    const port = await unusedLoopbackPort();
    const r = await runMain(
      [
        'audit',
        'server',
        '--no-explore',
        '--target',
        `http://127.0.0.1:${port}`,
        '--report',
        `har:${join(dir, 'stopped.har')}`,
      ],
      baseEnv,
    );
    expect(r.code, r.stderr).toBe(3);
    expectValidHar(readHar(join(dir, 'stopped.har')));
  });

  it('an unknown --report format names har among the formats (exit 2)', async () => {
    const r = await runMain(
      ['audit', 'server', '--no-explore', '--report', 'pcap:x.pcap'],
      baseEnv,
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('json, junit, html, markdown, har');
  });
});
