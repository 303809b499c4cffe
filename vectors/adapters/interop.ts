// `npm run interop`: runs every adapter listed in interop.json through `payconform vectors run`, then writes the
// interop matrix (cases × implementations: pass, fail, cannot express, op not offered) as docs/interop.md,
// docs/interop.html and docs/interop.json. Generated, never hand-edited; test/interop-matrix.test.ts regenerates
// it and fails when a cell differs from the committed one or a non-pass cell has no explanation.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadVectorSet, type VectorSet } from '../harness/load.js';
import {
  runVectors,
  STARTUP_TIMEOUT_MS,
  type CaseReport,
  type HarnessReport,
} from '../harness/run.js';
import { DEVIATIONS, isDeviationId, type DeviationId } from './deviations.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ImplementationConfig {
  readonly id: string;
  readonly title: string;
  readonly exec: string;
  readonly adapter: string;
  readonly showVersion: boolean;
  readonly compareCodes: boolean;
  readonly explained: Readonly<Record<string, string>>;
  readonly unsupportedOps?: Readonly<Record<string, string>>;
}

export type CellStatus = CaseReport['status'];
export interface Cell {
  readonly status: CellStatus;
  /** Why a non-pass cell is what it is; `unexplained` when neither the adapter nor interop.json says. */
  readonly deviation?: DeviationId | 'unexplained';
}

export interface MatrixImplementation {
  readonly id: string;
  readonly title: string;
  readonly adapter: string;
  readonly version?: string;
  readonly configuration?: string;
  readonly compareCodes: boolean;
  readonly protocol: number;
  readonly counts: Readonly<Record<CellStatus, number>>;
}

export interface MatrixCase {
  readonly id: string;
  readonly file: string;
  readonly op: string;
  readonly result: string;
  /** Line of the case's `"id"` in its file (for links). */
  readonly line: number;
}

export interface Matrix {
  /** For each case some implementation fails: whether the vector or the library is wrong, and by which rule. */
  readonly triage: Readonly<Record<string, string>>;
  readonly implementations: readonly MatrixImplementation[];
  readonly cases: readonly MatrixCase[];
  /** cells[implementationId][caseId] */
  readonly cells: Readonly<Record<string, Readonly<Record<string, Cell>>>>;
}

export interface RunOutcome {
  readonly matrix: Matrix;
  /** Implementations that could not run at all (interpreter or package missing), with the reason. */
  readonly unavailable: Readonly<Record<string, string>>;
}

export interface InteropConfig {
  readonly implementations: readonly ImplementationConfig[];
  readonly triage: Readonly<Record<string, string>>;
}

export function loadConfig(root = ROOT): InteropConfig {
  return JSON.parse(
    readFileSync(join(root, 'vectors/adapters/interop.json'), 'utf8'),
  ) as InteropConfig;
}

/** Runs one adapter through the harness (as `vectors run --timeout-ms 20000` does), from the repository root. */
function runOne(
  config: ImplementationConfig,
  root: string,
  set: VectorSet,
): Promise<HarnessReport> {
  return runVectors({
    command: config.exec,
    cases: set.cases,
    keys: set.keys,
    timeoutMs: 20_000,
    startupTimeoutMs: STARTUP_TIMEOUT_MS,
    ignoreCodes: !config.compareCodes,
    cwd: root, // adapters' exec paths are relative to the repository root
  });
}

function explain(config: ImplementationConfig, c: CaseReport): Cell {
  if (c.status === 'pass') return { status: 'pass' };
  const named =
    c.status === 'inexpressible'
      ? c.deviation
      : c.status === 'skip'
        ? (config.unsupportedOps?.[c.op] ?? 'op-not-offered')
        : config.explained[c.id];
  return {
    status: c.status,
    deviation: named !== undefined && isDeviationId(named) ? named : 'unexplained',
  };
}

function lineOf(root: string, file: string, id: string, cache: Map<string, string[]>): number {
  let lines = cache.get(file);
  if (!lines) {
    lines = readFileSync(join(root, 'vectors', file), 'utf8').split('\n');
    cache.set(file, lines);
  }
  const needle = `"id": ${JSON.stringify(id)}`;
  return lines.findIndex((l) => l.includes(needle)) + 1;
}

