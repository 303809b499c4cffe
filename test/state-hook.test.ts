// The state hook (docs/state-hook.md): the contract judges answers, the config checks a
// hook's place, and the starter hook (vectors/adapters/python/state_hook.py, as an HTTP server, as a command per
// request and as a command that stays) lets the explorer make its own payments on a service whose /sandbox/ is not
// where the audit looks (served at a private path, standing in for an implementer's test database), with no failure,
// and find the refund faults only the explorer finds; the payment checks make their payments through it and catch
// their faults, and the signing checks read payouts through the contract. One path: no check or explorer code calls
// /sandbox/ but the contract's provider (a source scan). A child process only for the starter: a Python program is the
// point.
// Budget: the correct services run 2 seeds as a URL and as a command that stays, 1 as a command per request (10 each
// with PAYCONFORM_LONG_TESTS=1), each exploration 4 sequences per lane within 4 s (enough to make payments and refunds
// through the hook: asserted); each fault search runs the default 15 s budget, up to three seeds.
// The suites from the starter hook on run side by side (describe.concurrent): each test starts its own services and
// hook, and they wait on them far more than they compute (the file: about 25 s of CPU).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { auditTarget, startEmbeddedTarget } from '../cli/commands/audit-server.js';
import type { ServerAuditContext } from '../conformance/checks/server/context.js';
import { resolveConfig } from '../conformance/config/config.js';
import { ExchangeLog, withExchangeLog } from '../conformance/http/exchange-log.js';
import { newTraceId, traceIdOf, withTrace } from '../conformance/http/trace-context.js';
import { refundDestinationChecks } from '../conformance/checks/server/refund-destination.js';
import { auditConfigFor } from '../cli/commands/serve.js';
import { main } from '../cli/main.js';
import { startReferenceService } from '../server/index.js';
import { memoryIo } from './fixtures/memory-io.js';
import { explore, exploreSummary } from '../conformance/explore/explorer.js';
import { judgeAnswer } from '../conformance/state-hook/contract.js';
import { askState, closeStateHook, type StateHookConfig } from '../conformance/state-hook/index.js';
import type { FaultName, ServiceVariant } from '../server/index.js';
import {
  exploreEnv as env,
  searchFresh,
  startStarterHook,
  STARTER_HOOK,
} from './fixtures/explore-targets.js';

const LONG = process.env['PAYCONFORM_LONG_TESTS'] === '1';
const [refundToOriginalAccount] = refundDestinationChecks;
const SEEDS = LONG ? 10 : 2;
/**
 * Sequences per lane of a correct service's exploration (six lanes: 24 sequences, some 80 steps), within the 4 s it
 * had: on a quiet machine the quick lanes stop at the count instead of exploring on for the rest of the 4 s (a
 * command per request starts Python for every state). Not a longer bound: past the exploring time the patient
 * lanes' waits are cut, within it they would be waited out.
 */
const RUNS_PER_LANE = 4;
const PRIVATE = '/private-helpers';

describe('the contract', () => {
  it('admits an answer with what the state needs, and names what a wrong one lacks', () => {
    const ask = { state: 'settled-payment', amount: '25.00' } as const;
    expect(judgeAnswer(ask, { paymentId: 'p1', amount: '25.00' }, 'hook').kind).toBe('made');
    const wrong = judgeAnswer(ask, { amount: 25 }, 'hook');
    expect(wrong.kind).toBe('failed');
    expect(wrong.kind === 'failed' && wrong.reason).toMatch(
      /outside the state hook contract: .*paymentId/,
    );
  });

  it('the config takes an https URL, http on loopback, or a command; refuses plain http elsewhere and credentials', () => {
    const hook = (stateHook: unknown) => resolveConfig({ stateHook }, {});
    expect(hook({ url: 'https://hooks.example/state' })).toMatchObject({ ok: true });
    expect(hook({ url: 'http://127.0.0.1:8099/' })).toMatchObject({ ok: true });
    expect(hook({ command: ['python3', 'hook.py'] })).toMatchObject({ ok: true });
    expect(hook({ url: 'http://hooks.example/state' })).toMatchObject({ ok: false });
    expect(hook({ url: 'https://u:p@hooks.example/' })).toMatchObject({ ok: false });
    expect(hook({ url: 'https://a.example/', command: ['x'] })).toMatchObject({ ok: false });
  });

  it('without a hook or /sandbox/, a state is not offered, with how to offer one', async () => {
    const t = await startEmbeddedTarget({ sandboxPath: false });
    try {
      expect(t.context.sandbox).toBe(false);
      const r = await askState(t.context, env(10_000), { state: 'unsettled-payment' });
      expect(r).toMatchObject({ kind: 'not-offered' });
      expect(r.kind === 'not-offered' && r.reason).toMatch(/stateHook/);
    } finally {
      await t.close();
    }
  });
});

