// `payconform audit server` from the outside: the embedded audit exits 0 with a summary and writes the three report
// forms (JSON valid against its schema, JUnit and HTML naming every check); a target given by --target and --config
// with credentials from the environment is audited and no output carries the secret or the private key; an
// unreachable target exits 3, a bad config or a secret on the command line exits 2; a non-loopback target gets no
// mutating request without --allow-live; a hostile target gives per-check failures, never a crash or a hang.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditTarget, startEmbeddedTarget } from '../cli/commands/audit-server.js';
import { main } from '../cli/main.js';
import { serverChecks } from '../conformance/checks/server/index.js';
import { renderReport } from '../conformance/reporters/render.js';
import { exportEd25519SeedBase64 } from '../src/keys/index.js';
import { validateAgainst } from '../src/schemas/index.js';
import { startReferenceService, type RunningReferenceService } from '../server/index.js';
import { loadTestKeys } from './fixtures/keys.js';
import { unusedLoopbackPort } from './fixtures/ports.js';
import { memoryIo as createMemoryIo } from './fixtures/memory-io.js';
import { runMain } from './fixtures/cli.js';
import { auditConfigFor } from './fixtures/test-application-service.js';

const keys = loadTestKeys();
const ids = serverChecks.map((c) => c.id);

interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The CLI through main() in-process with a bounded wait; the environment holds only what the test gives (plus PATH). */
function cli(
  args: readonly string[],
  env: Record<string, string> = {},
  timeoutMs = 60_000,
): Promise<Ran> {
  return runMain(args, { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...env }, { timeoutMs });
}

const memoryIo = (env: Record<string, string | undefined> = {}) => createMemoryIo({ env });

let dir: string;
/** The two whole audits (below) are independent and partly wait: both start with the file, side by side. */
let embeddedAudit: Promise<Ran>;
let targetAudit: Promise<{ service: RunningReferenceService; ran: Ran }>;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'payconform-audit-'));
  embeddedAudit = cli([
    'audit',
    'server',
    '--no-explore',
    '--report',
    `json:${join(dir, 'report.json')}`,
    '--report',
    `junit:${join(dir, 'junit.xml')}`,
    '--report',
    `html:${join(dir, 'report.html')}`,
  ]);
  targetAudit = auditTargetFromEnvironment();
  // Its describe awaits it; until then a failure to start is not an unhandled rejection.
  targetAudit.catch(() => undefined);
});
afterAll(async () => {
  await Promise.all([
    embeddedAudit,
    targetAudit.then(({ service }) => service.close()).catch(() => undefined),
  ]);
  rmSync(dir, { recursive: true, force: true });
});

