// `payconform diff` across targets: two real runs, in-process, of reference services listening on
// different ports (as the base branch's and the pull request's servers do in CI), the second with a fault that breaks
// partial refunds: the diff compares them check by check and requirement by requirement, names the two targets in its
// header, and exits 1 on the regression. Runs of different roles stay inconclusive; 100 000 results diff in linear
// time (before: matched quadratically, 29 s).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../cli/main.js';
import { diffReports, type ReportDiff } from '../conformance/report/diff.js';
import { exportEd25519SeedBase64 } from '../src/keys/index.js';
import { startReferenceService } from '../server/index.js';
import type { FaultName } from '../server/faults.js';
import { loadTestKeys } from './fixtures/keys.js';
import { memoryIo } from './fixtures/memory-io.js';
import { unusedLoopbackPort } from './fixtures/ports.js';
import { syntheticReport } from './fixtures/synthetic-report.js';

const keys = loadTestKeys();
const dir = mkdtempSync(join(tmpdir(), 'payconform-diff-ports-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ONLY = 'payout-signed-accepted,refund-partial-accepted';

/** Audits an in-process reference service with `faults` (its own free port) and returns its JSON report's path. */
async function reportOf(name: string, faults: readonly FaultName[]): Promise<string> {
  const service = await startReferenceService({
    webhookSigningKey: keys.webhookRsa.privatePem,
    faults,
  });
  try {
    const c = service.credentials;
    const config = join(dir, `${name}.config.json`);
    writeFileSync(
      config,
      JSON.stringify({
        merchantId: c.merchantId,
        payInAccountSelector: c.payInAccountSelector,
        copDestinations: service.copDestinations,
        payments: service.seededPayments,
        webhookListen: `127.0.0.1:${await unusedLoopbackPort()}`,
        timeoutMs: 5000,
      }),
    );
    const io = memoryIo({
      env: {
        PAYCONFORM_APPLICATION_ID: c.applicationId,
        PAYCONFORM_KEY_ID: c.keyId,
        PAYCONFORM_APPLICATION_SECRET: c.applicationSecret,
        PAYCONFORM_PRIVATE_KEY: exportEd25519SeedBase64(c.privateKey!),
      },
    });
    const report = join(dir, `${name}.json`);
    const args = ['audit', 'server', '--no-explore', '--target', service.baseUrl];
    const code = await main(
      [...args, '--config', config, '--only', ONLY, '--report', `json:${report}`],
      io,
    );
    expect([0, 1], io.out.join('') + io.err.join('')).toContain(code);
    return report;
  } finally {
    await service.close();
  }
}

let before: string;
let after: string;

beforeAll(async () => {
  before = await reportOf('before', []);
  after = await reportOf('after', ['refund-partial-rejected']);
}, 120_000);

async function diff(args: readonly string[]) {
  const io = memoryIo();
  const code = await main(['diff', ...args], io);
  return { code, out: io.out.join(''), err: io.err.join('') };
}

describe('payconform diff across ports', () => {
  it('two real runs on different ports: the regression found, the targets named, exit 1', async () => {
    const r = await diff([before, after]);
    expect(r.code, r.out + r.err).toBe(1);
    const ports = [...r.out.matchAll(/127\.0\.0\.1:(\d+)/g)].map((m) => m[1]);
    expect(new Set(ports).size).toBe(2);
    expect(r.out).toMatch(
      /runs differ: target: http:\/\/127\.0\.0\.1:\d+ → http:\/\/127\.0\.0\.1:\d+/,
    );
    expect(r.out).toMatch(/REGRESSED:\n {2}check refund-partial-accepted: passed → failed\n/);
    expect(r.out).toMatch(/ {2}requirement REFUND-PARTIAL-ALLOWED: passed → failed/);
    expect(r.out).not.toContain('INCONCLUSIVE');
    const json = await diff([before, after, '--format', 'json']);
    const d = JSON.parse(json.out) as ReportDiff;
    expect(d.checks.find((x) => x.id === 'payout-signed-accepted')?.change).toBe('unchanged');
  }, 30_000);
});

describe('diffReports', () => {
  it('runs of different roles stay inconclusive (different audits), named', () => {
    const d = diffReports(syntheticReport(1, 'pass'), syntheticReport(1, 'fail', 'client'));
    expect(d.regressed).toBe(false);
    expect(d.checks[0]).toMatchObject({
      change: 'inconclusive',
      note: 'the runs differ (role: server → client)',
    });
  });

  it('a flaky check (failed once, not again) is not decided: inconclusive, never fixed', () => {
    const flaky = syntheticReport(1, 'pass');
    const after = {
      ...flaky,
      results: flaky.results.map((r) => ({ ...r, outcome: 'warn' as const, flaky: true as const })),
    };
    const d = diffReports(syntheticReport(1, 'fail'), after);
    expect(d.checks[0]).toMatchObject({
      before: 'failed',
      after: 'inconclusive',
      change: 'inconclusive',
    });
    expect(d.regressed).toBe(false);
  });

  it('is linear in the number of results: 100 000 results compared at once', () => {
    // Sized to separate linear from quadratic: 10^5 lookups take milliseconds; 10^10 comparisons take minutes.
    const started = Date.now();
    const d = diffReports(syntheticReport(100_000, 'pass'), syntheticReport(100_000, 'fail'));
    expect(d.counts.regressed).toBe(100_000);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