/** Runs every implementation (or those in `only`) and builds the matrix. */
export async function runMatrix(
  options: { readonly root?: string; readonly only?: readonly string[] } = {},
): Promise<RunOutcome> {
  const root = options.root ?? ROOT;
  const config = loadConfig(root);
  const configs = config.implementations.filter(
    (c) => !options.only || options.only.includes(c.id),
  );
  const set = await loadVectorSet(join(root, 'vectors'));
  const implementations: MatrixImplementation[] = [];
  const cells: Record<string, Record<string, Cell>> = {};
  const unavailable: Record<string, string> = {};
  let cases: MatrixCase[] = [];
  const fileLines = new Map<string, string[]>();
  for (const config of configs) {
    const report = await runOne(config, root, set);
    if (!report.started) {
      unavailable[config.id] =
        `${report.aborted}${report.adapterStderr ? `: ${report.adapterStderr.split('\n').pop()}` : ''}`;
    }
    if (cases.length === 0)
      cases = report.cases.map((c) => ({
        id: c.id,
        file: c.file,
        op: c.op,
        result: c.result,
        line: lineOf(root, c.file, c.id, fileLines),
      }));
    const row: Record<string, Cell> = {};
    for (const c of report.cases) row[c.id] = explain(config, c);
    cells[config.id] = row;
    const counts: Record<CellStatus, number> = { pass: 0, fail: 0, inexpressible: 0, skip: 0 };
    for (const c of report.cases) counts[c.status]++;
    implementations.push({
      id: config.id,
      title: config.title,
      adapter: config.adapter,
      ...(config.showVersion && report.implementation?.version
        ? { version: report.implementation.version }
        : {}),
      ...(report.implementation?.configuration
        ? { configuration: report.implementation.configuration }
        : {}),
      compareCodes: config.compareCodes,
      protocol: report.protocol,
      counts,
    });
  }
  return { matrix: { triage: config.triage, implementations, cases, cells }, unavailable };
}

/**
 * Cells that differ between two matrices, as `implementation/case: committed -> now` lines; only implementations
 * present in `now` are compared (one that could not run here is left out), and a case or implementation missing on
 * either side is a difference.
 */
export function diffCells(committed: Matrix, now: Matrix): string[] {
  const show = (cell: Cell | undefined): string =>
    cell ? `${cell.status}${cell.deviation ? ` (${cell.deviation})` : ''}` : 'absent';
  const out: string[] = [];
  const ids = new Set([...committed.cases.map((c) => c.id), ...now.cases.map((c) => c.id)]);
  for (const impl of now.implementations) {
    if (!committed.cells[impl.id]) {
      out.push(`${impl.id}: not in the committed matrix`);
      continue;
    }
    for (const id of ids) {
      const a = show(committed.cells[impl.id]?.[id]);
      const b = show(now.cells[impl.id]?.[id]);
      if (a !== b) out.push(`${impl.id}/${id}: ${a} -> ${b}`);
    }
  }
  return out;
}

/** Every non-pass cell whose explanation is missing, and every failing case without a triage entry. */
export function unexplainedCells(matrix: Matrix): string[] {
  const out: string[] = [];
  for (const [impl, row] of Object.entries(matrix.cells)) {
    for (const [id, cell] of Object.entries(row)) {
      if (cell.deviation === 'unexplained') out.push(`${impl}/${id}`);
      if (cell.status === 'fail' && matrix.triage[id] === undefined)
        out.push(`${impl}/${id} (no triage)`);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Rendering (pure)
// ---------------------------------------------------------------------------------------------------------------

const STATUS_TEXT: Readonly<Record<CellStatus, string>> = {
  pass: 'pass',
  fail: 'FAIL',
  inexpressible: 'cannot express',
  skip: 'no such op',
};
const GUIDE = '../vectors/README.md';

function vectorHref(c: MatrixCase): string {
  return `../vectors/${c.file}#L${c.line}`;
}

function deviationLinks(deviation: DeviationId | 'unexplained', format: 'md' | 'html'): string {
  if (deviation === 'unexplained')
    return format === 'md' ? '**unexplained**' : '<strong>unexplained</strong>';
  const d = DEVIATIONS[deviation];
  const guide = `${GUIDE}#dev-${deviation}`;
  return format === 'md'
    ? `[\`${deviation}\`](${guide}) · [${d.section}](${d.url})`
    : `<a href="${guide}" title="${escapeHtml(d.title.replace(/`/g, ''))}"><code>${deviation}</code></a> · <a href="${d.url}">${escapeHtml(d.section)}</a>`;
}

function nonPassCases(matrix: Matrix): MatrixCase[] {
  return matrix.cases.filter((c) =>
    matrix.implementations.some(
      (i) =>
        matrix.cells[i.id]?.[c.id]?.status !== 'pass' &&
        matrix.cells[i.id]?.[c.id]?.status !== 'skip',
    ),
  );
}

function implementationLabel(i: MatrixImplementation): string {
  return `${i.title}${i.version ? ` ${i.version}` : ''}`;
}

export function renderMarkdown(matrix: Matrix): string {
  return [
    ...markdownIntroduction(),
    ...markdownImplementations(matrix),
    ...markdownNonPassCases(matrix),
    ...markdownTriage(matrix),
    ...markdownDeviations(matrix),
  ].join('\n');
}

