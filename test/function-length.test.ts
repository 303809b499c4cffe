// Functions a reader can hold in their head (style.md, "Functions you can hold in your head"): no function in shipped
// code (every tracked .ts file outside test/, bench/ and scripts/, the vector builders included) is longer than
// MAX_LINES. Functions are found by a real TypeScript parser (oxc-parser): declarations, expressions, arrows and
// methods, nested ones counted on their own; a function's length runs from its first line to its last. And rooms
// sized to be read (style.md, "One concept per file"): no shipped file is longer than MAX_FILE_LINES, but the few
// named in LONG_FILES, each with the reason it stays whole.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseSync } from 'oxc-parser';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './fixtures/cli.js';

/** The longest a shipped function may be, in lines. */
const MAX_LINES = 80;
const NOT_SHIPPED = /^(?:test|bench|scripts)\/|\.d\.ts$/;

/** The longest a shipped .ts file may be, in lines, unless LONG_FILES names it. */
const MAX_FILE_LINES = 460;

/** The shipped files allowed past MAX_FILE_LINES (at most three), and why each stays one file. */
const LONG_FILES: Readonly<Record<string, string>> = {
  'server/redis-state-store.ts':
    "one class behind the state store's interface: each method is a read-apply-write over its own Lua script, and the versioning and retry rules they share read best beside them",
  'conformance/report/redact.ts':
    'the one redaction pass over everything a report can show: the decoded view, the derived encodings of each secret and the masking are reviewed together (a security surface)',
  'conformance/run/engine.ts':
    "the engine's one run: selection, ordering, concurrency, timeouts, grading and redaction of findings, and the events, in the order a run goes through them",
};
const MAX_LONG_FILES = 3;
const FUNCTION_TYPES = new Set([
  'FunctionDeclaration',
  'FunctionExpression',
  'ArrowFunctionExpression',
]);

interface LongFunction {
  readonly where: string;
  readonly lines: number;
}

/** Every function of the source longer than `max` lines, as `file:line name`. */
export function longFunctions(file: string, source: string, max: number): LongFunction[] {
  const parsed = parseSync(file, source, { lang: 'ts', sourceType: 'module' });
  if (parsed.errors.length > 0)
    throw new Error(`${file}: ${parsed.errors.map((e) => e.message).join('; ')}`);
  const lineStarts = [0];
  for (let i = 0; i < source.length; i++) if (source[i] === '\n') lineStarts.push(i + 1);
  const lineOf = (offset: number): number => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  const found: LongFunction[] = [];
  const visit = (node: unknown, name: string): void => {
    if (Array.isArray(node)) return node.forEach((n) => visit(n, name));
    if (typeof node !== 'object' || node === null) return;
    const n = node as Record<string, unknown> & { type?: string; start?: number; end?: number };
    const id = (n['id'] ?? n['key']) as { name?: string } | undefined;
    const named = typeof id?.name === 'string' ? id.name : name;
    if (n.type !== undefined && FUNCTION_TYPES.has(n.type)) {
      const first = lineOf(n.start!);
      const lines = lineOf(n.end!) - first + 1;
      if (lines > max) found.push({ where: `${file}:${first} ${named}`, lines });
    }
    for (const [key, value] of Object.entries(n)) if (key !== 'type') visit(value, named);
  };
  visit(parsed.program, '(anonymous)');
  return found;
}

/**
 * Python functions (nested ones on their own) longer than `max` lines, by Python's own parser (`ast`): each node's
 * first line to its `end_lineno`.
 */
