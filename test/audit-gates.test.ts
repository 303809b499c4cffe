// The audits' verdicts as a CI user meets them, run through the command line: never a pass by omission (INCOMPLETE,
// exit 4), --allow-skips, --fail-on warn|skip, the default payee, discovery from /sandbox/, `serve
// --write-audit-config`, and a re-run command that still reproduces a failure after the 300 s signature window.
import { FAIL_ON } from '../conformance/run/result.js';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../cli/main.js';
import { auditConfigFor } from '../cli/commands/serve.js';
import { exportEd25519SeedBase64 } from '../src/keys/index.js';
import {
  startReferenceService,
  type FaultName,
  type RunningReferenceService,
} from '../server/index.js';
import { memoryIo } from './fixtures/memory-io.js';
import { unusedLoopbackPort } from './fixtures/ports.js';
import { startMain } from './fixtures/cli.js';

// The drawn forgeries are not what these audits test: every form's edge is still sent, the drawing after it is short.
vi.mock('../conformance/checks/server/forgery-settings.js', async (original) =>
  (await import('./fixtures/light-forgeries.js')).lightForgeryModule(await original()),
);

const dir = mkdtempSync(join(tmpdir(), 'payconform-audit-gates-'));

interface Run {
  readonly code: number | null;
  readonly out: string;
  readonly err: string;
}

/** The credentials a user exports after starting a service (secrets in the environment only). */
function envFor(s: RunningReferenceService): Record<string, string> {
  const c = s.credentials;
  return {
    NO_COLOR: '1',
    PAYCONFORM_APPLICATION_ID: c.applicationId,
    PAYCONFORM_KEY_ID: c.keyId,
    PAYCONFORM_APPLICATION_SECRET: c.applicationSecret,
    PAYCONFORM_PRIVATE_KEY: exportEd25519SeedBase64(c.privateKey!),
  };
}

/** `payconform ARGS` in-process, as the binary runs it. */
async function payconform(args: readonly string[], env: Record<string, string>): Promise<Run> {
  const io = memoryIo({ env });
  const code = await main(args, io);
  return { code, out: io.out.join(''), err: io.err.join('') };
}

/** `payconform ARGS` in-process until it ends or `stop()` (Ctrl-C for `serve`), given up after 90 s. */
function startedInProcess(
  args: readonly string[],
  onStdout?: (text: string) => void,
): { done: Promise<Run>; stop: () => void } {
  const run = startMain(
    args,
    { NO_COLOR: '1' },
    { timeoutMs: 90_000, ...(onStdout ? { onStdout } : {}) },
  );
  return {
    done: run.done.then(({ code, stdout, stderr }) => ({ code, out: stdout, err: stderr })),
    stop: run.stop,
  };
}

function writeJson(name: string, value: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(value));
  return path;
}

const services: RunningReferenceService[] = [];
async function service(
  faults: FaultName[] = [],
  options: Parameters<typeof startReferenceService>[0] = {},
): Promise<RunningReferenceService> {
  const s = await startReferenceService({ faults, lifecycleDelayMs: 250, ...options });
  services.push(s);
  return s;
}
afterAll(async () => {
  await Promise.all(services.map((s) => s.close()));
});

