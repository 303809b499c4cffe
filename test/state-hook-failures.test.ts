// A state hook's failure is the hook's (docs/state-hook.md, "A hook's failure is the hook's"): a hook
// that names a payment the target does not know gives the target no failure, in the checks or the explorer; a hook
// that fails every call makes the audit INCOMPLETE (exit 4) naming the hook, never PASS on the config's payments; a
// hook command whose program is not there is refused with the config (exit 2), before any check runs.
// In-process (main() with in-memory I/O) against the reference service with its /sandbox/ off; each hook is a
// `sh -c` script (the program payconform starts is the point). Budget: three audits without the explorer (about 10 s
// each) and three short explorations (4 sequences per lane within 3 s, SHORT_EXPLORATION); the audits and
// explorations of a describe run side by side (each its own service).
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedTarget } from '../cli/commands/audit-server.js';
import { main } from '../cli/main.js';
import type { RecordedExchange } from '../conformance/http/http-client.js';
import type { ServerAuditContext } from '../conformance/checks/server/context.js';
import { createExploreCheck, explore, exploreSummary } from '../conformance/explore/explorer.js';
import { hookPaymentTally } from '../conformance/explore/payment-commands.js';
import { refusalOfHookPayment } from '../conformance/state-hook/index.js';
import { exploreEnv } from './fixtures/explore-targets.js';
import { memoryIo } from './fixtures/memory-io.js';
import { unusedLoopbackPort } from './fixtures/ports.js';
import { auditByUrl, type UrlAudit } from './fixtures/url-audited-service.js';

