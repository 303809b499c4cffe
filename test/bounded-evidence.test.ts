// Bounded evidence (docs/security.md): against a target that answers every request with 1 GiB (declared, or as
// endless chunks), reading stops at the client's limit and the connection is dropped, the audit's peak memory stays
// under MEMORY_BOUND_MB and the reports stay small, for `audit webhooks` (the receiver's answers) and `audit server`.
// Each audit runs as a child process (the CLI from sources) whose peak RSS a preloaded hook writes at exit.
// Budget: four audits (the server audit runs SERVER_CHECKS), about 30 s in all on two busy cores (measured peaks 143-233 MB; before the limits 410-500 MB).
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { validateAgainst } from '../src/schemas/index.js';
import { runCli } from './fixtures/cli.js';
import { startGigabyteTarget } from './fixtures/hostile-target.js';
import { loadTestKeys } from './fixtures/keys.js';

const keys = loadTestKeys();

/** Peak resident memory an audit may reach against a 1 GiB target (the CLI run from sources through tsx). */
const MEMORY_BOUND_MB = 280;
/** Largest report file: 2 MiB of kept bodies plus the checks' own text. */
const REPORT_BOUND_BYTES = 4 * 1024 * 1024;
/** What one response may cost the target before the client hangs up: its 256 KiB limit plus loopback socket buffers. */
const SENT_BOUND_BYTES = 32 * 1024 * 1024;

const dir = mkdtempSync(join(tmpdir(), 'payconform-bounded-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const PRELOAD = pathToFileURL(join(import.meta.dirname, 'fixtures', 'peak-rss.mjs')).href;

async function audit(
  name: string,
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; peakMb: number; reports: string[]; out: string }> {
  const rss = join(dir, `${name}.rss`);
  const reports = ['json', 'junit', 'html'].map((f) => join(dir, `${name}.${f}`));
  const r = await runCli(
    [...args, ...['json', 'junit', 'html'].flatMap((f, i) => ['--report', `${f}:${reports[i]}`])],
    {
      PATH: process.env['PATH'] ?? '',
      NODE_OPTIONS: `--import=${PRELOAD}`,
      PAYCONFORM_TEST_PEAK_RSS_FILE: rss,
      ...env,
    },
    { timeoutMs: 120_000 },
  );
  return {
    code: r.code,
    peakMb: Number(readFileSync(rss, 'utf8')) / 1024,
    reports,
    out: r.stdout + r.stderr,
  };
}

/** Server checks that send the most requests (fifty at once among them), and a webhook and a refund check. */
const SERVER_CHECKS = [
  'payout-signed-accepted',
  'nonce-concurrent-once',
  'content-digest-mismatch',
  'application-secret-wrong',
  'public-key-form',
  'refund-partial-accepted',
  'cop-hold-on-mismatch',
  'webhook-put-json',
];

/** A config that lets the payout, refund and webhook checks run (the target answers them all with 1 GiB). */
function serverConfig(): string {
  const path = join(dir, 'server-config.json');
  writeFileSync(
    path,
    JSON.stringify({
      payInAccountSelector: 'GB00PAYCONFORM00000001',
      payments: {
        settled: [{ paymentId: 'pay-settled-1', amount: '10.00' }],
        unsettled: [{ paymentId: 'pay-unsettled-1', status: 'AWAITING_AUTHORIZATION' }],
      },
      webhookListen: '127.0.0.1:0',
      sandbox: false,
    }),
  );
  return path;
}

function expectSmallReports(reports: readonly string[]): void {
  for (const path of reports) expect(statSync(path).size, path).toBeLessThan(REPORT_BOUND_BYTES);
  const json = JSON.parse(readFileSync(reports[0]!, 'utf8')) as {
    evidence: { bodiesCut: number; bodyBytes: number };
  };
  const checked = validateAgainst(
    'https://payconform.dev/schemas/conformance-report.schema.json',
    json,
  );
  expect(checked.valid, JSON.stringify(checked)).toBe(true);
  expect(json.evidence.bodiesCut).toBeGreaterThan(0);
  expect(readFileSync(reports[0]!, 'utf8')).toMatch(/body cut at \d+ bytes of /);
}

describe.each(['length', 'chunked'] as const)('a target answering 1 GiB (%s)', (mode) => {
  it(`audit webhooks: peak memory under ${MEMORY_BOUND_MB} MB, reports small, reading stopped`, async () => {
    const target = await startGigabyteTarget(mode);
    try {
      const r = await audit(`webhooks-${mode}`, [
        'audit',
        'webhooks',
        '--target',
        `${target.url}/hooks`,
        '--public-key-out',
        join(dir, `webhooks-${mode}.pem`),
        '--timeout-ms',
        '2000',
      ]);
      expect([0, 1, 4], r.out).toContain(r.code);
      console.log(
        `peak RSS ${r.peakMb.toFixed(0)} MB, report ${statSync(r.reports[0]!).size} bytes`,
      );
      expect(r.peakMb, r.out).toBeLessThan(MEMORY_BOUND_MB);
      expect(target.requests()).toBeGreaterThan(5);
      expect(target.sentPerResponse()[0]).toBeLessThan(SENT_BOUND_BYTES);
      expectSmallReports(r.reports);
    } finally {
      await target.close();
    }
  }, 150_000);

  it(`audit server: peak memory under ${MEMORY_BOUND_MB} MB, reports small, reading stopped`, async () => {
    const target = await startGigabyteTarget(mode);
    try {
      const r = await audit(
        `server-${mode}`,
        [
          'audit',
          'server',
          '--no-explore',
          '--target',
          target.url,
          '--config',
          serverConfig(),
          '--timeout-ms',
          '3000',
          // The checks that read the most answers, not the whole suite: the waits of every webhook and lifecycle
          // check against a target that never answers usefully would cost minutes and read nothing more.
          '--only',
          SERVER_CHECKS.join(','),
        ],
        {
          PAYCONFORM_APPLICATION_ID: 'app-1',
          PAYCONFORM_APPLICATION_SECRET: 'bounded-evidence-secret',
          PAYCONFORM_KEY_ID: 'key-1',
          PAYCONFORM_PRIVATE_KEY: keys.clientEd25519.seedBase64,
          PAYCONFORM_MERCHANT_ID: 'merchant-1',
        },
      );
      expect([0, 1, 4], r.out).toContain(r.code);
      console.log(
        `peak RSS ${r.peakMb.toFixed(0)} MB, report ${statSync(r.reports[0]!).size} bytes`,
      );
      expect(r.peakMb, r.out).toBeLessThan(MEMORY_BOUND_MB);
      expect(target.requests(), r.out).toBeGreaterThan(10);
      expect(target.sentPerResponse()[0]).toBeLessThan(SENT_BOUND_BYTES);
      expectSmallReports(r.reports);
    } finally {
      await target.close();
    }
  }, 150_000);
});