describe('never a pass by omission: a config without copDestinations or payments', () => {
  let clean: RunningReferenceService;
  let config: string;
  beforeAll(async () => {
    clean = await service();
    // What a new user writes first: the target and the pay-in account; no CoP destinations, no payments, no /sandbox/.
    config = writeJson('thin.json', {
      target: clean.baseUrl,
      payInAccountSelector: clean.credentials.payInAccountSelector,
      sandbox: false,
    });
  });

  it('a clean service: INCOMPLETE, exit 4, each skip naming only what is missing; the signing checks run (default payee)', async () => {
    const r = await payconform(
      ['audit', 'server', '--no-explore', '--config', config],
      envFor(clean),
    );
    expect(r.code, r.out + r.err).toBe(4);
    expect(r.out).toMatch(
      /verdict: INCOMPLETE \(\d+ selected check\(s\) skipped .*--allow-skips.*\), exit 4/,
    );
    expect(r.out).toMatch(/PASS {2}content-digest-mismatch/);
    expect(r.out).toMatch(/PASS {2}payout-signed-accepted/);
    expect(r.out).not.toMatch(/SKIP .*copDestinations\.FULL_MATCH/); // the signing checks need no destination any more
    for (const line of r.out.split('\n').filter((l) => /^\[\s*\d+\/\d+\] SKIP/.test(l))) {
      // "not run: X is not set" names only what is missing: never a credential that is set.
      expect(line).not.toMatch(
        /PAYCONFORM_APPLICATION_SECRET|PAYCONFORM_PRIVATE_KEY|"applicationId"|"keyId"|payInAccountSelector/,
      );
    }
    expect(r.out).toContain('not run: "webhookListen" in the config is not set');
  });

  it('--allow-skips accepts the skips (exit 0), --fail-on skip fails them (exit 1), an explicit --only accepts them', async () => {
    expect(
      (
        await payconform(
          ['audit', 'server', '--no-explore', '--config', config, '--allow-skips'],
          envFor(clean),
        )
      ).code,
    ).toBe(0);
    const failOnSkip = await payconform(
      ['audit', 'server', '--no-explore', '--config', config, '--fail-on', 'skip'],
      envFor(clean),
    );
    expect(failOnSkip.code).toBe(1);
    expect(failOnSkip.out).toMatch(
      /verdict: FAIL \(\d+ skipped check\(s\) under --fail-on skip\), exit 1/,
    );
    const only = await payconform(
      [
        'audit',
        'server',
        '--no-explore',
        '--config',
        config,
        '--only',
        'payout-signed-accepted,webhook-redelivered',
      ],
      envFor(clean),
    );
    expect(only.out).toMatch(/SKIP {2}webhook-redelivered/);
    expect(only.code).toBe(0);
  });

  it('a faulty service with the same thin config: FAIL, exit 1 (the signing checks catch the fault)', async () => {
    const faulty = await service(['no-digest-check']);
    const thin = writeJson('thin-faulty.json', {
      target: faulty.baseUrl,
      payInAccountSelector: faulty.credentials.payInAccountSelector,
      sandbox: false,
    });
    const r = await payconform(
      ['audit', 'server', '--no-explore', '--config', thin],
      envFor(faulty),
    );
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/FAIL {2}content-digest-mismatch/);
  });

  it('a bad --fail-on value is a usage error (exit 2)', async () => {
    const r = await payconform(
      ['audit', 'server', '--no-explore', '--config', config, '--fail-on', 'pass'],
      envFor(clean),
    );
    expect(r.code).toBe(2);
    // The values listed are FAIL_ON's, the one list.
    expect(r.err).toContain(
      `--fail-on must be ${FAIL_ON.slice(0, -1).join(', ')} or ${FAIL_ON.at(-1)} (got "pass")`,
    );
  });
});

// Three services of their own, on free ports, and audits that mostly wait on their lifecycles: side by side.
describe.concurrent('discovery from /sandbox/ and serve --write-audit-config', () => {
  it('a config with only the target and webhookListen: the rest is discovered and the whole audit runs (exit 0, nothing skipped)', async () => {
    const port = await unusedLoopbackPort();
    const s = await service([], {
      webhookUrls: {
        payment: `http://127.0.0.1:${port}/p`,
        payout: `http://127.0.0.1:${port}/o`,
        refund: `http://127.0.0.1:${port}/r`,
      },
      retry: { initialDelayMs: 40, maxDelayMs: 200, maxAttempts: 6, requestTimeoutMs: 2_000 },
    });
    const config = writeJson('discover.json', {
      target: s.baseUrl,
      webhookListen: `127.0.0.1:${port}`,
      timeoutMs: 5000,
    });
    const r = await payconform(['audit', 'server', '--no-explore', '--config', config], envFor(s));
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(
      /discovered from http:\/\/127\.0\.0\.1:\d+\/sandbox\/ \(not in the config\): copDestinations [A-Z_, a-z]+; payInAccountSelector "VA-[0-9A-F]+"; merchantId [0-9a-f-]+; 6 settled payment\(s\); 3 unsettled payment\(s\); "sandbox": true/,
    );
    expect(r.out).toMatch(/\d+ passed, 0 failed, \d+ warnings, 0 skipped/);
    expect(r.code, r.out).toBe(0);
  });

  it('"sandbox": false turns discovery off', async () => {
    const s = await service();
    const config = writeJson('no-discover.json', { target: s.baseUrl, sandbox: false });
    const r = await payconform(
      ['audit', 'server', '--no-explore', '--config', config, '--only', 'payout-signed-accepted'],
      envFor(s),
    );
    expect(r.out).not.toContain('discovered from');
    expect(r.out).toContain('not run: "payInAccountSelector" in the config is not set');
  });

  it('payconform serve --write-audit-config FILE writes a config that audits the service as it runs (exit 0, no secret in the file)', async () => {
    const [port, hooks] = await Promise.all([unusedLoopbackPort(), unusedLoopbackPort()]);
    const file = join(dir, 'written.json');
    const credentials = join(dir, 'dev.env');
    let banner = '';
    let ready!: () => void;
    const started = new Promise<void>((r) => (ready = r));
    const serve = startedInProcess(
      [
        'serve',
        '--port',
        String(port),
        '--webhook-url',
        `http://127.0.0.1:${hooks}/hooks`,
        '--lifecycle-ms',
        '250',
        '--write-audit-config',
        file,
        '--credentials-out',
        credentials,
        '--no-portal',
      ],
      (out) => {
        banner = out;
        if (out.includes('Ctrl-C stops.')) ready();
      },
    );
    try {
      await started;
      const text = readFileSync(file, 'utf8');
      const written = JSON.parse(text) as Record<string, unknown>;
      expect(written).toMatchObject({
        target: `http://127.0.0.1:${port}`,
        sandbox: true,
        webhookListen: `127.0.0.1:${hooks}`,
      });
      expect(Object.keys(written['copDestinations'] as object).sort()).toEqual([
        'FULL_MATCH',
        'NOT_CHECKED',
        'NO_MATCH',
        'PARTIAL_MATCH',
        'UNABLE_TO_MATCH',
        'UNKNOWN',
        'null',
      ]);
      expect(text).not.toMatch(/secret|privateKey|PRIVATE/i);
      // The user loads the development credentials the service wrote (mode 0600, never to its output) into the
      // environment (secrets in the environment only).
      expect(statSync(credentials).mode & 0o777).toBe(0o600);
      const written_ = readFileSync(credentials, 'utf8');
      const printed = (name: string): string =>
        new RegExp(`^export ${name}=(\\S+)$`, 'm').exec(written_)?.[1] ?? '';
      for (const secret of ['PAYCONFORM_APPLICATION_SECRET', 'PAYCONFORM_PRIVATE_KEY'])
        expect(banner).not.toContain(printed(secret));
      expect(banner).toContain(`written to ${credentials} (mode 0600)`);
      const env = {
        NO_COLOR: '1',
        ...Object.fromEntries(
          [
            'PAYCONFORM_APPLICATION_ID',
            'PAYCONFORM_KEY_ID',
            'PAYCONFORM_APPLICATION_SECRET',
            'PAYCONFORM_PRIVATE_KEY',
          ].map((n) => [n, printed(n)]),
        ),
      };
      expect(printed('PAYCONFORM_APPLICATION_SECRET')).not.toBe('');
      const r = await payconform(['audit', 'server', '--no-explore', '--config', file], env);
      expect(r.code, r.out).toBe(0);
      expect(r.out).toMatch(/\d+ passed, 0 failed, \d+ warnings, 0 skipped/);
    } finally {
      serve.stop();
    }
    const ran = await serve.done;
    expect(ran.code).toBe(0);
    expect(ran.out).toContain(`audit config written to ${file}`);
  });
});

