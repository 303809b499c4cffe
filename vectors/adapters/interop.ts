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
import { isDeviationId } from './deviations.js';
import type {
  CellStatus,
  Cell,
  MatrixImplementation,
  MatrixCase,
  Matrix,
} from './interop-matrix.js';
import { implementationLabel, renderMarkdown, renderHtml, renderJson } from './interop-render.js';
// The matrix's shape and its rendering, one file each; test/interop-matrix.test.ts takes them from here.
export type {
  Cell,
  CellStatus,
  Matrix,
  MatrixCase,
  MatrixImplementation,
} from './interop-matrix.js';
export { renderHtml, renderJson, renderMarkdown } from './interop-render.js';

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
