// Console, JSON and JUnit renderings of a harness report. Pure string builders; the CLI writes the files.
import { xmlEscape } from '../../conformance/reporters/junit.js';
import type { CaseReport, HarnessReport } from './run.js';

export type ReportFormat = 'json' | 'junit';
export interface ReportSpec {
  readonly format: ReportFormat;
  readonly path: string;
}

/** Parses `json:PATH` or `junit:PATH`; returns a message instead of throwing for anything else. */
export function parseReportSpec(text: string): ReportSpec | { readonly error: string } {
  const colon = text.indexOf(':');
  const format = colon > 0 ? text.slice(0, colon) : '';
  const path = colon > 0 ? text.slice(colon + 1) : '';
  if ((format !== 'json' && format !== 'junit') || path === '') {
    return { error: `--report expects json:PATH or junit:PATH, got ${JSON.stringify(text)}` };
  }
  return { format, path };
}

const MARK: Readonly<Record<CaseReport['status'], string>> = { pass: 'PASS', fail: 'FAIL', skip: 'SKIP', inexpressible: 'CANNOT' };

/** Failures and skips one per line, then the summary. Passing cases only with `verbose`. */
export function formatConsole(report: HarnessReport, verbose = false): string {
  const lines: string[] = [];
  const impl = report.implementation;
  if (impl) lines.push(`implementation: ${impl.name}${impl.version ? ` ${impl.version}` : ''} (protocol ${report.protocol})`, '');
  for (const c of report.cases) {
    if (c.status === 'pass' && !verbose) continue;
    lines.push(`${MARK[c.status]} ${c.id} (${c.file}, ${c.op})${c.message ? `: ${c.message}` : ''}`);
  }
  if (report.aborted) lines.push('', `run stopped early: ${report.aborted}`);
  if (report.adapterStderr) lines.push('', 'implementation stderr (last lines):', ...report.adapterStderr.split('\n').map((l) => `  ${l}`));
  const s = report.summary;
  const cannot = s.inexpressible > 0 ? `, ${s.inexpressible} cannot be expressed` : '';
  lines.push('', `${s.total} cases: ${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped${cannot} (${report.durationMs} ms)`, '');
  return lines.join('\n');
}

export function formatJson(report: HarnessReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

/** One testsuite per vector file, one testcase per case (classname = file, name = case id). */
export function formatJunit(report: HarnessReport): string {
  const byFile = new Map<string, CaseReport[]>();
  for (const c of report.cases) byFile.set(c.file, [...(byFile.get(c.file) ?? []), c]);
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const s = report.summary;
  out.push(`<testsuites name="payconform vectors" tests="${s.total}" failures="${s.failed}" skipped="${s.skipped + s.inexpressible}" time="${(report.durationMs / 1000).toFixed(3)}">`);
  for (const [file, cases] of byFile) {
    const failures = cases.filter((c) => c.status === 'fail').length;
    const skipped = cases.filter((c) => c.status === 'skip' || c.status === 'inexpressible').length;
    const time = cases.reduce((t, c) => t + c.durationMs, 0) / 1000;
    out.push(`  <testsuite name="${xmlEscape(file)}" tests="${cases.length}" failures="${failures}" skipped="${skipped}" time="${time.toFixed(3)}">`);
    for (const c of cases) {
      const open = `    <testcase classname="${xmlEscape(file)}" name="${xmlEscape(c.id)}" time="${(c.durationMs / 1000).toFixed(3)}"`;
      if (c.status === 'pass') {
        out.push(`${open}/>`);
      } else if (c.status === 'skip' || c.status === 'inexpressible') {
        out.push(`${open}>`, `      <skipped message="${xmlEscape(c.message ?? '')}"/>`, '    </testcase>');
      } else {
        const detail = JSON.stringify({ expected: c.expected, received: c.received }, null, 2);
        out.push(`${open}>`, `      <failure message="${xmlEscape(c.message ?? 'failed')}">${xmlEscape(detail)}</failure>`, '    </testcase>');
      }
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>', '');
  return out.join('\n');
}
