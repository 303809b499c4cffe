// JUnit XML: one testcase per check (fail → <failure>, error → <error>, skip and n/a → <skipped/>, warn passes with
// output), where CI tools look: under `--fail-on warn` a warning is a <failure>, under `--fail-on skip` a skip is one,
// and a run-level problem (a client that exited non-zero) is a failing testcase of its own.
import { verdictFor } from '../exit-code.js';
import type {
  BaselineOutcome,
  CheckResult,
  EvidenceSummary,
  RequirementRow,
  RequirementTable,
  RunSummary,
} from '../result.js';
import { findingText } from './evidence-text.js';
import { mustExercisedLine, unexercisedMust } from '../requirement-table.js';
import { baselineLines, describeKey } from '../baseline.js';

/** Escapes text for XML content and attributes, dropping characters XML 1.0 cannot carry. */
export function xmlEscape(text: string): string {
  return text
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

/** What the suite counts, and the MUST requirements it reports as test cases of their own. */
function junitTotals(summary: RunSummary) {
  const failOnWarn = summary.gate.failOn.includes('warn');
  const failOnSkip = summary.gate.failOn.includes('skip');
  // One test case per MUST requirement not exercised (skipped with the reason; a failure under --fail-on unexercised
  // for those that apply to the target), so a run that skipped half its checks does not look like a smaller green one.
  const table = summary.requirements.table;
  const gated = new Set(
    summary.gate.failOn.includes('unexercised') ? unexercisedMust(table).map((r) => r.id) : [],
  );
  const unexercised = (table?.rows ?? []).filter(
    (r) => r.must && (r.status === 'not-exercised' || r.status === 'inconclusive'),
  );
  const stopped = summary.stopped !== undefined ? 1 : 0;
  return {
    failOnWarn,
    failOnSkip,
    gated,
    unexercised,
    tests: summary.results.length + summary.blocking.length + unexercised.length + stopped,
    failures:
      gated.size +
      summary.counts.fail +
      (failOnWarn ? summary.counts.warn : 0) +
      (failOnSkip ? summary.counts.skip : 0) +
      summary.blocking.length,
    errors: summary.counts.error + stopped,
    skipped:
      (failOnSkip ? 0 : summary.counts.skip) +
      summary.counts['n/a'] +
      unexercised.length -
      gated.size,
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
  const properties: Property[] = [
    ['target', summary.target],
    ['toolVersion', summary.toolVersion],
    ['catalogueVersion', summary.catalogueVersion],
    ['partial', String(summary.partial)],
    ['verdict', verdict.verdict],
    ['exitCode', String(verdict.exitCode)],
    ['failOn', summary.gate.failOn.join(',')],
    ...evidenceProperties(summary.evidence),
    ...baselineProperties(summary.baseline),
    ...requirementProperties(summary.requirements.table),
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
function checkOutcomeElement(
  r: CheckResult,
  gate: { readonly failOnWarn: boolean; readonly failOnSkip: boolean },
): string {
  const details = [
    `${r.level} check; requirements: ${r.requirements.join(', ')}`,
    ...r.findings.map(findingText),
  ].join('\n\n');
  const message = xmlEscape(`[${r.level}] ${r.message}`);
  const rerun = r.rerun !== undefined ? `\n\nrun this check again: ${r.rerun}` : '';
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
  return `      <system-out>${xmlEscape(details)}</system-out>`;
}

function checkTestcase(
  r: CheckResult,
  gate: { readonly failOnWarn: boolean; readonly failOnSkip: boolean },
): string[] {
  return [
    `    <testcase classname="${xmlEscape(`payconform.${r.area}`)}" name="${xmlEscape(`${r.id}: ${r.title}`)}" time="${seconds(r.durationMs)}">`,
    checkOutcomeElement(r, gate),
    '    </testcase>',
  ];
}

function requirementTestcase(r: RequirementRow, gated: ReadonlySet<string>): string[] {
  const why = `${r.status === 'inconclusive' ? 'inconclusive' : 'not exercised'}: ${r.reason ?? ''}`;
  return testcase(
    'payconform.requirements',
    `${r.id} [MUST]`,
    gated.has(r.id)
      ? `      <failure message="${xmlEscape(`[failed by --fail-on unexercised] ${why}`)}" type="unexercised"/>`
      : `      <skipped message="${xmlEscape(why)}"/>`,
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
  const counts = `tests="${totals.tests}" failures="${totals.failures}" errors="${totals.errors}" skipped="${totals.skipped}" time="${seconds(summary.durationMs)}"`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xmlEscape(suiteName)}" ${counts}>`,
    `  <testsuite name="${xmlEscape(`${suiteName}: ${summary.target}`)}" ${counts} timestamp="${xmlEscape(summary.startedAt.replace(/Z$/, ''))}">`,
    ...junitProperties(summary),
    ...summary.results.flatMap((r) => checkTestcase(r, totals)),
    ...totals.unexercised.flatMap((r) => requirementTestcase(r, totals.gated)),
    ...runTestcases(summary),
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
