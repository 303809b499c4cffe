// A hook command that stays (`"lines": true`, docs/state-hook.md, "A command that stays"): the config takes the option
// and refuses a malformed one (exit 2); the starter hook (vectors/adapters/python/state_hook.py --lines) makes states
// on a reference service whose /sandbox/ the audit does not see, many requests, several at once, in one process, and
// `audit server` by URL passes the payment checks through it and stops it at its end; a hook that dies, hangs or
// writes what is no answer gives a readable failed state within its bound, and the next request starts it again.
// Each misbehaving hook is a `sh -c` script that logs its start (the program payconform starts is the point); budget:
// about 10 s in all, most of it the one audit by URL.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedTarget } from '../cli/commands/audit-server.js';
import { main } from '../cli/main.js';
import type { ServerAuditContext } from '../conformance/checks/server/context.js';
import { resolveConfig } from '../conformance/config/config.js';
import { createRedactor } from '../conformance/report/redact.js';
import {
  askState,
  closeStateHook,
  type StateHookConfig,
  type StateRequest,
} from '../conformance/state-hook/index.js';
import { linesHook } from '../conformance/state-hook/lines-hook.js';
import { MAX_ANSWER_BYTES } from '../conformance/state-hook/providers.js';
import { exploreEnv as env, STARTER_HOOK } from './fixtures/explore-targets.js';
import { memoryIo } from './fixtures/memory-io.js';
import { auditByUrl } from './fixtures/url-audited-service.js';

