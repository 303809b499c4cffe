// `payconform audit client` from the outside: run through the CLI's main() in-process (its output in memory), running
// a real client command (--exec, a process: the point) that signs with the library and calls through fetch; exit
// codes 0/1/2, reports, the command's timeout, secrets never printed.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { validateAgainst } from '../src/schemas/index.js';
import { loadTestKeys } from './fixtures/keys.js';
import { runMain, type CliRun } from './fixtures/cli.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const keys = loadTestKeys();
const SECRET = 'test-only-secret-cli-audit-7c2d';
const env: Record<string, string> = {
  PATH: process.env.PATH ?? '',
  NO_COLOR: '1',
  PAYCONFORM_APPLICATION_ID: '6f1c2a34-5b6d-4e7f-8a9b-0c1d2e3f4a5b',
  PAYCONFORM_APPLICATION_SECRET: SECRET,
  PAYCONFORM_KEY_ID: 'test-only-key-1',
  PAYCONFORM_PUBLIC_KEY: keys.clientEd25519.publicPem,
  // The client command signs with it; the audit masks it in anything it prints.
  PAYCONFORM_PRIVATE_KEY: keys.clientEd25519.seedBase64,
};
const dir = mkdtempSync(join(tmpdir(), 'payconform-audit-client-'));

// A TEST ONLY client: creates a payout (signed), then refunds the seeded payment under a made-up merchant id
// (PAYCONFORM_MERCHANT_ID is unset, so any is accepted). CLIENT_FAULT=charset adds "; charset=utf-8" after signing.
const clientScript = join(dir, 'client.mts');
writeFileSync(
  clientScript,
  `import { applySignedHeaders, parseEd25519PrivateKey, signRequest } from ${JSON.stringify(join(root, 'src/index.ts'))};
const e = process.env;
const base = e.PAYCONFORM_BASE_URL;
const credentials = { applicationId: e.PAYCONFORM_APPLICATION_ID, applicationSecret: e.PAYCONFORM_APPLICATION_SECRET, keyId: e.PAYCONFORM_KEY_ID, privateKey: parseEd25519PrivateKey(e.PAYCONFORM_PRIVATE_KEY) };
const body = JSON.stringify({ applicationId: e.PAYCONFORM_APPLICATION_ID, payInAccountSelector: e.PAYCONFORM_PAY_IN_ACCOUNT_SELECTOR, amount: 12.5, reference: 'CLI-1',
  destination: { destinationType: 'toAccount', accountType: 'SCAN', holderName: 'Jane Payee', accountNumber: '12345678', sortCode: '040004', iban: null } });
const request = { method: 'POST', url: base + '/api/payouts', headers: [['content-type', 'application/vnd.service.v1.0+json']], body: new TextEncoder().encode(body) };
const signed = applySignedHeaders(request, signRequest(request, credentials).headers);
const headers = Object.fromEntries(signed.headers.filter(([n]) => n !== 'content-length'));
if (e.CLIENT_FAULT === 'charset') headers['content-type'] += '; charset=utf-8';
const payout = await fetch(request.url, { method: 'POST', headers, body, signal: AbortSignal.timeout(5000) });
console.log('payout', payout.status);
const refund = await fetch(base + '/api/merchants/any-merchant/applications/' + e.PAYCONFORM_APPLICATION_ID + '/refunds', {
  method: 'POST', signal: AbortSignal.timeout(5000),
  headers: { 'content-type': 'application/vnd.service.v0.7+json', accept: 'application/vnd.service.v0.7+json', 'x-application-id': e.PAYCONFORM_APPLICATION_ID, 'x-application-secret': e.PAYCONFORM_APPLICATION_SECRET },
  body: JSON.stringify({ paymentId: e.PAYCONFORM_SETTLED_PAYMENT_ID, amount: '1.00' }) });
console.log('refund', refund.status, 'of', e.PAYCONFORM_SETTLED_PAYMENT_AMOUNT);
if (e.CLIENT_EXIT) process.exitCode = Number(e.CLIENT_EXIT); // a client that fails after its (correct) requests
`,
);
const clientCommand = `${JSON.stringify(process.execPath)} --import tsx ${JSON.stringify(clientScript)}`;

/** Runs `payconform ...` in-process, given up after 60 s. */
const payconform = (args: readonly string[], extraEnv: Record<string, string> = {}) =>
  runMain(args, { ...env, ...extraEnv });

const noSecrets = (r: CliRun): void => {
  for (const text of [r.stdout, r.stderr]) {
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(keys.clientEd25519.seedBase64);
  }
};

