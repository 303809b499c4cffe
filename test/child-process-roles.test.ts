// Each program payconform starts (SDK adapter, `--exec` client, state-hook command, vectors
// implementation) gets the environment of its role and nothing of payconform's own (docs/security.md), runs in its
// own process group, and is stopped (SIGTERM, SIGKILL after STOP_GRACE_MS) even when it ignores SIGTERM, its children
// with it. The programs are real child processes (the process is the point); the CLI runs in-process.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { configureAdapter } from '../conformance/sdk-explore/protocol.js';
import { startAdapterLink } from '../cli/sdk-audit-setup.js';
import { COMMAND_TABLE } from '../cli/command-table.js';
import type { CheckRunEnv } from '../conformance/run/check.js';
import type { ServerAuditContext } from '../conformance/checks/server/context.js';
import { OWN_ENV } from '../conformance/process/program-env.js';
import { STOP_GRACE_MS } from '../conformance/process/process-group.js';
import { createRedactor } from '../conformance/report/redact.js';
import { askState } from '../conformance/state-hook/index.js';
import { AdapterProcess } from '../vectors/harness/adapter-process.js';
import { runMain } from './fixtures/cli.js';
import { loadTestKeys } from './fixtures/keys.js';

const POSIX = process.platform !== 'win32';
const keys = loadTestKeys();
const dir = mkdtempSync(join(tmpdir(), 'payconform-roles-'));
const NODE = JSON.stringify(process.execPath);

// TEST ONLY values: what payconform's own environment holds in these tests.
const SECRET = 'roles-test-application-secret-0123456789';
const ATTEST_KEY = 'roles-test-attest-key-seed-0123456789abcdefghij';
const OWN = {
  PAYCONFORM_ATTEST_KEY: ATTEST_KEY,
  PAYCONFORM_ATTEST_KEY_FILE: join(dir, 'attest.key'),
  PAYCONFORM_TARGET: 'http://127.0.0.1:9/',
  PAYCONFORM_REDIS_URL: 'redis://user:roles-test-redis-password@127.0.0.1:9',
  PAYCONFORM_VERIFY_THREADS: '1',
};
const CLIENT = {
  PAYCONFORM_APPLICATION_ID: '5f0c3f0e-9a43-4a59-8a3c-6c1ad52c0a11',
  PAYCONFORM_APPLICATION_SECRET: SECRET,
  PAYCONFORM_KEY_ID: 'test-only-key-1',
  PAYCONFORM_PUBLIC_KEY: keys.clientEd25519.publicPem,
  PAYCONFORM_PRIVATE_KEY: keys.clientEd25519.seedBase64,
};
/** An ordinary variable of the user's, which every role keeps. */
const USER = { ROLES_TEST_TOOL_HOME: '/opt/tool' };

/** A program that writes its whole environment, as JSON, to the file its first argument names. */
const dumper = join(dir, 'dump-env.cjs');
writeFileSync(
  dumper,
  "require('node:fs').writeFileSync(process.argv[2], JSON.stringify(process.env));\n",
);
let dumps = 0;
const dumpFile = (): string => join(dir, `env-${++dumps}.json`);
const readDump = (file: string): Record<string, string> =>
  JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;

/** The variables of payconform's own the dump holds, besides those its role may have. */
const ownVariables = (dump: Record<string, string>, allowed: readonly string[]): string[] =>
  Object.keys(dump).filter((n) => OWN_ENV.includes(n) && !allowed.includes(n));

/** A context the hook command needs (its timeout and the redactor), with the hook named as the config names it. */
function hookContext(command: [string, ...string[]], requestTimeoutMs = 5_000): ServerAuditContext {
  return {
    requestTimeoutMs,
    redactor: createRedactor({ applicationSecret: SECRET }),
    stateHook: { command },
  } as unknown as ServerAuditContext;
}
const runEnv = (ms: number): CheckRunEnv =>
  ({ signal: new AbortController().signal, deadline: Date.now() + ms }) as CheckRunEnv;

/** Whether the process is gone (a zombie no one has reaped yet counts as gone: it runs nothing). */
function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    return /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

afterEach(() => vi.unstubAllEnvs());

