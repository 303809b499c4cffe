// The public surface, one committed report per entry point (api/*.api.md, made by scripts/api-report.ts from the
// declarations tsc emits): the test fails when an entry point's names or declarations change without the report,
// and when a public name carries no doc comment.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ENTRY_POINTS,
  makeReports,
  publicNames,
  renderReport,
  Resolver,
} from '../scripts/api-report.js';
import { REPO_ROOT } from './fixtures/cli.js';

describe('the committed API reports are the surface the entry points publish', () => {
  const reports = makeReports(REPO_ROOT);

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

  it('changes when a declaration changes', () => {
    const before = renderReport('fixture', publicNames(new Resolver(), join(dir, 'entry.d.ts')));
    write('a.d.ts', readFileSync(join(dir, 'a.d.ts'), 'utf8').replace('x: number', 'x: bigint'));
    const after = renderReport('fixture', publicNames(new Resolver(), join(dir, 'entry.d.ts')));
    expect(after).not.toBe(before);
  });
});
