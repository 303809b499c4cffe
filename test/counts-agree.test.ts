// Counts that agree: one audit written in every format (console, JSON, JUnit, HTML, Markdown)
// gives the same numbers in each (passed, failed, warned, skipped, known, inconclusive, total): with an --only
// selection, a check that skips and a known error from a baseline (known, never passed); an audit in which no selected
// check ran is INCOMPLETE (exit 4) with the reason in every report; and a FAIL's requirement line counts the answer
// and webhook requirements a client audit's findings cite, which the client role's requirement table has no row for.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { violation, pass, type Check } from '../conformance/run/check.js';
import { runChecks } from '../conformance/run/engine.js';
import { canFailTarget } from '../conformance/run/grade.js';
import { renderConsoleSummary } from '../conformance/reporters/console.js';
import { renderReport } from '../conformance/reporters/render.js';
import { loadCatalogue, requirementsForRole } from '../conformance/requirements.js';
import type { RunSummary } from '../conformance/run/result.js';
import { runMain } from './fixtures/cli.js';
import { sdkAdapter } from './fixtures/sdk-adapter.js';
import {
  startTestApplicationService,
  type TestApplicationService,
} from './fixtures/test-application-service.js';

interface Counts {
  passed: number;
  failed: number;
  warned: number;
  skipped: number;
  notApplicable: number;
  known: number;
  inconclusive: number;
  total: number;
}

const num = (text: string | undefined): number => {
  expect(text, 'a count the report should state').toBeDefined();
  return Number(text);
};

/** The console's counts line: "N passed, N failed, N warnings, N skipped, N not applicable, N known, N ... N checks". */
function consoleCounts(out: string): Counts {
  const m =
    /(\d+) passed, (\d+) failed, (\d+) warnings, (\d+) skipped, (\d+) not applicable, (\d+) known, (\d+) inconclusive \(errors\), (\d+) checks/.exec(
      out,
    );
  expect(m, out).not.toBeNull();
  const [passed, failed, warned, skipped, notApplicable, known, inconclusive, total] = m!
    .slice(1)
    .map(Number) as [number, number, number, number, number, number, number, number];
  return { passed, failed, warned, skipped, notApplicable, known, inconclusive, total };
}

/** The JSON report's counts (keyed by outcome; `known` absent when none) and its results. */
function jsonCounts(report: RunSummary): Counts {
  const c = report.counts;
  return {
    passed: c.pass,
    failed: c.fail,
    warned: c.warn,
    skipped: c.skip,
    notApplicable: c['n/a'],
    known: c.known ?? 0,
    inconclusive: c.error,
    total: report.results.length,
  };
}

/** JUnit: the count properties, checked against the checks' suite's attributes and its test cases. */
function junitCounts(xml: string): Counts {
  const prop = (name: string): number =>
    num(new RegExp(`<property name="count\\.${name}" value="(\\d+)"/>`).exec(xml)?.[1]);
  const counts: Counts = {
    passed: prop('passed'),
    failed: prop('failed'),
    warned: prop('warned'),
    skipped: prop('skipped'),
    notApplicable: prop('notApplicable'),
    known: prop('known'),
    inconclusive: prop('inconclusive'),
    total: prop('total'),
  };
  // The suite of the checks: what CI tools read, the same numbers (no --fail-on here).
  const suite =
    /<testsuite name="[^"]*" tests="(\d+)" failures="(\d+)" errors="(\d+)" skipped="(\d+)"/.exec(
      xml,
    );
  expect(suite, xml.slice(0, 400)).not.toBeNull();
  expect(suite!.slice(1).map(Number)).toEqual([
    counts.total,
    counts.failed,
    counts.inconclusive,
    counts.skipped + counts.notApplicable,
  ]);
  expect(xml.match(/<testcase classname="payconform\.(?!run|requirements)/g)?.length ?? 0).toBe(
    counts.total,
  );
  return counts;
}

