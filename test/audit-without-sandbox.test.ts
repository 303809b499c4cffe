// `payconform audit server --explore-only` as a user runs it against a service without payconform's /sandbox/ (issue
// 45, "done when"): the reference service with /sandbox/ off (or at a private path behind the starter state hook),
// configured from its own audit config (`auditConfigFor`, what `serve --write-audit-config` writes), the secrets in the
// environment. Through `main()` in-process; the starter hook runs as a command (a Python program is the point).
// Budget: two sequences per lane each (12 sequences, about 40 to 50 steps: enough for refunds to be made, the summary
// is asserted), one seed each. A count, not a time: 4 s of exploring cost three times the CPU, and reached less on a
// loaded machine. The two tests, each with its own service, run side by side (describe.concurrent).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { auditConfigFor } from '../cli/commands/serve.js';
import { main } from '../cli/main.js';
import { defaultRetryPolicy, startReferenceService } from '../server/index.js';
import { exportEd25519SeedBase64 } from '../src/keys/index.js';
import { STARTER_HOOK } from './fixtures/explore-targets.js';
import { memoryIo } from './fixtures/memory-io.js';
import { unusedLoopbackPort } from './fixtures/ports.js';

const dir = mkdtempSync(join(tmpdir(), 'payconform-no-sandbox-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Two sequences per lane; the 60 s only bounds a broken run. */
const EXPLORE_BUDGET = ['--explore-runs', '2', '--explore-seconds', '60'];

/** Audits a fresh service served with `sandboxPath`, its audit config changed by `edit`; returns the exit and report. */
async function auditWithout(
  sandboxPath: string | false,
  edit: (config: Record<string, unknown>, baseUrl: string) => Record<string, unknown>,
): Promise<{ code: number; summary: string; outcome: string }> {
  const port = await unusedLoopbackPort();
  const webhook = (kind: string) => `http://127.0.0.1:${port}/webhooks/${kind}`;
  const urls = {
    payment: webhook('payment'),
    payout: webhook('payout'),
    refund: webhook('refund'),
  };
  const s = await startReferenceService({ sandboxPath, webhookUrls: urls, lifecycleDelayMs: 300 });
  try {
    const written = auditConfigFor(s, urls, { lifecycleMs: 300, retry: defaultRetryPolicy });
    const file = join(dir, `audit-${port}.json`);
    writeFileSync(file, JSON.stringify(edit({ ...written.config }, s.baseUrl)));
    const io = memoryIo({
      env: {
        PATH: process.env['PATH'] ?? '',
        PAYCONFORM_APPLICATION_SECRET: s.credentials.applicationSecret,
        PAYCONFORM_PRIVATE_KEY: exportEd25519SeedBase64(s.credentials.privateKey!),
      },
    });
    const args = ['audit', 'server', '--config', file, '--explore-only'];
    const code = await main(
      [...args, ...EXPLORE_BUDGET, '--explore-seed', '5', '--report', 'json:-'],
      io,
    );
    const report = JSON.parse(io.out.join('')) as {
      results: Array<{ id: string; outcome: string; findings: Array<{ message: string }> }>;
    };
    const explore = report.results.find((r) => r.id === 'explore-model')!;
    return { code, summary: explore.findings[0]?.message ?? '', outcome: explore.outcome };
  } finally {
    await s.close();
  }
}

describe.concurrent('audit server --explore-only against a service without /sandbox/', () => {
  it(
    "the config's two settled payments: refunds of them, and a pass",
    { timeout: 120_000 },
    async () => {
      const r = await auditWithout(false, (config) => ({
        ...config,
        payments: {
          ...(config['payments'] as Record<string, unknown[]>),
          settled: (config['payments'] as Record<string, unknown[]>)['settled']!.slice(0, 2),
        },
      }));
      expect(r.outcome, r.summary).toBe('pass');
      expect(r.code).toBe(0);
      expect(r.summary).toMatch(
        /made \d+ payouts, 0 payments, [1-9]\d* refunds \([1-9]\d* refunds of the config's 2 settled payments/,
      );
    },
  );

  it(
    'the starter hook as a command: its own payments and refunds, and a pass',
    { timeout: 120_000 },
    async () => {
      const r = await auditWithout('/private-helpers', (config, baseUrl) => ({
        ...config,
        stateHook: {
          command: [
            'env',
            `STATE_HOOK_BACKEND=${baseUrl}/private-helpers`,
            'python3',
            STARTER_HOOK,
          ],
        },
      }));
      expect(r.outcome, r.summary).toBe('pass');
      expect(r.code).toBe(0);
      expect(r.summary).toMatch(/made \d+ payouts, [1-9]\d* payments, [1-9]\d* refunds\)/);
    },
  );
});
