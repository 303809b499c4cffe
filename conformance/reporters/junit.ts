// JUnit XML: one testcase per check (fail → <failure>, error → <error>, skip and n/a → <skipped/>, warn and known pass
// with output), where CI tools look: under `--fail-on warn` a warning is a <failure>, under `--fail-on skip` a skip is
// one. The checks' suite counts what every report counts (run-counts.ts); a run-level problem (a client that exited
// non-zero) is a failing testcase of a second suite, the run's own.
import { showControls } from './printable.js';
import { verdictFor } from '../run/exit-code.js';
import type {
  BaselineOutcome,
  CheckResult,
  EvidenceSummary,
  RequirementRow,
  RequirementTable,
  RunSummary,
} from '../run/result.js';
import { againText, findingText } from './evidence-text.js';
import { mustExercisedLine, unexercisedMust } from '../requirement-table.js';
import { baselineLines, describeKey } from '../report/baseline.js';
import { COUNT_NAMES, countOf, failedRequirementsText, runCounts } from '../run/run-counts.js';

/**
 * Escapes text for XML content and attributes: control, bidirectional and separator characters shown as escapes (as
 * on a terminal: a CI page renders them), what XML 1.0 cannot carry replaced, the markup characters as entities.
 */
export function xmlEscape(text: string): string {
  return showControls(text, { multiline: true })
    .replace(/[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    .replace(/\r/g, '&#13;');
}

const seconds = (ms: number): string => (ms / 1000).toFixed(3);

/** A test case of the run's own (a requirement, a stop, a run problem): no time of its own. */
const testcase = (classname: string, name: string, inner: string): string[] => [
  `    <testcase classname="${classname}" name="${xmlEscape(name)}" time="0.000">`,
  inner,
  '    </testcase>',
];

/**
 * What the checks' suite counts: the checks and nothing else, from `runCounts` (the console's and every report's
 * numbers). `--fail-on warn|skip` turn warnings and skips into failures; a known check passes (its own count is a
 * property).
 */
function junitTotals(summary: RunSummary) {
  const failOnWarn = summary.gate.failOn.includes('warn');
  const failOnSkip = summary.gate.failOn.includes('skip');
  const failOnFlaky = summary.gate.failOn.includes('flaky');
  const c = runCounts(summary);
  // A flaky check warned (or errored beside an inconclusive finding); --fail-on flaky fails the warned ones too.
  const flakyWarned = summary.results.filter((r) => r.flaky === true && r.outcome === 'warn');
  return {
    failOnWarn,
    failOnSkip,
    failOnFlaky,
    counts: c,
    tests: c.total,
    failures:
      c.failed +
      (failOnWarn ? c.warned : 0) +
      (failOnSkip ? c.skipped : 0) +
      (failOnFlaky && !failOnWarn ? flakyWarned.length : 0),
    errors: c.inconclusive,
    skipped: (failOnSkip ? 0 : c.skipped) + c.notApplicable,
  };
}

/**
 * The run's own test cases, in a suite apart from the checks' (so the checks' counts stay those of every report):
 * why it stopped (an error), each run problem (a failure), and under `--fail-on unexercised` each MUST requirement
 * that applies and was not exercised (a failure). A MUST requirement not exercised is otherwise a property, not a
 * test case: it is no check, and counting it as a skipped test made JUnit's numbers differ from every other report's.
 */
function runSuiteCases(summary: RunSummary): {
  cases: string[];
  tests: number;
  failures: number;
  errors: number;
} {
  const gated = summary.gate.failOn.includes('unexercised')
    ? unexercisedMust(summary.requirements.table)
    : [];
  const stopped = summary.stopped !== undefined ? 1 : 0;
  return {
    cases: [...runTestcases(summary), ...gated.flatMap(requirementTestcase)],
    tests: stopped + summary.blocking.length + gated.length,
    failures: summary.blocking.length + gated.length,
    errors: stopped,
  };
}

type Property = readonly [string, string];

function evidenceProperties(evidence: EvidenceSummary | undefined): Property[] {
  if (evidence === undefined) return [];
  return [
    ['evidenceBodyBytes', String(evidence.bodyBytes)],
    ['evidenceRunBytes', String(evidence.runBytes)],
    ['evidenceBodiesCut', String(evidence.bodiesCut)],
  ];
}

function baselineProperties(baseline: BaselineOutcome | undefined): Property[] {
  if (baseline === undefined) return [];
  return [
    ['baseline', baselineLines(baseline)[0]!],
    ...baseline.known.map((k, i): Property => [
      `baseline.known.${i + 1}`,
      `${describeKey(k)}: ${k.reason}`,
    ]),
  ];
}

function requirementProperties(table: RequirementTable | undefined): Property[] {
  if (table === undefined) return [];
  return [
    ['requirements', mustExercisedLine(table)],
    ['requirementsMustExercised', String(table.must.exercised)],
    ['requirementsMustTotal', String(table.must.total)],
    ...table.rows.map((r): Property => [
      `requirement.${r.id}`,
      `${r.status}${r.checks.length > 0 ? ` by ${r.checks.join(', ')}` : ''}${r.explored !== undefined ? ` (${r.explored})` : ''}${r.reason !== undefined ? `: ${r.reason}` : ''}`,
    ]),
  ];
}

function junitProperties(summary: RunSummary): string[] {
  const verdict = verdictFor(summary);
  const counts = runCounts(summary);
  const properties: Property[] = [
    ['target', summary.target],
    ['toolVersion', summary.toolVersion],
    ['catalogueVersion', summary.catalogueVersion],
    ['partial', String(summary.partial)],
    ['verdict', verdict.verdict],
    ['exitCode', String(verdict.exitCode)],
    ...verdict.reasons.map((reason, i): Property => [`verdictReason.${i + 1}`, reason]),
    ['failOn', summary.gate.failOn.join(',')],
    // Every count, from the one source the other reports use (run-counts.ts); the suite's attributes follow from them.
    ...COUNT_NAMES.map((name): Property => [`count.${name}`, String(counts[name])]),
    ['count.total', String(counts.total)],
    ...evidenceProperties(summary.evidence),
    ...baselineProperties(summary.baseline),
    ...requirementProperties(summary.requirements.table),
    ...(summary.requirements.table !== undefined
      ? [['requirementsFailed', failedRequirementsText(summary)] as const]
      : []),
  ];
  return [
    '    <properties>',
    ...properties.map(
      ([name, value]) => `      <property name="${xmlEscape(name)}" value="${xmlEscape(value)}"/>`,
    ),
    '    </properties>',
  ];
}

/** The element inside a check's test case: a failure, an error, skipped, or its output. */
function checkOutcomeElement(r: CheckResult, gate: Gate): string {
  const details = [
    `${r.level} check; requirements: ${r.requirements.join(', ')}`,
    ...r.findings.map(findingText),
    ...[againText(r)].filter((t): t is string => t !== undefined),
  ].join('\n\n');
  const message = xmlEscape(`[${r.level}] ${r.message}`);
  const rerun = r.rerun !== undefined ? `\n\nrun this check again: ${r.rerun}` : '';
  if (r.outcome === 'warn' && r.flaky === true && gate.failOnFlaky)
    return `      <failure message="${xmlEscape(`[flaky, failed by --fail-on flaky] ${r.message}`)}" type="flaky">${xmlEscape(details + rerun)}</failure>`;
  if (r.outcome === 'warn' && gate.failOnWarn)
    return `      <failure message="${xmlEscape(`[warning, failed by --fail-on warn] ${r.message}`)}" type="warn">${xmlEscape(details + rerun)}</failure>`;
  if (r.outcome === 'skip' && gate.failOnSkip)
    return `      <failure message="${xmlEscape(`[skipped, failed by --fail-on skip] ${r.message}`)}" type="skip"/>`;
  if (r.outcome === 'fail')
    return `      <failure message="${message}" type="${r.level}">${xmlEscape(details + rerun)}</failure>`;
  if (r.outcome === 'error')
    return `      <error message="${message}" type="error">${xmlEscape(details + rerun)}</error>`;
  if (r.outcome === 'skip' || r.outcome === 'n/a')
    return `      <skipped message="${xmlEscape(`${r.outcome}: ${r.message}`)}"/>`;
  if (r.outcome === 'warn')
    return `      <system-out>${xmlEscape(`WARNING (${r.level} not met, does not fail the run)\n\n${details}`)}</system-out>`;
  if (countOf(r) === 'known')
    return `      <system-out>${xmlEscape(`KNOWN (a baseline marks its findings known: counted as known, not as passed)\n\n${details}`)}</system-out>`;
  return `      <system-out>${xmlEscape(details)}</system-out>`;
}

/** What turns a check's outcome into a failure in JUnit: `--fail-on warn|skip|flaky`. */
interface Gate {
  readonly failOnWarn: boolean;
  readonly failOnSkip: boolean;
  readonly failOnFlaky: boolean;
}

function checkTestcase(r: CheckResult, gate: Gate): string[] {
  return [
    `    <testcase classname="${xmlEscape(`payconform.${r.area}`)}" name="${xmlEscape(`${r.id}: ${r.title}`)}" time="${seconds(r.durationMs)}">`,
    checkOutcomeElement(r, gate),
    '    </testcase>',
  ];
}

function requirementTestcase(r: RequirementRow): string[] {
  const why = `${r.status === 'inconclusive' ? 'inconclusive' : 'not exercised'}: ${r.reason ?? ''}`;
  return testcase(
    'payconform.requirements',
    `${r.id} [MUST]`,
    `      <failure message="${xmlEscape(`[failed by --fail-on unexercised] ${why}`)}" type="unexercised"/>`,
  );
}

/** The run's own test cases: why it stopped (an error), then each run problem (a failure). */
function runTestcases(summary: RunSummary): string[] {
  const out: string[] = [];
  // A run that stopped before its checks: one errored test case that names why, so a CI job always shows it.
  const stopped = summary.stopped;
  if (stopped !== undefined)
    out.push(
      ...testcase(
        'payconform.run',
        `run stopped (exit ${stopped.exitCode}): ${stopped.reason}`,
        `      <error message="${xmlEscape(stopped.reason)}" type="exit-${stopped.exitCode}"/>`,
      ),
    );
  summary.blocking.forEach((problem, i) => {
    out.push(
      ...testcase(
        'payconform.run',
        `run-${i + 1}: ${problem}`,
        `      <failure message="${xmlEscape(problem)}" type="run"/>`,
      ),
    );
  });
  return out;
}

/** The run as JUnit XML: one test case per check, failures and skips as CI tools read them. */
export function renderJunitReport(summary: RunSummary): string {
  const suiteName = `payconform audit ${summary.role}`;
  const totals = junitTotals(summary);
  const run = runSuiteCases(summary);
  const runTests = run.tests;
  const attrs = (tests: number, failures: number, errors: number, skipped: number): string =>
    `tests="${tests}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${seconds(summary.durationMs)}"`;
  const checks = attrs(totals.tests, totals.failures, totals.errors, totals.skipped);
  const all = attrs(
    totals.tests + runTests,
    totals.failures + run.failures,
    totals.errors + run.errors,
    totals.skipped,
  );
  const timestamp = xmlEscape(summary.startedAt.replace(/Z$/, ''));
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xmlEscape(suiteName)}" ${all}>`,
    `  <testsuite name="${xmlEscape(`${suiteName}: ${summary.target}`)}" ${checks} timestamp="${timestamp}">`,
    ...junitProperties(summary),
    ...summary.results.flatMap((r) => checkTestcase(r, totals)),
    '  </testsuite>',
    ...(runTests > 0
      ? [
          `  <testsuite name="${xmlEscape(`${suiteName}: the run itself`)}" ${attrs(runTests, run.failures, run.errors, 0)} timestamp="${timestamp}">`,
          ...run.cases,
          '  </testsuite>',
        ]
      : []),
    '</testsuites>',
    '',
  ].join('\n');
}
