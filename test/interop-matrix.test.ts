// The interop matrix (docs/interop.md, .html, .json): regenerated here by running every adapter in
// vectors/adapters/interop.json through `payconform vectors run`; a cell that differs from the committed one (a
// dependency update changing interop behaviour, an adapter change, a vector change) fails, and so does a non-pass
// cell that nothing explains.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  diffCells,
  renderHtml,
  renderMarkdown,
  runMatrix,
  unexplainedCells,
  type Matrix,
  type RunOutcome,
} from '../vectors/adapters/interop.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const committed = JSON.parse(readFileSync(join(root, 'docs/interop.json'), 'utf8')) as Matrix;
let fresh: RunOutcome;

beforeAll(async () => {
  fresh = await runMatrix();
  for (const [id, reason] of Object.entries(fresh.unavailable))
    console.warn(`SKIPPED: interop column ${id}: ${reason}`);
}, 240_000);

/** The fresh matrix without the implementations that could not run on this machine (python3 without cryptography). */
function available(): Matrix {
  const skip = new Set(Object.keys(fresh.unavailable));
  return {
    ...fresh.matrix,
    implementations: fresh.matrix.implementations.filter((i) => !skip.has(i.id)),
    cells: Object.fromEntries(Object.entries(fresh.matrix.cells).filter(([id]) => !skip.has(id))),
  };
}

describe('interop matrix (npm run interop)', () => {
  it('covers at least four implementations, three of them third-party npm libraries with their pinned versions', () => {
    expect(committed.implementations.length).toBeGreaterThanOrEqual(4);
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      devDependencies: Record<string, string>;
    };
    for (const name of [
      'http-message-signatures',
      'http-message-sig',
      '@misskey-dev/node-http-message-signatures',
    ]) {
      const impl = committed.implementations.find((i) => i.title === name);
      expect(impl?.version, name).toBe(pkg.devDependencies[name]);
      expect(pkg.devDependencies[name], `${name} is pinned exactly`).toMatch(/^\d+\.\d+\.\d+$/);
    }
  });

  it('every cell of a freshly generated matrix equals the committed one', () => {
    // Only the machine-dependent column may be missing: python3 with the cryptography package, which npm cannot
    // install (test/vectors-harness.test.ts skips the Python adapter the same way). The npm libraries always run.
    expect(Object.keys(fresh.unavailable).every((id) => id === 'python')).toBe(true);
    expect(
      diffCells(committed, available()),
      'run `npm run interop` and commit docs/interop.*',
    ).toEqual([]);
    expect(
      fresh.matrix.cases.map((c) => [c.id, c.line]),
      'vectors added or moved: run `npm run interop` and commit docs/interop.*',
    ).toEqual(committed.cases.map((c) => [c.id, c.line]));
  });

  it('every non-pass cell is explained by a named deviation', () => {
    expect(unexplainedCells(fresh.matrix)).toEqual([]);
    expect(unexplainedCells(committed)).toEqual([]);
  });

  it('docs/interop.md and docs/interop.html are the rendering of the committed data (never hand-edited)', () => {
    expect(readFileSync(join(root, 'docs/interop.md'), 'utf8')).toBe(renderMarkdown(committed));
    expect(readFileSync(join(root, 'docs/interop.html'), 'utf8')).toBe(renderHtml(committed));
  });

  it('a changed cell is reported (the comparison can fail)', () => {
    const changed: Matrix = JSON.parse(JSON.stringify(committed)) as Matrix;
    const row = changed.cells['http-message-sig'] as Record<
      string,
      { status: string; deviation?: string }
    >;
    row['base-query-string'] = { status: 'pass' };
    expect(diffCells(committed, changed)).toEqual([
      'http-message-sig/base-query-string: inexpressible (path-query) -> pass',
    ]);
  });
});
