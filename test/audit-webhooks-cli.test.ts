// `payconform audit webhooks` from the outside: through main() in-process against loopback receivers that read the key from
// --public-key-out or fetch it from --serve-key; exit codes 0/1/2/3, reports, the signing key never printed.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadTestKeys } from './fixtures/keys.js';
import { startWebhookReceiver } from './fixtures/webhook-receiver.js';
import { unusedLoopbackPort } from './fixtures/ports.js';
import { runMain } from './fixtures/cli.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const keys = loadTestKeys();
const dir = mkdtempSync(join(tmpdir(), 'payconform-audit-webhooks-'));
const env = { PATH: process.env.PATH ?? '', NO_COLOR: '1' };

const payconform = (args: readonly string[], onStdout?: (text: string) => void) =>
  runMain(args, env, onStdout !== undefined ? { onStdout } : {});

describe('payconform audit webhooks (main() in-process)', () => {
  it('a verifying receiver reading --public-key-out passes: exit 0, key file in the served form, JUnit report', async () => {
    const keyFile = join(dir, 'service.pem');
    const junit = join(dir, 'webhooks.xml');
    const r1 = await startWebhookReceiver(async () =>
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
    const r1 = await startWebhookReceiver(async () => {
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
    const r1 = await startWebhookReceiver(async () => keys.webhookRsa.publicPem);
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