function markdownIntroduction(): string[] {
  return [
    '# Interop matrix',
    '',
    'The language-neutral vectors (`vectors/`) run through `payconform vectors run` against RFC 9421 implementations nobody here',
    'wrote, each configured as close to the service profile as it allows. Generated by `npm run interop`',
    '(`vectors/adapters/interop.ts`); never edit by hand. `test/interop-matrix.test.ts` regenerates it and fails when a cell',
    'changes, so a dependency update that changes interop behaviour is seen. What each deviation means and what to configure:',
    `the implementer's guide in [vectors/README.md](${GUIDE}#implementers-guide).`,
    '',
    'Each adapter uses every hook its library offers (component resolvers, key-lookup callbacks, policies) and writes',
    'the application code any implementer writes (application credentials, nonce store, Content-Digest where the library',
    'has none). It does not re-parse `Signature-Input` or `Signature` itself: a FAIL is a check you must add around that',
    'library, and the guide says which.',
    '',
  ];
}

/** One row per implementation: what it is, its adapter, how it is configured and its counts. */
function markdownImplementations(matrix: Matrix): string[] {
  return [
    '## Implementations',
    '',
    '| Column | Implementation | Adapter | Configured as | Codes compared | pass | fail | cannot express | no such op |',
    '|---|---|---|---|---|---|---|---|---|',
    ...matrix.implementations.map(
      (i) =>
        `| \`${i.id}\` | ${implementationLabel(i)} | [\`${i.adapter.split('/').slice(-2).join('/')}\`](../${i.adapter}) | ${i.configuration ?? ''} | ${i.compareCodes ? 'yes' : 'no (verdicts)'} | ${i.counts.pass} | ${i.counts.fail} | ${i.counts.inexpressible} | ${i.counts.skip} |`,
    ),
  ];
}

/** The cases some implementation does not pass, each cell with the deviation that explains it. */
function markdownNonPassCases(matrix: Matrix): string[] {
  const rows = nonPassCases(matrix).map((c) => {
    const cells = matrix.implementations.map((i) => {
      const cell = matrix.cells[i.id]?.[c.id];
      if (!cell) return '';
      if (cell.status === 'pass') return 'pass';
      return `${cell.status === 'fail' ? '**FAIL**' : STATUS_TEXT[cell.status]}: ${deviationLinks(cell.deviation ?? 'unexplained', 'md')}`;
    });
    return `| [\`${c.id}\`](${vectorHref(c)}) | ${c.op} | ${c.result} | ${cells.join(' | ')} |`;
  });
  return [
    '',
    `${matrix.cases.length} cases. "no such op": the library does not offer the operation at all (webhooks and key parsing are not`,
    'RFC 9421; some libraries have no RFC 9530 digests or no verification); those cells are not listed below.',
    '"cannot express": the adapter found no configuration for the profile rule the case exercises.',
    '',
    '## Cases where an implementation does not pass',
    '',
    `| Case | Op | Expected | ${matrix.implementations.map((i) => i.id).join(' | ')} |`,
    `|---|---|---|${matrix.implementations.map(() => '---').join('|')}|`,
    ...rows,
    '',
    `Every other case passes in every implementation that offers its op. The full matrix: [interop.html](interop.html).`,
    '',
  ];
}

function markdownTriage(matrix: Matrix): string[] {
  const triaged = matrix.cases.filter((c) => matrix.triage[c.id] !== undefined);
  if (triaged.length === 0) return [];
  return [
    '## Triage: the vector or the library?',
    '',
    'Each case some implementation fails (or failed), decided by the rule that applies:',
    '',
    ...triaged.map((c) => `- [\`${c.id}\`](${vectorHref(c)}): ${matrix.triage[c.id]}`),
    '',
  ];
}

/** The deviations some cell names, in the catalogue's order, each linked to the guide and its rule. */
function markdownDeviations(matrix: Matrix): string[] {
  const used = new Set<string>();
  for (const row of Object.values(matrix.cells))
    for (const cell of Object.values(row)) if (cell.deviation) used.add(cell.deviation);
  return [
    '## Deviations named above',
    '',
    ...Object.entries(DEVIATIONS)
      .filter(([id]) => used.has(id))
      .map(
        ([id, d]) =>
          `- \`${id}\`: [${d.title}](${GUIDE}#dev-${id}); ${d.kind === 'profile' ? 'the profile departs from' : d.kind === 'rfc' ? 'a rule of' : 'a library gap; see'} [${d.section}](${d.url}).`,
      ),
    '',
  ];
}

function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

export function renderHtml(matrix: Matrix): string {
  const head = matrix.implementations
    .map((i) => `<th>${escapeHtml(implementationLabel(i))}</th>`)
    .join('');
  const { summary, legend, rows, triage } = htmlParts(matrix);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>payconform interop matrix</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; }