const dir = mkdtempSync(join(tmpdir(), 'payconform-hook-lines-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PRIVATE = '/private-helpers';
const SETTLED: StateRequest = { state: 'settled-payment', amount: '1.00' };
const SECRET = 'sk_test_lines_hook_secret_0123456789';

/** A log file each start of a hook appends its pid to (`$1` of the script): one line per process started. */
function startLog(): { readonly file: string; starts(): string[] } {
  const file = join(dir, `starts-${Math.random().toString(36).slice(2)}.log`);
  writeFileSync(file, '');
  return {
    file,
    starts: () =>
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l !== ''),
  };
}

/**
 * A hook that stays, written in sh: logs its start, then for each request line runs `onLine` with `$id` set to the
 * request's id (the line is `{"id":N,"request":...}`) and `$line` to the line.
 */
function shHook(onLine: string, log = startLog()) {
  const script = `echo $$ >> "$1"; while IFS= read -r line; do id=\${line#'{"id":'}; id=\${id%%,*}; ${onLine}; done`;
  const hook = { command: ['sh', '-c', script, 'hook', log.file], lines: true } as const;
  return { hook, log };
}

/** An audit context that names `hook`; no target is asked (the hook answers alone). */
function contextFor(hook: StateHookConfig, requestTimeoutMs = 2_000): ServerAuditContext {
  return {
    baseUrl: 'http://127.0.0.1:9',
    copDestinations: {},
    payments: { settled: [], unsettled: [] },
    requestTimeoutMs,
    webhookWaitMs: 1_000,
    quietWaitMs: 100,
    redactor: createRedactor({ applicationSecret: SECRET }),
    stateHook: hook,
  };
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('the config: "lines" with a command', () => {
  it('takes true or false with a command; refuses it with a URL or as anything but a boolean', () => {
    const hook = (stateHook: unknown) => resolveConfig({ stateHook }, {});
    expect(hook({ command: ['python3', 'hook.py', '--lines'], lines: true })).toMatchObject({
      ok: true,
      config: { stateHook: { command: ['python3', 'hook.py', '--lines'], lines: true } },
    });
    const perCall = hook({ command: ['python3', 'hook.py'], lines: false });
    expect(perCall.ok && perCall.config.stateHook).toEqual({ command: ['python3', 'hook.py'] });
    expect(hook({ url: 'https://hooks.example/', lines: true })).toMatchObject({ ok: false });
    expect(hook({ command: ['python3', 'hook.py'], lines: 'yes' })).toMatchObject({ ok: false });
  });

  it('audit server refuses a malformed one with the config (exit 2), before any check runs', async () => {
    const file = join(dir, 'malformed.json');
    writeFileSync(file, JSON.stringify({ stateHook: { command: ['sh'], lines: 1 } }));
    const io = memoryIo({ env: { PATH: process.env['PATH'] ?? '' } });
    const code = await main(
      ['audit', 'server', '--target', 'http://127.0.0.1:9', '--config', file, '--no-explore'],
      io,
    );
    expect(code, io.err.join('')).toBe(2);
    expect(io.err.join('')).toMatch(/stateHook/);
  });
});

describe('the starter hook with --lines, on a service whose /sandbox/ the audit does not see', () => {
  it('one process makes many states, several at once, says what it does not offer, and stops when closed', async () => {
    const t = await startEmbeddedTarget({ sandboxPath: PRIVATE });
    const log = startLog();
    const hook: StateHookConfig = {
      command: [
        'sh',
        '-c',
        'echo $$ >> "$0"; exec env STATE_HOOK_BACKEND="$1" python3 "$2" --lines',
        log.file,
        `${t.context.baseUrl}${PRIVATE}`,
        STARTER_HOOK,
      ],
      lines: true,
    };
    const context = { ...t.context, stateHook: hook };
    try {
      const made = await askState(context, env(20_000), { ...SETTLED, payer: true });
      expect(made).toMatchObject({ kind: 'made', answer: { amount: '1.00' } });
      expect(made.kind === 'made' && made.answer['payer']).toMatchObject({
        name: expect.any(String),
      });
      const many = await Promise.all(
        Array.from({ length: 24 }, (_, i) =>
          askState(context, env(20_000), { state: 'settled-payment', amount: `${i + 1}.00` }),
        ),
      );
      expect(many.map((r) => r.kind === 'made' && r.answer['amount'])).toEqual(
        Array.from({ length: 24 }, (_, i) => `${i + 1}.00`),
      );
      expect(
        await askState(context, env(20_000), { state: 'payment-webhook', status: 'SETTLED' }),
      ).toMatchObject({ kind: 'made', answer: { status: 'SETTLED' } });
      expect(await askState(context, env(20_000), { state: 'unsettled-payment' })).toMatchObject({
        kind: 'not-offered',
        reason: expect.stringMatching(/does not offer unsettled-payment/),
      });
      expect(log.starts()).toHaveLength(1);
      const pid = Number(log.starts()[0]);
      expect(alive(pid)).toBe(true);
      await closeStateHook(hook);
      expect(alive(pid)).toBe(false);
    } finally {
      await closeStateHook(hook);
      await t.close();
    }
  });

  it(
    'audit server by URL: the payment checks pass through it, and it is stopped when the audit ends',
    { timeout: 60_000 },
    async () => {
      const log = startLog();
      const r = await auditByUrl(
        { sandboxPath: PRIVATE },
        ['--no-explore', '--only', 'webhook-payment-status-changes,payment-reference-assigned'],
        (c) => ({
          ...c,
          stateHook: {
            command: [
              'sh',
              '-c',
              'echo $$ >> "$0"; exec env STATE_HOOK_BACKEND="$1" python3 "$2" --lines',
              log.file,
              `${String(c['target'])}${PRIVATE}`,
              STARTER_HOOK,
            ],
            lines: true,
          },
        }),
      );
      expect(
        Object.fromEntries(r.results.map((x) => [x.id, x.outcome])),
        JSON.stringify(r.results),
      ).toEqual({
        'webhook-payment-status-changes': 'pass',
        'payment-reference-assigned': 'pass',
      });
      expect(log.starts()).toHaveLength(1);
      expect(alive(Number(log.starts()[0]))).toBe(false);
    },
  );
});

describe('a hook that stays and misbehaves gives a readable failed state within its bound, never a throw or a hang', () => {
  /** Asks `hook` once (request timeout `timeoutMs`: bound twice that) and closes it; the result and the time taken. */
  const askOnce = async (hook: StateHookConfig, timeoutMs = 2_000, request = SETTLED) => {
    const started = Date.now();
    try {
      const result = await askState(contextFor(hook, timeoutMs), env(20_000), request);
      return { result, ms: Date.now() - started };
    } finally {
      await closeStateHook(hook);
    }
  };
  const reasonOf = (r: { readonly result: { readonly kind: string } }): string =>
    (r.result as { reason?: string }).reason ?? '';

  it('answers in its three kinds: answer (judged by the contract), notOffered, failed (masked)', async () => {
    const answer = shHook(
      `printf '{"id":%s,"answer":{"paymentId":"p%s","amount":"1.00"}}\\n' "$id" "$id"`,
    );
    expect((await askOnce(answer.hook)).result).toMatchObject({
      kind: 'made',
      answer: { amount: '1.00' },
    });
    const notOffered = shHook(`printf '{"id":%s,"notOffered":{"reason":"no payments"}}\\n' "$id"`);
    expect((await askOnce(notOffered.hook)).result).toEqual({
      kind: 'not-offered',
      reason: 'the state hook command sh does not offer settled-payment 1.00: no payments',
    });
    const failed = shHook(
      `printf '{"id":%s,"failed":{"reason":"database down, key ${SECRET}"}}\\n' "$id"`,
    );
    const f = await askOnce(failed.hook);
    expect(f.result.kind).toBe('failed');
    expect(reasonOf(f)).toMatch(/failed settled-payment 1\.00: database down/);
    expect(reasonOf(f)).not.toContain(SECRET);
    const both = shHook(`printf '{"id":%s,"answer":{},"failed":{}}\\n' "$id"`);
    expect(reasonOf(await askOnce(both.hook))).toMatch(/"answer" and "failed" of .*exactly one/);
    const wrong = shHook(`printf '{"id":%s,"answer":{"amount":1}}\\n' "$id"`);
    expect(reasonOf(await askOnce(wrong.hook))).toMatch(/outside the state hook contract/);
  });

  it('one that dies: failed, quoting its standard error (masked); the next request starts it again', async () => {
    const { hook, log } = shHook(`echo "boom ${SECRET}" >&2; exit 1`);
    const context = contextFor(hook);
    try {
      for (let i = 0; i < 2; i++) {
        const r = await askState(context, env(20_000), SETTLED);
        expect(r.kind).toBe('failed');
        const reason = (r as { reason: string }).reason;
        expect(reason).toMatch(/exited with 1 before it answered a line .*"lines": true.*: boom/);
        expect(reason).not.toContain(SECRET);
      }
      expect(log.starts()).toHaveLength(2);
    } finally {
      await closeStateHook(hook);
    }
  });

  it('one that hangs: failed at twice the request timeout, stopped, and started again for the next request', async () => {
    const { hook, log } = shHook(':');
    const context = contextFor(hook, 150);
    try {
      const started = Date.now();
      const r = await askState(context, env(20_000), SETTLED);
      expect(r).toMatchObject({
        kind: 'failed',
        reason: expect.stringMatching(
          /did not answer settled-payment 1\.00 \(stopped after 300 ms\)/,
        ),
      });
      expect(Date.now() - started).toBeLessThan(5_000);
      const pid = Number(log.starts()[0]);
      await askState(context, env(20_000), SETTLED);
      expect(log.starts()).toHaveLength(2);
      expect(alive(pid)).toBe(false);
    } finally {
      await closeStateHook(hook);
    }
  });

  it('one that writes what is no answer: not JSON, an unknown id, a line too long; stopped, the next request starts it again', async () => {
    const cases = [
      [
        `echo 'hello ${SECRET}'`,
        /wrote a line that is not an answer line .*: "hello \[REDACTED\]"/,
      ],
      [
        `echo '{"id":999,"answer":{}}'`,
        /an answer line for request id 999, which it was never sent/,
      ],
      [
        `head -c ${MAX_ANSWER_BYTES + 10} /dev/zero | tr '\\0' x`,
        new RegExp(`wrote a line of more than ${MAX_ANSWER_BYTES} bytes`),
      ],
    ] as const;
    for (const [script, said] of cases) {
      const { hook, log } = shHook(script);
      const context = contextFor(hook);
      try {
        const r = await askState(context, env(20_000), SETTLED);
        expect(r.kind, script).toBe('failed');
        expect((r as { reason: string }).reason, script).toMatch(said);
        expect((r as { reason: string }).reason).not.toContain(SECRET);
        await askState(context, env(20_000), SETTLED);
        expect(log.starts(), script).toHaveLength(2);
      } finally {
        await closeStateHook(hook);
      }
    }
  });

  it('a late answer (after its request failed) is dropped; the process goes on answering', async () => {
    // Reads two requests, answers the second at once and the first 600 ms later (its bound is 400 ms), then answers
    // each at once: the answer to the second, written meanwhile, says the hook does not hang, so only the first fails.
    const log = startLog();
    const answer = (v: string) =>
      `printf '{"id":%s,"answer":{"paymentId":"p","amount":"1.00"}}\\n' "\${${v}%%,*}"`;
    const script = [
      'echo $$ >> "$1"',
      `read -r a; read -r b; a=\${a#'{"id":'}; b=\${b#'{"id":'}`,
      `${answer('b')}; sleep 0.6; ${answer('a')}`,
      `while IFS= read -r c; do c=\${c#'{"id":'}; ${answer('c')}; done`,
    ].join('\n');
    const hook: StateHookConfig = { command: ['sh', '-c', script, 'hook', log.file], lines: true };
    const context = contextFor(hook, 200);
    try {
      const first = askState(context, env(20_000), SETTLED);
      const second = askState(context, env(20_000), SETTLED);
      expect(await second).toMatchObject({ kind: 'made' });
      expect(await first).toMatchObject({
        kind: 'failed',
        reason: expect.stringMatching(/did not answer .*stopped after 400 ms/),
      });
      expect(await askState(context, env(20_000), SETTLED)).toMatchObject({ kind: 'made' });
      expect(log.starts()).toHaveLength(1);
    } finally {
      await closeStateHook(hook);
    }
  });

  it("gets the environment a per-call command gets: none of the audit's secrets", async () => {
    const { hook } = shHook(
      `printf '{"id":%s,"failed":{"reason":"secret=[%s]"}}\\n' "$id" "$PAYCONFORM_APPLICATION_SECRET"`,
    );
    const withSecret = { ...process.env, PAYCONFORM_APPLICATION_SECRET: SECRET };
    try {
      const r = await linesHook(hook, { env: withSecret })(contextFor(hook), env(20_000), SETTLED);
      expect(r).toMatchObject({ kind: 'failed', reason: expect.stringMatching(/secret=\[\]/) });
    } finally {
      await closeStateHook(hook);
    }
  });

  it('a program that cannot start, and a request pending when the audit ends', async () => {
    const missing: StateHookConfig = { command: ['payconform-no-such-hook'], lines: true };
    expect(reasonOf(await askOnce(missing))).toMatch(
      /could not start: no command payconform-no-such-hook on PATH/,
    );
    const { hook, log } = shHook(':');
    const pending = askState(contextFor(hook, 10_000), env(20_000), SETTLED);
    await expect.poll(() => log.starts().length).toBe(1);
    await closeStateHook(hook);
    expect(await pending).toMatchObject({
      kind: 'failed',
      reason: expect.stringMatching(/was stopped: the audit ended/),
    });
    expect(alive(Number(log.starts()[0]))).toBe(false);
  });
});
