// A report on every exit (docs/cli.md): exit 3 (unreachable), 2 (usage or config error) and 70 (internal error)
// still write every requested report with the reason (JUnit: an errored test case naming it); a report or key path
// that cannot be written ends with exit 2 and a message at once, under /proc too, before anything starts, and no line
// claims another exit code. Run through the CLI's main() in-process (its exit code, reports and output) except exit 70, which needs a defect
// and is shown through the wrapper every audit command goes through. Budget: about 20 s.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { auditCommand } from '../cli/audit-command.js';
import { validateAgainst } from '../src/schemas/index.js';
import { runMain } from './fixtures/cli.js';
import { memoryIo } from './fixtures/memory-io.js';
import { unusedLoopbackPort } from './fixtures/ports.js';

const dir = mkdtempSync(join(tmpdir(), 'payconform-every-exit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { PATH: process.env['PATH'] ?? '' };
const REPORT_SCHEMA = 'https://payconform.dev/schemas/conformance-report.schema.json';

/** `--report` flags for the three formats under `name`, and their paths. */
function reportFlags(name: string): { flags: string[]; json: string; junit: string; html: string } {
  const json = join(dir, name, 'report.json');
  const junit = join(dir, name, 'junit.xml');
  const html = join(dir, name, 'report.html');
  return {
    flags: ['--report', `json:${json}`, '--report', `junit:${junit}`, '--report', `html:${html}`],
    json,
    junit,
    html,
  };
}

/** Each report exists, names the reason and the exit code. */
function expectStoppedReports(
  r: ReturnType<typeof reportFlags>,
  exitCode: number,
  reason: RegExp,
): void {
  const json = JSON.parse(readFileSync(r.json, 'utf8')) as {
    verdict: string;
    exitCode: number;
    stopped: { exitCode: number; reason: string };
  };
  expect(validateAgainst(REPORT_SCHEMA, json).valid).toBe(true);
  expect(json.verdict).toBe('error');
  expect(json.exitCode).toBe(exitCode);
  expect(json.stopped.reason).toMatch(reason);
  const junit = readFileSync(r.junit, 'utf8');
  expect(junit).toMatch(new RegExp(`<error message="[^"]*" type="exit-${exitCode}"/>`));
  expect(junit).toMatch(/<testcase classname="payconform.run" name="run stopped/);
  expect(junit).toMatch(reason);
  const html = readFileSync(r.html, 'utf8');
  expect(html).toContain(`(exit ${exitCode})`);
  expect(html).toMatch(reason);
}

describe('every exit leaves the requested reports', () => {
  it('exit 3: audit server against an unreachable target', async () => {
    const port = await unusedLoopbackPort();
    const r = reportFlags('unreachable-server');
    const run = await runMain(
      ['audit', 'server', '--no-explore', '--target', `http://127.0.0.1:${port}`, ...r.flags],
      env,
    );
    expect(run.code, run.stderr).toBe(3);
    expectStoppedReports(r, 3, /unreachable/);
    expect(run.stdout + run.stderr).not.toMatch(/exit [0-24-9]/);
  }, 30_000);

  it('exit 3: audit webhooks against an unreachable receiver', async () => {
    const port = await unusedLoopbackPort();
    const r = reportFlags('unreachable-webhooks');
    const run = await runMain(
      [
        'audit',
        'webhooks',
        '--target',
        `http://127.0.0.1:${port}/hooks`,
        '--public-key-out',
        join(dir, 'unreachable-webhooks', 'key.pem'),
        ...r.flags,
      ],
      env,
    );
    expect(run.code, run.stderr).toBe(3);
    expectStoppedReports(r, 3, /unreachable/);
  }, 30_000);

  it('exit 2: a config error (the config file does not exist)', async () => {
    const r = reportFlags('config-error');
    const run = await runMain(
      ['audit', 'server', '--no-explore', '--config', join(dir, 'missing.json'), ...r.flags],
      env,
    );
    expect(run.code, run.stderr).toBe(2);
    expectStoppedReports(r, 2, /cannot read config/);
  }, 30_000);

  it('exit 2: a usage error (an unknown option) still writes the reports that parse', async () => {
    const r = reportFlags('usage-error');
    const run = await runMain(
      ['audit', 'server', '--no-explore', '--no-such-option', ...r.flags],
      env,
    );
    expect(run.code, run.stderr).toBe(2);
    expectStoppedReports(r, 2, /no-such-option/);
  }, 30_000);

  it('exit 70: an internal error writes the reports, then ends as one', async () => {
    const r = reportFlags('internal');
    const io = memoryIo();
    const command = auditCommand({ command: 'audit server', role: 'server' }, async () => {
      throw new Error('a defect for this test');
    });
    await expect(command(r.flags, io)).rejects.toThrow('a defect for this test');
    expectStoppedReports(r, 70, /internal error .*a defect for this test/);
  });
});

describe('a report or key path that cannot be written: exit 2 at once, before the run', () => {
  it('under /proc (where a recursive mkdir never returns)', async () => {
    const started = Date.now();
    const run = await runMain(
      [
        'audit',
        'server',
        '--no-explore',
        '--report',
        'json:/proc/x/y.json',
        '--report',
        `junit:${join(dir, 'proc', 'junit.xml')}`,
      ],
      env,
      { timeoutMs: 20_000 },
    );
    expect(run.code, run.stderr).toBe(2);
    expect(Date.now() - started).toBeLessThan(15_000); // the CLI's own start-up (tsx) included
    expect(run.stderr).toMatch(/cannot write json report to "\/proc\/x\/y.json"/);
    // Nothing ran: no target was started, no verdict printed, and the writable report says why.
    expect(run.stdout).not.toMatch(/verdict|auditing/);
    const junit = readFileSync(join(dir, 'proc', 'junit.xml'), 'utf8');
    expect(junit).toMatch(/type="exit-2"/);
    expect(junit).toContain('/proc/x/y.json');
  }, 30_000);

  it('audit webhooks --public-key-out under /proc', async () => {
    const port = await unusedLoopbackPort();
    const run = await runMain(
      [
        'audit',
        'webhooks',
        '--target',
        `http://127.0.0.1:${port}/`,
        '--public-key-out',
        '/proc/nope/p.pem',
      ],
      env,
      { timeoutMs: 20_000 },
    );
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/cannot write --public-key-out "\/proc\/nope\/p.pem"/);
  }, 30_000);

  it('under a regular file: exit 2, and no line claims exit 0', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'x');
    const run = await runMain(
      ['audit', 'server', '--no-explore', '--report', `json:${file}/sub/r.json`],
      env,
      {
        timeoutMs: 20_000,
      },
    );
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/cannot write json report/);
    expect(run.stdout + run.stderr).not.toMatch(/exit 0|verdict: PASS/);
    expect(existsSync(join(file, 'sub'))).toBe(false);
  }, 30_000);
});
