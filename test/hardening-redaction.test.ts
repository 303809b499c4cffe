// No audit prints the application secret: each audit runs against a party that echoes the secret
// everywhere it can (body raw and HTML-, XML-, JSON- and URL-escaped, a WWW-Authenticate header, the status text),
// and every output (console, JSON, JUnit and HTML reports) is searched for the secret in every form.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../cli/main.js';
import { loadTestKeys } from './fixtures/keys.js';
import { memoryIo } from './fixtures/memory-io.js';

// TEST ONLY. Every character an escaper touches: & < > " ' / \ and a space.
const SECRET = `test-only&s3cret<"q'>/\\ x`;
const keys = loadTestKeys();
const dir = mkdtempSync(join(tmpdir(), 'payconform-hardening-redaction-'));

const htmlNamed = (s: string) =>
  s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
const numeric = (s: string, hex: boolean) =>
  s.replace(/[^A-Za-z0-9]/g, (c) =>
    hex ? `&#x${c.charCodeAt(0).toString(16)};` : `&#${c.charCodeAt(0)};`,
  );
const jsonEscaped = (s: string) => JSON.stringify(s).slice(1, -1);

/** Every form in which the secret must never appear in an output. */
const FORMS: Readonly<Record<string, string>> = {
  raw: SECRET,
  html: htmlNamed(SECRET),
  'html-apos': htmlNamed(SECRET).replace(/&#39;/g, '&apos;'),
  'xml-text': SECRET.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'),
  'numeric-decimal': numeric(SECRET, false),
  'numeric-hex': numeric(SECRET, true),
  json: jsonEscaped(SECRET),
  'json-in-json': jsonEscaped(jsonEscaped(SECRET)),
  'json-unicode': SECRET.replace(
    /[^A-Za-z0-9]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  ),
  url: encodeURIComponent(SECRET),
  base64: Buffer.from(SECRET).toString('base64'),
  // The distinctive middle of the secret, in case an escaper mangled both ends.
  core: 's3cret',
};

function leaks(text: string): string[] {
  return Object.entries(FORMS)
    .filter(([, form]) => text.includes(form))
    .map(([name]) => name);
}

/** Answers every request with the secret in every form: body, a WWW-Authenticate header, a custom header. */
async function echoingParty(
  status: number,
): Promise<{ url: string; hits: () => number; close: () => Promise<void> }> {
  let hits = 0;
  const body = [
    '<html><body><h1>Unauthorized</h1>',
    `<p>expected secret ${htmlNamed(SECRET)} (raw: ${SECRET})</p>`,
    `<pre>${numeric(SECRET, false)} ${numeric(SECRET, true)} ${SECRET.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</pre>`,
    `<script>var cfg = {"secret":"${jsonEscaped(SECRET)}","u":"${FORMS['json-unicode']}"};</script>`,
    `<a href="/retry?secret=${encodeURIComponent(SECRET)}">retry</a> ${FORMS['base64']}`,
    '</body></html>',
  ].join('\n');
  const server = http.createServer((req, res) => {
    hits++;
    req.resume();
    req.on('end', () => {
      res.writeHead(status, {
        'content-type': 'text/html; charset=utf-8',
        'www-authenticate': `Basic realm="${SECRET.replace(/"/g, '\\"')}"`,
        'x-expected-secret': SECRET,
        'x-expected-secret-url': encodeURIComponent(SECRET),
      });
      res.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits: () => hits,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

/** Runs a command in-process with every report format; returns console output and each report's text. */
async function runWithReports(
  name: string,
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ code: number; outputs: Record<string, string> }> {
  const paths = {
    json: join(dir, `${name}.json`),
    junit: join(dir, `${name}.xml`),
    html: join(dir, `${name}.html`),
  };
  const io = memoryIo({ env: { NO_COLOR: '1', ...env } });
  const code = await main(
    [
      ...args,
      '--report',
      `json:${paths.json}`,
      '--report',
      `junit:${paths.junit}`,
      '--report',
      `html:${paths.html}`,
      '--verbose',
    ],
    io,
  );
  const outputs: Record<string, string> = { console: io.out.join(''), stderr: io.err.join('') };
  for (const [format, path] of Object.entries(paths)) outputs[format] = readFileSync(path, 'utf8');
  return { code, outputs };
}

function expectNoLeak(outputs: Record<string, string>): void {
  for (const [format, text] of Object.entries(outputs))
    expect({ format, leaks: leaks(text) }).toEqual({ format, leaks: [] });
}

const parties: Array<{ close: () => Promise<void> }> = [];
afterAll(async () => {
  await Promise.all(parties.map((p) => p.close()));
});

describe('echoed secrets are masked in every output of every audit', () => {
  it('the forms searched for are what the echoing party really sends (the search can fail)', async () => {
    const party = await echoingParty(401);
    parties.push(party);
    const res = await fetch(party.url);
    const text = `${[...res.headers].map(([n, v]) => `${n}: ${v}`).join('\n')}\n${await res.text()}`;
    for (const name of [
      'raw',
      'html',
      'numeric-decimal',
      'numeric-hex',
      'json',
      'json-unicode',
      'url',
      'base64',
      'xml-text',
    ])
      expect(leaks(text)).toContain(name);
  });

  it('audit webhooks (the receiver echoes the secret on every delivery)', async () => {
    const party = await echoingParty(401);
    parties.push(party);
    const { code, outputs } = await runWithReports(
      'webhooks',
      [
        'audit',
        'webhooks',
        '--target',
        `${party.url}/hooks`,
        '--public-key-out',
        join(dir, 'key.pem'),
        '--timeout-ms',
        '3000',
      ],
      {
        PAYCONFORM_APPLICATION_SECRET: SECRET,
      },
    );
    expect(code).toBe(1);
    expect(party.hits()).toBeGreaterThan(20);
    // The echoed responses are in the evidence, masked.
    expect(outputs['json']).toContain('[REDACTED]');
    expect(outputs['html']).toContain('[REDACTED]');
    expectNoLeak(outputs);
  }, 60_000);

  it('audit server (the target echoes the secret on every request)', async () => {
    const party = await echoingParty(401);
    parties.push(party);
    const seed = keys.clientEd25519;
    const config = join(dir, 'audit-server.json');
    const destination = {
      destinationType: 'toAccount',
      accountType: 'SCAN',
      holderName: 'Jane Payee',
      accountNumber: '12345678',
      sortCode: '040004',
      iban: null,
    };
    writeFileSync(
      config,
      JSON.stringify({
        payInAccountSelector: 'main',
        copDestinations: {
          FULL_MATCH: destination,
          PARTIAL_MATCH: { ...destination, holderName: 'CoP Partial Match' },
        },
        payments: {
          settled: [{ paymentId: '53934699-c3ea-47d4-bf6e-7870a472fee5', amount: '100.00' }],
          unsettled: [
            { paymentId: '92cec945-03b7-4e0d-8ef3-009812f7bf4b', status: 'AWAITING_AUTHORIZATION' },
          ],
        },
      }),
    );
    const { code, outputs } = await runWithReports(
      'server',
      [
        'audit',
        'server',
        '--no-explore',
        '--target',
        party.url,
        '--config',
        config,
        '--timeout-ms',
        '1000',
      ],
      {
        PAYCONFORM_APPLICATION_SECRET: SECRET,
        PAYCONFORM_APPLICATION_ID: '3f6d2a0e-5b1c-4c7e-9a8b-0d1e2f3a4b5c',
        PAYCONFORM_KEY_ID: 'test-only-client-key-1',
        PAYCONFORM_MERCHANT_ID: 'test-only-merchant',
        PAYCONFORM_PRIVATE_KEY: seed.privatePem,
      },
    );
    expect(code).toBe(1);
    expect(party.hits()).toBeGreaterThan(5);
    expect(outputs['json']).toContain('[REDACTED]');
    expectNoLeak(outputs);
  }, 120_000);

  it('audit client (the client sends the secret in every form, in headers and body)', async () => {
    const publicKey = keys.clientEd25519.publicPem;
    const client = [
      `const u = process.env.PAYCONFORM_BASE_URL + '/api/payouts';`,
      `const s = process.env.PAYCONFORM_APPLICATION_SECRET;`,
      `const forms = [s, JSON.stringify(s), encodeURIComponent(s), s.replace(/&/g, '&amp;').replace(/</g, '&lt;')];`,
      `fetch(u, { method: 'POST', headers: { 'content-type': 'application/vnd.service.v1.0+json', 'x-application-id': process.env.PAYCONFORM_APPLICATION_ID, 'x-application-secret': s, 'x-echo': encodeURIComponent(s) }, body: JSON.stringify({ note: forms.join(' ') }) }).then((r) => r.text(), () => '');`,
    ].join('\n');
    const clientFile = join(dir, 'client.mjs');
    writeFileSync(clientFile, client);
    const { code, outputs } = await runWithReports(
      'client',
      [
        'audit',
        'client',
        '--exec',
        `${JSON.stringify(process.execPath)} ${JSON.stringify(clientFile)}`,
        '--timeout',
        '30',
      ],
      {
        PATH: process.env.PATH ?? '',
        PAYCONFORM_APPLICATION_SECRET: SECRET,
        PAYCONFORM_APPLICATION_ID: '3f6d2a0e-5b1c-4c7e-9a8b-0d1e2f3a4b5c',
        PAYCONFORM_KEY_ID: 'test-only-client-key-1',
        PAYCONFORM_PUBLIC_KEY: publicKey,
      },
    );
    expect(code).toBe(1);
    expect(outputs['json']).toContain('[REDACTED]');
    expectNoLeak(outputs);
  }, 60_000);
});