describe('payconform audit client (main() in-process)', () => {
  it('a correct client run with --exec: exit 0, realistic answers, JSON report, no secret printed', async () => {
    const report = join(dir, 'ok.json');
    const r = await payconform([
      'audit',
      'client',
      '--exec',
      clientCommand,
      '--timeout',
      '30',
      '--report',
      `json:${report}`,
    ]);
    expect(r.stderr).toContain('client| payout 201');
    expect(r.stderr).toMatch(/client\| refund 201 of \d+\.\d\d/);
    expect(r.stdout).toContain('verdict: PASS');
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const json = JSON.parse(readFileSync(report, 'utf8')) as {
      role: string;
      results: Array<{ id: string; outcome: string }>;
    };
    expect(
      validateAgainst('https://payconform.dev/schemas/conformance-report.schema.json', json),
    ).toEqual({ valid: true });
    expect(json.role).toBe('client');
    expect(json.results.find((x) => x.id === 'client-signature-verifies')?.outcome).toBe('pass');
    expect(readFileSync(report, 'utf8')).not.toContain(SECRET);
    noSecrets(r);
  });

  it('a client that changes Content-Type after signing: exit 1 and the diagnosis printed', async () => {
    const r = await payconform(['audit', 'client', '--exec', clientCommand, '--timeout', '30'], {
      CLIENT_FAULT: 'charset',
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('client-signature-verifies');
    expect(r.stdout).toContain('mistake: content-type-differs');
    expect(r.stdout).toContain('application/vnd.service.v1.0+json; charset=utf-8');
    noSecrets(r);
  });

  it('a client that exits 1 after correct requests fails the run (exit 1, a failing JUnit testcase) unless --ignore-client-exit', async () => {
    const junit = join(dir, 'exit.xml');
    const r = await payconform(
      [
        'audit',
        'client',
        '--exec',
        clientCommand,
        '--timeout-ms',
        '30000',
        '--report',
        `junit:${junit}`,
      ],
      { CLIENT_EXIT: '1' },
    );
    expect(r.stderr).toContain('client| payout 201');
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toContain('run failed: client command exited with code 1');
    expect(r.stdout).toMatch(
      /verdict: FAIL \(client command exited with code 1 after [\d.]+ s \(--ignore-client-exit accepts this\)\), exit 1/,
    );
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toMatch(/<testsuites [^>]*failures="1"/);
    expect(xml).toContain('<failure message="client command exited with code 1');
    const ignored = await payconform(
      ['audit', 'client', '--exec', clientCommand, '--timeout-ms', '30000', '--ignore-client-exit'],
      { CLIENT_EXIT: '1' },
    );
    expect(ignored.code, ignored.stdout + ignored.stderr).toBe(0);
    expect(ignored.stdout).toContain('verdict: PASS');
    noSecrets(r);
  });

  it('no request arrived: exit 1', async () => {
    const r = await payconform([
      'audit',
      'client',
      '--exec',
      `${JSON.stringify(process.execPath)} -e 0`,
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('no request arrived');
    expect(r.stdout).toContain('client command exited with code 0');
  });

  it('a client command that hangs is killed at --timeout', async () => {
    const started = Date.now();
    const r = await payconform([
      'audit',
      'client',
      '--exec',
      `${JSON.stringify(process.execPath)} -e "setTimeout(() => {}, 60000)"`,
      '--timeout',
      '1',
    ]);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('timed out after 1 s');
  });

  it('serves without --exec until --timeout-ms', async () => {
    const r = await payconform(['audit', 'client', '--timeout-ms', '1000']);
    expect(r.stdout).toContain('serving for 1000 ms');
    expect(r.code).toBe(1); // no request arrived
  });

  it('usage errors exit 2: missing credentials, a secret as an argument, bad flags, unknown --only id', async () => {
    const missing = await payconform(['audit', 'client', '--timeout', '1'], {
      PAYCONFORM_PUBLIC_KEY: '',
      PAYCONFORM_APPLICATION_SECRET: '',
    });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('PAYCONFORM_PUBLIC_KEY');
    expect(missing.stderr).toContain('PAYCONFORM_APPLICATION_SECRET');
    const secret = await payconform(['audit', 'client', `--secret=${SECRET}`]);
    expect(secret.code).toBe(2);
    noSecrets(secret);
    expect((await payconform(['audit', 'client', '--listen', 'nowhere'])).code).toBe(2);
    expect((await payconform(['audit', 'client', '--timeout', '0'])).code).toBe(2);
    expect((await payconform(['audit', 'client', '--only', 'no-such-check'])).code).toBe(2);
    const badKey = await payconform(['audit', 'client', '--timeout', '1'], {
      PAYCONFORM_PUBLIC_KEY: 'not a key',
    });
    expect(badKey.code).toBe(2);
  });
});
