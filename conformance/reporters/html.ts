// One self-contained HTML page (no external resources, no scripts): failures first, each with its requirements and evidence.
import { exitCodeFor } from '../exit-code.js';
import type { Catalogue } from '../requirements.js';
import type { CheckResult, GradedFinding, Outcome, RunSummary } from '../result.js';
import { requestText, responseText } from './evidence-text.js';

export function htmlEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

const ORDER: readonly Outcome[] = ['error', 'fail', 'warn', 'skip', 'pass', 'n/a'];

const STYLE = `body{font:14px/1.45 system-ui,sans-serif;margin:2em;color:#222;max-width:70em}
h1{font-size:1.4em}table{border-collapse:collapse}td,th{padding:.2em .8em;border-bottom:1px solid #ddd;text-align:left}
.o{display:inline-block;min-width:3.5em;padding:0 .4em;border-radius:3px;font-weight:600;text-align:center;color:#fff}
.o-pass{background:#2e7d32}.o-fail,.o-error{background:#c62828}.o-warn{background:#ef6c00}.o-skip,.o-na{background:#757575}
section.check{border:1px solid #ddd;border-radius:4px;padding:.6em 1em;margin:.8em 0}
pre{background:#f5f5f5;padding:.6em;overflow:auto;white-space:pre-wrap;word-break:break-all}
.req{font-size:.9em;color:#444}.muted{color:#666}`;

const badge = (o: Outcome): string => `<span class="o o-${o === 'n/a' ? 'na' : o}">${htmlEscape(o.toUpperCase())}</span>`;

function findingHtml(f: GradedFinding): string {
  const parts = [`<li>${badge(f.outcome)} ${htmlEscape(f.message)}${f.observed ? ' <span class="muted">(observed; the spec does not show this, never a failure)</span>' : ''}${f.requirement ? ` <code>${htmlEscape(f.requirement)}</code>` : ''}`];
  if (f.expected !== undefined) parts.push(`<div>expected: <code>${htmlEscape(f.expected)}</code></div>`);
  if (f.received !== undefined) parts.push(`<div>received: <code>${htmlEscape(f.received)}</code></div>`);
  const e = f.evidence;
  if (e?.request) parts.push(`<div>request sent:</div><pre>${htmlEscape(requestText(e.request))}</pre>`);
  if (e?.response) parts.push(`<div>response received:</div><pre>${htmlEscape(responseText(e.response))}</pre>`);
  if (e?.reproduce) parts.push(`<div>reproduce:</div><pre>${htmlEscape(e.reproduce)}</pre>`);
  if (e?.notes) parts.push(`<div class="muted">${htmlEscape(e.notes)}</div>`);
  return `${parts.join('\n')}</li>`;
}

function checkHtml(r: CheckResult, catalogue: Catalogue | undefined): string {
  const reqs = r.requirements.map((id) => {
    const req = catalogue?.byId.get(id);
    return `<li><code>${htmlEscape(id)}</code>${req ? ` [${htmlEscape(req.level)}${req.shown ? '' : ', not shown'}${req.source ? `, ${htmlEscape(req.source)} profile` : ''}] ${htmlEscape(req.text)} <span class="muted">(${htmlEscape(req.section)})</span>` : ''}</li>`;
  });
  return `<section class="check" id="${htmlEscape(r.id)}">
<h3>${badge(r.outcome)} <code>${htmlEscape(r.id)}</code> ${htmlEscape(r.title)}</h3>
<div class="muted">${htmlEscape(r.area)} · ${htmlEscape(r.level)} · ${r.durationMs} ms</div>
<p>${htmlEscape(r.message)}</p>
<div class="req">Requirements:<ul>${reqs.join('\n')}</ul></div>
${r.findings.length > 0 ? `<ul>${r.findings.map(findingHtml).join('\n')}</ul>` : ''}
</section>`;
}

export function renderHtmlReport(summary: RunSummary, options: { readonly catalogue?: Catalogue } = {}): string {
  const verdict = exitCodeFor(summary) === 0 ? 'PASS: no MUST failure' : 'FAIL: at least one MUST failure';
  const sorted = [...summary.results].sort((a, b) => ORDER.indexOf(a.outcome) - ORDER.indexOf(b.outcome));
  const counts = ORDER.map((o) => `<tr><td>${badge(o)}</td><td>${summary.counts[o]}</td></tr>`).join('');
  const uncovered = summary.requirements.uncovered.map((id) => {
    const req = options.catalogue?.byId.get(id);
    return `<li><code>${htmlEscape(id)}</code>${req ? ` ${htmlEscape(req.text)}` : ''}</li>`;
  });
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>payconform audit ${htmlEscape(summary.role)}: ${htmlEscape(summary.target)}</title>
<style>${STYLE}</style></head><body>
<h1>payconform audit ${htmlEscape(summary.role)}: ${htmlEscape(verdict)}</h1>
<p>Target <code>${htmlEscape(summary.target)}</code> · payconform ${htmlEscape(summary.toolVersion)} · catalogue ${htmlEscape(summary.catalogueVersion)} · ${htmlEscape(summary.startedAt)} · ${summary.durationMs} ms</p>
${summary.partial ? `<p><strong>Partial run:</strong> ${htmlEscape(summary.partialReasons.join('; '))}</p>` : ''}
<table>${counts}</table>
<h2>Checks (failures first)</h2>
${sorted.map((r) => checkHtml(r, options.catalogue)).join('\n')}
<h2>Requirements no check covers yet (${summary.requirements.uncovered.length})</h2>
<ul>${uncovered.join('\n')}</ul>
</body></html>
`;
}
