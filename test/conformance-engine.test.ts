// The engine: start-up validation, selection, grading by level, "not shown" never failing, errors, timeouts,
// concurrency limits, serial checks and groups, events, coverage, exit codes.
import { describe, expect, it } from 'vitest';
import { engineOptions, type Ctx } from './fixtures/engine-run.js';
import {
  inconclusive,
  observation,
  pass,
  skip,
  violation,
  type Check,
  type Finding,
} from '../conformance/run/check.js';
import { ConformanceSetupError, runChecks, selectChecks } from '../conformance/run/engine.js';
import type { RunEvent } from '../conformance/run/events.js';
import {
  EXIT_INCOMPLETE,
  EXIT_MUST_FAILURE,
  EXIT_OK,
  exitCodeFor,
  verdictFor,
} from '../conformance/run/exit-code.js';

function check(
  id: string,
  findings: () => Promise<readonly Finding[]> | readonly Finding[],
  extra: Partial<Check<Ctx>> = {},
): Check<Ctx> {
  return {
    id,
    title: `synthetic ${id}`,
    area: 'synthetic',
    requirements: ['SIG-VERIFY-CREATED-WINDOW'],
    level: 'MUST',
    appliesTo: 'server',
    run: async () => findings(),
    ...extra,
  };
}

const options = engineOptions;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a check with a proven failure and an inconclusive finding', () => {
  it('is graded fail (the failure is not hidden behind the request that got no answer)', async () => {
    const mixed = check('mixed', () => [
      inconclusive('a copy got no answer within 5000 ms'),
      violation('the payout was created twice'),
    ]);
    const summary = await runChecks(options([mixed]));
    expect(summary.results[0]?.outcome).toBe('fail');
    expect(summary.results[0]?.message).toBe('the payout was created twice');
    const alone = await runChecks(options([check('alone', () => [inconclusive('no answer')])]));
    expect(alone.results[0]?.outcome).toBe('error');
  });
});

describe('start-up validation', () => {
  it('refuses duplicate ids, unknown requirements, malformed ids and role mismatches, listing every problem', async () => {
    const bad = [
      check('dup', () => [pass('ok')]),
      check('dup', () => [pass('ok')]),
      check('Bad_Id', () => [pass('ok')]),
      check('unknown-req', () => [pass('ok')], { requirements: ['NOPE-NOT-THERE'] }),
      check('client-check', () => [pass('ok')], { appliesTo: 'client' }),
    ];
    const error = await runChecks(options(bad)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConformanceSetupError);
    const problems = (error as ConformanceSetupError).problems.join('\n');
    expect(problems).toContain('duplicate check id "dup"');
    expect(problems).toContain('"Bad_Id" is not kebab-case');
    expect(problems).toContain('unknown requirement "NOPE-NOT-THERE"');
    expect(problems).toContain('applies to client');
  });

  it('refuses an --only id that is not in the suite', () => {
    expect(() => selectChecks([check('a', () => [pass('ok')])], ['b'])).toThrow(
      /unknown check "b"/,
    );
  });
});