describe('each role gets its environment, never the attestation key (docs/security.md)', () => {
  it('every variable a command documents reading is withheld (OWN_ENV; cli/command-table.ts)', () => {
    const names = COMMAND_TABLE.flatMap((c) => (c.environment ?? []).map(([n]) => n)).flatMap(
      (n) => n.match(/\b[A-Z][A-Z0-9_]{2,}\b/g) ?? [],
    );
    expect(names).toContain('PAYCONFORM_ATTEST_KEY_FILE');
    expect(names.filter((n) => n.startsWith('PAYCONFORM_') && !OWN_ENV.includes(n))).toEqual([]);
  });

  it('an SDK adapter: the run’s generated credentials and the ordinary environment; no attestation key', async () => {
    const file = dumpFile();
    const r = await runMain(
      ['audit', 'client', '--adapter', `${NODE} ${JSON.stringify(dumper)} ${JSON.stringify(file)}`],
      { ...process.env, ...USER, ...OWN, ...CLIENT } as Record<string, string>,
    );
    expect(r.code, r.stdout + r.stderr).not.toBe(0); // the dumper speaks no protocol
    const dump = readDump(file);
    expect(dump['PAYCONFORM_APPLICATION_SECRET']).toMatch(/\S{16,}/);
    expect(dump['PAYCONFORM_APPLICATION_SECRET']).not.toBe(SECRET); // the run's own, not the user's
    expect(dump['PAYCONFORM_PRIVATE_KEY']).toContain('PRIVATE KEY');
    expect(ownVariables(dump, ['PAYCONFORM_APPLICATION_SECRET', 'PAYCONFORM_PRIVATE_KEY'])).toEqual(
      [],
    );
    expect(JSON.stringify(dump)).not.toContain(ATTEST_KEY);
    expect(dump).toMatchObject({ ...USER, PATH: process.env['PATH'] });
  });

  it('an --exec client: its signing credentials and the audit’s address; no attestation key', async () => {
    const file = dumpFile();
    const r = await runMain(
      [
        'audit',
        'client',
        '--exec',
        `${NODE} ${JSON.stringify(dumper)} ${JSON.stringify(file)}`,
        '--timeout-ms',
        '30000',
      ],
      { ...process.env, ...USER, ...OWN, ...CLIENT } as Record<string, string>,
    );
    expect(r.code, r.stdout + r.stderr).toBe(1); // no request arrived: a MUST failure
    const dump = readDump(file);
    expect(dump).toMatchObject({
      PAYCONFORM_APPLICATION_ID: CLIENT.PAYCONFORM_APPLICATION_ID,
      PAYCONFORM_APPLICATION_SECRET: SECRET,
      PAYCONFORM_KEY_ID: CLIENT.PAYCONFORM_KEY_ID,
      PAYCONFORM_PRIVATE_KEY: CLIENT.PAYCONFORM_PRIVATE_KEY,
      PAYCONFORM_BASE_URL: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+/),
      ...USER,
    });
    expect(dump).not.toHaveProperty('PAYCONFORM_ATTEST_KEY');
    expect(dump).not.toHaveProperty('PAYCONFORM_ATTEST_KEY_FILE');
    expect(dump).not.toHaveProperty('PAYCONFORM_TARGET');
    expect(dump).not.toHaveProperty('PAYCONFORM_REDIS_URL');
    expect(JSON.stringify(dump)).not.toContain(ATTEST_KEY);
  });

  it('a state-hook command: none of the audit’s secrets, no attestation key, the ordinary environment', async () => {
    for (const [name, value] of Object.entries({ ...USER, ...OWN, ...CLIENT }))
      vi.stubEnv(name, value);
    const file = dumpFile();
    await askState(hookContext([process.execPath, dumper, file]), runEnv(20_000), {
      state: 'unsettled-payment',
    });
    const dump = readDump(file);
    expect(ownVariables(dump, [])).toEqual([]);
    for (const secret of [SECRET, ATTEST_KEY, keys.clientEd25519.seedBase64])
      expect(JSON.stringify(dump)).not.toContain(secret);
    expect(dump).toMatchObject({ ...USER, PATH: process.env['PATH'] });
  });

  it('a vectors implementation (vectors run): nothing of payconform’s own', async () => {
    for (const [name, value] of Object.entries({ ...OWN, ...CLIENT })) vi.stubEnv(name, value);
    const file = dumpFile();
    const adapter = new AdapterProcess(`${NODE} ${JSON.stringify(dumper)} ${JSON.stringify(file)}`);
    expect(await adapter.nextLine(20_000)).toMatchObject({ kind: 'exited', code: 0 });
    await adapter.stop();
    expect(ownVariables(readDump(file), [])).toEqual([]);
  });
});