table { border-collapse: collapse; }
th, td { border: 1px solid #ccc; padding: 3px 6px; vertical-align: top; }
td.pass { background: #e6f4e6; }
td.fail { background: #f9d6d5; }
td.inexpressible { background: #fdf0c8; }
td.skip { background: #eee; color: #666; }
small { font-size: 11px; }
</style>
</head>
<body>
<h1>payconform interop matrix</h1>
<p>Generated by <code>npm run interop</code>; never edit by hand. The same data as <a href="interop.md">interop.md</a>, every case shown.
The implementer's guide: <a href="${GUIDE}#implementers-guide">vectors/README.md</a>.</p>
<table>
<tr><th>Implementation</th><th>pass</th><th>fail</th><th>cannot express</th><th>no such op</th><th>codes compared</th></tr>
${summary}
</table>
<h2>Deviations</h2>
<table>
<tr><th>Name</th><th>Rule</th><th>Section</th></tr>
${legend}
</table>
<h2>All cases</h2>
<table>
<tr><th>Case</th><th>Op</th><th>Expected</th>${head}</tr>
${rows.join('\n')}
</table>
<h2>Triage: the vector or the library?</h2>
<ul>
${triage}
</ul>
</body>
</html>
`;
}

/** The HTML page's table rows and list items: counts per implementation, the deviations, every case, the triage. */
function htmlParts(matrix: Matrix): {
  summary: string;
  legend: string;
  rows: string[];
  triage: string;
} {
  const rows = matrix.cases.map((c) => {
    const cells = matrix.implementations
      .map((i) => {
        const cell = matrix.cells[i.id]?.[c.id];
        if (!cell) return '<td></td>';
        if (cell.status === 'pass') return '<td class="pass">pass</td>';
        return `<td class="${cell.status}">${STATUS_TEXT[cell.status]}<br><small>${deviationLinks(cell.deviation ?? 'unexplained', 'html')}</small></td>`;
      })
      .join('');
    return `<tr><td><a href="${escapeHtml(vectorHref(c))}"><code>${escapeHtml(c.id)}</code></a></td><td>${escapeHtml(c.op)}</td><td>${escapeHtml(c.result)}</td>${cells}</tr>`;
  });
  const summary = matrix.implementations
    .map(
      (i) =>
        `<tr><th>${escapeHtml(implementationLabel(i))}</th><td>${i.counts.pass}</td><td>${i.counts.fail}</td><td>${i.counts.inexpressible}</td><td>${i.counts.skip}</td><td>${i.compareCodes ? 'yes' : 'no (verdicts)'}</td></tr>`,
    )
    .join('\n');
  const legend = Object.entries(DEVIATIONS)
    .map(
      ([id, d]) =>
        `<tr><td><a href="${GUIDE}#dev-${id}"><code>${id}</code></a></td><td>${escapeHtml(d.title.replace(/`/g, ''))}</td><td><a href="${d.url}">${escapeHtml(d.section)}</a></td></tr>`,
    )
    .join('\n');
  const triage = matrix.cases
    .filter((c) => matrix.triage[c.id] !== undefined)
    .map(
      (c) =>
        `<li><a href="${escapeHtml(vectorHref(c))}"><code>${escapeHtml(c.id)}</code></a>: ${escapeHtml(matrix.triage[c.id]!)}</li>`,
    )
    .join('\n');
  return { summary, legend, rows, triage };
}

/** The data file: what the test compares cell by cell. */
export function renderJson(matrix: Matrix): string {
  return `${JSON.stringify(matrix, null, 2)}\n`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { matrix, unavailable } = await runMatrix();
  const missing = Object.entries(unavailable);
  if (missing.length > 0) {
    for (const [id, reason] of missing) console.error(`interop: ${id} could not run: ${reason}`);
    console.error('interop: the matrix was not written (every implementation must run)');
    process.exit(1);
  }
  writeFileSync(join(ROOT, 'docs/interop.md'), renderMarkdown(matrix));
  writeFileSync(join(ROOT, 'docs/interop.html'), renderHtml(matrix));
  writeFileSync(join(ROOT, 'docs/interop.json'), renderJson(matrix));
  for (const i of matrix.implementations) {
    console.log(
      `${implementationLabel(i)}: ${i.counts.pass} pass, ${i.counts.fail} fail, ${i.counts.inexpressible} cannot express, ${i.counts.skip} no such op`,
    );
  }
  const unexplained = unexplainedCells(matrix);
  console.log(
    `wrote docs/interop.md, docs/interop.html, docs/interop.json (${matrix.cases.length} cases x ${matrix.implementations.length} implementations)`,
  );
  if (unexplained.length > 0) {
    console.error(
      `interop: ${unexplained.length} non-pass cell(s) without an explanation (add them to vectors/adapters/interop.json): ${unexplained.join(', ')}`,
    );
    process.exit(1);
  }
}