describe('grading', () => {
  it('grades a MUST violation fail, a SHOULD violation warn, an observation pass, and takes the worst finding', async () => {
    const summary = await runChecks(
      options([
        check('must-violated', () => [
          pass('first part fine'),
          violation('created 301 s old was accepted', { expected: '4xx', received: '201' }),
        ]),
        check('should-violated', () => [violation('future created accepted')], { level: 'SHOULD' }),
        check('observed', () => [observation('answered 401')]),
        check('all-good', () => [pass('fine')]),
      ]),
    );
    const by = Object.fromEntries(summary.results.map((r) => [r.id, r]));
    expect(by['must-violated']?.outcome).toBe('fail');
    expect(by['must-violated']?.message).toBe('created 301 s old was accepted');
    expect(by['must-violated']?.findings[1]).toMatchObject({
      outcome: 'fail',
      expected: '4xx',
      received: '201',
      level: 'MUST',
    });
    expect(by['should-violated']?.outcome).toBe('warn');
    expect(by['observed']?.outcome).toBe('pass');
    expect(by['observed']?.findings[0]?.observed).toBe(true);
    expect(by['all-good']?.outcome).toBe('pass');
    expect(summary.counts).toMatchObject({ pass: 2, fail: 1, warn: 1 });
    expect(exitCodeFor(summary)).toBe(EXIT_MUST_FAILURE);
  });

  it('never fails a target for a violation of a "not shown" requirement', async () => {
    const summary = await runChecks(
      options([
        check(
          'gap',
          () => [
            violation('answered 418 to a bad signature', { requirement: 'ERROR-AUTH-FAILURE' }),
          ],
          { requirements: ['ERROR-AUTH-FAILURE'] },
        ),
      ]),
    );
    expect(summary.results[0]?.outcome).toBe('pass');
    expect(summary.results[0]?.findings[0]?.observed).toBe(true);
    expect(exitCodeFor(summary)).toBe(EXIT_OK);
  });

  it("only warns for a MUST violation of payconform's own choice or of a sentence the spec does not state as MUST", async () => {
    const summary = await runChecks(
      options([
        check(
          'choice',
          () => [
            violation('two of eight concurrent copies accepted', {
              requirement: 'SIG-PROFILE-NONCE-ATOMIC',
            }),
          ],
          { requirements: ['SIG-PROFILE-NONCE-ATOMIC'] },
        ),
        check('choice-by-default', () => [violation('no requirement named')], {
          requirements: ['SIG-PROFILE-REJECTED-NO-EFFECT'],
        }),
        check(
          'spec-must',
          () => [violation('a replay was accepted', { requirement: 'SIG-VERIFY-NONCE-UNUSED' })],
          { requirements: ['SIG-VERIFY-NONCE-UNUSED'] },
        ),
      ]),
    );
    const by = Object.fromEntries(summary.results.map((r) => [r.id, r.outcome]));
    expect(by).toEqual({ choice: 'warn', 'choice-by-default': 'warn', 'spec-must': 'fail' });
  });

  it('warnings alone exit 0', async () => {
    const summary = await runChecks(
      options([check('w', () => [violation('x')], { level: 'SHOULD' })]),
    );
    expect(exitCodeFor(summary)).toBe(EXIT_OK);
  });

  it('a check that throws, returns nothing or names an unknown requirement is an error of the run, and the run goes on', async () => {
    const summary = await runChecks(
      options([
        check('throws', () => {
          throw new Error('boom');
        }),
        check('empty', () => []),
        check('bad-requirement', () => [violation('x', { requirement: 'NOT-A-REQ' })]),
        check('undeclared-requirement', () => [pass('x', { requirement: 'COP-COMMIT' })]),
        check('after', () => [pass('still ran')]),
      ]),
    );
    const by = Object.fromEntries(summary.results.map((r) => [r.id, r]));
    expect(by['throws']?.outcome).toBe('error');
    expect(by['throws']?.message).toContain('boom');
    expect(by['empty']?.outcome).toBe('error');
    expect(by['bad-requirement']?.outcome).toBe('error');
    expect(by['undeclared-requirement']?.message).toContain('not in its requirements list');
    expect(by['after']?.outcome).toBe('pass');
    expect(exitCodeFor(summary)).toBe(EXIT_MUST_FAILURE);
  });

  it('fails a check that exceeds its timeout, aborts its signal, and does not wait for it', async () => {
    let abortedSeen = false;
    const hanging = check('hangs', () => [pass('never')], {
      timeoutMs: 50,
      run: (_ctx, env) =>
        new Promise((resolve) => {
          env.signal.addEventListener('abort', () => {
            abortedSeen = true;
            setTimeout(() => resolve([pass('too late')]), 10);
          });
        }),
    });
    const started = Date.now();
    const summary = await runChecks(options([hanging, check('next', () => [pass('ok')])]));
    expect(Date.now() - started).toBeLessThan(5_000);
    // No answer within the time is inconclusive, never a failure of the target.
    expect(summary.results[0]?.outcome).toBe('error');
    expect(summary.results[0]?.message).toMatch(/did not finish within 50 ms/);
    expect(summary.results[1]?.outcome).toBe('pass');
    expect(abortedSeen).toBe(true);
  });
});