describe('a hook command that misbehaves gives a readable reason, never a throw or a hang', () => {
  const ask = async (script: string, timeoutMs = 1_000) => {
    const t = await startEmbeddedTarget({ sandboxPath: false });
    try {
      const context = {
        ...t.context,
        requestTimeoutMs: timeoutMs,
        stateHook: { command: ['sh', '-c', script, 'hook'] },
      } as ServerAuditContext;
      return await askState(context, env(20_000), { state: 'settled-payment', amount: '1.00' });
    } finally {
      await t.close();
    }
  };

  it('exit 3: not offered, with its reason; exit 1: failed, quoting its last stderr line', async () => {
    expect(await ask('echo \'{"reason":"no payments here"}\'; exit 3')).toEqual({
      kind: 'not-offered',
      reason: 'the state hook command sh does not offer settled-payment 1.00: no payments here',
    });
    const failed = await ask('echo boom >&2; exit 1');
    expect(failed).toMatchObject({ kind: 'failed' });
    expect(failed.kind === 'failed' && failed.reason).toMatch(/exited with 1: boom/);
  });

  it('an answer that is not JSON, or lacks what the contract requires, is a failed state', async () => {
    for (const script of ['echo not json', 'echo \'{"paymentId": 7}\''])
      expect(await ask(script), script).toMatchObject({
        kind: 'failed',
        reason: expect.stringMatching(/outside the state hook contract/),
      });
  });

  it('a command that does not finish is stopped (twice the request timeout)', async () => {
    const started = Date.now();
    const r = await ask('sleep 30', 500);
    expect(r).toMatchObject({ kind: 'failed', reason: expect.stringMatching(/did not finish/) });
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe('payconform serve --sandbox-path', () => {
  it('off or a private path: /sandbox/ answers 404, the written audit config says "sandbox": false', async () => {
    for (const sandboxPath of [false, PRIVATE] as const) {
      const s = await startReferenceService({ sandboxPath, seedPayments: true });
      try {
        expect((await fetch(`${s.baseUrl}/sandbox/payments`)).status).toBe(404);
        expect(auditConfigFor(s, {}).config['sandbox']).toBe(false);
        const there = await fetch(`${s.baseUrl}${PRIVATE}/payments`);
        expect(there.status).toBe(sandboxPath === false ? 404 : 200);
      } finally {
        await s.close();
      }
    }
  });

  it('refuses anything but a plain path or off (exit 2, before it starts)', async () => {
    const io = memoryIo();
    expect(await main(['serve', '--sandbox-path', '../x y'], io)).toBe(2);
    expect(io.err.join('')).toMatch(/--sandbox-path takes a path/);
  });
});

/** The embedded service with /sandbox/ at a private path, and the audit context naming `hook` (no config payments). */
async function behindHook(
  form: 'url' | 'command' | 'command that stays',
  options: { faults?: FaultName[]; variant?: ServiceVariant } = {},
) {
  const t = await startEmbeddedTarget({ ...options, sandboxPath: PRIVATE });
  const backend = `${t.context.baseUrl}${PRIVATE}`;
  const server = form === 'url' ? await startStarterHook(backend) : undefined;
  const command = ['env', `STATE_HOOK_BACKEND=${backend}`, 'python3', STARTER_HOOK] as const;
  const stateHook: StateHookConfig =
    server !== undefined
      ? { url: server.url }
      : form === 'command that stays'
        ? { command: [...command, '--lines'], lines: true }
        : { command: [...command] };
  const context: ServerAuditContext = {
    ...t.context,
    stateHook,
    payments: { settled: [], unsettled: t.context.payments.unsettled },
  };
  return {
    context,
    /** The same, as a target the audit runs its checks against. */
    target: { ...t, context },
    close: async () => {
      await closeStateHook(stateHook);
      await server?.stop();
      await t.close();
    },
  };
}

describe.concurrent('the starter hook, on a service whose /sandbox/ the audit does not see', () => {
  let probe: Awaited<ReturnType<typeof behindHook>>;
  beforeAll(async () => {
    probe = await behindHook('url');
  });
  afterAll(async () => probe.close());

  it('/sandbox/ answers 404 there; the hook makes a settled payment with its payer, and says 501 for what it lacks', async () => {
    expect(probe.context.sandbox).toBe(false);
    expect((await fetch(`${probe.context.baseUrl}/sandbox/payments`)).status).toBe(404);
    const made = await askState(probe.context, env(10_000), {
      state: 'settled-payment',
      amount: '12.34',
      payer: true,
    });
    expect(made).toMatchObject({ kind: 'made', answer: { amount: '12.34' } });
    expect(made.kind === 'made' && made.answer['payer']).toMatchObject({
      name: expect.any(String),
    });
    const lacking = await askState(probe.context, env(10_000), { state: 'unsettled-payment' });
    expect(lacking).toMatchObject({ kind: 'not-offered' });
    expect(lacking.kind === 'not-offered' && lacking.reason).toMatch(
      /does not offer unsettled-payment/,
    );
  });

  it("its request and answer are in the run's exchange log (the HAR) like any exchange, in the check's trace", async () => {
    const log = new ExchangeLog();
    const traceId = newTraceId();
    await withExchangeLog(log, () =>
      withTrace(
        () => askState(probe.context, env(10_000), { state: 'settled-payment', amount: '3.21' }),
        traceId,
      ),
    );
    const hook = probe.context.stateHook as { url: string };
    const entry = log.entries().find((e) => e.request.url === hook.url);
    expect(new TextDecoder().decode(entry?.request.body)).toContain(
      '"contract":"payconform-state-hook/1"',
    );
    expect(entry?.response?.status).toBe(200);
    expect(entry?.response?.bodyText).toContain('"amount": "3.21"');
    // The traceparent the hook URL was sent: the asking check's trace, a span of its own.
    expect(traceIdOf(entry!.request.headers)).toBe(traceId);
  });

  // A command per request starts Python for every state (most of this file's CPU when it explored as long as the
  // others): one seed shows the explorer's payments and refunds go through it; the command that stays, asked line by
  // line, is the same program and the same contract at the URL's cost, and runs every seed.
  it.each([
    ['url', SEEDS],
    ['command', LONG ? SEEDS : 1],
    ['command that stays', SEEDS],
  ] as const)(
    `as a %s: %i seed(s) on clean and alt make payments and refunds through it and find nothing`,
    { timeout: 240_000 },
    async (form, seeds) => {
      const bad: string[] = [];
      for (const variant of ['clean', 'alt'] as const)
        for (let i = 0; i < seeds; i++) {
          const t = await behindHook(form, { variant });
          try {
            const o = await explore(t.context, env(60_000), {
              runs: RUNS_PER_LANE,
              seconds: 4,
              seed: 3000 + i,
            });
            if (o.failure !== undefined || o.error !== undefined)
              bad.push(`${variant} seed ${o.seed}: ${o.error ?? o.failure!.violation.message}`);
            expect(o.cost.payments, exploreSummary(o)).toBeGreaterThan(0);
            expect(o.cost.refunds, exploreSummary(o)).toBeGreaterThan(0);
          } finally {
            await t.close();
          }
        }
      expect(bad).toEqual([]);
    },
  );
});

describe.concurrent(
  'refund-to-original-account through the starter hook (the payer of a payment it made)',
  () => {
    it.each([
      [[], 'pass'],
      [['refund-arbitrary-destination'], 'violation'],
    ] as const)('faults %j: %s', { timeout: 60_000 }, async (faults, outcome) => {
      const t = await behindHook('url', { faults: [...faults] });
      try {
        const findings = await refundToOriginalAccount.run(t.context, env(45_000));
        const judged = findings.filter((f) => f.requirement === 'REFUND-ORIGINAL-ACCOUNT');
        expect(judged.length, JSON.stringify(findings)).toBeGreaterThan(0);
        expect(judged.map((f) => f.outcome)).toContain(outcome);
        if (outcome === 'pass') expect(findings.map((f) => f.outcome)).not.toContain('violation');
      } finally {
        await t.close();
      }
    });
  },
);

describe.concurrent(
  'the refund faults only the explorer finds, found through the starter hook',
  () => {
    it.each([
      ['refund-cap-large-payment', 'REFUND-TOTAL-CAP'],
      ['refund-active-lapses', 'REFUND-ONE-ACTIVE'],
    ] as const)('%s: %s', { timeout: 240_000 }, async (fault, requirement) => {
      const o = await searchFresh(() => behindHook('url', { faults: [fault] }));
      expect(o.error).toBeUndefined();
      expect(o.failure?.violation.judgement.requirement, exploreSummary(o)).toBe(requirement);
      expect(o.cost.payments).toBeGreaterThan(0);
    });
  },
);

describe.concurrent(
  'the payment checks through the starter hook (payment-webhook), on a service whose /sandbox/ the audit does not see',
  () => {
    const PAYMENT_CHECKS = [
      'webhook-payment-status-changes',
      'payment-reference-assigned',
    ] as const;
    const FORMS = ['url', 'command'] as const;
    const audit = async (
      form: (typeof FORMS)[number],
      options: { faults?: FaultName[]; variant?: ServiceVariant },
    ) => {
      const t = await behindHook(form, options);
      try {
        return await auditTarget(t.target, { only: [...PAYMENT_CHECKS] });
      } finally {
        await t.close();
      }
    };
    const outcomes = (summary: Awaited<ReturnType<typeof audit>>) =>
      Object.fromEntries(summary.results.map((r) => [r.id, r.outcome]));

    it.each(
      (['clean', 'alt', 'lenient'] as const).flatMap((v) => FORMS.map((f) => [v, f] as const)),
    )('%s, the hook as a %s: both pass', { timeout: 60_000 }, async (variant, form) => {
      const summary = await audit(form, { variant });
      expect(outcomes(summary), JSON.stringify(summary.results)).toEqual({
        'webhook-payment-status-changes': 'pass',
        'payment-reference-assigned': 'pass',
      });
    });

    it.each([
      ['payment-webhook-missing', 'webhook-payment-status-changes', 'WEBHOOK-PAYMENT-EMITTED'],
      [
        'payment-webhook-completed-missing',
        'webhook-payment-status-changes',
        'WEBHOOK-PAYMENT-EMITTED',
      ],
      ['payment-reference-kept', 'payment-reference-assigned', 'PAYMENT-REFERENCE-ASSIGNED'],
    ] as const)(
      'fault %s fails %s (%s), the hook as a URL and as a command',
      { timeout: 60_000 },
      async (fault, id, requirement) => {
        for (const form of FORMS) {
          const summary = await audit(form, { faults: [fault] });
          const r = summary.results.find((x) => x.id === id);
          expect(r?.outcome, `${form}: ${JSON.stringify(r)}`).toBe('fail');
          expect(
            r?.findings.filter((f) => f.outcome === 'fail').map((f) => f.requirement),
          ).toContain(requirement);
        }
      },
    );

    it(
      'a hook that answers payment-webhook with 501 makes only these checks skip, with its reason',
      {
        timeout: 60_000,
      },
      async () => {
        const t = await behindHook('url');
        try {
          const backend = `${t.context.baseUrl}${PRIVATE}`;
          // The starter for every state but payment-webhook, which it does not offer (exit 3, with a reason).
          const script = `case "$1" in *'"payment-webhook"'*) echo '{"reason":"no payments here"}'; exit 3;; esac; exec python3 "$0" "$1"`;
          const stateHook: StateHookConfig = {
            command: ['env', `STATE_HOOK_BACKEND=${backend}`, 'sh', '-c', script, STARTER_HOOK],
          };
          const summary = await auditTarget(
            { ...t.target, context: { ...t.context, stateHook } },
            { only: [...PAYMENT_CHECKS, 'refund-partial-accepted'] },
          );
          expect(outcomes(summary)).toEqual({
            'webhook-payment-status-changes': 'skip',
            'payment-reference-assigned': 'skip',
            'refund-partial-accepted': 'pass',
          });
          for (const id of PAYMENT_CHECKS)
            expect(summary.results.find((r) => r.id === id)?.message).toMatch(
              /does not offer payment-webhook.*: no payments here/,
            );
        } finally {
          await t.close();
        }
      },
    );
  },
);

describe.concurrent(
  'payouts: the signing checks read the payouts a target holds through the contract',
  () => {
    it(
      'the /sandbox/ provider lists none for an unknown reference, and those rejected requests made (creates-on-rejection)',
      {
        timeout: 60_000,
      },
      async () => {
        const t = await startEmbeddedTarget({ faults: ['creates-on-rejection'] });
        try {
          const none = await askState(t.context, env(10_000), {
            state: 'payouts',
            references: ['no-such-reference'],
          });
          expect(none).toEqual({ kind: 'made', answer: { payouts: [] } });
          const summary = await auditTarget(t, { only: ['signature-headers-missing'] });
          const failing = summary.results[0]?.findings.find((f) => f.outcome === 'fail');
          expect(failing?.evidence?.notes, JSON.stringify(summary.results[0])).toMatch(
            /the target's \/sandbox\/ lists [1-9]\d* payout\(s\) with reference/,
          );
        } finally {
          await t.close();
        }
      },
    );
  },
);

/** Every .ts file under `dir` (relative to the repository root), recursively. */
function sourcesUnder(dir: string): string[] {
  return readdirSync(new URL(`../${dir}`, import.meta.url), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sourcesUnder(`${dir}/${e.name}`)
      : e.name.endsWith('.ts')
        ? [`${dir}/${e.name}`]
        : [],
  );
}

describe('one path: no check or explorer code reaches /sandbox/ except through the contract provider', () => {
  /** The one module that calls /sandbox/: the contract's provider. */
  const PROVIDER = ['conformance/state-hook/sandbox-provider.ts'];
  /** A /sandbox/ path written in code (`/sandbox/...`, `/sandbox${path}`), or a call of the helpers that reach it. */
  const REACHES_SANDBOX = /sandbox(Call|Request|PayoutsWith)\s*\(|\/sandbox(\/[a-z{$]|\$\{)/;

  it('only the provider module calls the /sandbox/ helpers or writes a /sandbox/ path', () => {
    const code = (file: string) =>
      readFileSync(new URL(`../${file}`, import.meta.url), 'utf8')
        .split('\n')
        .filter((line) => !/^\s*(\/\/|\*|\/\*\*)/.test(line));
    const offenders = ['conformance/checks', 'conformance/explore', 'conformance/state-hook']
      .flatMap(sourcesUnder)
      .filter((file) => !PROVIDER.includes(file))
      .flatMap((file) =>
        code(file)
          .filter((line) => REACHES_SANDBOX.test(line))
          .map((line) => `${file}: ${line.trim()}`),
      );
    expect(offenders).toEqual([]);
  });
});
