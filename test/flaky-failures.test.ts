// Flaky failures named (conformance/run/flaky.ts): a failing check runs once more, alone, before its failure is reported;
// a failure that does not happen again is a warning marked flaky with both runs, never dropped and never a pass, and
// `--fail-on flaky` fails the run on it. A check that fails again, or whose second run reaches no verdict, keeps its
// failure; a check that says a second run would say nothing, or a suite that says never, runs once. Every report shows
// it. And the replay plan (conformance/report/replay-plan.ts): how each failure of a report runs again, and what became of it.
import { describe, expect, it } from 'vitest';
import { engineOptions, type Ctx } from './fixtures/engine-run.js';
import { pass, violation, type Check, type Finding } from '../conformance/run/check.js';
import { runChecks } from '../conformance/run/engine.js';
import { exitCodeFor, verdictFor } from '../conformance/run/exit-code.js';
import { validateAgainst } from '../src/schemas/index.js';
import { toJsonReport } from '../conformance/reporters/json.js';
import { renderJunitReport } from '../conformance/reporters/junit.js';
import { renderConsoleSummary } from '../conformance/reporters/console.js';
import { renderMarkdownReport } from '../conformance/reporters/markdown.js';
import { renderHtmlReport } from '../conformance/reporters/html.js';
import { FAIL_ON, type CheckResult, type RunSummary } from '../conformance/run/result.js';
import { parseFailOn } from '../cli/audit-command.js';
import {
  judgeReplay,
  messageKind,
  replayPlan,
  type ReplayFailure,
} from '../conformance/report/replay-plan.js';
import type { JsonReport } from '../conformance/reporters/json.js';

const REQUIREMENT = 'SIG-VERIFY-CREATED-WINDOW';
const broken = (message = 'an expired signature was accepted'): Finding =>
  violation(message, { requirement: REQUIREMENT, expected: 'a rejection', received: '201' });
const fine = (): Finding => pass('rejected', { requirement: REQUIREMENT });

/** A check that answers each call with the next of `answers` (the last one repeated), counting its calls. */
function scripted(
  id: string,
  answers: ReadonlyArray<() => Promise<readonly Finding[]> | readonly Finding[]>,
  extra: Partial<Check<Ctx>> = {},
): Check<Ctx> & { readonly calls: () => number } {
  let calls = 0;
  return {
    id,
    title: `synthetic ${id}`,
    area: 'synthetic',
    requirements: [REQUIREMENT],
    level: 'MUST',
    appliesTo: 'server',
    run: async () => answers[Math.min(calls++, answers.length - 1)]!(),
    calls: () => calls,
    ...extra,
  };
}

const options = engineOptions;

const resultOf = (s: RunSummary, id: string): CheckResult => s.results.find((r) => r.id === id)!;