describe('selection and skips', () => {
  const suite = () => [
    check('m', () => [pass('ok')]),
    check('s', () => [pass('ok')], { level: 'SHOULD' }),
    check('y', () => [pass('ok')], { level: 'MAY' }),
    check('needs-config', () => [pass('ok')], { needs: ['payments.settled'] }),
    check('moves-money', () => [pass('ok')], { mutating: true }),
  ];

  it('--level must runs only MUST checks and marks the run partial', async () => {
    const summary = await runChecks(options(suite(), { level: 'must' }));
    expect(summary.results.map((r) => r.id)).toEqual(['m', 'needs-config', 'moves-money']);
    expect(summary.selection.deselected).toEqual(['s', 'y']);
    expect(summary.partial).toBe(true);
  });

  it('--only runs the named checks in suite order', async () => {
    const summary = await runChecks(options(suite(), { only: ['y', 'm'] }));
    expect(summary.results.map((r) => r.id)).toEqual(['m', 'y']);
  });

  it('skips a check whose config is missing and a mutating check when mutation is refused, saying why', async () => {
    const summary = await runChecks(
      options(suite(), {
        isAvailable: () => false,
        refuseMutating: 'target is not loopback; pass --allow-live',
      }),
    );
    const by = Object.fromEntries(summary.results.map((r) => [r.id, r]));
    expect(by['needs-config']).toMatchObject({
      outcome: 'skip',
      message: expect.stringContaining('"payments.settled"'),
    });
    expect(by['moves-money']).toMatchObject({
      outcome: 'skip',
      message: 'target is not loopback; pass --allow-live',
    });
    // Never a pass by omission: a selected check that was skipped makes the run INCOMPLETE (exit 4)...
    expect(verdictFor(summary)).toMatchObject({ verdict: 'incomplete', exitCode: EXIT_INCOMPLETE });
    expect(summary.partialReasons.join()).toContain('skipped');
    // ...unless skips are accepted (--allow-skips), and under --fail-on skip it fails.
    const allowed = await runChecks(
      options(suite(), { isAvailable: () => false, gate: { failOn: [], allowSkips: true } }),
    );
    expect(exitCodeFor(allowed)).toBe(EXIT_OK);
    const failOnSkip = await runChecks(
      options(suite(), { isAvailable: () => false, gate: { failOn: ['skip'], allowSkips: true } }),
    );
    expect(exitCodeFor(failOnSkip)).toBe(EXIT_MUST_FAILURE);
  });

  it('an explicit --only or --level accepts skips (the user chose the checks)', async () => {
    const summary = await runChecks(options(suite(), { isAvailable: () => false, level: 'must' }));
    expect(summary.counts.skip).toBeGreaterThan(0);
    expect(exitCodeFor(summary)).toBe(EXIT_OK);
  });

  it('names a missing need the way the command says to set it (describeNeed)', async () => {
    const summary = await runChecks(
      options(suite(), { isAvailable: () => false, describeNeed: (n) => `<${n} from somewhere>` }),
    );
    const skipped = summary.results.find((r) => r.id === 'needs-config');
    expect(skipped).toMatchObject({
      outcome: 'skip',
      message: 'not run: <payments.settled from somewhere> is not set',
    });
  });
});