describe('npm start: payconform audit server against the embedded reference service', () => {
  let ran: Ran;
  beforeAll(async () => {
    ran = await embeddedAudit;
  }, 90_000);

  it('exits 0 with progress and a summary by area', () => {
    expect(ran.code, ran.stderr + ran.stdout.slice(-3000)).toBe(0);
    expect(ran.stdout).toContain(`${ids.length} passed, 0 failed`);
    expect(ran.stdout).toContain('Summary by area:');
    expect(ran.stdout).toContain('verdict: PASS');
    expect(ran.stdout).toMatch(/\[ ?1\/\d+\]/);
  });

  it('writes a JSON report that validates against schemas/conformance-report.schema.json', () => {
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as {
      results: Array<{ id: string; outcome: string }>;
      verdict: string;
    };
    expect(
      validateAgainst('https://payconform.dev/schemas/conformance-report.schema.json', report),
    ).toEqual({ valid: true });
    expect(report.verdict).toBe('pass');
    expect(report.results.map((r) => r.id).sort()).toEqual([...ids].sort());
  });

  it('writes JUnit and HTML reports naming every check', () => {
    const junit = readFileSync(join(dir, 'junit.xml'), 'utf8');
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    for (const id of ids) {
      expect(junit).toContain(id);
      expect(html).toContain(id);
    }
    // One per check; the MUST requirements no check covers each add a skipped one of their own.
    expect(junit.match(/<testcase classname="payconform\.(?!requirements)/g)?.length).toBe(
      ids.length,
    );
  });
});

describe('secrets never reach an output', () => {
  it('embedded audit: no report form and no event carries the generated secret or private key', async () => {
    const target = await startEmbeddedTarget({ webhookSigningKey: keys.webhookRsa.privatePem });
    const secret = target.context.credentials!.applicationSecret;
    const seed = exportEd25519SeedBase64(target.context.credentials!.privateKey);
    const events: string[] = [];
    try {
      const summary = await auditTarget(target, {
        only: [
          'payout-signed-accepted',
          'application-secret-wrong',
          'cop-commit',
          'refund-unsettled-rejected',
        ],
        subscribers: [(e) => events.push(JSON.stringify(e))],
      });
      expect(summary.counts.pass).toBe(4);
      const outputs = [
        ...events,
        renderReport('json', summary),
        renderReport('junit', summary),
        renderReport('html', summary),
      ];
      for (const text of outputs) {
        expect(text).not.toContain(secret);
        expect(text).not.toContain(seed);
      }
      // The secret header was recorded (masked), so the masking was exercised.
      expect(outputs[events.length]).toContain('[REDACTED]');
    } finally {
      await target.close();
    }
  }, 30_000);
});

const TARGET_SECRET = 'test-only-secret-7f3a9c1e5b2d4f60';

/** A reference service with the given application, audited by `audit server --target --config` (main()). */
async function auditTargetFromEnvironment(): Promise<{
  service: RunningReferenceService;
  ran: Ran;
}> {
  const secret = TARGET_SECRET;
  const applicationId = '3f1c2a4e-8b7d-4c6a-9e5f-1a2b3c4d5e6f';
  const merchantId = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
  const webhookPort = await unusedLoopbackPort();
  const service = await startReferenceService({
    applications: [
      {
        applicationId,
        applicationSecret: secret,
        keyId: 'test-only-key-1',
        publicKey: keys.clientEd25519.publicKey,
        merchantId,
      },
    ],
    webhookUrls: {
      payment: `http://127.0.0.1:${webhookPort}/payment`,
      payout: `http://127.0.0.1:${webhookPort}/payout`,
      refund: `http://127.0.0.1:${webhookPort}/refund`,
    },
    webhookSigningKey: keys.webhookRsa.privatePem,
    lifecycleDelayMs: 250,
    retry: { initialDelayMs: 40, maxDelayMs: 200, maxAttempts: 6, requestTimeoutMs: 2000 },
  });
  // The target is the reference service: it has payconform's /sandbox/ endpoints.
  const config = auditConfigFor(service, webhookPort, { merchantId, keyId: 'test-only-key-1' });
  writeFileSync(join(dir, 'target.json'), JSON.stringify(config));
  const ran = await cli(
    [
      'audit',
      'server',
      '--no-explore',
      '--target',
      service.baseUrl,
      '--config',
      join(dir, 'target.json'),
      '--report',
      `json:${join(dir, 'target-report.json')}`,
      '--report',
      `html:${join(dir, 'target-report.html')}`,
      '--report',
      `junit:${join(dir, 'target-junit.xml')}`,
    ],
    {
      PAYCONFORM_APPLICATION_ID: applicationId,
      PAYCONFORM_APPLICATION_SECRET: secret,
      PAYCONFORM_PRIVATE_KEY: keys.clientEd25519.privatePem,
    },
  );
  return { service, ran };
}

describe('--target with --config and credentials from the environment', () => {
  const secret = TARGET_SECRET;
  let service: RunningReferenceService;
  let ran: Ran;
  beforeAll(async () => {
    ({ service, ran } = await targetAudit);
  }, 120_000);

  it('audits the target and passes every check', () => {
    expect(ran.code, ran.stderr + ran.stdout.slice(-3000)).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, 'target-report.json'), 'utf8')) as {
      target: string;
      counts: Record<string, number>;
      results: Array<{ id: string; outcome: string; message: string }>;
    };
    expect(report.target).toBe(service.baseUrl);
    const notPassed = report.results
      .filter((r) => r.outcome !== 'pass')
      .map((r) => `${r.id}: ${r.outcome} (${r.message})`);
    expect(report.counts['pass'], notPassed.join('\n')).toBe(ids.length);
  });

  it('prints neither the application secret nor the private key anywhere', () => {
    const seed = keys.clientEd25519.seedBase64;
    const pemLines = keys.clientEd25519.privatePem
      .split('\n')
      .filter((l) => l !== '' && !l.startsWith('-----'));
    const outputs = [
      ran.stdout,
      ran.stderr,
      ...['target-report.json', 'target-report.html', 'target-junit.xml'].map((f) =>
        readFileSync(join(dir, f), 'utf8'),
      ),
    ];
    for (const text of outputs) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(seed);
      for (const line of pemLines) expect(text).not.toContain(line);
    }
  });
});