describe('a failure runs once more, alone, before it is reported', () => {
  it('a failure that does not happen again is a warning marked flaky, with both runs', async () => {
    const once = scripted('fails-once', [() => [broken()], () => [fine()]]);
    const summary = await runChecks(options([once]));
    const r = resultOf(summary, 'fails-once');
    expect(once.calls()).toBe(2);
    expect(r.outcome).toBe('warn');
    expect(r.flaky).toBe(true);
    expect(r.message).toMatch(
      /^flaky: an expired signature was accepted .*run once more alone: pass/,
    );
    // The first run's failing finding is kept, as a warning, with its evidence; the second run rides along.
    expect(r.findings).toMatchObject([
      { outcome: 'warn', flaky: true, level: 'MUST', received: '201', requirement: REQUIREMENT },
    ]);
    expect(r.again).toMatchObject({ outcome: 'pass', findings: [{ outcome: 'pass' }] });
    expect(summary.counts).toMatchObject({ warn: 1, fail: 0, flaky: 1 });
    // Never a pass: counted as a warning; the run passes unless --fail-on flaky (or warn) says otherwise.
    expect(verdictFor(summary).verdict).toBe('pass');
    const gated = { ...summary, gate: { failOn: parseFailOn(['flaky']), allowSkips: false } };
    expect(verdictFor(gated)).toMatchObject({
      verdict: 'fail',
      reasons: ['1 flaky check(s) under --fail-on flaky'],
    });
    expect(exitCodeFor(gated)).toBe(1);
  });

  it('a failure that happens again is reported as it came, once', async () => {
    const always = scripted('fails-always', [() => [broken()]]);
    const summary = await runChecks(options([always]));
    const r = resultOf(summary, 'fails-always');
    expect(always.calls()).toBe(2);
    expect(r.outcome).toBe('fail');
    expect(r.flaky).toBeUndefined();
    expect(r.again).toBeUndefined();
    expect(summary.counts.flaky).toBeUndefined();
  });

  it('a second run that reaches no verdict (throws) leaves the failure standing', async () => {
    const shaky = scripted('fails-then-throws', [
      () => [broken()],
      () => {
        throw new Error('connection reset');
      },
    ]);
    const r = resultOf(await runChecks(options([shaky])), 'fails-then-throws');
    expect(r.outcome).toBe('fail');
    expect(r.flaky).toBeUndefined();
  });

  it('a passing check, and a warning, run once', async () => {
    const passing = scripted('passes', [() => [fine()]]);
    const warning = scripted('warns', [() => [broken()]], { level: 'SHOULD' });
    await runChecks(options([passing, warning]));
    expect(passing.calls()).toBe(1);
    expect(warning.calls()).toBe(1);
  });

  it('never again: a check that says why, or a suite that says never (whatever its checks say)', async () => {
    const recorded = scripted('judges-a-recording', [() => [broken()], () => [fine()]], {
      neverRerun: 'it judges what was recorded',
    });
    expect(resultOf(await runChecks(options([recorded])), recorded.id).outcome).toBe('fail');
    expect(recorded.calls()).toBe(1);

    const inSuite = scripted('in-a-never-suite', [() => [broken()], () => [fine()]]);
    let replayed = 0;
    const ownWay = scripted('replays-its-token', [() => [broken()]], {
      rerunFailure: async () => (replayed++, [fine()]),
    });
    const never = await runChecks(
      options([inSuite, ownWay], { rerunFailures: { never: 'client requests' } }),
    );
    expect(inSuite.calls()).toBe(1);
    expect(resultOf(never, inSuite.id).outcome).toBe('fail');
    expect(replayed).toBe(0);
    expect(resultOf(never, ownWay.id).outcome).toBe('fail');
    // By default a check's own way runs in place of `run` (a drawn check's same draw).
    const summary = await runChecks(options([ownWay]));
    expect(ownWay.calls()).toBe(2);
    expect(replayed).toBe(1);
    expect(resultOf(summary, ownWay.id)).toMatchObject({ outcome: 'warn', flaky: true });
  });

  it('alone: the second run starts after every other check has ended', async () => {
    const timeline: string[] = [];
    let firstRan: () => void = () => undefined;
    const firstRunEnded = new Promise<void>((resolve) => (firstRan = resolve));
    const failing = scripted('fails-fast', [
      () => (timeline.push('first run'), firstRan(), [broken()]),
      () => (timeline.push('second run'), [fine()]),
    ]);
    const slow = scripted('slow', [
      async () => {
        // Ends after the failing check's first run, and after the engine has taken its result (no fixed wait).
        await firstRunEnded;
        await new Promise((resolve) => setImmediate(resolve));
        timeline.push('slow ended');
        return [fine()];
      },
    ]);
    await runChecks(options([failing, slow], { concurrency: 4 }));
    expect(timeline).toEqual(['first run', 'slow ended', 'second run']);
  });

  it('an aborted run reports the failure as it came, without a second run', async () => {
    const controller = new AbortController();
    let firstRan: () => void = () => undefined;
    const firstRunEnded = new Promise<void>((resolve) => (firstRan = resolve));
    const failing = scripted('fails-then-abort', [() => (firstRan(), [broken()]), () => [fine()]]);
    const aborting = scripted('aborts-the-run', [
      async () => {
        await firstRunEnded;
        await new Promise((resolve) => setImmediate(resolve));
        controller.abort();
        return [fine()];
      },
    ]);
    const summary = await runChecks(options([failing, aborting], { signal: controller.signal }));
    expect(failing.calls()).toBe(1);
    expect(resultOf(summary, failing.id).outcome).toBe('fail');
  });
});

describe('every report says flaky', () => {
  it('JSON (valid against the schema), JUnit under --fail-on flaky, console, Markdown, HTML', async () => {
    const once = scripted('fails-once', [() => [broken()], () => [fine()]]);
    const summary = {
      ...(await runChecks(options([once]))),
      gate: { failOn: parseFailOn(['flaky']), allowSkips: false },
    };
    const json = toJsonReport(summary);
    const checked = validateAgainst(
      'https://payconform.dev/schemas/conformance-report.schema.json',
      JSON.parse(JSON.stringify(json)),
    );
    expect(checked.valid ? [] : checked.errors).toEqual([]);
    expect(json).toMatchObject({ verdict: 'fail', exitCode: 1, counts: { flaky: 1 } });
    expect(renderJunitReport(summary)).toMatch(
      /<failure message="\[flaky, failed by --fail-on flaky\][^"]*" type="flaky">/,
    );
    const text = renderConsoleSummary(summary);
    expect(text).toContain('WARN (flaky) fails-once');
    expect(text).toContain('[warn, flaky] an expired signature was accepted');
    expect(text).toContain('run once more alone: pass');
    expect(renderMarkdownReport(summary)).toContain('**WARN (flaky)**');
    expect(renderHtmlReport(summary)).toContain('WARN, FLAKY');
  });

  it('--fail-on names flaky; anything else is refused with the list', () => {
    expect(FAIL_ON).toContain('flaky');
    expect(parseFailOn(['warn,flaky'])).toEqual(['warn', 'flaky']);
    expect(() => parseFailOn(['flakey'])).toThrow(/unexercised or flaky/);
  });
});

