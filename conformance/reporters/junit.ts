// JUnit XML: one testcase per check (fail → <failure>, error → <error>, skip and n/a → <skipped/>, warn passes with output).
import type { RunSummary } from '../result.js';
import { findingText } from './evidence-text.js';

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
  const failures = summary.counts.fail;
  const errors = summary.counts.error;
  const skipped = summary.counts.skip + summary.counts['n/a'];
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  out.push(`<testsuites name="${xmlEscape(suiteName)}" tests="${summary.results.length}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${seconds(summary.durationMs)}">`);
  out.push(`  <testsuite name="${xmlEscape(`${suiteName}: ${summary.target}`)}" tests="${summary.results.length}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${seconds(summary.durationMs)}" timestamp="${xmlEscape(summary.startedAt.replace(/Z$/, ''))}">`);
  out.push('    <properties>');
  for (const [name, value] of [['target', summary.target], ['toolVersion', summary.toolVersion], ['catalogueVersion', summary.catalogueVersion], ['partial', String(summary.partial)]] as const) {
    out.push(`      <property name="${xmlEscape(name)}" value="${xmlEscape(value)}"/>`);
  }
  out.push('    </properties>');
  for (const r of summary.results) {
    const open = `    <testcase classname="${xmlEscape(`payconform.${r.area}`)}" name="${xmlEscape(`${r.id}: ${r.title}`)}" time="${seconds(r.durationMs)}">`;
    const details = [`${r.level} check; requirements: ${r.requirements.join(', ')}`, ...r.findings.map(findingText)].join('\n\n');
    const message = xmlEscape(`[${r.level}] ${r.message}`);
    if (r.outcome === 'fail') out.push(open, `      <failure message="${message}" type="${r.level}">${xmlEscape(details)}</failure>`, '    </testcase>');
    else if (r.outcome === 'error') out.push(open, `      <error message="${message}" type="error">${xmlEscape(details)}</error>`, '    </testcase>');
    else if (r.outcome === 'skip' || r.outcome === 'n/a') out.push(open, `      <skipped message="${xmlEscape(`${r.outcome}: ${r.message}`)}"/>`, '    </testcase>');
    else if (r.outcome === 'warn') out.push(open, `      <system-out>${xmlEscape(`WARNING (${r.level} not met, does not fail the run)\n\n${details}`)}</system-out>`, '    </testcase>');
    else out.push(open, `      <system-out>${xmlEscape(details)}</system-out>`, '    </testcase>');
  }
  out.push('  </testsuite>', '</testsuites>', '');
  return out.join('\n');
}
