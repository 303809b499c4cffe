// What a run exercised, in every report (docs/cli.md, "What the run exercised"): every requirement of the catalogue an
// audit of the role covers is failed, passed (by which checks), inconclusive, or not exercised with the reason;
// "N of M MUST requirements exercised" in the console, the JSON table, JUnit properties and one skipped test case per
// unexercised MUST requirement, the HTML table; `--fail-on unexercised` fails a run that left a MUST requirement that
// applies to the target unexercised. Real runs of the embedded reference service, its faults and a target without
// /sandbox/.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { auditTarget, startEmbeddedTarget } from '../cli/commands/audit-server.js';
import { canFailTarget } from '../conformance/run/grade.js';
import { verdictFor } from '../conformance/run/exit-code.js';
import { unexercisedMust } from '../conformance/requirement-table.js';
import { renderConsoleSummary } from '../conformance/reporters/console.js';
import { renderHtmlReport } from '../conformance/reporters/html.js';
import { renderJunitReport } from '../conformance/reporters/junit.js';
import { loadCatalogue, requirementsForRole } from '../conformance/requirements.js';
import type { RunSummary } from '../conformance/run/result.js';
import { validateAgainst } from '../src/schemas/index.js';
import { runMain } from './fixtures/cli.js';
import { withLightForgeries } from './fixtures/light-forgeries.js';

const catalogue = loadCatalogue();

async function audit(
  options: Parameters<typeof auditTarget>[1] & { faults?: string[]; noSandbox?: boolean } = {},
): Promise<RunSummary> {
  const { faults, noSandbox, ...run } = options;
  const target = await startEmbeddedTarget(faults !== undefined ? { faults: faults as never } : {});
  try {
    const t = noSandbox
      ? { ...target, context: { ...target.context, sandbox: false, sandboxAbsent: true } }
      : target;
    // The table, not the drawing: the forgeries send every form's edge and draw a few more (light budget).
    return await auditTarget(withLightForgeries(t), run);
  } finally {
    await target.close();
  }
}

const row = (s: RunSummary, id: string) => s.requirements.table?.rows.find((r) => r.id === id);

describe('the requirement table of a full run of the reference service', () => {
  let clean: RunSummary;
  beforeAll(async () => {
    clean = await audit();
  }, 60_000);

  it('has one row per requirement of the server role, MUST counted as the grader counts it', () => {
    const table = clean.requirements.table!;
    const wanted = requirementsForRole(catalogue, 'server');
    expect(table.rows.map((r) => r.id)).toEqual(wanted.map((r) => r.id));
    expect(table.must.total).toBe(wanted.filter(canFailTarget).length);
    expect(table.must.exercised).toBe(
      table.rows.filter((r) => r.must && r.status === 'passed').length,
    );
    // Every requirement a check names was exercised by a passing run; the rest are named as covered by no check.
    for (const r of table.rows) {
      if (clean.requirements.uncovered.includes(r.id))
        expect(r, r.id).toMatchObject({ status: 'not-exercised', reason: 'no check covers it' });
      else expect(r.status, r.id).toBe('passed');
    }
    expect(row(clean, 'REFUND-PARTIAL-ALLOWED')?.checks).toContain('refund-partial-accepted');
  });

  it('every report states it: console line, JSON (valid), JUnit properties, HTML table', () => {
    const table = clean.requirements.table!;
    const line = `${table.must.exercised} of ${table.must.total} MUST requirements exercised`;
    expect(renderConsoleSummary(clean)).toContain(line);
    expect(
      validateAgainst('https://payconform.dev/schemas/conformance-report.schema.json', {
        ...JSON.parse(JSON.stringify(clean)),
        reportVersion: '1',
        tool: { name: 'payconform', version: clean.toolVersion },
        verdict: 'pass',
        exitCode: 0,
        verdictReasons: [],
        notApplicable: [],
      }),
    ).toEqual({ valid: true });
    const junit = renderJunitReport(clean);
    expect(junit).toContain(`<property name="requirements" value="${line}"/>`);
    expect(junit).toMatch(
      /<property name="requirement\.REFUND-PARTIAL-ALLOWED" value="passed by [^"]*refund-partial-accepted/,
    );
    // A MUST requirement not exercised is a property, not a test case: counted as a skipped test it made JUnit's
    // numbers differ from every other report's (55 tests, 3 skipped where the console said 52 checks, 0 skipped).
    const unexercised = table.rows.filter((r) => r.must && r.status !== 'passed');
    expect(unexercised.length).toBeGreaterThan(0);
    expect(junit.match(/classname="payconform\.requirements"/g)).toBeNull();
    expect(junit).toContain(`tests="${clean.results.length}"`);
    for (const r of unexercised)
      expect(junit).toContain(
        `<property name="requirement.${r.id}" value="not-exercised: no check covers it"/>`,
      );
    const html = renderHtmlReport(clean, { catalogue });
    expect(html).toContain(`<h2 id="requirements">Requirements: ${line}</h2>`);
    expect(html).toMatch(/<td><code>REFUND-PARTIAL-ALLOWED<\/code>/);
  });
});