const dir = mkdtempSync(join(tmpdir(), 'payconform-hook-failures-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A payment id no service has made. */
const UNKNOWN = '7b0a5a43-4a1d-4f7e-9d2e-00000000dead';
const PAYER = { name: 'Ada Payer', accountNumber: '12345678', sortCode: '112233' };
/**
 * The explorations here: 4 sequences per lane (24 in all, the hook asked for a settled payment some 7 to 16 times on
 * seed 5), within 3 s. What they show needs a few of the hook's payments, not a soak: a quiet machine stops at the
 * count. The bound stays short, as it was: past the exploring time the patient lanes' waits are cut, within it they
 * would be waited out.
 */
const SHORT_EXPLORATION = { runs: 4, seconds: 3, seed: 5 } as const;

/** A hook (run as `sh -c SCRIPT hook REQUEST`) that answers settled-payment with `answer` and offers nothing else. */
const settledOnly = (answer: unknown): string[] => [
  'sh',
  '-c',
  `case "$1" in *'"settled-payment"'*) echo '${JSON.stringify(answer)}';; *) exit 3;; esac`,
  'hook',
];

type Report = Pick<UrlAudit, 'verdict' | 'results'>;

/**
 * `payconform audit server --no-explore` against a fresh reference service without /sandbox/, audited by URL with the
 * config it writes for itself (its settled payments listed) and `stateHook.command` set to `command`.
 */
async function auditWithHook(
  command: readonly string[],
): Promise<{ code: number | null; report: Report }> {
  const r = await auditByUrl(
    { sandboxPath: false, lifecycleDelayMs: 300 },
    ['--no-explore'],
    (c) => ({
      ...c,
      stateHook: { command },
    }),
  );
  return { code: r.code, report: r };
}

const byId = (report: Report) => new Map(report.results.map((r) => [r.id, r]));
const failing = (report: Report) =>
  report.results
    .filter((r) => r.outcome === 'fail')
    .map((r) => `${r.id}: ${r.findings.find((f) => f.outcome === 'fail')?.message ?? ''}`);

describe.concurrent(
  'a hook that names a payment the target does not know gives the target no failure',
  () => {
    it(
      'the audit: no check fails; the refund checks skip, naming the hook and what the target answered',
      { timeout: 120_000 },
      async () => {
        const { code, report } = await auditWithHook(
          settledOnly({ paymentId: UNKNOWN, amount: '100.00', payer: PAYER }),
        );
        expect(failing(report)).toEqual([]);
        expect(code).toBe(4);
        const partial = byId(report).get('refund-partial-accepted');
        expect(partial?.outcome, JSON.stringify(partial)).toBe('skip');
        expect(partial?.message).toMatch(
          new RegExp(`first refund of payment ${UNKNOWN}, which the state hook made.*404`),
        );
        expect(byId(report).get('refund-to-original-account')?.message).toMatch(
          /the state hook made/,
        );
      },
    );

    it(
      'the explorer: no violation; the hook is named in what it recorded',
      { timeout: 60_000 },
      async () => {
        const t = await startEmbeddedTarget({ sandboxPath: false });
        try {
          const context: ServerAuditContext = {
            ...t.context,
            stateHook: {
              command: settledOnly({ paymentId: UNKNOWN, amount: '100.00' }) as [
                string,
                ...string[],
              ],
            },
            payments: { settled: [], unsettled: t.context.payments.unsettled },
          };
          const o = await explore(context, exploreEnv(40_000), SHORT_EXPLORATION);
          expect(o.failure?.violation.message, exploreSummary(o)).toBeUndefined();
          expect(o.error).toBeUndefined();
          expect(o.observations.join('\n')).toMatch(
            new RegExp(`first refund of payment ${UNKNOWN}, which the state hook made`),
          );
        } finally {
          await t.close();
        }
      },
    );

    it("which refusals are the hook's: any but the spec's 422 naming a payment status, 401 and 403", () => {
      const refused = (status: number, body: unknown): RecordedExchange =>
        ({
          request: {
            method: 'POST',
            url: 'http://127.0.0.1/x',
            headers: [],
            body: new Uint8Array(),
          },
          response: {
            status,
            headers: [],
            body: new Uint8Array(),
            bodyText: JSON.stringify(body),
            json: body,
          },
          durationMs: 1,
        }) as unknown as RecordedExchange;
      const hooks = (status: number, errorMessage: string) =>
        refusalOfHookPayment(refused(status, { statusCode: status, errorMessage }), 'p1');
      expect(hooks(404, 'payment not found')).toMatch(/does not know the payment/);
      expect(hooks(400, 'unknown paymentId')).toMatch(/does not know the payment/);
      expect(hooks(422, 'refund not possible')).toMatch(/does not know the payment/);
      expect(hooks(500, 'NullPointerException')).toMatch(/does not know the payment/);
      expect(hooks(422, 'payment is in status AWAITING_AUTHORIZATION')).toBeUndefined();
      expect(hooks(422, 'Payment status COMPLETED: refunds need SETTLED')).toBeUndefined();
      expect(hooks(401, 'bad secret')).toBeUndefined();
      expect(hooks(403, 'not yours')).toBeUndefined();
    });
  },
);

describe.concurrent(
  'a hook that fails every call makes the audit INCOMPLETE (exit 4) naming the hook, never PASS',
  () => {
    it.each([
      [
        'exits 1',
        ['sh', '-c', 'echo "hook backend down" >&2; exit 1', 'hook'],
        /exited with 1: hook backend down/,
        /exited with 1: hook backend down/,
      ],
      [
        'answers amount as a JSON number (and the same to every state)',
        ['sh', '-c', `echo '{"paymentId":"${UNKNOWN}","amount":100.00}'`, 'hook'],
        /answered settled-payment 100\.00.* outside the state hook contract: \/amount/,
        /answered payment-webhook .* outside the state hook contract: \/status/,
      ],
    ] as const)(
      'a hook that %s',
      { timeout: 120_000 },
      async (_, command, refundWords, paymentWords) => {
        const { code, report } = await auditWithHook(command);
        expect(failing(report)).toEqual([]);
        expect(code).toBe(4);
        expect(report.verdict).toBe('incomplete');
        // Every check that needed the hook's payment says the hook failed, in its words; none passes on the config's.
        for (const id of [
          'refund-partial-accepted',
          'refund-to-original-account',
          'webhook-payment-status-changes',
        ]) {
          const r = byId(report).get(id);
          expect(r?.outcome, `${id}: ${JSON.stringify(r)}`).toBe('skip');
          expect(r?.message).toMatch(/the state hook command sh/);
          expect(r?.message).toMatch(id.startsWith('refund') ? refundWords : paymentWords);
          expect(r?.message).toMatch(
            /an error of the state hook, not a finding against the target/,
          );
        }
      },
    );
  },
);

/** An embedded target without /sandbox/ whose config names a hook that exits 1 on every call, and no payments. */
async function withFailingHook(run: (context: ServerAuditContext) => Promise<void>): Promise<void> {
  const t = await startEmbeddedTarget({ sandboxPath: false });
  try {
    await run({
      ...t.context,
      stateHook: { command: ['sh', '-c', 'echo "hook backend down" >&2; exit 1', 'hook'] },
      payments: { settled: [], unsettled: t.context.payments.unsettled },
    });
  } finally {
    await t.close();
  }
}

describe.concurrent('explore-model with a hook that made no payment is never a pass', () => {
  it(
    'every settled-payment call of a hook that exits 1 failed, its last words kept',
    { timeout: 60_000 },
    () =>
      withFailingHook(async (context) => {
        const o = await explore(context, exploreEnv(40_000), SHORT_EXPLORATION);
        expect(o.cost.payments).toBe(0);
        const tally = hookPaymentTally(context);
        expect(tally?.asked, exploreSummary(o)).toBeGreaterThan(0);
        expect(tally).toMatchObject({
          made: 0,
          lastFailure: expect.stringMatching(/exited with 1: hook backend down/),
        });
      }),
  );

  it(
    'a skip (INCOMPLETE) naming the hook and its last words; its errors are not called open readings of the spec',
    { timeout: 60_000 },
    () =>
      withFailingHook(async (context) => {
        const check = createExploreCheck(SHORT_EXPLORATION);
        const findings = await check.run(context, exploreEnv(40_000));
        const skipped = findings.filter((f) => f.outcome === 'skip');
        expect(skipped.map((f) => f.message).join('\n')).toMatch(
          /the state hook made none of the \d+ settled payment\(s\).*exited with 1: hook backend down.*an error of the state hook/,
        );
        expect(findings.some((f) => f.outcome === 'violation')).toBe(false);
      }),
  );
});

describe('a hook command whose program is not there is refused with the config (exit 2), before any check runs', () => {
  /** `audit server` with `stateHook.command` given; the target does not answer (a run that starts ends with exit 3). */
  async function withHook(command: readonly string[], configDir = dir) {
    mkdirSync(configDir, { recursive: true });
    const file = join(configDir, `refused-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, JSON.stringify({ stateHook: { command } }));
    const port = await unusedLoopbackPort();
    const io = memoryIo({ env: { PATH: process.env['PATH'] ?? '' } });
    const code = await main(
      ['audit', 'server', '--target', `http://127.0.0.1:${port}`, '--config', file, '--no-explore'],
      io,
    );
    return { code, stdout: io.out.join(''), stderr: io.err.join('') };
  }

  it(
    'a relative path, an absolute path or a bare name that is not there',
    { timeout: 30_000 },
    async () => {
      for (const [program, said] of [
        [
          './hooks/no-such-hook.sh',
          /"\.\/hooks\/no-such-hook\.sh", which does not exist \(.*a relative path is the working directory's/,
        ],
        [join(dir, 'no-such-hook.sh'), /no-such-hook\.sh", which does not exist/],
        [
          'payconform-no-such-hook-program',
          /"payconform-no-such-hook-program", which is not on PATH/,
        ],
      ] as const) {
        const r = await withHook([program, 'arg']);
        expect(r.code, `${program}: ${r.stderr}`).toBe(2);
        expect(r.stderr).toMatch(/"stateHook\.command" names the program/);
        expect(r.stderr).toMatch(said);
        expect(r.stdout).not.toMatch(/verdict|unreachable/i);
      }
    },
  );

  it(
    "a program written relative to the config's folder: refused, pointing there; a path that is there starts",
    { timeout: 30_000 },
    async () => {
      const configDir = join(dir, 'conf');
      mkdirSync(join(configDir, 'hooks'), { recursive: true });
      const hook = join(configDir, 'hooks', 'state-hook.sh');
      writeFileSync(hook, '#!/bin/sh\nexit 3\n');
      chmodSync(hook, 0o755);
      const refused = await withHook(['hooks/state-hook.sh'], configDir);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(
        new RegExp(
          `the config's folder has it: write "${relative(process.cwd(), hook).replace(/[.]/g, '\\.')}"`,
        ),
      );
      // Written from the working directory (or absolute), it starts: the run goes on to the target, which does not answer.
      for (const program of [relative(process.cwd(), hook), hook])
        expect((await withHook([program], configDir)).code).toBe(3);
    },
  );
});
