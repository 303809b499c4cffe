// JUnit XML: one testcase per check (fail → <failure>, error → <error>, skip and n/a → <skipped/>, warn passes with
// output), where CI tools look: under `--fail-on warn` a warning is a <failure>, under `--fail-on skip` a skip is one,
// and a run-level problem (a client that exited non-zero) is a failing testcase of its own.
import { verdictFor } from '../exit-code.js';
import type { RunSummary } from '../result.js';
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

export function renderJunitReport(summary: RunSummary): string {
  const suiteName = `payconform audit ${summary.role}`;
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
  const failures =
    gated.size +
    summary.counts.fail +
    (failOnWarn ? summary.counts.warn : 0) +
    (failOnSkip ? summary.counts.skip : 0) +
    summary.blocking.length;
  const errors = summary.counts.error + (summary.stopped !== undefined ? 1 : 0);
  const skipped =
    (failOnSkip ? 0 : summary.counts.skip) +
    summary.counts['n/a'] +
    unexercised.length -
    gated.size;
  const tests =
    summary.results.length +
    summary.blocking.length +
    unexercised.length +
    (summary.stopped !== undefined ? 1 : 0);
  const verdict = verdictFor(summary);
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  out.push(
    `<testsuites name="${xmlEscape(suiteName)}" tests="${tests}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${seconds(summary.durationMs)}">`,
  );
  out.push(
    `  <testsuite name="${xmlEscape(`${suiteName}: ${summary.target}`)}" tests="${tests}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${seconds(summary.durationMs)}" timestamp="${xmlEscape(summary.startedAt.replace(/Z$/, ''))}">`,
  );
  out.push('    <properties>');
  for (const [name, value] of [
    ['target', summary.target],
    ['toolVersion', summary.toolVersion],
    ['catalogueVersion', summary.catalogueVersion],
    ['partial', String(summary.partial)],
    ['verdict', verdict.verdict],
    ['exitCode', String(verdict.exitCode)],
    ['failOn', summary.gate.failOn.join(',')],
    ...(summary.evidence !== undefined
      ? ([
          ['evidenceBodyBytes', String(summary.evidence.bodyBytes)],
          ['evidenceRunBytes', String(summary.evidence.runBytes)],
          ['evidenceBodiesCut', String(summary.evidence.bodiesCut)],
        ] as const)
      : []),
    ...(summary.baseline !== undefined
      ? ([
          ['baseline', baselineLines(summary.baseline)[0]!],
          ...summary.baseline.known.map(
            (k, i) => [`baseline.known.${i + 1}`, `${describeKey(k)}: ${k.reason}`] as const,
          ),
        ] as const)
      : []),
    ...(table !== undefined
      ? ([
          ['requirements', mustExercisedLine(table)],
          ['requirementsMustExercised', String(table.must.exercised)],
          ['requirementsMustTotal', String(table.must.total)],
          ...table.rows.map(
            (r) =>
              [
                `requirement.${r.id}`,
                `${r.status}${r.checks.length > 0 ? ` by ${r.checks.join(', ')}` : ''}${r.explored !== undefined ? ` (${r.explored})` : ''}${r.reason !== undefined ? `: ${r.reason}` : ''}`,
              ] as const,
          ),
        ] as const)
      : []),
  ] as const) {
    out.push(`      <property name="${xmlEscape(name)}" value="${xmlEscape(value)}"/>`);
  }
  out.push('    </properties>');
  for (const r of summary.results) {
    const open = `    <testcase classname="${xmlEscape(`payconform.${r.area}`)}" name="${xmlEscape(`${r.id}: ${r.title}`)}" time="${seconds(r.durationMs)}">`;
    const details = [
      `${r.level} check; requirements: ${r.requirements.join(', ')}`,
      ...r.findings.map(findingText),
    ].join('\n\n');
    const message = xmlEscape(`[${r.level}] ${r.message}`);
    const rerun = r.rerun !== undefined ? `\n\nrun this check again: ${r.rerun}` : '';
    if (r.outcome === 'warn' && failOnWarn)
      out.push(
        open,
        `      <failure message="${xmlEscape(`[warning, failed by --fail-on warn] ${r.message}`)}" type="warn">${xmlEscape(details + rerun)}</failure>`,
        '    </testcase>',
      );
    else if (r.outcome === 'skip' && failOnSkip)
      out.push(
        open,
        `      <failure message="${xmlEscape(`[skipped, failed by --fail-on skip] ${r.message}`)}" type="skip"/>`,
        '    </testcase>',
      );
    else if (r.outcome === 'fail')
      out.push(
        open,
        `      <failure message="${message}" type="${r.level}">${xmlEscape(details + rerun)}</failure>`,
        '    </testcase>',
      );
    else if (r.outcome === 'error')
      out.push(
        open,
        `      <error message="${message}" type="error">${xmlEscape(details + rerun)}</error>`,
        '    </testcase>',
      );
    else if (r.outcome === 'skip' || r.outcome === 'n/a')
      out.push(
        open,
        `      <skipped message="${xmlEscape(`${r.outcome}: ${r.message}`)}"/>`,
        '    </testcase>',
      );
    else if (r.outcome === 'warn')
      out.push(
        open,
        `      <system-out>${xmlEscape(`WARNING (${r.level} not met, does not fail the run)\n\n${details}`)}</system-out>`,
        '    </testcase>',
      );
    else out.push(open, `      <system-out>${xmlEscape(details)}</system-out>`, '    </testcase>');
  }
  for (const r of unexercised) {
    const why = `${r.status === 'inconclusive' ? 'inconclusive' : 'not exercised'}: ${r.reason ?? ''}`;
    out.push(
      `    <testcase classname="payconform.requirements" name="${xmlEscape(`${r.id} [MUST]`)}" time="0.000">`,
      gated.has(r.id)
        ? `      <failure message="${xmlEscape(`[failed by --fail-on unexercised] ${why}`)}" type="unexercised"/>`
        : `      <skipped message="${xmlEscape(why)}"/>`,
      '    </testcase>',
    );
  }
  // A run that stopped before its checks: one errored test case that names why, so a CI job always shows it.
  if (summary.stopped !== undefined)
    out.push(
      `    <testcase classname="payconform.run" name="${xmlEscape(`run stopped (exit ${summary.stopped.exitCode}): ${summary.stopped.reason}`)}" time="0.000">`,
      `      <error message="${xmlEscape(summary.stopped.reason)}" type="exit-${summary.stopped.exitCode}"/>`,
      '    </testcase>',
    );
  summary.blocking.forEach((problem, i) => {
    out.push(
      `    <testcase classname="payconform.run" name="${xmlEscape(`run-${i + 1}: ${problem}`)}" time="0.000">`,
      `      <failure message="${xmlEscape(problem)}" type="run"/>`,
      '    </testcase>',
    );
  });
  out.push('  </testsuite>', '</testsuites>', '');
  return out.join('\n');
}
