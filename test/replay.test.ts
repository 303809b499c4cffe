// `payconform replay REPORT.json` from the outside (main(), in-process): a report of a reference service with a fixed
// check's fault (no-nonce-length-check: nonce-too-long fails) and an explorer-only fault (webhook-other-application:
// the explorer fails, its shrunk sequence named by a token) replays against the same faulty service as STILL FAILING
// (exit 1), and against a clean service on another port as FIXED (exit 0), both ways for both kinds of failure. A
// report of the embedded service replays against a fresh one; a receiver's failures are each NOT REPLAYABLE (exit 1,
// nothing started); an unreachable target is exit 3; REPORT.json is never an output; secrets are never arguments.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../cli/main.js';
import { EMBEDDED_TIMERS } from '../cli/commands/audit-server.js';
import { startReferenceService, type RunningReferenceService } from '../server/index.js';
import type { FaultName } from '../server/faults.js';
import type { JsonReport } from '../conformance/reporters/json.js';
import { loadTestKeys } from './fixtures/keys.js';
import { memoryIo } from './fixtures/memory-io.js';
import { unusedLoopbackPort } from './fixtures/ports.js';

const keys = loadTestKeys();
const dir = mkdtempSync(join(tmpdir(), 'payconform-replay-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** One application for every service here, so one config and one environment serve them all. */
const APP = {
  applicationId: '5b0c7e1a-2d3f-4a5b-9c6d-7e8f9a0b1c2d',
  applicationSecret: 'Zq7XvR2mK9pL4tW8nB3cYh6D',
  keyId: 'replay-test-key-1',
  merchantId: '0d1e2f3a-4b5c-4d6e-8f7a-9b0c1d2e3f4a',
};
const ENV = {
  PAYCONFORM_APPLICATION_ID: APP.applicationId,
  PAYCONFORM_KEY_ID: APP.keyId,
  PAYCONFORM_APPLICATION_SECRET: APP.applicationSecret,
  PAYCONFORM_PRIVATE_KEY: keys.clientEd25519.seedBase64,
};
const FAULTS: readonly FaultName[] = ['no-nonce-length-check', 'webhook-other-application'];
/** The explorer's seed: finds webhook-other-application in its first sequences (seeds 1 to 5 all do). */
const SEED = '1';

let webhookPort: number;
let config: string;
let faulty: RunningReferenceService;
let clean: RunningReferenceService;
let reportPath: string;

/** A reference service with the test application, its webhooks to the audit's listener, the embedded timers. */
function service(faults: readonly FaultName[]): Promise<RunningReferenceService> {
  const url = (kind: string): string => `http://127.0.0.1:${webhookPort}/${kind}`;
  return startReferenceService({
    applications: [{ ...APP, publicKey: keys.clientEd25519.publicKey }],
    webhookUrls: { payment: url('payment'), payout: url('payout'), refund: url('refund') },
    webhookSigningKey: keys.webhookRsa.privatePem,
    faults,
    ...EMBEDDED_TIMERS,
  });
}

async function payconform(args: readonly string[], env: Record<string, string> = ENV) {
  const io = memoryIo({ env });
  const code = await main(args, io);
  return { code, out: io.out.join(''), err: io.err.join('') };
}

beforeAll(async () => {
  webhookPort = await unusedLoopbackPort();
  [faulty, clean] = await Promise.all([service(FAULTS), service([])]);
  config = join(dir, 'audit.json');
  writeFileSync(
    config,
    JSON.stringify({
      merchantId: APP.merchantId,
      payInAccountSelector: faulty.credentials.payInAccountSelector,
      copDestinations: faulty.copDestinations,
      webhookListen: `127.0.0.1:${webhookPort}`,
      timeoutMs: 5000,
    }),
  );
  reportPath = join(dir, 'report.json');
  const audit = await payconform([
    'audit',
    'server',
    '--target',
    faulty.baseUrl,
    '--config',
    config,
    '--only',
    'nonce-too-long,explore-model',
    '--explore-seed',
    SEED,
    '--report',
    `json:${reportPath}`,
  ]);
  expect(audit.code, audit.out + audit.err).toBe(1);
}, 120_000);
afterAll(async () => {
  await Promise.all([faulty?.close(), clean?.close()]);
});

const report = (): JsonReport => JSON.parse(readFileSync(reportPath, 'utf8')) as JsonReport;

describe('payconform replay REPORT.json', () => {
  it('the audit failed on the fixed check and on the explorer, the explorer with its replay token', () => {
    const results = report().results;
    expect(results.map((r) => [r.id, r.outcome])).toEqual([
      ['nonce-too-long', 'fail'],
      ['explore-model', 'fail'],
    ]);
    const explorer = results.find((r) => r.id === 'explore-model')!;
    expect(explorer.findings.some((f) => f.evidence?.reproduce?.includes('--explore-replay'))).toBe(
      true,
    );
  });

  it("against the report's target, still faulty: both STILL FAILING, exit 1, with the audit's evidence", async () => {
    const replayed = join(dir, 'replayed-faulty.json');
    const r = await payconform([
      'replay',
      reportPath,
      '--config',
      config,
      '--report',
      `json:${replayed}`,
    ]);
    expect(r.code, r.out + r.err).toBe(1);
    expect(r.out).toMatch(/replay: 0 of 2 failure\(s\) FIXED/);
    expect(r.out).toMatch(/STILL FAILING {2}nonce-too-long: LIMIT-NONCE/);
    expect(r.out).toMatch(/STILL FAILING {2}explore-model: WEBHOOK-PAYOUT-PAYLOAD/);
    const json = JSON.parse(readFileSync(replayed, 'utf8')) as JsonReport;
    expect(json).toMatchObject({ verdict: 'fail', exitCode: 1, target: faulty.baseUrl });
    expect(json.verdictReasons.filter((v) => v.startsWith('replay: '))).toHaveLength(2);
    // The same evidence as an audit: the failing exchange, as sent and received.
    const again = json.results.find((x) => x.id === 'nonce-too-long')!;
    expect(again.findings.some((f) => f.evidence?.request !== undefined)).toBe(true);
  }, 90_000);

  it('against a clean service (--target): both FIXED, exit 0', async () => {
    const r = await payconform([
      'replay',
      reportPath,
      '--target',
      clean.baseUrl,
      '--config',
      config,
      '--report',
      `json:${join(dir, 'replayed-clean.json')}`,
    ]);
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.out).toMatch(/replay: 2 of 2 failure\(s\) FIXED/);
    expect(r.out).toMatch(/FIXED {2}nonce-too-long/);
    expect(r.out).toMatch(/FIXED {2}explore-model/);
  }, 90_000);

  it('a report of the embedded service replays against a fresh embedded service, and says so', async () => {
    const embedded = join(dir, 'embedded.json');
    const doc = report();
    writeFileSync(
      embedded,
      JSON.stringify({
        ...doc,
        target: 'http://127.0.0.1:9 (embedded reference service)',
        results: doc.results.filter((x) => x.id === 'nonce-too-long'),
      }),
    );
    const r = await payconform(['replay', embedded], {});
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.out).toContain('replaying against a fresh embedded service');
    expect(r.out).toMatch(/FIXED {2}nonce-too-long/);
  }, 60_000);

  it("a receiver's failures: each NOT REPLAYABLE with the reason, exit 1, nothing started", async () => {
    const receiver = join(dir, 'receiver.json');
    writeFileSync(receiver, JSON.stringify({ ...report(), role: 'receiver' }));
    const r = await payconform(['replay', receiver, '--report', `json:${join(dir, 'r.json')}`]);
    expect(r.code, r.out + r.err).toBe(1);
    expect(r.out).toMatch(/NOT REPLAYABLE {2}nonce-too-long: not replayable yet/);
    expect(r.out).toMatch(/NOT REPLAYABLE {2}explore-model/);
    expect(r.out).not.toContain('auditing server');
  });

  it('an unreachable target is exit 3; REPORT.json as an output, a missing REPORT, a secret argument: exit 2', async () => {
    const port = await unusedLoopbackPort();
    const gone = await payconform([
      'replay',
      reportPath,
      '--target',
      `http://127.0.0.1:${port}`,
      '--config',
      config,
    ]);
    expect(gone.code, gone.out + gone.err).toBe(3);
    const before = readFileSync(reportPath, 'utf8');
    const clash = await payconform(['replay', reportPath, '--report', `json:${reportPath}`]);
    expect(clash.code).toBe(2);
    expect(clash.err).toContain(reportPath);
    expect(readFileSync(reportPath, 'utf8')).toBe(before);
    expect((await payconform(['replay'])).code).toBe(2);
    expect((await payconform(['replay', join(dir, 'none.json')])).code).toBe(2);
    const secret = await payconform(['replay', reportPath, '--application-secret=x']);
    expect(secret.code).toBe(2);
    expect(secret.err).toContain('environment');
  });
});