describe('scheduling', () => {
  it('never runs more than the concurrency limit at once, and results keep suite order', async () => {
    let active = 0;
    let peak = 0;
    const work = async (ms: number): Promise<readonly Finding[]> => {
      active += 1;
      peak = Math.max(peak, active);
      await sleep(ms);
      active -= 1;
      return [pass('done')];
    };
    const checks = Array.from({ length: 9 }, (_, i) => check(`c${i}`, () => work(30 - i * 3)));
    const summary = await runChecks(options(checks, { concurrency: 3 }));
    expect(peak).toBe(3);
    expect(summary.results.map((r) => r.id)).toEqual(checks.map((c) => c.id));
  });

  it('runs a serial check alone and never overlaps checks of one group', async () => {
    const log: string[] = [];
    let active = 0;
    const activeInGroup = new Map<string, number>();
    let violations = 0;
    const work =
      (id: string, group?: string, serial = false) =>
      async (): Promise<readonly Finding[]> => {
        active += 1;
        if (serial && active !== 1) violations += 1;
        if (group) {
          activeInGroup.set(group, (activeInGroup.get(group) ?? 0) + 1);
          if (activeInGroup.get(group)! > 1) violations += 1;
        }
        log.push(`start ${id}`);
        await sleep(15);
        log.push(`end ${id}`);
        if (group) activeInGroup.set(group, activeInGroup.get(group)! - 1);
        active -= 1;
        return [pass('ok')];
      };
    const checks = [
      check('a', work('a', 'g')),
      check('b', work('b', 'g')),
      check('c', work('c')),
      check('serial', work('serial', undefined, true), { serial: true }),
      check('d', work('d')),
      check('e', work('e', 'g')),
    ].map(
      (c, i) =>
        ({
          ...c,
          group: ['g', 'g', undefined, undefined, undefined, 'g'][i],
          serial: i === 3,
        }) as Check<Ctx>,
    );
    const summary = await runChecks(options(checks, { concurrency: 4 }));
    expect(violations).toBe(0);
    expect(summary.counts.pass).toBe(6);
    // Nothing after the serial check started before it ended.
    expect(log.indexOf('end serial')).toBeLessThan(log.indexOf('start d'));
    expect(log.indexOf('start serial')).toBeGreaterThan(log.indexOf('end c'));
  });

  it('an aborted run skips what had not started and is marked partial', async () => {
    const controller = new AbortController();
    const checks = [
      check('first', async () => {
        controller.abort();
        await sleep(5);
        return [pass('ok')];
      }),
      check('second', () => [pass('ok')]),
    ];
    const summary = await runChecks(options(checks, { concurrency: 1, signal: controller.signal }));
    expect(summary.results.find((r) => r.id === 'second')?.outcome).toBe('skip');
    expect(summary.partial).toBe(true);
  });
});

describe('events and summary', () => {
  it('emits run-started, check-started/finished per check and run-finished, and survives a throwing subscriber', async () => {
    const events: RunEvent[] = [];
    const summary = await runChecks(
      options([check('a', () => [pass('ok')]), check('b', () => [skip('no payment configured')])], {
        subscribers: [
          () => {
            throw new Error('broken reporter');
          },
          (e) => events.push(e),
        ],
      }),
    );
    const types = events.map((e) =>
      e.type === 'check-started'
        ? `start ${e.check.id}`
        : e.type === 'check-finished'
          ? `end ${e.result.id}`
          : e.type,
    );
    expect(types).toHaveLength(6);
    expect(types.indexOf('start a')).toBeLessThan(types.indexOf('end a'));
    expect(types.indexOf('start b')).toBeLessThan(types.indexOf('end b'));
    expect(events[0]?.type).toBe('run-started');
    expect(events.at(-1)).toEqual({ type: 'run-finished', summary });
    expect(events.filter((e) => e.type === 'check-finished')).toHaveLength(2);
    const last = events.filter((e) => e.type === 'check-finished').at(-1);
    expect(last && last.type === 'check-finished' ? [last.completed, last.total] : []).toEqual([
      2, 2,
    ]);
  });

  it('reports covered, not-run and uncovered requirements, target, versions and duration', async () => {
    const summary = await runChecks(
      options([
        check('a', () => [pass('ok')], { requirements: ['SIG-VERIFY-NONCE-UNUSED'] }),
        check('b', () => [skip('no config')], { requirements: ['REFUND-TOTAL-CAP'] }),
      ]),
    );
    expect(summary.requirements.covered).toEqual(['SIG-VERIFY-NONCE-UNUSED']);
    expect(summary.requirements.notRun).toEqual(['REFUND-TOTAL-CAP']);
    expect(summary.requirements.uncovered).toContain('COP-COMMIT');
    expect(summary.requirements.uncovered).not.toContain('SIG-VERIFY-NONCE-UNUSED');
    expect(summary.requirements.uncovered).not.toContain('WEBHOOK-IDEMPOTENT'); // a receiver requirement, not a server one
    expect(summary).toMatchObject({
      target: 'http://127.0.0.1:1',
      toolVersion: '0.0.0-test',
      catalogueVersion: '1',
      role: 'server',
    });
    expect(summary.durationMs).toBeGreaterThanOrEqual(0);
  });
});
