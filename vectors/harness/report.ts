// Console, JSON, JUnit and HTML renderings of a harness report (the audits' report formats). Pure string builders;
// the CLI writes the files.
import { htmlEscape } from '../../conformance/reporters/html.js';
import { xmlEscape } from '../../conformance/reporters/junit.js';
import { showControls } from '../../conformance/reporters/printable.js';
import { verdictOf, type CaseReport, type HarnessGate, type HarnessReport } from './run.js';

export const REPORT_FORMATS = ['json', 'junit', 'html'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];
export interface ReportSpec {
  readonly format: ReportFormat;
  readonly path: string;
}

/** Parses `FORMAT:PATH` (json, junit, html; PATH `-` is standard output); returns a message for anything else. */
export function parseReportSpec(text: string): ReportSpec | { readonly error: string } {
  const colon = text.indexOf(':');
  const format = colon > 0 ? text.slice(0, colon).toLowerCase() : '';
  const path = colon > 0 ? text.slice(colon + 1) : '';
  if (!(REPORT_FORMATS as readonly string[]).includes(format) || path === '') {
    return {
      error: `--report expects FORMAT:PATH with FORMAT one of ${REPORT_FORMATS.join(', ')}, got ${JSON.stringify(text)}`,
    };
  }
  return { format: format as ReportFormat, path };
}

export function formatReport(
  format: ReportFormat,
  report: HarnessReport,
  gate: HarnessGate = {},
): string {
  switch (format) {
    case 'json':
      return formatJson(report, gate);
    case 'junit':
      return formatJunit(report);
    case 'html':
      return formatHtml(report, gate);
  }
}

const MARK: Readonly<Record<CaseReport['status'], string>> = {
  pass: 'PASS',
  fail: 'FAIL',
  skip: 'SKIP',
  inexpressible: 'CANNOT',
};

type Counts = Omit<HarnessReport['summary'], 'notRun'>;

/** A count line (cases never sent are named apart, not counted as failures). */
function countLine(s: Counts & { readonly notRun?: number }): string {
  const cannot = s.inexpressible > 0 ? `, ${s.inexpressible} cannot be expressed` : '';
  const notRun = (s.notRun ?? 0) > 0 ? `, ${s.notRun} not run` : '';
  return `${s.total} cases: ${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped${cannot}${notRun}`;
}

/** The summary line's counts. */
function counts(report: HarnessReport): string {
  return countLine(report.summary);
}

export interface GroupSummaries {
  readonly byFile: Readonly<Record<string, Counts>>;
  readonly byOp: Readonly<Record<string, Counts>>;
}

/** The counts per vector file and per op, in the order the cases ran. */
export function groupSummaries(report: HarnessReport): GroupSummaries {
  const key: Readonly<Record<CaseReport['status'], keyof Counts>> = {
    pass: 'passed',
    fail: 'failed',
    skip: 'skipped',
    inexpressible: 'inexpressible',
  };
  const byFile: Record<string, Record<keyof Counts, number>> = {};
  const byOp: Record<string, Record<keyof Counts, number>> = {};
  for (const c of report.cases) {
    for (const [groups, name] of [
      [byFile, c.file],
      [byOp, c.op],
    ] as const) {
      const g = (groups[name] ??= { total: 0, passed: 0, failed: 0, skipped: 0, inexpressible: 0 });
      g.total++;
      g[key[c.status]]++;
    }
  }
  return { byFile, byOp };
}

function summaryLines(report: HarnessReport): string[] {
  const groups = groupSummaries(report);
  const names = [...Object.keys(groups.byFile), ...Object.keys(groups.byOp)];
  const width = Math.max(0, ...names.map((n) => n.length));
  const rows = (group: GroupSummaries['byFile']): string[] =>
    Object.entries(group).map(([name, c]) => `  ${name.padEnd(width)}  ${countLine(c)}`);
  return ['by file:', ...rows(groups.byFile), 'by op:', ...rows(groups.byOp)];
}

/** JSON.stringify, with every character outside printable ASCII escaped (as Python's json.dumps writes it). */
const asciiJson = (value: unknown): string =>
  JSON.stringify(value).replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );

