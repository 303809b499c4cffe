// docs/verdicts.md, "Not applicable is not skipped": a check the config says does not apply to this target (the
// target lacks payconform's /sandbox/, which the spec does not define) is reported n/a with its reason in every
// report and leaves the verdict PASS; a skip for any other reason still makes the run INCOMPLETE (exit 4).
import { describe, expect, it } from 'vitest';
import { pass, skip, type Check } from '../conformance/run/check.js';
import { runChecks } from '../conformance/run/engine.js';
import { exitCodeFor, verdictFor } from '../conformance/run/exit-code.js';
import { renderConsoleSummary } from '../conformance/reporters/console.js';
import { renderHtmlReport } from '../conformance/reporters/html.js';
import { renderJsonReport } from '../conformance/reporters/json.js';
import { renderJunitReport } from '../conformance/reporters/junit.js';
import { validateAgainst } from '../src/schemas/index.js';

interface Ctx {
  readonly sandboxAbsent: boolean;
}
const REASON = 'the config states the target has no payconform /sandbox/ endpoints';

const base = {
  area: 'payments',
  requirements: ['PAYMENT-REFERENCE-ASSIGNED'],
  level: 'MUST',
  appliesTo: 'server',
} as const;
const needsSandbox: Check<Ctx> = {
  ...base,
  id: 'needs-sandbox',
  title: 'a check that needs the sandbox',
  notApplicableTo: (ctx) => (ctx.sandboxAbsent ? REASON : undefined),
  run: async () => {
    throw new Error('must not run when not applicable');
  },
};
const ordinary: Check<Ctx> = {
  ...base,
  id: 'ordinary',
  title: 'a check that passes',
  run: async () => [pass('fine')],
};
const skipping: Check<Ctx> = {
  ...base,
  id: 'skipping',
  title: 'a check that cannot finish',
  run: async () => [skip('a wait ran out')],
};

const run = (checks: Check<Ctx>[]) =>
  runChecks({
    checks,
    context: { sandboxAbsent: true },
    role: 'server',
    target: 'http://127.0.0.1:9',
    toolVersion: 'test',
  });

describe('not applicable is not skipped', () => {
  it('n/a with the reason in every report, and the run is a PASS (exit 0)', async () => {
    const summary = await run([ordinary, needsSandbox]);
    expect(summary.results.find((r) => r.id === 'needs-sandbox')?.outcome).toBe('n/a');
    expect(verdictFor(summary).verdict).toBe('pass');
    expect(exitCodeFor(summary)).toBe(0);
    const json = JSON.parse(renderJsonReport(summary)) as {
      notApplicable: Array<{ id: string; reason: string }>;
    };
    expect(json.notApplicable).toEqual([{ id: 'needs-sandbox', reason: REASON }]);
    expect(
      validateAgainst('https://payconform.dev/schemas/conformance-report.schema.json', json).valid,
    ).toBe(true);
    expect(renderConsoleSummary(summary)).toMatch(
      /Not applicable to this target[^\n]*\n {2}needs-sandbox: the config states/,
    );
    expect(renderJunitReport(summary)).toContain(`<skipped message="n/a: ${REASON}"/>`);
    expect(renderHtmlReport(summary)).toMatch(
      /Not applicable to this target \(1;[^<]*<\/h2>\s*<ul><li><code>needs-sandbox<\/code>: the config states/,
    );
  });

  it('applies when the config says nothing: then the check runs', async () => {
    const summary = await runChecks({
      checks: [ordinary],
      context: { sandboxAbsent: false },
      role: 'server',
      target: 'http://127.0.0.1:9',
      toolVersion: 'test',
    });
    expect(summary.counts['n/a']).toBe(0);
  });

  it('a skip for any other reason still makes the run INCOMPLETE (exit 4)', async () => {
    const summary = await run([ordinary, needsSandbox, skipping]);
    expect(verdictFor(summary).verdict).toBe('incomplete');
    expect(exitCodeFor(summary)).toBe(4);
  });
});