describe('every program payconform starts can be stopped, its children with it', () => {
  // Ignores SIGTERM (so does the child it leaves, the disposition being inherited) and writes the child's pid.
  const stubborn = (pidFile: string): string =>
    `trap '' TERM; sleep 1000 & echo $! > ${JSON.stringify(pidFile)}; echo '{"ready":true}'; wait`;

  it.skipIf(!POSIX)(
    'a hook command that ignores SIGTERM: failed at its bound, back within bound + grace, its child gone',
    { timeout: 30_000 },
    async () => {
      const pidFile = join(dir, 'hook-child.pid');
      const requestTimeoutMs = 250; // the hook's bound is twice that
      const started = Date.now();
      const r = await askState(
        hookContext(['sh', '-c', stubborn(pidFile), 'hook'], requestTimeoutMs),
        runEnv(20_000),
        { state: 'unsettled-payment' },
      );
      const took = Date.now() - started;
      expect(r).toMatchObject({ kind: 'failed', reason: expect.stringMatching(/did not finish/) });
      expect(took).toBeGreaterThanOrEqual(2 * requestTimeoutMs);
      // bound + grace, and one more second for a loaded machine to schedule the kill
      expect(took).toBeLessThan(2 * requestTimeoutMs + STOP_GRACE_MS + 1_000);
      const child = Number(readFileSync(pidFile, 'utf8'));
      await vi.waitFor(() => expect(gone(child)).toBe(true), { timeout: 2_000 });
    },
  );

  it.skipIf(!POSIX)(
    'an SDK adapter that ignores SIGTERM: stop() returns within its grace, its child gone',
    { timeout: 30_000 },
    async () => {
      const pidFile = join(dir, 'adapter-child.pid');
      const link = startAdapterLink(stubborn(pidFile), { ...process.env });
      expect(await link.ask({ id: 'x' }, 20_000)).toMatchObject({ kind: 'answer' });
      const started = Date.now();
      await link.stop(); // stdin closed, 1 s to finish, then TERM, KILL after the grace
      expect(Date.now() - started).toBeLessThan(1_000 + STOP_GRACE_MS + 1_000);
      const child = Number(readFileSync(pidFile, 'utf8'));
      await vi.waitFor(() => expect(gone(child)).toBe(true), { timeout: 2_000 });
    },
  );

  it.skipIf(!POSIX)(
    'an SDK adapter that keeps running after stdin closes is sent SIGTERM first (a chance to clean up)',
    { timeout: 30_000 },
    async () => {
      const marker = join(dir, 'adapter-term.txt');
      const link = startAdapterLink(
        `trap 'echo TERM > ${JSON.stringify(marker)}; exit 0' TERM; echo '{"ready":true}'; while :; do sleep 1; done`,
        { ...process.env },
      );
      expect(await link.ask({ id: 'x' }, 20_000)).toMatchObject({ kind: 'answer' });
      await link.stop();
      expect(readFileSync(marker, 'utf8').trim()).toBe('TERM');
    },
  );

  it.skipIf(!POSIX)(
    'an --exec client that ignores SIGTERM: the audit ends within --timeout-ms + grace, its child gone',
    { timeout: 60_000 },
    async () => {
      const pidFile = join(dir, 'client-child.pid');
      const started = Date.now();
      const r = await runMain(
        ['audit', 'client', '--exec', stubborn(pidFile), '--timeout-ms', '1000'],
        { ...process.env, ...CLIENT } as Record<string, string>,
      );
      const took = Date.now() - started;
      expect(r.stdout).toMatch(/client command timed out after 1 s and was stopped/);
      expect(took).toBeLessThan(1_000 + STOP_GRACE_MS + 5_000); // + the audit's own start and report
      const child = Number(readFileSync(pidFile, 'utf8'));
      await vi.waitFor(() => expect(gone(child)).toBe(true), { timeout: 2_000 });
    },
  );
});

describe('a hook command that fails says why in words', () => {
  it('one that cannot start: failed, "could not start: no such file", where relative paths resolve', async () => {
    const r = await askState(hookContext(['./no-such-hook.sh']), runEnv(20_000), {
      state: 'unsettled-payment',
    });
    expect(r).toEqual({
      kind: 'failed',
      reason: `the state hook command ./no-such-hook.sh could not start: no such file ./no-such-hook.sh (relative paths resolve against ${process.cwd()})`,
    });
  });

  it('a non-zero exit quotes stderr’s last lines, masked, at most ~300 characters', async () => {
    const script = `for i in $(seq 1 40); do echo "noise line $i" >&2; done; echo "lost: ${SECRET}" >&2; echo "the payment table is locked" >&2; exit 1`;
    const r = await askState(hookContext(['sh', '-c', script, 'hook']), runEnv(20_000), {
      state: 'unsettled-payment',
    });
    expect(r.kind).toBe('failed');
    const reason = r.kind === 'failed' ? r.reason : '';
    expect(reason).toMatch(/exited with 1: .*lost: \[REDACTED\] \| the payment table is locked$/);
    expect(reason).not.toContain(SECRET);
    expect(reason).not.toContain('noise line 1 ');
    expect(reason.length).toBeLessThan(400);
  });
});

describe('an adapter command that does not exist is reported as not found', () => {
  it.skipIf(!POSIX)('exit 127 with its code and "not found", never "signal ?"', async () => {
    const link = startAdapterLink('payconform-no-such-adapter-54', { ...process.env });
    try {
      const first = await link.ask({ id: 'configure' }, 20_000);
      const again = await link.ask({ id: 'configure' }, 20_000); // after it exited: the same end, not "signal ?"
      for (const reply of [first, again])
        expect(reply).toEqual({ kind: 'exited', code: 127, signal: null });
      expect(link.stderr()).toMatch(/the command was not found/);
      // What the explorer reports: the code and what it means, never "signal ?".
      const config = { baseUrl: 'http://127.0.0.1:9', applicationId: 'a', merchantId: 'm' };
      expect(
        await configureAdapter(link, { ...config, keyId: 'k', payInAccountSelector: 's' }, 5_000),
      ).toMatch(/the adapter exited \(code 127: the shell found no such command\)/);
    } finally {
      await link.stop();
    }
  });
});