/**
 * A value as a failure shows it (run-vectors.py's `show` writes the same): a one-line text as a JSON string, escapes
 * making invisible characters and non-ASCII visible; a multi-line text (a signature base) one row per line; anything
 * else as compact JSON. Bytes travel as base64 text in this protocol, so they show as that text.
 */
export function showValue(value: unknown, indent = '    '): string {
  if (value === undefined) return '(nothing)';
  if (typeof value === 'string' && value.includes('\n')) {
    const lines = value.split('\n');
    const rows = lines.map((l) => `\n${indent}| ${/^[\x20-\x7e]*$/.test(l) ? l : asciiJson(l)}`);
    return `(${lines.length} lines)${rows.join('')}`;
  }
  return asciiJson(value);
}

/**
 * Failures and skips one per line, then the summary and the verdict. Passing cases only with `verbose`. Every control
 * character shown as an escape.
 */
export function formatConsole(
  report: HarnessReport,
  verbose = false,
  gate: HarnessGate = {},
): string {
  const lines: string[] = [];
  const verdict = verdictOf(report, gate);
  if (!report.started) {
    // One error, not one failure per case: nothing was sent (vectors/README.md, "Exit codes").
    lines.push(`ERROR the implementation did not start: ${report.aborted ?? 'no reason known'}`);
    if (report.adapterStderr)
      lines.push(
        '',
        'implementation stderr (last lines):',
        ...report.adapterStderr.split('\n').map((l) => `  ${l}`),
      );
    lines.push('', `no case run (${report.summary.notRun} in the set)`, `verdict: ${verdict}`, '');
    return showControls(lines.join('\n'), { multiline: true });
  }
  const impl = report.implementation;
  if (impl)
    lines.push(
      `implementation: ${impl.name}${impl.version ? ` ${impl.version}` : ''} (protocol ${report.protocol})`,
      '',
    );
  for (const c of report.cases) {
    if (c.status === 'pass' && !verbose) continue;
    lines.push(
      `${MARK[c.status]} ${c.id} (${c.file}, ${c.op})${c.message ? `: ${c.message}` : ''}`,
    );
    if (c.status === 'fail')
      lines.push(`  expected: ${showValue(c.expected)}`, `  received: ${showValue(c.received)}`);
  }
  if (report.aborted) lines.push('', `run stopped early: ${report.aborted}`);
  if (report.adapterStderr)
    lines.push(
      '',
      'implementation stderr (last lines):',
      ...report.adapterStderr.split('\n').map((l) => `  ${l}`),
    );
  const s = report.summary;
  lines.push('', ...summaryLines(report), '', `${counts(report)} (${report.durationMs} ms)`);
  if (verdict === 'INCOMPLETE')
    lines.push(
      `verdict: INCOMPLETE: ${s.skipped + s.inexpressible} case(s) skipped or inexpressible; --allow-skips accepts them, --fail-on skip fails them`,
    );
  else lines.push(`verdict: ${verdict}`);
  lines.push('');
  // Inert on a terminal: an implementation's messages and stderr carry whatever it wrote (ESC, BEL, U+202E).
  return showControls(lines.join('\n'), { multiline: true });
}

/** The report as JSON, with the verdict the gate gives it (as the audits record theirs) and the counts per group. */
export function formatJson(report: HarnessReport, gate: HarnessGate = {}): string {
  const verdict = verdictOf(report, gate);
  return `${JSON.stringify({ ...report, verdict, ...groupSummaries(report) }, null, 2)}\n`;
}

