// Waits that fit the target (docs/verdicts.md, "Waits that fit the target"): webhook-redelivered measures each
// redelivery from the answer before it, so independent targets that retry every 700 ms (stated 1000 ms) or queue
// their first delivery 2.5 s pass with no finding. The independent targets are small servers written here, not the
// reference service. Each test has its own service and waits on it, so the tests run side by side
// (describe.concurrent). The README's quickest route against a service with default settings (PASS, exit 0) runs as
// written in test/readme-first-audit.test.ts.
import { mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../cli/main.js';
import { loadTestKeys } from './fixtures/keys.js';
import { memoryIo } from './fixtures/memory-io.js';
import { unusedLoopbackPort } from './fixtures/ports.js';

const dir = mkdtempSync(join(tmpdir(), 'payconform-audit-waits-'));

/** A payout webhook target written from the spec alone: accepts any create-payout and redelivers until 200. */
interface RetryingTarget {
  readonly url: string;
  close(): Promise<void>;
}

async function startRetryingTarget(options: {
  readonly hookUrl: string;
  readonly firstDelayMs: number;
  readonly retryMs: number;
}): Promise<RetryingTarget> {
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, f: () => void): void => {
    const t = setTimeout(() => {
      timers.delete(t);
      f();
    }, ms);
    timers.add(t);
  };
  let next = 0;
  const deliver = (body: Record<string, unknown>, attempt: number): void => {
    const bytes = JSON.stringify({ ...body, payoutWebhookDeliveryAttempt: attempt });
    const req = http.request(options.hookUrl, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
    });
    const retry = (): void => {
      if (attempt < 10) later(options.retryMs, () => deliver(body, attempt + 1));
    };
    req.on('response', (res) => {
      res.resume();
      if (res.statusCode !== 200) retry();
    });
    req.on('error', retry);
    req.end(bytes);
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/api/payouts') {
        res.writeHead(404).end();
        return;
      }
      const sent = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      next += 1;
      const payout = {
        payoutId: `po-${next}`,
        reference: sent['reference'],
        payoutStatus: 'IN_PROGRESS',
      };
      res.writeHead(201, { 'content-type': 'application/vnd.service.v1.0+json' });
      res.end(JSON.stringify(payout));
      later(options.firstDelayMs, () => deliver(payout, 0));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const keys = loadTestKeys();

/** `audit server --only webhook-redelivered,webhook-attempt-counter-rises` against a retrying target. */
async function auditRedelivery(
  name: string,
  target: { readonly firstDelayMs: number; readonly retryMs: number },
  config: Record<string, unknown>,
): Promise<{ code: number; out: string }> {
  const port = await unusedLoopbackPort();
  const t = await startRetryingTarget({
    hookUrl: `http://127.0.0.1:${port}/webhooks/payout`,
    ...target,
  });
  try {
    const file = join(dir, `${name}.json`);
    writeFileSync(
      file,
      JSON.stringify({
        target: t.url,
        applicationId: 'app-1',
        keyId: 'key-1',
        payInAccountSelector: 'VA-TEST',
        webhookListen: `127.0.0.1:${port}`,
        sandbox: false,
        ...config,
      }),
    );
    const io = memoryIo({
      env: {
        NO_COLOR: '1',
        PAYCONFORM_APPLICATION_SECRET: 'test-only-secret-for-retrying-target',
        PAYCONFORM_PRIVATE_KEY: keys.clientEd25519.seedBase64,
      },
    });
    const code = await main(
      [
        'audit',
        'server',
        '--config',
        file,
        '--only',
        'webhook-redelivered,webhook-attempt-counter-rises',
      ],
      io,
    );
    return { code, out: io.out.join('') + io.err.join('') };
  } finally {
    await t.close();
  }
}

describe.concurrent(
  'webhook-redelivered: each redelivery is awaited from the answer before it',
  () => {
    it('a target retrying every 700 ms, audited with webhookRetry.withinMs 1000: PASS with no finding', async () => {
      const r = await auditRedelivery(
        'every-700',
        { firstDelayMs: 0, retryMs: 700 },
        { webhookRetry: { withinMs: 1000 } },
      );
      expect(r.out).toMatch(/PASS\s+webhook-redelivered/);
      expect(r.out).toMatch(/2 passed, 0 failed, 0 warnings, 0 skipped/);
      expect(r.code, r.out).toBe(0);
    }, 30_000);

    it('a target that queues its first delivery 2.5 s (timeoutMs 4000, no withinMs): PASS with no finding', async () => {
      const r = await auditRedelivery(
        'queued-2500',
        { firstDelayMs: 2_500, retryMs: 1_000 },
        { timeoutMs: 4000 },
      );
      expect(r.out).toMatch(/PASS\s+webhook-redelivered/);
      expect(r.out).toMatch(/2 passed, 0 failed, 0 warnings, 0 skipped/);
      expect(r.code, r.out).toBe(0);
    }, 30_000);
  },
);
