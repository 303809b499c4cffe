// End to end (docs/security.md): a hostile target echoes the application secret it receives, in a different encoding
// on each answer (entities, \u escapes, percent and form encoding, escaped twice, other case, hex, base64, cut short,
// broken across lines) and in every place (body, header, status text, redirect target), through a real
// `payconform audit server` run writing the console, JSON, JUnit and HTML reports: none of them shows the secret.
// Budget: one audit of a handful of checks, about 15 s.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runMain } from './fixtures/cli.js';
import { loadTestKeys } from './fixtures/keys.js';
import { asRead, encodeChar, leaksIn } from './fixtures/secret-leaks.js';

const keys = loadTestKeys();
const dir = mkdtempSync(join(tmpdir(), 'payconform-echo-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The issue's own example: every character an encoding changes, a space, letters of both cases. */
const SECRET = `Zq8&<"w'/%+x Secr3t-9~{}`;

/** The forms the target cycles through; the ones with a line break go only in the body. */
const FORMS: ReadonlyArray<(s: string) => string> = [
  (s) => s,
  (s) => [...s].map((c) => encodeChar(c, 1, false)).join(''),
  (s) => [...s].map((c, i) => encodeChar(c, i % 2 === 0 ? 2 : 0, i % 3 === 0)).join(''),
  (s) => [...s].map((c) => encodeChar(c, 4, true)).join(''),
  (s) => [...s].map((c) => encodeChar(c, 5, false)).join(''),
  (s) => [...s].map((c) => encodeChar(c, 6, true)).join(''),
  (s) => encodeURIComponent([...s].map((c) => encodeChar(c, 5, true)).join('')),
  (s) =>
    [...s]
      .map((c) => encodeChar(c, 3, false))
      .join('')
      .replace(/&/g, '&amp;'),
  (s) => JSON.stringify(JSON.stringify(s)).slice(1, -1),
  (s) => s.toUpperCase(),
  (s) => Buffer.from(s).toString('hex'),
  (s) => Buffer.from(s).toString('base64'),
  (s) => `${s.slice(0, 10)}…`,
  (s) => `${s.slice(0, 12)}\n${s.slice(12)}`,
];

async function startEchoingTarget(): Promise<{ url: string; close: () => Promise<void> }> {
  let n = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    const received = String(req.headers['x-application-secret'] ?? SECRET);
    const form = FORMS[n++ % FORMS.length]!(received);
    const oneLine = form.replace(/\n/g, ' ');
    res.statusMessage = `Denied ${oneLine}`.replace(/[^\t\x20-\x7e]/g, '?');
    res.writeHead(401, {
      'content-type': 'text/html',
      'x-echo': oneLine.replace(/[^\t\x20-\x7e]/g, '?'),
      location: `/login?secret=${encodeURIComponent(received)}&hint=${oneLine.replace(/[^\x21-\x7e]/g, '_')}`,
      'www-authenticate': `Basic realm="${Buffer.from(`app-1:${received}`).toString('base64')}"`,
    });
    res.end(
      `<html><body><p>wrong secret: ${form}</p><pre>${JSON.stringify({ secret: form })}</pre></body></html>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('a target that echoes the secret in every encoding, through a real audit', () => {
  it('no output of `audit server` (console, JSON, JUnit, HTML) shows it', async () => {
    const target = await startEchoingTarget();
    try {
      const config = join(dir, 'config.json');
      writeFileSync(config, JSON.stringify({ payInAccountSelector: 'GB00ECHO', sandbox: false }));
      const reports = {
        json: join(dir, 'r.json'),
        junit: join(dir, 'r.xml'),
        html: join(dir, 'r.html'),
      };
      const run = await runMain(
        [
          'audit',
          'server',
          '--target',
          target.url,
          '--config',
          config,
          '--timeout-ms',
          '3000',
          '--verbose',
          '--only',
          'payout-signed-accepted,application-secret-wrong,content-digest-mismatch,public-key-form,signature-headers-missing,nonce-replayed',
          ...Object.entries(reports).flatMap(([f, p]) => ['--report', `${f}:${p}`]),
        ],
        {
          PATH: process.env['PATH'] ?? '',
          PAYCONFORM_APPLICATION_ID: 'app-1',
          PAYCONFORM_APPLICATION_SECRET: SECRET,
          PAYCONFORM_KEY_ID: 'key-1',
          PAYCONFORM_PRIVATE_KEY: keys.clientEd25519.seedBase64,
          PAYCONFORM_MERCHANT_ID: 'merchant-1',
        },
        { timeoutMs: 90_000 },
      );
      expect(run.code, run.stderr).toBe(1); // the echoing target fails payout-signed-accepted
      const outputs: Record<string, string> = {
        console: run.stdout + run.stderr,
        json: readFileSync(reports.json, 'utf8'),
        junit: readFileSync(reports.junit, 'utf8'),
        html: readFileSync(reports.html, 'utf8'),
      };
      for (const [format, text] of Object.entries(outputs)) {
        expect(leaksIn(asRead(format, text), SECRET), format).toEqual([]);
        expect(leaksIn(text, SECRET), `${format} as written`).toEqual([]);
        expect(text, format).toContain('[REDACTED]');
      }
      // The evidence is there (what was masked was the secret, not the answers).
      expect(outputs['json']).toContain('www-authenticate');
      expect(outputs['json']).toMatch(/"status": 401/);
    } finally {
      await target.close();
    }
  }, 120_000);
});