/** One testsuite per vector file, one testcase per case (classname = file, name = case id). */
export function formatJunit(report: HarnessReport): string {
  const byFile = new Map<string, CaseReport[]>();
  for (const c of report.cases) byFile.set(c.file, [...(byFile.get(c.file) ?? []), c]);
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const s = report.summary;
  out.push(
    `<testsuites name="payconform vectors" tests="${s.total}" failures="${s.failed}" skipped="${s.skipped + s.inexpressible}" time="${(report.durationMs / 1000).toFixed(3)}">`,
  );
  for (const [file, cases] of byFile) {
    const failures = cases.filter((c) => c.status === 'fail').length;
    const skipped = cases.filter((c) => c.status === 'skip' || c.status === 'inexpressible').length;
    const time = cases.reduce((t, c) => t + c.durationMs, 0) / 1000;
    out.push(
      `  <testsuite name="${xmlEscape(file)}" tests="${cases.length}" failures="${failures}" skipped="${skipped}" time="${time.toFixed(3)}">`,
    );
    for (const c of cases) {
      const open = `    <testcase classname="${xmlEscape(file)}" name="${xmlEscape(c.id)}" time="${(c.durationMs / 1000).toFixed(3)}"`;
      if (c.status === 'pass') {
        out.push(`${open}/>`);
      } else if (c.status === 'skip' || c.status === 'inexpressible') {
        out.push(
          `${open}>`,
          `      <skipped message="${xmlEscape(c.message ?? '')}"/>`,
          '    </testcase>',
        );
      } else {
        const detail = JSON.stringify({ expected: c.expected, received: c.received }, null, 2);
        out.push(
          `${open}>`,
          `      <failure message="${xmlEscape(c.message ?? 'failed')}">${xmlEscape(detail)}</failure>`,
          '    </testcase>',
        );
      }
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>', '');
  return out.join('\n');
}

const STYLE = `body{font:14px/1.45 system-ui,sans-serif;margin:2em;color:#222;max-width:70em}
.o{display:inline-block;min-width:3.5em;padding:0 .4em;border-radius:3px;font-weight:600;text-align:center;color:#fff}
.o-pass{background:#2e7d32}.o-fail{background:#c62828}.o-skip,.o-inexpressible{background:#757575}
details{border:1px solid #ddd;border-radius:4px;padding:.4em 1em;margin:.6em 0}summary{cursor:pointer}
pre{background:#f5f5f5;padding:.6em;overflow:auto;white-space:pre-wrap;word-break:break-all}`;

const badge = (status: CaseReport['status']): string =>
  `<span class="o o-${status}">${MARK[status]}</span>`;

/** One self-contained page: an index of failures, then each vector file (files with failures open, others collapsed). */
export function formatHtml(report: HarnessReport, gate: HarnessGate = {}): string {
  const s = report.summary;
  const failed = report.cases.filter((c) => c.status === 'fail');
  const byFile = new Map<string, CaseReport[]>();
  for (const c of report.cases) byFile.set(c.file, [...(byFile.get(c.file) ?? []), c]);
  const caseHtml = (c: CaseReport): string => {
    const detail =
      c.status === 'fail'
        ? `<pre>${htmlEscape(JSON.stringify({ expected: c.expected, received: c.received }, null, 2))}</pre>`
        : '';
    return `<li id="${htmlEscape(c.id)}">${badge(c.status)} <code>${htmlEscape(c.id)}</code> (${htmlEscape(c.op)})${c.message ? `: ${htmlEscape(c.message)}` : ''}${detail}</li>`;
  };
  const order: Readonly<Record<CaseReport['status'], number>> = {
    fail: 0,
    inexpressible: 1,
    skip: 2,
    pass: 3,
  };
  const files = [...byFile].map(([file, cases]) => {
    const bad = cases.filter((c) => c.status === 'fail').length;
    const sorted = [...cases].sort((a, b) => order[a.status] - order[b.status]);
    return `<details${bad > 0 ? ' open' : ''}><summary><code>${htmlEscape(file)}</code>: ${cases.length} cases, ${bad} failed</summary><ul>${sorted.map(caseHtml).join('\n')}</ul></details>`;
  });
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>payconform vectors run</title><style>${STYLE}</style></head><body>
<h1>payconform vectors run: ${verdictOf(report, gate)}</h1>
<p>Command <code>${htmlEscape(report.command)}</code> · ${htmlEscape(report.startedAt)} · ${report.durationMs} ms · ${htmlEscape(counts(report))}</p>
${report.aborted ? `<p><strong>Run stopped early:</strong> ${htmlEscape(report.aborted)}</p>` : ''}
${failed.length > 0 ? `<h2>Index of failures (${failed.length})</h2><ol>${failed.map((c) => `<li><a href="#${htmlEscape(c.id)}"><code>${htmlEscape(c.id)}</code></a> ${htmlEscape(c.message ?? '')}</li>`).join('\n')}</ol>` : '<p>Every case passed or was skipped.</p>'}
<h2>Cases by file</h2>
${files.join('\n')}
</body></html>
`;
}