/** HTML: the counts table, one row per count (badge, number). */
function htmlCounts(html: string): Counts {
  const rows = new Map<string, number>();
  for (const m of html.matchAll(
    /<tr><td>(?:<span class="o o-[a-z]+">([A-Z/]+)<\/span>|(TOTAL))<\/td><td>(\d+)<\/td><\/tr>/g,
  ))
    rows.set(m[1] ?? m[2]!, Number(m[3]));
  const row = (label: string): number => num(rows.get(label)?.toString());
  return {
    passed: row('PASS'),
    failed: row('FAIL'),
    warned: row('WARN'),
    skipped: row('SKIP'),
    notApplicable: row('N/A'),
    known: row('KNOWN'),
    inconclusive: row('ERROR'),
    total: row('TOTAL'),
  };
}

/** Markdown: the first screen's counts line. */
function markdownCounts(md: string): Counts {
  const n = (word: string): number =>
    num(new RegExp(`\\*\\*(\\d+)\\*\\* ${word}(?: ·|\\n)`).exec(md)?.[1]);
  return {
    passed: n('passed'),
    failed: n('failed'),
    warned: n('warned'),
    skipped: n('skipped'),
    notApplicable: n('not applicable'),
    known: n('known'),
    inconclusive: n('inconclusive'),
    total: n('checks'),
  };
}

