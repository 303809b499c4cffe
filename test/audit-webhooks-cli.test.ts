// `payconform audit webhooks` from the outside: through main() in-process against loopback receivers that read the key from
// --public-key-out or fetch it from --serve-key; exit codes 0/1/2/3, reports, the signing key never printed.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { verifyWebhook } from '../src/webhooks/index.js';
import { loadTestKeys } from './fixtures/keys.js';
import { unusedLoopbackPort } from './fixtures/ports.js';
import { runMain } from './fixtures/cli.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const keys = loadTestKeys();
const dir = mkdtempSync(join(tmpdir(), 'payconform-audit-webhooks-'));
const env = { PATH: process.env.PATH ?? '', NO_COLOR: '1' };

const payconform = (args: readonly string[], onStdout?: (text: string) => void) =>
  runMain(args, env, onStdout !== undefined ? { onStdout } : {});

/** A verifying receiver whose public key comes from `key()` at each delivery (file or fetched URL). */
async function receiver(
  key: () => Promise<string | undefined>,
): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void key().then(
        (pem) => {
          const ok =
            pem !== undefined &&
            verifyWebhook(new Uint8Array(Buffer.concat(chunks)), req.headers.authorization, pem).ok;
          res.writeHead(ok ? 200 : 401).end();
        },
        () => res.writeHead(500).end(),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

describe('payconform audit webhooks (main() in-process)', () => {
  it('a verifying receiver reading --public-key-out passes: exit 0, key file in the served form, JUnit report', async () => {
    const keyFile = join(dir, 'service.pem');
    const junit = join(dir, 'webhooks.xml');
    const r1 = await receiver(async () =>
      existsSync(keyFile) ? readFileSync(keyFile, 'utf8') : undefined,
    );
    try {
      const r = await payconform([
        'audit',
        'webhooks',
        '--target',
        r1.url,
        '--public-key-out',
        keyFile,
        '--report',
        `junit:${junit}`,
      ]);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toContain('36 passed');
      expect(readFileSync(keyFile, 'utf8')).not.toContain('BEGIN');
      expect(readFileSync(junit, 'utf8')).toContain('webhook-refund-other-key');
    } finally {
      await r1.close();
    }
  });

  it('a receiver fetching the key from --serve-key, one kind, per-kind --target', async () => {
    const port = await unusedLoopbackPort();
    const r1 = await receiver(async () => {
      const res = await fetch(`http://127.0.0.1:${port}/.well-known/signature/pem`, {
        signal: AbortSignal.timeout(3_000),
      });
      return res.ok ? res.text() : undefined;
    });
    try {
      const r = await payconform([
        'audit',
        'webhooks',
        '--target',
        `payout=${r1.url}`,
        '--kinds',
        'payout',
        '--serve-key',
        `127.0.0.1:${port}`,
      ]);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toContain('12 passed');
      expect(r.stdout).toMatch(/the public key was fetched \d+ time\(s\)/);
    } finally {
      await r1.close();
    }
  });

  it('a receiver configured for another key fails (exit 1); --signing-key is used and never printed', async () => {
    const signingFile = join(dir, 'test-only-signing.pem');
    writeFileSync(signingFile, keys.otherRsa.privatePem);
    const r1 = await receiver(async () => keys.webhookRsa.publicPem);
    try {
      const r = await payconform([
        'audit',
        'webhooks',
        '--target',
        r1.url,
        '--kinds',
        'refund',
        '--signing-key',
        signingFile,
      ]);
      expect(r.code).toBe(1);
      expect(r.stdout).toContain('webhook-refund-accepted');
      const body = keys.otherRsa.privatePem
        .split('\n')
        .filter((l) => l.length > 0 && !l.startsWith('-----'));
      for (const line of body) expect(r.stdout + r.stderr).not.toContain(line);
    } finally {
      await r1.close();
    }
  });

  it('exit 3 for an unreachable receiver; exit 2 for usage errors', async () => {
    const port = await unusedLoopbackPort();
    const unreachable = await payconform([
      'audit',
      'webhooks',
      '--target',
      `http://127.0.0.1:${port}/hooks`,
      '--public-key-out',
      join(dir, 'k.pem'),
    ]);
    expect(unreachable.code).toBe(3);
    expect(unreachable.stderr).toContain('unreachable');
    expect(
      (await payconform(['audit', 'webhooks', '--public-key-out', join(dir, 'k.pem')])).code,
    ).toBe(2); // no target
    expect((await payconform(['audit', 'webhooks', '--target', 'http://127.0.0.1:9/x'])).code).toBe(
      2,
    ); // no way to learn the key
    expect(
      (
        await payconform([
          'audit',
          'webhooks',
          '--target',
          'http://127.0.0.1:9/x',
          '--serve-key',
          '127.0.0.1:0',
          '--kinds',
          'invoice',
        ])
      ).code,
    ).toBe(2);
    const live = await payconform([
      'audit',
      'webhooks',
      '--target',
      'https://merchant.example.com/hooks',
      '--serve-key',
      '127.0.0.1:0',
    ]);
    expect(live.code).toBe(2);
    expect(live.stderr).toContain('--allow-live');
    const badKey = join(dir, 'bad.pem');
    writeFileSync(badKey, 'not a key');
    expect(
      (
        await payconform([
          'audit',
          'webhooks',
          '--target',
          'http://127.0.0.1:9/x',
          '--signing-key',
          badKey,
        ])
      ).code,
    ).toBe(2);
    expect(
      (await payconform(['audit', 'webhooks', '--key=abc', '--target', 'http://127.0.0.1:9/x']))
        .code,
    ).toBe(2);
  });
});