describe('--fail-on warn: holding a webhook receiver to the SHOULD checks', () => {
  it('a receiver that answers 200 to everything: exit 0 with warnings by default, exit 1 with JUnit failures under --fail-on warn', async () => {
    // TEST ONLY: accepts unsigned, re-signed, bit-flipped and wrong-key webhooks alike.
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200).end());
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    try {
      const junitDefault = join(dir, 'accept-all.xml');
      const junitGated = join(dir, 'accept-all-gated.xml');
      const base = ['audit', 'webhooks', '--target', url, '--public-key-out', join(dir, 'key.pem')];
      const [plain, gated] = await Promise.all([
        payconform([...base, '--report', `junit:${junitDefault}`], { NO_COLOR: '1' }),
        payconform(
          [
            ...base,
            '--fail-on',
            'warn',
            '--report',
            `junit:${junitGated}`,
            '--report',
            `html:${join(dir, 'accept-all.html')}`,
          ],
          { NO_COLOR: '1' },
        ),
      ]);
      expect(plain.code, plain.out + plain.err).toBe(0);
      const warnings = Number(/(\d+) warnings/.exec(plain.out)?.[1]);
      expect(warnings).toBeGreaterThanOrEqual(18);
      expect(readFileSync(junitDefault, 'utf8')).toMatch(/<testsuites [^>]*failures="0"/);

      expect(gated.code, gated.out + gated.err).toBe(1);
      expect(gated.out).toContain(
        `verdict: FAIL (${warnings} warning(s) under --fail-on warn), exit 1`,
      );
      const xml = readFileSync(junitGated, 'utf8');
      expect(xml).toMatch(new RegExp(`<testsuites [^>]*failures="${warnings}"`));
      expect(xml.match(/<failure message="\[warning, failed by --fail-on warn\]/g)?.length).toBe(
        warnings,
      );
      expect(xml).toContain('<property name="verdict" value="fail"/>');
      // The HTML report opens with an index of what did not pass, each linking to its check.
      const html = readFileSync(join(dir, 'accept-all.html'), 'utf8');
      expect(html).toMatch(
        new RegExp(`<h2>Index of failures, warnings and skips \\(${warnings}\\)</h2>`),
      );
      expect(html).toContain(
        '<a href="#webhook-payout-wrong-signature"><code>webhook-payout-wrong-signature</code></a>',
      );
      expect(html).toMatch(/<details class="check" id="webhook-payout-accepted">/); // passing: collapsed
      expect(html).toMatch(/<details class="check" id="webhook-payout-wrong-signature" open>/);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});

describe('reproduction that still works tomorrow', () => {
  it('a failing check carries a re-run command; 433 s later the recorded request is refused as expired, the re-run still reproduces', async () => {
    // The service reads the clock through Date at each call, so the faked Date below moves it as it moves the signer.
    const faulty = await service(['no-digest-check'], { now: () => Date.now() });
    const config = writeJson('faulty-full.json', auditConfigFor(faulty, {}).config);
    const report = join(dir, 'faulty.json');
    const env = envFor(faulty);
    const first = await payconform(
      ['audit', 'server', '--no-explore', '--config', config, '--report', `json:${report}`],
      env,
    );
    expect(first.code).toBe(1);
    const json = JSON.parse(readFileSync(report, 'utf8')) as {
      results: Array<{
        id: string;
        outcome: string;
        rerun?: string;
        findings: Array<{
          outcome: string;
          evidence?: {
            request?: {
              method: string;
              url: string;
              headers: Array<[string, string]>;
              body: { text?: string };
            };
            reproduce?: string;
          };
        }>;
      }>;
    };
    const failing = json.results.find((r) => r.id === 'content-digest-mismatch')!;
    expect(failing.outcome).toBe('fail');
    expect(failing.rerun).toBe(
      `payconform audit server --only content-digest-mismatch --config ${config}`,
    );
    expect(first.out).toContain(`run this check again (signs afresh): ${failing.rerun}`);
    const evidence = failing.findings.find((f) => f.outcome === 'fail')!.evidence!;
    expect(evidence.reproduce).toMatch(/^curl /);

    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 433_000);
      // The recorded exchange, sent again byte for byte (secret from the environment, as the curl command does).
      const request = evidence.request!;
      const headers = request.headers
        .map(
          ([n, v]) =>
            [n, v === '[REDACTED]' ? env.PAYCONFORM_APPLICATION_SECRET! : v] as [string, string],
        )
        .filter(([n]) => n.toLowerCase() !== 'host' && n.toLowerCase() !== 'content-length');
      const replay = await fetch(request.url, {
        method: request.method,
        headers,
        body: request.body.text ?? '',
      });
      expect(replay.status).toBe(401);
      expect(replay.headers.get('x-payconform-error-code')).toBe('CREATED_EXPIRED');
      // The re-run command, as printed (secrets from the same environment), still finds the fault.
      const words = failing.rerun!.split(' ');
      expect(words[0]).toBe('payconform');
      const again = await payconform(words.slice(1), env);
      expect(again.out).toMatch(/FAIL {2}content-digest-mismatch/);
      expect(again.code).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('evidence people can read', () => {
  it('"more than one payout" shows the payouts that matter, not the whole sandbox list', async () => {
    const faulty = await service(['no-replay-check']);
    const config = writeJson('replay.json', auditConfigFor(faulty, {}).config);
    const env = envFor(faulty);
    // Other payouts on the target first, so the sandbox list holds more than the ones that matter.
    expect(
      (
        await payconform(
          [
            'audit',
            'server',
            '--no-explore',
            '--config',
            config,
            '--only',
            'payout-signed-accepted,tracing-id-differs',
          ],
          env,
        )
      ).code,
    ).toBe(0);
    const report = join(dir, 'replay-report.json');
    const r = await payconform(
      [
        'audit',
        'server',
        '--no-explore',
        '--config',
        config,
        '--only',
        'nonce-replayed',
        '--report',
        `json:${report}`,
      ],
      env,
    );
    expect(r.code).toBe(1);
    const json = JSON.parse(readFileSync(report, 'utf8')) as {
      results: Array<{
        findings: Array<{
          outcome: string;
          message: string;
          evidence?: { response?: { body: { text?: string } }; notes?: string };
        }>;
      }>;
    };
    const finding = json.results[0]!.findings.find((f) =>
      f.message.includes('payouts were created from one signed request'),
    )!;
    expect(finding.outcome).toBe('fail');
    // The payouts are read through the state hook contract (here the target's /sandbox/ provides it): the evidence
    // names the two payouts of the replayed request's reference, not the other payouts the target holds.
    const listed = /lists 2 payout\(s\) with reference (\S+): (\[.*\])/.exec(
      finding.evidence!.notes!,
    );
    expect(listed, finding.evidence!.notes).not.toBeNull();
    const shown = JSON.parse(listed![2]!) as Array<{ reference: string }>;
    expect(shown).toHaveLength(2);
    expect(new Set(shown.map((p) => p.reference))).toEqual(new Set([listed![1]]));
  });
});