let app: TestApplicationService;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'payconform-counts-'));
  // A service whose tracing id never changes: `tracing-id-differs` fails on PAYOUT-TRACINGID.
  app = await startTestApplicationService({ faults: ['tracing-id-fixed'] });
  // No webhook listener: `webhook-redelivered` skips ("webhookListen" is not set).
  app.writeConfig(join(dir, 'config.json'), {
    target: app.service.baseUrl,
    webhookListen: undefined,
  });
  writeFileSync(
    join(dir, 'baseline.json'),
    JSON.stringify({
      baselineVersion: '1',
      entries: [
        {
          check: 'tracing-id-differs',
          requirement: 'PAYOUT-TRACINGID',
          class: 'fail',
          reason: 'the gateway fixes the tracing id until it is replaced',
        },
      ],
    }),
  );
}, 60_000);
afterAll(async () => {
  await app?.service.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `audit server --only ONLY ARGS` against the service, written in every format; what each report says. */
async function auditEveryFormat(name: string, only: readonly string[], args: readonly string[]) {
  const path = (ext: string): string => join(dir, `${name}.${ext}`);
  const r = await runMain(
    [
      'audit',
      'server',
      '--no-explore',
      '--config',
      join(dir, 'config.json'),
      '--only',
      only.join(','),
      ...args,
      '--report',
      `json:${path('json')}`,
      '--report',
      `junit:${path('xml')}`,
      '--report',
      `html:${path('html')}`,
      '--report',
      `markdown:${path('md')}`,
    ],
    { PATH: process.env['PATH'] ?? '', NO_COLOR: '1', ...app.env },
    { timeoutMs: 60_000 },
  );
  const read = (ext: string): string => readFileSync(path(ext), 'utf8');
  return {
    code: r.code,
    console: r.stdout + r.stderr,
    json: JSON.parse(read('json')) as RunSummary & {
      verdict: string;
      exitCode: number;
      verdictReasons: string[];
    },
    junit: read('xml'),
    html: read('html'),
    markdown: read('md'),
  };
}

type Audit = Awaited<ReturnType<typeof auditEveryFormat>>;

/** Each format's counts, side by side, all equal to `expected`. */
function expectEveryFormat(a: Audit, expected: Counts): void {
  const byFormat = {
    console: consoleCounts(a.console),
    json: jsonCounts(a.json),
    junit: junitCounts(a.junit),
    html: htmlCounts(a.html),
    markdown: markdownCounts(a.markdown),
  };
  expect(byFormat, a.console).toEqual({
    console: expected,
    json: expected,
    junit: expected,
    html: expected,
    markdown: expected,
  });
}

const SELECTED = [
  'tracing-id-differs',
  'public-key-form',
  'payout-signed-accepted',
  'webhook-redelivered',
];

describe('every report gives the same numbers (one source: conformance/run/run-counts.ts)', () => {
  it('--only, a skip and a known error from the baseline: known, never passed, in all five formats', async () => {
    const a = await auditEveryFormat('known', SELECTED, ['--baseline', join(dir, 'baseline.json')]);
    // The explicit selection accepts the skip; the known finding does not fail the run.
    expect(a.code, a.console).toBe(0);
    expectEveryFormat(a, {
      passed: 2,
      failed: 0,
      warned: 0,
      skipped: 1,
      notApplicable: 0,
      known: 1,
      inconclusive: 0,
      total: 4,
    });
    expect(a.html).toMatch(/<span class="o o-warn">KNOWN<\/span> <code>tracing-id-differs<\/code>/);
  }, 90_000);

  it('the same selection without the baseline: the failure counted alike, and its requirement named', async () => {
    const a = await auditEveryFormat('failed', SELECTED, []);
    expect(a.code, a.console).toBe(1);
    expectEveryFormat(a, {
      passed: 2,
      failed: 1,
      warned: 0,
      skipped: 1,
      notApplicable: 0,
      known: 0,
      inconclusive: 0,
      total: 4,
    });
    expect(a.console).toMatch(/MUST requirements exercised \(1 failed: PAYOUT-TRACINGID\)/);
  }, 90_000);
});

/** Runs `args` through main() with a JUnit and a Markdown report named after `name`: the exit, output and both reports. */
async function withJunitAndMarkdown(
  name: string,
  args: readonly string[],
): Promise<{ code: number | null; out: string; junit: string; md: string }> {
  const junit = join(dir, `${name}.xml`);
  const md = join(dir, `${name}.md`);
  const r = await runMain(
    [...args, '--report', `junit:${junit}`, '--report', `markdown:${md}`],
    { PATH: process.env['PATH'] ?? '', NO_COLOR: '1' },
    { timeoutMs: 90_000 },
  );
  return {
    code: r.code,
    out: r.stdout + r.stderr,
    junit: readFileSync(junit, 'utf8'),
    md: readFileSync(md, 'utf8'),
  };
}

describe('a whole audit of the embedded reference service', () => {
  it('console and JUnit count the same checks (JUnit used to add a skipped test per MUST requirement not exercised)', async () => {
    const { code, out, junit, md } = await withJunitAndMarkdown('whole', [
      'audit',
      'server',
      '--no-explore',
    ]);
    expect(code, out).toBe(0);
    const counts = consoleCounts(out);
    expect(counts.total).toBeGreaterThan(40);
    expect(junitCounts(junit)).toEqual(counts);
    expect(markdownCounts(md)).toEqual(counts);
    // The catalogue has MUST requirements no check exercises here: properties, not test cases.
    expect(out).toMatch(/(\d+) of (?!\1\b)\d+ MUST requirements exercised/);
  }, 120_000);
});

describe('an audit in which no selected check ran is INCOMPLETE (exit 4), with the reason in every report', () => {
  it('--only a check that cannot run (it skips): not a PASS', async () => {
    const a = await auditEveryFormat('nothing', ['webhook-redelivered'], []);
    expect(a.code, a.console).toBe(4);
    const reason = /no selected check ran \(1 skipped, \d+ not selected \(--only\/--level\)\)/;
    expect(a.console).toMatch(/verdict: INCOMPLETE \(no selected check ran/);
    expect(a.console).toMatch(reason);
    expect(a.json.verdict).toBe('incomplete');
    expect(a.json.exitCode).toBe(4);
    expect(a.json.verdictReasons.join('\n')).toMatch(reason);
    expect(a.junit).toContain('<property name="exitCode" value="4"/>');
    expect(a.junit).toMatch(
      /<property name="verdictReason\.1" value="no selected check ran \(1 skipped, \d+ not selected/,
    );
    expect(a.html).toMatch(/INCOMPLETE \(no selected check ran \(1 skipped/);
    expect(a.markdown).toMatch(/INCOMPLETE \(exit 4\)/);
    expect(a.markdown).toMatch(/\*\*Why:\*\* `no selected check ran \(1 skipped/);
    expectEveryFormat(a, {
      passed: 0,
      failed: 0,
      warned: 0,
      skipped: 1,
      notApplicable: 0,
      known: 0,
      inconclusive: 0,
      total: 1,
    });
  }, 90_000);
});

describe("a FAIL's requirement line counts the answer and webhook requirements its findings cite", () => {
  // As the SDK explorer of `audit client` judges an SDK by the service's answers and the webhooks it receives: its
  // findings cite the server's answer requirements and the receiver's webhook requirements, which the client role's
  // requirement table has no row for.
  const ANSWER = 'PAYOUT-RESPONSE-RESOURCE';
  const WEBHOOK = 'WEBHOOK-IDEMPOTENT';
  const sdkLike: Check<null> = {
    id: 'sdk-like',
    title: 'an SDK judged by the answers and webhooks it hands its caller',
    area: 'sdk',
    requirements: ['SIG-LABEL-SIG1', ANSWER, WEBHOOK],
    level: 'MUST',
    appliesTo: 'client',
    run: async () => [
      pass('signed with sig1', { requirement: 'SIG-LABEL-SIG1' }),
      violation('the payout handed to the caller lost a property', { requirement: ANSWER }),
      violation('a redelivered webhook was acted on twice', { requirement: WEBHOOK }),
    ],
  };

  it('console, JUnit, HTML and Markdown: "(2 failed: ...)", never "(0 failed)"', async () => {
    const catalogue = loadCatalogue();
    const clientRows = new Set(requirementsForRole(catalogue, 'client').map((r) => r.id));
    for (const id of [ANSWER, WEBHOOK]) {
      expect(canFailTarget(catalogue.byId.get(id)), id).toBe(true);
      expect(clientRows.has(id), id).toBe(false);
    }
    const summary = await runChecks({
      checks: [sdkLike],
      context: null,
      role: 'client',
      target: 'client at 127.0.0.1:9',
      toolVersion: 'test',
    });
    expect(summary.counts.fail).toBe(1);
    const line = `(2 failed: ${ANSWER}, ${WEBHOOK})`;
    expect(renderConsoleSummary(summary)).toMatch(/MUST requirements exercised \(2 failed: /);
    expect(renderConsoleSummary(summary)).toContain(line);
    expect(renderReport('junit', summary)).toContain(
      `<property name="requirementsFailed" value="2 failed: ${ANSWER}, ${WEBHOOK}"/>`,
    );
    expect(renderReport('html', summary, catalogue)).toContain(
      `; 2 failed: ${ANSWER}, ${WEBHOOK};`,
    );
    expect(renderReport('markdown', summary)).toContain(`\`2 failed: ${ANSWER}, ${WEBHOOK}\``);
  });
});

describe('audit client --adapter: the SDK explorer failing on an answer or a webhook requirement', () => {
  const faulty = (fault: string): string => sdkAdapter(fault);
  // Each fault of the TypeScript reference adapter breaks one requirement (test/sdk-explore.test.ts): an answer the
  // SDK hands its caller (the server's requirement) and a webhook it receives (the receiver's); neither has a row in
  // the client role's requirement table, where the line used to say "(0 failed)".
  for (const [fault, requirement] of [
    ['copstatus-dropped', 'PAYOUT-RESPONSE-RESOURCE'],
    ['webhook-redelivery-refused', 'WEBHOOK-IDEMPOTENT'],
  ] as const)
    it(`${fault}: the FAIL's requirement line counts ${requirement}`, async () => {
      const { code, out, junit, md } = await withJunitAndMarkdown(fault, [
        'audit',
        'client',
        '--adapter',
        faulty(fault),
        '--explore-seed',
        '1',
        '--explore-seconds',
        '12',
      ]);
      expect(code, out).toBe(1);
      expect(out).toMatch(
        new RegExp(`MUST requirements exercised \\(\\d+ failed: [^)]*${requirement}`),
      );
      expect(out).not.toContain('(0 failed)');
      expect(junit).toMatch(
        new RegExp(`<property name="requirementsFailed" value="\\d+ failed: [^"]*${requirement}`),
      );
      expect(md).toMatch(new RegExp(`\\d+ failed: [^\`]*${requirement}`));
    }, 120_000);
});
