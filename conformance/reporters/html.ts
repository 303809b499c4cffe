// One self-contained HTML page (no external resources, no scripts): an index of failures and warnings, then the
// checks worst first, each with its requirements and evidence; passing checks are collapsed (<details>).
import { showControls } from './printable.js';
import { verdictFor, verdictLine } from '../run/exit-code.js';
import { OUTCOME_SEVERITY } from '../run/grade.js';
import type { Catalogue } from '../requirements.js';
import type {
  CheckResult,
  GradedFinding,
  Outcome,
  RequirementStatus,
  RunSummary,
} from '../run/result.js';
import { explorerOf, REPLAY_LABEL, requestText, responseText } from './evidence-text.js';
import { mustExercisedLine } from '../requirement-table.js';
import { baselineLines } from '../report/baseline.js';
import { EXPLORE_CHECK_ID } from '../explore/check-id.js';
import { countOf, failedRequirementsText, runCounts, type CountName } from '../run/run-counts.js';

/** Text for HTML content and attributes: control, bidirectional and separator characters shown as escapes, then the markup characters as entities. */
export function htmlEscape(text: string): string {
  return showControls(text, { multiline: true })
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

const ORDER: readonly Outcome[] = ['error', 'fail', 'warn', 'skip', 'pass', 'n/a'];
/** Outcomes whose checks are shown open; the rest are collapsed. */
const OPEN: ReadonlySet<Outcome> = new Set(['error', 'fail', 'warn', 'skip']);

const STYLE = `body{font:14px/1.45 system-ui,sans-serif;margin:2em;color:#222;max-width:70em}
h1{font-size:1.4em}table{border-collapse:collapse}td,th{padding:.2em .8em;border-bottom:1px solid #ddd;text-align:left}
.o{display:inline-block;min-width:3.5em;padding:0 .4em;border-radius:3px;font-weight:600;text-align:center;color:#fff}
.o-pass{background:#2e7d32}.o-fail,.o-error{background:#c62828}.o-warn{background:#ef6c00}.o-skip,.o-na{background:#757575}
.check{border:1px solid #ddd;border-radius:4px;padding:.6em 1em;margin:.8em 0}summary{cursor:pointer}
summary h3{display:inline;font-size:1em}
pre{background:#f5f5f5;padding:.6em;overflow:auto;white-space:pre-wrap;word-break:break-all}
.req{font-size:.9em;color:#444}.muted{color:#666}`;

const badge = (o: Outcome): string =>
  `<span class="o o-${o === 'n/a' ? 'na' : o}">${htmlEscape(o.toUpperCase())}</span>`;
/** A check a known finding decided: its own badge, never PASS. */
const knownBadge = '<span class="o o-warn">KNOWN</span>';
/** A check whose failure did not happen again when run once more alone: its outcome, marked flaky. */
const flakyBadge = (o: Outcome): string =>
  `<span class="o o-${o === 'n/a' ? 'na' : o}">${htmlEscape(o.toUpperCase())}, FLAKY</span>`;
const checkBadge = (r: CheckResult): string =>
  countOf(r) === 'known' ? knownBadge : r.flaky ? flakyBadge(r.outcome) : badge(r.outcome);

/** The counts table's rows in the order of ORDER, each with the outcome whose badge it shows. */
const COUNT_ROWS: ReadonlyArray<readonly [Exclude<CountName, 'known'>, Outcome]> = [
  ['inconclusive', 'error'],
  ['failed', 'fail'],
  ['warned', 'warn'],
  ['skipped', 'skip'],
  ['passed', 'pass'],
  ['notApplicable', 'n/a'],
];

function findingHtml(f: GradedFinding): string {
  const parts = [
    `<li>${f.flaky ? flakyBadge(f.outcome) : badge(f.outcome)} ${htmlEscape(f.message)}${f.observed ? ' <span class="muted">(observed; the spec does not show this, never a failure)</span>' : ''}${f.requirement ? ` <code>${htmlEscape(f.requirement)}</code>` : ''}`,
  ];
  if (f.expected !== undefined)
    parts.push(`<div>expected: <code>${htmlEscape(f.expected)}</code></div>`);
  if (f.received !== undefined)
    parts.push(`<div>received: <code>${htmlEscape(f.received)}</code></div>`);
  const e = f.evidence;
  if (e?.request)
    parts.push(`<div>request sent:</div><pre>${htmlEscape(requestText(e.request))}</pre>`);
  if (e?.response)
    parts.push(`<div>response received:</div><pre>${htmlEscape(responseText(e.response))}</pre>`);
  if (e?.reproduce)
    parts.push(`<div>${htmlEscape(REPLAY_LABEL)}:</div><pre>${htmlEscape(e.reproduce)}</pre>`);
  if (e?.notes) parts.push(`<div class="muted">${htmlEscape(e.notes)}</div>`);
  return `${parts.join('\n')}</li>`;
}

/** Findings worst first (a stable sort keeps the check's own order among equals). */
function worstFirst(findings: readonly GradedFinding[]): GradedFinding[] {
  return [...findings].sort(
    (a, b) => OUTCOME_SEVERITY.indexOf(a.outcome) - OUTCOME_SEVERITY.indexOf(b.outcome),
  );
}

function checkHtml(r: CheckResult, catalogue: Catalogue | undefined): string {
  const reqs = r.requirements.map((id) => {
    const req = catalogue?.byId.get(id);
    return `<li><code>${htmlEscape(id)}</code>${req ? ` [${htmlEscape(req.level)}${req.shown ? '' : ', not shown'}${req.source ? `, ${htmlEscape(req.source)} profile` : ''}] ${htmlEscape(req.text)} <span class="muted">(${htmlEscape(req.section)})</span>` : ''}</li>`;
  });
  return `<details class="check" id="${htmlEscape(r.id)}"${OPEN.has(r.outcome) ? ' open' : ''}>
<summary><h3>${checkBadge(r)} <code>${htmlEscape(r.id)}</code> ${htmlEscape(r.title)}</h3></summary>
<div class="muted">${htmlEscape(r.area)} · ${htmlEscape(r.level)} · ${r.durationMs} ms</div>
<p>${htmlEscape(r.message)}</p>
${r.rerun !== undefined && r.outcome !== 'pass' && r.outcome !== 'n/a' ? `<div>run this check again (signs afresh, works at any time):</div><pre>${htmlEscape(r.rerun)}</pre>` : ''}
<div class="req">Requirements:<ul>${reqs.join('\n')}</ul></div>
${r.findings.length > 0 ? `<ul>${worstFirst(r.findings).map(findingHtml).join('\n')}</ul>` : ''}
${againHtml(r)}</details>`;
}

/** A flaky check's second run (once more, alone): its outcome, message and findings. */
function againHtml(r: CheckResult): string {
  if (r.again === undefined) return '';
  const shown = r.again.findings.filter((f) => f.outcome !== 'pass' || f.observed);
  return `<div>run once more alone: ${badge(r.again.outcome)} ${htmlEscape(r.again.message)}</div>
${shown.length > 0 ? `<ul>${worstFirst(shown).map(findingHtml).join('\n')}</ul>` : ''}
`;
}

/** The index at the top: one link per check that did not pass, worst first. */
function indexHtml(sorted: readonly CheckResult[]): string {
  const problems = sorted.filter(
    (r) =>
      r.outcome === 'error' || r.outcome === 'fail' || r.outcome === 'warn' || r.outcome === 'skip',
  );
  if (problems.length === 0) return '<p>Every check passed or did not apply.</p>';
  return `<h2>Index of failures, warnings and skips (${problems.length})</h2>
<ol class="index">${problems.map((r) => `<li>${badge(r.outcome)} <a href="#${htmlEscape(r.id)}"><code>${htmlEscape(r.id)}</code></a> ${htmlEscape(r.message)}</li>`).join('\n')}</ol>`;
}

const STATUS_BADGE: Readonly<Record<RequirementStatus, Outcome>> = {
  failed: 'fail',
  passed: 'pass',
  inconclusive: 'error',
  'not-exercised': 'skip',
};

/** What the run exercised: one row per requirement, failed first, then not exercised, inconclusive, passed. */
function requirementsHtml(summary: RunSummary, catalogue: Catalogue | undefined): string {
  const table = summary.requirements.table;
  if (table === undefined) return '';
  const order: readonly RequirementStatus[] = ['failed', 'not-exercised', 'inconclusive', 'passed'];
  const rows = [...table.rows].sort(
    (a, b) => order.indexOf(a.status) - order.indexOf(b.status) || Number(b.must) - Number(a.must),
  );
  const row = (r: (typeof rows)[number]): string => {
    const text = catalogue?.byId.get(r.id)?.text;
    const how =
      r.checks.length > 0
        ? `by ${r.checks.map((c) => `<a href="#${htmlEscape(c)}"><code>${htmlEscape(c)}</code></a>`).join(', ')}${r.explored !== undefined ? ` <span class="muted">(${htmlEscape(r.explored)})</span>` : ''}`
        : htmlEscape(r.reason ?? '');
    return `<tr><td>${badge(STATUS_BADGE[r.status])}</td><td><code>${htmlEscape(r.id)}</code>${text !== undefined ? `<div class="muted">${htmlEscape(text)}</div>` : ''}</td><td>${htmlEscape(r.level)}${r.must ? '' : ' <span class="muted">(cannot fail)</span>'}</td><td>${how}</td></tr>`;
  };
  return `<h2 id="requirements">Requirements: ${htmlEscape(mustExercisedLine(table))}</h2>
<table class="requirements"><tr><th>status</th><th>requirement</th><th>level</th><th>exercised by, or why not</th></tr>
${rows.map(row).join('\n')}</table>`;
}

/**
 * The first screen: what the requirement table says in one line (exercised, failed, not exercised that apply), and
 * what the explorer did (its sequences, steps, what it created, the seed) with the command that replays a failure.
 */
function firstScreenHtml(summary: RunSummary): string {
  const out: string[] = [];
  const table = summary.requirements.table;
  if (table !== undefined) {
    const missing = table.must.total - table.must.exercised;
    out.push(
      `<p><strong>Requirements:</strong> <a href="#requirements">${htmlEscape(mustExercisedLine(table))}</a>; ${htmlEscape(failedRequirementsText(summary))}; ${missing} not exercised</p>`,
    );
  }
  const explorer = explorerOf(summary);
  if (explorer === 'not-run') out.push('<p><strong>Explorer:</strong> not run (--no-explore)</p>');
  else if (explorer !== undefined)
    out.push(
      `<p><strong>Explorer:</strong> ${badge(explorer.result.outcome)} <a href="#${EXPLORE_CHECK_ID}">${htmlEscape(explorer.result.message)}</a></p>`,
      explorer.replay !== undefined
        ? `<div>replay the shrunk sequence:</div><pre>${htmlEscape(explorer.replay)}</pre>`
        : '',
    );
  return out.join('\n');
}

/** The checks that do not apply to this target, with the reason (they are not skips). */
function notApplicableHtml(summary: RunSummary): string {
  const na = summary.results.filter((r) => r.outcome === 'n/a');
  if (na.length === 0) return '';
  return `<h2>Not applicable to this target (${na.length}; not skipped, they do not make the run INCOMPLETE)</h2>
<ul>${na.map((r) => `<li><code>${htmlEscape(r.id)}</code>: ${htmlEscape(r.message)}</li>`).join('\n')}</ul>`;
}

/** The run as a standalone HTML page (no script, no remote resource). */
export function renderHtmlReport(
  summary: RunSummary,
  options: { readonly catalogue?: Catalogue } = {},
): string {
  const v = verdictFor(summary);
  const verdict = verdictLine(summary).replace(/^verdict: /, '');
  const sorted = [...summary.results].sort(
    (a, b) => ORDER.indexOf(a.outcome) - ORDER.indexOf(b.outcome),
  );
  // Every count from the one source the other reports use (run-counts.ts): known apart, never among the passes.
  const c = runCounts(summary);
  const counts = [
    ...COUNT_ROWS.map(([name, o]) => `<tr><td>${badge(o)}</td><td>${c[name]}</td></tr>`),
    `<tr><td>${knownBadge}</td><td>${c.known}</td></tr>`,
    `<tr><td>TOTAL</td><td>${c.total}</td></tr>`,
  ].join('');
  const uncovered = summary.requirements.uncovered.map((id) => {
    const req = options.catalogue?.byId.get(id);
    return `<li><code>${htmlEscape(id)}</code>${req ? ` ${htmlEscape(req.text)}` : ''}</li>`;
  });
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>payconform audit ${htmlEscape(summary.role)}: ${htmlEscape(summary.target)}</title>
<style>${STYLE}</style></head><body>
<h1>payconform audit ${htmlEscape(summary.role)}: ${htmlEscape(verdict)} (exit ${v.exitCode})</h1>
<p>Target <code>${htmlEscape(summary.target)}</code> · payconform ${htmlEscape(summary.toolVersion)} · catalogue ${htmlEscape(summary.catalogueVersion)} · ${htmlEscape(summary.startedAt)} · ${summary.durationMs} ms</p>
${summary.stopped !== undefined ? `<p><strong>Run stopped${summary.results.length === 0 ? ' before its checks' : ''} (exit ${summary.stopped.exitCode}):</strong> ${htmlEscape(summary.stopped.reason)}</p>` : ''}
${summary.blocking.map((b) => `<p><strong>Run failed:</strong> ${htmlEscape(b)}</p>`).join('\n')}
${summary.partial ? `<p><strong>Partial run:</strong> ${htmlEscape(summary.partialReasons.join('; '))}</p>` : ''}
${summary.evidence !== undefined && summary.evidence.bodiesCut > 0 ? `<p><strong>Evidence cut:</strong> ${summary.evidence.bodiesCut} bodies (a report keeps ${summary.evidence.bodyBytes} bytes of a body, ${summary.evidence.runBytes} bytes of bodies in all)</p>` : ''}
${firstScreenHtml(summary)}
<table>${counts}</table>
${summary.baseline !== undefined ? `<h2>Baseline</h2><pre>${htmlEscape(baselineLines(summary.baseline).join('\n'))}</pre>` : ''}
${summary.stopped !== undefined && summary.results.length === 0 ? '<p>No check ran.</p>' : indexHtml(sorted)}
${notApplicableHtml(summary)}
<h2>Checks (failures first; passing checks collapsed)</h2>
${sorted.map((r) => checkHtml(r, options.catalogue)).join('\n')}
${requirementsHtml(summary, options.catalogue)}
<h2>Requirements no check covers yet (${summary.requirements.uncovered.length})</h2>
<ul>${uncovered.join('\n')}</ul>
</body></html>
`;
}