describe('exit codes', () => {
  it('3 for an unreachable target', async () => {
    const port = await unusedLoopbackPort();
    const ran = await cli([
      'audit',
      'server',
      '--no-explore',
      '--target',
      `http://127.0.0.1:${port}`,
      '--timeout-ms',
      '1000',
    ]);
    expect(ran.code).toBe(3);
    expect(ran.stderr).toContain('unreachable');
  }, 30_000);

  it('2 for a config that is not JSON, or that holds a secret', async () => {
    writeFileSync(join(dir, 'broken.json'), '{ "target": ');
    const io = memoryIo();
    expect(
      await main(['audit', 'server', '--no-explore', '--config', join(dir, 'broken.json')], io),
    ).toBe(2);
    expect(io.err.join('')).toMatch(/broken\.json": not JSON: /);
    writeFileSync(
      join(dir, 'secret.json'),
      JSON.stringify({ applicationSecret: 'do-not-put-me-here' }),
    );
    const io2 = memoryIo();
    expect(
      await main(['audit', 'server', '--no-explore', '--config', join(dir, 'secret.json')], io2),
    ).toBe(2);
    expect(io2.err.join('')).toContain('environment');
    expect(io2.err.join('')).not.toContain('do-not-put-me-here');
  });

  it('2 for a secret given as an argument, without echoing it', async () => {
    for (const args of [
      ['--application-secret', 'hunter2-secret'],
      ['--private-key=hunter2-secret'],
      ['--secret', 'hunter2-secret'],
    ]) {
      const io = memoryIo();
      expect(await main(['audit', 'server', '--no-explore', ...args], io)).toBe(2);
      expect(io.err.join('')).toContain('PAYCONFORM_APPLICATION_SECRET');
      expect(io.err.join('') + io.out.join('')).not.toContain('hunter2-secret');
    }
  });

  it('2 for usage errors: unknown check id, bad level, bad report spec, bad target', async () => {
    for (const args of [
      ['--only', 'no-such-check'],
      ['--level', 'sometimes'],
      ['--report', 'pdf:x.pdf'],
      ['--target', 'ftp://127.0.0.1/'],
      ['--timeout-ms', '0'],
    ]) {
      const io = memoryIo();
      expect(await main(['audit', 'server', '--no-explore', ...args], io), args.join(' ')).toBe(2);
    }
  });

  it('--report json:- writes only the JSON report to stdout (progress goes to stderr)', async () => {
    const io = memoryIo();
    expect(
      await main(
        ['audit', 'server', '--no-explore', '--only', 'public-key-form', '--report', 'json:-'],
        io,
      ),
    ).toBe(0);
    const report = JSON.parse(io.out.join('')) as { results: Array<{ id: string }> };
    expect(report.results.map((r) => r.id)).toEqual(['public-key-form']);
    expect(io.err.join('')).toContain('1 passed, 0 failed');
  }, 30_000);

  it('0 for a selection of checks run in-process', async () => {
    const io = memoryIo();
    expect(
      await main(
        ['audit', 'server', '--no-explore', '--only', 'public-key-form,payout-signed-accepted'],
        io,
      ),
    ).toBe(0);
    expect(io.out.join('')).toContain('2 passed, 0 failed');
    expect(io.out.join('')).toContain('partial run');
  }, 30_000);
});

describe('live-money safety', () => {
  it('a non-loopback target gets no mutating request without --allow-live, and says why', async () => {
    const service = await startReferenceService({ webhookSigningKey: keys.webhookRsa.privatePem });
    try {
      // 0.0.0.0 reaches this loopback service, but is not a loopback address: the runner must treat it as live.
      const target = `http://0.0.0.0:${service.port}`;
      const io = memoryIo({
        PAYCONFORM_APPLICATION_ID: service.credentials.applicationId,
        PAYCONFORM_KEY_ID: service.credentials.keyId,
        PAYCONFORM_APPLICATION_SECRET: service.credentials.applicationSecret,
        PAYCONFORM_PRIVATE_KEY: exportEd25519SeedBase64(service.credentials.privateKey!),
      });
      const live = {
        merchantId: service.credentials.merchantId,
        payInAccountSelector: service.credentials.payInAccountSelector,
        copDestinations: service.copDestinations,
        payments: service.seededPayments,
        webhookListen: `127.0.0.1:${await unusedLoopbackPort()}`,
        timeoutMs: 5000,
      };
      writeFileSync(join(dir, 'live.json'), JSON.stringify(live));
      const code = await main(
        [
          'audit',
          'server',
          '--no-explore',
          '--target',
          target,
          '--config',
          join(dir, 'live.json'),
          '--report',
          `json:${join(dir, 'live.json.out')}`,
        ],
        io,
      );
      // Nothing failed, but the mutating checks were skipped: INCOMPLETE (exit 4), never a plain pass.
      expect(code).toBe(4);
      expect(io.out.join('')).toMatch(/verdict: INCOMPLETE/);
      expect(io.out.join('')).toContain('--allow-live');
      const report = JSON.parse(readFileSync(join(dir, 'live.json.out'), 'utf8')) as {
        results: Array<{ id: string; outcome: string; message: string }>;
      };
      const mutating = new Set<string>(serverChecks.filter((c) => c.mutating).map((c) => c.id));
      for (const r of report.results) {
        if (mutating.has(r.id)) {
          expect(r.outcome, r.id).toBe('skip');
          expect(r.message).toContain('--allow-live');
        }
      }
      expect(report.results.find((r) => r.id === 'public-key-form')?.outcome).toBe('pass');
      // Nothing was created on the target.
      expect(service.deliveries().length).toBe(0);
    } finally {
      await service.close();
    }
  }, 30_000);
});

describe("payment checks need payconform's /sandbox/ endpoints", () => {
  it('with "sandbox": false in the config (no discovery) the ones that need it are not applicable, with the reason; the refund destination without a payer is skipped', async () => {
    const service = await startReferenceService({ webhookSigningKey: keys.webhookRsa.privatePem });
    try {
      const c = service.credentials;
      const config = {
        merchantId: c.merchantId,
        payments: service.seededPayments,
        webhookListen: `127.0.0.1:${await unusedLoopbackPort()}`,
        timeoutMs: 5000,
        sandbox: false,
      };
      writeFileSync(join(dir, 'no-sandbox.json'), JSON.stringify(config));
      const io = memoryIo({
        PAYCONFORM_APPLICATION_ID: c.applicationId,
        PAYCONFORM_APPLICATION_SECRET: c.applicationSecret,
      });
      const only = [
        'webhook-payment-status-changes',
        'refund-to-original-account',
        'payment-reference-assigned',
      ];
      const code = await main(
        [
          'audit',
          'server',
          '--no-explore',
          '--target',
          service.baseUrl,
          '--config',
          join(dir, 'no-sandbox.json'),
          '--only',
          only.join(','),
          '--report',
          'json:-',
        ],
        io,
      );
      // None of the selected checks ran (two not applicable, one skipped): INCOMPLETE, never a pass by omission.
      expect(code).toBe(4);
      const report = JSON.parse(io.out.join('')) as {
        results: Array<{ id: string; outcome: string; message: string }>;
        notApplicable: Array<{ id: string; reason: string }>;
        verdictReasons: string[];
      };
      expect(report.verdictReasons.join('\n')).toMatch(/no selected check ran/);
      expect(report.results.map((r) => r.id).sort()).toEqual([...only].sort());
      for (const r of report.results) {
        expect(r.outcome, r.id).toBe(r.id === 'refund-to-original-account' ? 'skip' : 'n/a');
        expect(r.message, r.id).toContain('the spec shows no API to create or move payments');
      }
      expect(report.notApplicable.map((n) => n.id).sort()).toEqual([
        'payment-reference-assigned',
        'webhook-payment-status-changes',
      ]);
      for (const n of report.notApplicable) expect(n.reason).toContain('"sandbox": false');
      // Nothing was created on the target (no payment, no refund).
      expect(service.deliveries().length).toBe(0);
    } finally {
      await service.close();
    }
  }, 30_000);
});

describe('a hostile target', () => {
  it('answers garbage, redirects and hangs: per-check failures within the timeouts, never a crash', async () => {
    // Each request's body is read before the answer, so the client never meets a reset it did not ask for (an
    // answer sent while the client still writes can reset the connection: no answer, which is inconclusive).
    const hostile = http.createServer((req, res) => {
      req.resume();
      req.once('end', () => answerHostile(req, res));
    });
    const answerHostile = (req: http.IncomingMessage, res: http.ServerResponse): void => {
      if (req.url?.startsWith('/.well-known'))
        return void res.end(Buffer.alloc(2 * 1024 * 1024, 0x41)); // huge, not a key
      if (req.url?.includes('/commit'))
        return void res.writeHead(302, { location: 'http://127.0.0.1:9/' }).end();
      if (req.url?.includes('/cancel')) return void req.socket.destroy(); // reset
      if (req.url?.includes('/refunds')) return; // never answers
      res.writeHead(200, { 'content-type': 'application/json' }).end('<html>not json');
    };
    await new Promise<void>((r) => hostile.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}`;
    try {
      const seeded = await startReferenceService({ webhookSigningKey: keys.webhookRsa.privatePem });
      const config = {
        applicationId: seeded.credentials.applicationId,
        keyId: seeded.credentials.keyId,
        merchantId: seeded.credentials.merchantId,
        payInAccountSelector: 'main',
        copDestinations: seeded.copDestinations,
        payments: seeded.seededPayments,
        // Long enough that a loaded machine still gets the hostile answers in time; the endpoints that never answer
        // cost this much per request.
        timeoutMs: 1000,
      };
      await seeded.close();
      writeFileSync(join(dir, 'hostile.json'), JSON.stringify(config));
      const io = memoryIo({
        PAYCONFORM_APPLICATION_SECRET: 'test-only-hostile',
        PAYCONFORM_PRIVATE_KEY: keys.clientEd25519.seedBase64,
      });
      const started = Date.now();
      const code = await main(
        [
          'audit',
          'server',
          '--no-explore',
          '--target',
          url,
          '--config',
          join(dir, 'hostile.json'),
          '--report',
          `json:${join(dir, 'hostile-report.json')}`,
        ],
        io,
      );
      expect(code).toBe(1);
      expect(Date.now() - started).toBeLessThan(25_000);
      const report = JSON.parse(readFileSync(join(dir, 'hostile-report.json'), 'utf8')) as {
        counts: Record<string, number>;
        results: Array<{ id: string; outcome: string; message: string }>;
      };
      // The endpoints that never answer or reset leave their checks inconclusive (error), never failed
      // (docs/verdicts.md, "No answer is not a failure"); every other check reaches a verdict.
      const errored = report.results.filter((r) => r.outcome === 'error');
      // The refund endpoint never answers: its checks are errors, whatever the load (others may join them when a
      // loaded machine misses the 1000 ms, for the same reason).
      const refundChecks = report.results.filter((r) => /^refund-(partial|full)/.test(r.id));
      expect(refundChecks.length).toBeGreaterThan(0);
      for (const r of refundChecks) expect(r.outcome, r.id).not.toBe('fail');
      for (const r of errored)
        expect(r.message, r.id).toMatch(/no HTTP response|no complete answer|no response/);
      expect(report.results.find((r) => r.id === 'public-key-form')?.outcome).toBe('fail');
      expect(report.results.find((r) => r.id === 'payout-signed-accepted')?.outcome).toBe('fail');
      expect(report.results.find((r) => r.id === 'signature-headers-missing')?.outcome).toBe(
        'fail',
      );
    } finally {
      hostile.closeAllConnections();
      await new Promise<void>((r) => hostile.close(() => r()));
    }
  }, 40_000);
});
