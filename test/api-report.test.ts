// The public surface, one committed report per entry point (api/*.api.md, made by scripts/api-report.ts from the
// declarations tsc emits): the test fails when an entry point's names or declarations change without the report,
// when a public name carries no doc comment, when the values pass their bounds (SURFACE_BOUNDS: a root a user
// learns in an afternoon) and when one name has two shapes in two entry points.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  countNames,
  ENTRY_POINTS,
  makeReports,
  publicNames,
  renderReport,
  Resolver,
  ROOT_ENTRY,
  SURFACE_BOUNDS,
  type PublicName,
} from '../scripts/api-report.js';
import { REPO_ROOT } from './fixtures/cli.js';

/** `name: entry (declaration) | entry (declaration)` for each name declared differently in two entry points. */
function namesWithTwoShapes(entries: ReadonlyMap<string, readonly PublicName[]>): string[] {
  const shapes = new Map<string, Map<string, string[]>>();
  for (const [entry, names] of entries)
    for (const n of names) {
      const byText = shapes.get(n.name) ?? new Map<string, string[]>();
      byText.set(n.text, [...(byText.get(n.text) ?? []), entry]);
      shapes.set(n.name, byText);
    }
  return [...shapes]
    .filter(([, byText]) => byText.size > 1)
    .map(
      ([name, byText]) => `${name}: ${[...byText.values()].map((e) => e.join(', ')).join(' | ')}`,
    );
}

describe('the committed API reports are the surface the entry points publish', () => {
  const reports = makeReports(REPO_ROOT);
  const byEntry = new Map([...reports].map(([file, r]) => [file, r.names] as const));

  it('has one report per entry point', () => {
    expect(reports.size).toBe(ENTRY_POINTS.length);
  });

  for (const [file, report] of reports) {
    it(`api/${file} is current (npm run api:report writes it)`, () => {
      expect(readFileSync(join(REPO_ROOT, 'api', file), 'utf8')).toBe(report.text);
    });

    it(`api/${file}: every public name has a doc comment`, () => {
      expect(report.names.filter((n) => !n.documented).map((n) => n.name)).toEqual([]);
    });
  }

  it(`the root entry holds at most ${SURFACE_BOUNDS.rootValues} values, all entry points together at most ${SURFACE_BOUNDS.allValues}`, () => {
    const root = reports.get(`${ROOT_ENTRY}.api.md`)!;
    expect(countNames(root.names).values).toBeLessThanOrEqual(SURFACE_BOUNDS.rootValues);
    const all = [...reports.values()].reduce((sum, r) => sum + countNames(r.names).values, 0);
    expect(all).toBeLessThanOrEqual(SURFACE_BOUNDS.allValues);
  });

  it('no name has two shapes across the entry points (ErrorBody, PayoutDestination had)', () => {
    expect(namesWithTwoShapes(byEntry)).toEqual([]);
  });
});

describe('the report follows every way a declaration file re-exports a name', () => {
  const dir = mkdtempSync(join(tmpdir(), 'payconform-api-test-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, text: string): void => writeFileSync(join(dir, name), text);
  write(
    'a.d.ts',
    [
      '/** Documented. */',
      'export declare function documented(x: number): string;',
      'export declare function bare(): void;',
      '/** A type. */',
      'export interface Shape {',
      '    readonly side: number;',
      '}',
    ].join('\n'),
  );
  write('b.d.ts', "import { bare as inner } from './a.js';\nexport { inner as renamed };\n");
  write(
    'entry.d.ts',
    [
      "export * from './a.js';",
      "export { renamed } from './b.js';",
      "export { Token } from 'structured-headers';",
    ].join('\n'),
  );

  it('finds stars, renamed imports re-exported, and a package name', () => {
    const names = publicNames(new Resolver(), join(dir, 'entry.d.ts'));
    expect(names.map((n) => [n.name, n.documented, n.isType])).toEqual([
      ['Shape', true, true],
      ['Token', true, false],
      ['bare', false, false],
      ['documented', true, false],
      ['renamed', false, false],
    ]);
    const report = renderReport('fixture', names);
    expect(report).toContain('// bare (Function) (undocumented)');
    expect(report).toContain('export declare function documented(x: number): string;');
    expect(report).toContain("export { Token } from 'structured-headers';");
  });

  it('carries the first line of each doc comment, and the counts', () => {
    write(
      'multi.d.ts',
      '/**\n * First line.\n * Second line.\n */\nexport declare const two: 2;\n',
    );
    const names = publicNames(new Resolver(), join(dir, 'multi.d.ts'));
    expect(names.map((n) => n.summary)).toEqual(['First line.']);
    const report = renderReport('fixture', names, { entries: 2, values: 7, types: 3 });
    expect(report).toContain('// two (Variable)\n// First line.\nexport declare const two: 2;');
    expect(report).toContain('1 names: 1 values (functions, classes, constants), 0 types.');
    expect(report).toContain('the 2 entry points together hold 7 values (at most 150) and 3 types');
  });

  it('finds a type declared with two shapes in two entry points', () => {
    write(
      'one.d.ts',
      '/** A body. */\nexport interface ErrorBody {\n    readonly source: string;\n}\n',
    );
    write(
      'two.d.ts',
      "/** A body. */\nexport interface ErrorBody {\n    readonly source: 'SERVICE';\n}\n",
    );
    const entries = new Map([
      ['one', publicNames(new Resolver(), join(dir, 'one.d.ts'))],
      ['two', publicNames(new Resolver(), join(dir, 'two.d.ts'))],
      ['three', publicNames(new Resolver(), join(dir, 'one.d.ts'))],
    ]);
    expect(namesWithTwoShapes(entries)).toEqual(['ErrorBody: one, three | two']);
  });

  it('changes when a declaration changes', () => {
    const before = renderReport('fixture', publicNames(new Resolver(), join(dir, 'entry.d.ts')));
    write('a.d.ts', readFileSync(join(dir, 'a.d.ts'), 'utf8').replace('x: number', 'x: bigint'));
    const after = renderReport('fixture', publicNames(new Resolver(), join(dir, 'entry.d.ts')));
    expect(after).not.toBe(before);
  });
});