describe('not exercised, with the reason; failed, by the check that failed it', () => {
  it('a fault fails the requirement it breaks, named with its check', async () => {
    const s = await audit({
      faults: ['refund-partial-rejected'],
      only: ['refund-partial-accepted'],
    });
    expect(row(s, 'REFUND-PARTIAL-ALLOWED')).toMatchObject({
      status: 'failed',
      checks: ['refund-partial-accepted'],
    });
  }, 60_000);

  it('deselected and not applicable are told apart; --fail-on unexercised counts what applies', async () => {
    const s = await audit({
      noSandbox: true,
      only: ['payout-signed-accepted', 'payment-reference-assigned'],
      gate: { failOn: ['unexercised'], allowSkips: true },
    });
    const na = row(s, 'PAYMENT-REFERENCE-ASSIGNED');
    expect(na?.status).toBe('not-exercised');
    expect(na?.unexercised).toBe('not-applicable');
    expect(na?.reason).toMatch(/^payment-reference-assigned: not applicable \(/);
    const deselected = row(s, 'REFUND-PARTIAL-ALLOWED');
    expect(deselected?.unexercised).toBe('deselected');
    expect(deselected?.reason).toContain('refund-partial-accepted: not selected (--only/--level)');
    const gated = unexercisedMust(s.requirements.table).map((r) => r.id);
    expect(gated).toContain('REFUND-PARTIAL-ALLOWED');
    expect(gated).not.toContain('PAYMENT-REFERENCE-ASSIGNED');
    const v = verdictFor(s);
    expect(v.exitCode).toBe(1);
    expect(v.reasons.join()).toMatch(
      /MUST requirement\(s\) not exercised under --fail-on unexercised/,
    );
    // Without the gate the same run passes (an explicit selection accepts what it leaves out).
    expect(verdictFor({ ...s, gate: { failOn: [], allowSkips: true } }).exitCode).toBe(0);
  }, 60_000);
});

describe('--fail-on unexercised from the command line', () => {
  it('a selection that leaves MUST requirements out: exit 1, each named in JUnit as a failure', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'payconform-unexercised-'));
    const r = await runMain(
      [
        'audit',
        'server',
        '--only',
        'payout-signed-accepted',
        '--fail-on',
        'unexercised',
        '--report',
        `junit:${join(dir, 'run.xml')}`,
      ],
      { PATH: process.env['PATH'] ?? '', NO_COLOR: '1' },
    );
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toMatch(/\d+ of \d+ MUST requirements exercised \(0 failed\)/);
    expect(r.stdout).toMatch(
      / {2}not exercised: [A-Z0-9-]+: [a-z0-9-]+: not selected \(--only\/--level\)/,
    );
    expect(r.stdout).toMatch(/verdict: FAIL \(\d+ MUST requirement\(s\) not exercised/);
    const junit = readFileSync(join(dir, 'run.xml'), 'utf8');
    expect(junit).toMatch(
      /name="REFUND-PARTIAL-ALLOWED \[MUST\]" time="0.000">\n {6}<failure message="\[failed by --fail-on unexercised\] not exercised: /,
    );
  }, 60_000);
});