/** A report of `role` whose results are the given ones (the rest as a JSON report has it). */
function reportWith(role: JsonReport['role'], results: readonly CheckResult[]): JsonReport {
  return { role, results, target: 'http://127.0.0.1:1' } as unknown as JsonReport;
}

function failed(id: string, findings: CheckResult['findings']): CheckResult {
  return {
    id,
    title: id,
    area: 'a',
    level: 'MUST',
    appliesTo: 'server',
    requirements: [REQUIREMENT],
    outcome: 'fail',
    message: findings[0]?.message ?? '',
    findings,
    durationMs: 1,
  };
}

describe('replay plan: how each failure of a report runs again', () => {
  const known = new Set(['created-expired', 'signature-forgeries', 'explore-model']);
  const failing = (message: string, reproduce?: string): CheckResult['findings'][number] => ({
    outcome: 'fail',
    level: 'MUST',
    message,
    requirement: REQUIREMENT,
    ...(reproduce !== undefined ? { evidence: { reproduce } } : {}),
  });

  it('a fixed check by id, the explorer by its token, the forgeries by their seed, the rest named', () => {
    const plan = replayPlan(
      reportWith('server', [
        failed('created-expired', [failing('an expired signature was accepted')]),
        failed('explore-model', [
          failing(
            'the payout webhook names another application [step 2 of the shrunk sequence]',
            "payconform audit server --target 'http://x' --explore-only --explore-replay '1~0:1:0~AABAF:V'",
          ),
        ]),
        failed('signature-forgeries', [
          failing(
            'a create-payout request with X was accepted',
            'curl ...\n# drawn again: payconform audit server --only signature-forgeries --forge-seed 42',
          ),
        ]),
        failed('retired-check', [failing('gone')]),
        { ...failed('passes', []), outcome: 'pass' },
      ]),
      known,
    );
    expect(plan.map((f) => [f.check, f.way])).toEqual([
      ['created-expired', { kind: 'check' }],
      ['explore-model', { kind: 'explore', token: '1~0:1:0~AABAF:V' }],
      ['signature-forgeries', { kind: 'forge', seed: 42 }],
      [
        'retired-check',
        { kind: 'not-replayable', reason: 'this version of payconform has no check of that id' },
      ],
    ]);
  });

  it('client and receiver failures are not replayable, each with why', () => {
    for (const role of ['client', 'receiver'] as const) {
      const plan = replayPlan(reportWith(role, [failed('created-expired', [failing('x')])]), known);
      expect(plan).toHaveLength(1);
      expect(plan[0]!.way.kind).toBe('not-replayable');
      expect(judgeReplay(plan[0]!, undefined).verdict).toBe('NOT REPLAYABLE');
    }
  });

  it('judged: FIXED, STILL FAILING (same requirement and kind of message), CHANGED, UNDECIDED', () => {
    const [f] = replayPlan(
      reportWith('server', [
        failed('created-expired', [failing('a signature 301 s old was accepted (201)')]),
      ]),
      known,
    ) as [ReplayFailure];
    expect(judgeReplay(f, { ...failed('created-expired', []), outcome: 'pass' }).verdict).toBe(
      'FIXED',
    );
    // Another number, the same kind of message: still failing.
    expect(
      judgeReplay(
        f,
        failed('created-expired', [failing('a signature 305 s old was accepted (200)')]),
      ).verdict,
    ).toBe('STILL FAILING');
    expect(
      judgeReplay(f, failed('created-expired', [failing('the answer was not a Payout resource')]))
        .verdict,
    ).toBe('CHANGED');
    expect(
      judgeReplay(f, failed('created-expired', [{ ...failing('x'), requirement: 'LIMIT-NONCE' }]))
        .verdict,
    ).toBe('CHANGED');
    expect(judgeReplay(f, { ...failed('created-expired', []), outcome: 'error' }).verdict).toBe(
      'UNDECIDED',
    );
    expect(judgeReplay(f, undefined).verdict).toBe('UNDECIDED');
  });

  it("a message's kind drops what differs from run to run", () => {
    expect(messageKind('payout "ab12" answered 201 [step 3 of the shrunk sequence] (id 9f)')).toBe(
      'payout answered',
    );
  });
});