export function longPythonFunctions(file: string, source: string, max: number): LongFunction[] {
  const script = [
    'import ast, json, sys',
    'tree = ast.parse(sys.stdin.read())',
    'kinds = (ast.FunctionDef, ast.AsyncFunctionDef)',
    'print(json.dumps([[n.lineno, n.name, n.end_lineno - n.lineno + 1]',
    '                  for n in ast.walk(tree) if isinstance(n, kinds)]))',
  ].join('\n');
  const r = spawnSync('python3', ['-c', script], { input: source, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${file}: python3 could not parse it: ${r.stderr}`);
  return (JSON.parse(r.stdout) as Array<[number, string, number]>)
    .filter(([, , lines]) => lines > max)
    .map(([line, name, lines]) => ({ where: `${file}:${line} ${name}`, lines }));
}

/**
 * Go functions longer than `max` lines: gofmt puts a top-level `func` at the start of a line and its closing brace
 * alone on a line, so a function runs from its `func` line to the first line that is `}`.
 */
export function longGoFunctions(file: string, source: string, max: number): LongFunction[] {
  const lines = source.split('\n');
  const found: LongFunction[] = [];
  lines.forEach((line, i) => {
    const m = /^func (?:\([^)]*\) )?(\w+)/.exec(line);
    if (m === null || line.trimEnd().endsWith('}')) return;
    const end = lines.findIndex((l, j) => j > i && l === '}');
    const length = (end === -1 ? lines.length - 1 : end) - i + 1;
    if (length > max) found.push({ where: `${file}:${i + 1} ${m[1]}`, lines: length });
  });
  return found;
}

function shippedSources(pattern = '*.ts'): Array<{ file: string; source: string }> {
  const listed = spawnSync('git', ['ls-files', '-z', '--', pattern], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  });
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
  return listed.stdout
    .split('\0')
    .filter((file) => file !== '' && !NOT_SHIPPED.test(file))
    .flatMap((file) => {
      try {
        return [{ file, source: readFileSync(join(REPO_ROOT, file), 'utf8') }];
      } catch {
        return []; // listed but deleted in the work tree
      }
    });
}

describe(`no shipped function is longer than ${MAX_LINES} lines`, () => {
  it('finds long functions of every form, nested ones on their own', () => {
    const body = (n: number): string =>
      Array.from({ length: n }, (_, i) => `  f(${i});`).join('\n');
    const source = [
      `export function outer(): void {\n${body(3)}\n  const inner = () => {\n${body(8)}\n  };\n}`,
      `class K {\n  method(): void {\n${body(8)}\n  }\n}`,
      `const short = function (): void {\n${body(2)}\n};`,
    ].join('\n');
    expect(longFunctions('sample.ts', source, 8).map((f) => f.where)).toEqual([
      'sample.ts:1 outer',
      'sample.ts:5 inner',
      'sample.ts:17 method',
    ]);
  });

  it('finds long Python and Go functions the same way', () => {
    const py = [
      'def short():',
      '    pass',
      '',
      'def long():',
      ...Array(9).fill('    f()'),
      '',
    ].join('\n');
    expect(longPythonFunctions('s.py', py, 8).map((f) => f.where)).toEqual(['s.py:4 long']);
    const go = ['func a() {}', 'func (s *T) b() {', ...Array(8).fill('\tf()'), '}', ''].join('\n');
    expect(longGoFunctions('s.go', go, 8).map((f) => f.where)).toEqual(['s.go:2 b']);
  });

  it('every shipped .py and .go file (the adapters and starters an implementer reads)', () => {
    const py = shippedSources('*.py');
    const go = shippedSources('*.go');
    expect(py.length + go.length).toBeGreaterThan(2);
    const long = [
      ...py.flatMap(({ file, source }) => longPythonFunctions(file, source, MAX_LINES)),
      ...go.flatMap(({ file, source }) => longGoFunctions(file, source, MAX_LINES)),
    ];
    expect(long.map((f) => `${f.where} (${f.lines} lines)`)).toEqual([]);
  });

  it('every shipped .ts file', () => {
    const files = shippedSources();
    expect(files.length).toBeGreaterThan(100);
    const long = files.flatMap(({ file, source }) => longFunctions(file, source, MAX_LINES));
    expect(long.map((f) => `${f.where} (${f.lines} lines)`)).toEqual([]);
  });
});

describe(`no shipped file is longer than ${MAX_FILE_LINES} lines, but the ${MAX_LONG_FILES} named`, () => {
  const lineCount = (source: string): number =>
    source.length === 0 ? 0 : source.split('\n').length - (source.endsWith('\n') ? 1 : 0);

  it(`names at most ${MAX_LONG_FILES} files, each with its reason`, () => {
    expect(Object.keys(LONG_FILES).length).toBeLessThanOrEqual(MAX_LONG_FILES);
    for (const [file, reason] of Object.entries(LONG_FILES))
      expect(reason.length, file).toBeGreaterThan(40);
  });

  it('every shipped .ts file (the vector builders included)', () => {
    const files = shippedSources();
    expect(files.length).toBeGreaterThan(100);
    const long = files
      .map(({ file, source }) => ({ file, lines: lineCount(source) }))
      .filter(({ lines }) => lines > MAX_FILE_LINES);
    expect(
      long.filter(({ file }) => !(file in LONG_FILES)).map((f) => `${f.file} (${f.lines} lines)`),
    ).toEqual([]);
    // A named file that shrank below the limit leaves the list: the allowance is not a reserve.
    expect(Object.keys(LONG_FILES).filter((file) => !long.some((f) => f.file === file))).toEqual(
      [],
    );
  });
});
