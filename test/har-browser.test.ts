// The HAR of an audit run (`--report har:FILE`) in Chromium's DevTools: the file is parsed by DevTools' own
// HAR model and importer (models/har: HARRoot, then Importer.requestsFromHARLog, what the Network panel's "Import HAR
// file" runs), inside the DevTools front end that ships with the system Chromium, and every entry comes back as a
// network request with its URL, status, header lines in order, timings and body.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HarDocument } from '../conformance/reporters/har.js';
import { CHROMIUM_ARGS, findChromium } from './fixtures/chromium.js';
import { runCli } from './fixtures/cli.js';

const browserBinary = findChromium();
const skip = browserBinary.path === undefined && process.env.CI !== 'true';
if (browserBinary.path === undefined)
  console.warn(
    `${process.env.CI === 'true' ? 'FAILING' : 'SKIPPED'}: HAR browser test: ${browserBinary.missing}`,
  );

const dir = mkdtempSync(join(tmpdir(), 'payconform-har-browser-'));
let browser: Browser | undefined;
let har: HarDocument;

beforeAll(async () => {
  if (skip) return;
  expect(browserBinary.missing).toBeUndefined();
  const file = join(dir, 'run.har');
  const ran = await runCli(
    [
      'audit',
      'server',
      '--only',
      'payout-signed-accepted,nonce-replayed,webhook-put-json',
      '--report',
      `har:${file}`,
    ],
    { PATH: process.env['PATH'] ?? '', NO_COLOR: '1' },
  );
  expect(ran.code, ran.stderr).toBe(0);
  har = JSON.parse(readFileSync(file, 'utf8')) as HarDocument;
  browser = await chromium.launch({
    executablePath: browserBinary.path!,
    headless: true,
    args: [...CHROMIUM_ARGS],
  });
}, 90_000);

afterAll(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Imported {
  readonly url: string;
  readonly method: string;
  readonly status: number;
  readonly requestHeaders: string[];
  readonly responseHeaders: string[];
  readonly sendEnd: number;
  readonly body: string | null;
  readonly content: string | null;
}

describe.skipIf(skip)("Chromium DevTools' HAR importer", { timeout: 60_000 }, () => {
  it('imports every entry as a request: URL, method, status, header lines in order, timings, body', async () => {
    const page = await browser!.newPage();
    await page.goto('devtools://devtools/bundled/devtools_app.html');
    // Run as page source, not as a test function (the test runner rewrites `import()` in its own code).
    const imported = (await page.evaluate(`(async (text) => {
      const HAR = await import('./models/har/har.js');
      const root = new HAR.HARFormat.HARRoot(JSON.parse(text));
      const requests = HAR.Importer.Importer.requestsFromHARLog(root.log);
      return Promise.all(requests.map(async (r) => ({
        url: r.url(),
        method: r.requestMethod,
        status: r.statusCode,
        requestHeaders: r.requestHeaders().map((h) => h.name + ': ' + h.value),
        responseHeaders: r.responseHeaders.map((h) => h.name + ': ' + h.value),
        sendEnd: r.timing ? r.timing.sendEnd : -1,
        body: (await r.requestFormData()) ?? null,
        content: (await r.requestContentData())?.text ?? null,
      })));
    })(${JSON.stringify(JSON.stringify(har))})`)) as Imported[];
    await page.close();

    // The panel lists requests by start time; the HAR holds them in the order each ended: match by content.
    expect(imported).toHaveLength(har.log.entries.length);
    const expected = har.log.entries.map((entry) => ({
      url: entry.request.url,
      method: entry.request.method,
      status: entry.response.status,
      requestHeaders: entry.request.headers.map((h) => `${h.name}: ${h.value}`),
      responseHeaders: entry.response.headers.map((h) => `${h.name}: ${h.value}`),
      body: entry.request.postData?.text ?? null,
      content:
        entry.response.content.encoding === undefined ? (entry.response.content.text ?? '') : null,
    }));
    const key = (r: { url: string; method: string; requestHeaders: string[] }): string =>
      JSON.stringify([r.url, r.method, r.requestHeaders]);
    const seen = imported
      .map((r) => {
        expect(r.sendEnd).toBeGreaterThanOrEqual(0);
        return {
          url: r.url,
          method: r.method,
          status: r.status,
          requestHeaders: r.requestHeaders,
          responseHeaders: r.responseHeaders,
          body: r.body,
          content: expected.some((e) => key(e) === key(r) && e.content === null)
            ? null
            : (r.content ?? ''),
        };
      })
      .sort((a, b) => key(a).localeCompare(key(b)));
    expect(seen).toEqual([...expected].sort((a, b) => key(a).localeCompare(key(b))));
    expect(new Set(har.log.entries.map((e) => e._payconform.direction))).toEqual(
      new Set(['sent', 'received']),
    );
  });
});
