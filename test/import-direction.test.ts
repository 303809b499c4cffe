// The layers, drawn from the code's own imports: which top-level folder may import which, written down once here
// (docs/architecture.md explains the picture, and its table, its list of what vectors/ takes from conformance/ and
// the sizes it states are checked against this data, the imports, the files and the API reports), and no import
// circle between files anywhere in shipped code.
import { readdirSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * The allowed directions: a folder may import itself and the folders listed. `src/` is the pure core; `net/` is the
 * network layer both edges stand on; `conformance/` and `server/` are peers that never import each other; `node/`
 * (payconform/node, the middleware) stands on `net/` beside them; `cli/` wires the edges together. Folders not
 * listed (`test/`, `bench/`, `scripts/`, and `vectors/build/`, the generator that writes the vectors with the test
 * keys) are tools outside the shipped layers and may import anything.
 */
const LAYERS = {
  /** The package's root entry: the pure core's names and the Node runtime's verification (net/verify-pool/). */
  'index.ts': ['src', 'net'],
  schemas: [],
  src: ['schemas'],
  net: ['src'],
  redis: ['src'],
  node: ['src', 'net'],
  conformance: ['src', 'net', 'schemas'],
  server: ['src', 'net', 'redis', 'schemas'],
  vectors: ['src', 'conformance', 'schemas'],
  cli: ['src', 'net', 'conformance', 'server', 'redis', 'node', 'vectors', 'schemas'],
} as const satisfies Record<string, readonly string[]>;

type Layer = keyof typeof LAYERS;

/**
 * What the pure core never touches, nor imports anything that does: threads and the environment (the worker pool and
 * its sizing live in net/verify-pool/).
 */
const IMPURE = [/\bnode:worker_threads\b/, /\bprocess\.env\b/];
const UNCHECKED = ['test/', 'bench/', 'scripts/', 'vectors/build/'];

function sourceFiles(): string[] {
  const out = execFileSync(
    'git',
    ['ls-files', '--cached', '--others', '--exclude-standard', '*.ts', '*.mjs'],
    { cwd: ROOT, encoding: 'utf8' },
  );
  return out.split('\n').filter((f) => f !== '' && !f.endsWith('.test.ts'));
}

/** Relative imports of a file (static, type-only and dynamic), resolved to repository paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const found: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom|\bimport\s*\(|^import)\s*['"](\.{1,2}\/[^'"]+)['"]/gm)) {
    const target = normalize(join(dirname(file), m[1]!)).replace(/\.js$/, '.ts');
    found.push(relative('.', target));
  }
  return found;
}

const layerOf = (file: string): Layer | undefined => {
  const top = file.split('/')[0] as Layer;
  return top in LAYERS ? top : undefined;
};

type Graph = ReadonlyMap<string, readonly string[]>;

/** `file -> target` for every import that runs against the table. */
function wrongDirections(graph: Graph): string[] {
  const wrong: string[] = [];
  for (const [file, targets] of graph) {
    if (UNCHECKED.some((p) => file.startsWith(p))) continue;
    const from = layerOf(file);
    if (from === undefined) continue;
    for (const target of targets) {
      const to = target.split('/')[0]!;
      if (to === from || (LAYERS[from] as readonly string[]).includes(to)) continue;
      wrong.push(`${file} -> ${target}`);
    }
  }
  return wrong;
}

/** Tarjan's strongly connected components over the file graph; any component of two or more files is a circle. */
function circles(graph: Graph): string[][] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    indexOf.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!indexOf.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indexOf.get(w)!));
    }
    if (low.get(v) === indexOf.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const f of graph.keys()) if (!indexOf.has(f)) visit(f);
  return found;
}

const files = sourceFiles();
const graph: Graph = new Map(files.map((f) => [f, importsOf(f)] as const));

/** `file -> impure file` for every file of src/ that is, or reaches through its imports, a file naming IMPURE. */
function impureInCore(graph: Graph, read: (file: string) => string): string[] {
  const impure = new Map<string, boolean>();
  const reaches = (file: string, seen: Set<string>): boolean => {
    const known = impure.get(file);
    if (known !== undefined) return known;
    if (seen.has(file) || !graph.has(file)) return false;
    seen.add(file);
    const text = read(file);
    const result =
      IMPURE.some((pattern) => pattern.test(text)) ||
      (graph.get(file) ?? []).some((target) => reaches(target, seen));
    impure.set(file, result);
    return result;
  };
  return [...graph.keys()]
    .filter((file) => file.startsWith('src/') && reaches(file, new Set()))
    .sort();
}

const readSource = (file: string): string => readFileSync(join(ROOT, file), 'utf8');

describe('import directions (docs/architecture.md)', () => {
  it('src/ starts no thread and reads no environment, nor imports anything that does', () => {
    expect(impureInCore(graph, readSource)).toEqual([]);
  });

  it('reports a src/ file that starts a worker or reads process.env, and one that imports such a file', () => {
    const texts: Record<string, string> = {
      'src/pool.ts': "import { Worker } from 'node:worker_threads';",
      'src/size.ts': 'const n = process.env.N;',
      'src/entry.ts': "export { x } from './pool.js';",
      'src/pure.ts': 'export const y = 1;',
      'net/pool.ts': "import { Worker } from 'node:worker_threads';",
    };
    const before: Graph = new Map([
      ['src/pool.ts', []],
      ['src/size.ts', []],
      ['src/entry.ts', ['src/pool.ts']],
      ['src/pure.ts', []],
      ['net/pool.ts', ['src/pure.ts']],
    ]);
    expect(impureInCore(before, (f) => texts[f]!)).toEqual([
      'src/entry.ts',
      'src/pool.ts',
      'src/size.ts',
    ]);
  });

  it('every import between shipped folders runs in an allowed direction', () => {
    expect(wrongDirections(graph)).toEqual([]);
  });

  it('no import circle between files', () => {
    expect(circles(graph)).toEqual([]);
  });

  it('reports what the tree had before net/: conformance on server, vectors on cli, a two-file circle', () => {
    const before: Graph = new Map([
      ['conformance/http/webhook-listener.ts', ['server/listen.ts']],
      ['vectors/adapters/interop.ts', ['cli/main.ts']],
      ['conformance/checks/client/index.ts', ['conformance/checks/client/https-only.ts']],
      ['conformance/checks/client/https-only.ts', ['conformance/checks/client/index.ts']],
      ['test/any.ts', ['cli/main.ts']],
    ]);
    expect(wrongDirections(before)).toEqual([
      'conformance/http/webhook-listener.ts -> server/listen.ts',
      'vectors/adapters/interop.ts -> cli/main.ts',
    ]);
    expect(circles(before)).toEqual([
      ['conformance/checks/client/https-only.ts', 'conformance/checks/client/index.ts'],
    ]);
  });
});

/** The rows of docs/architecture.md's table of allowed imports: folder → the folders it may import, sorted. */
function documentedLayers(doc: string): Record<string, string[]> {
  const table = doc.slice(doc.indexOf('| folder | may import |'));
  const rows = table.slice(0, table.indexOf('\n\n')).split('\n').slice(2);
  const folder = (cell: string): string[] =>
    [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!.replace(/\/$/, ''));
  return Object.fromEntries(
    rows.map((row) => {
      const [, from, to] = row.split('|');
      return [folder(from!)[0]!, folder(to!).sort()];
    }),
  );
}

/** The conformance/ files the doc says vectors/ takes, from its list after the table. */
function documentedVectorsImports(doc: string): string[] {
  const start = doc.indexOf('What `vectors/`');
  const list = doc.slice(start, doc.indexOf('\n\n`test/`', start));
  return [...new Set([...list.matchAll(/`(conformance\/[^`]+\.ts)`/g)].map((m) => m[1]!))].sort();
}

/** The conformance/ files a shipped file of vectors/ imports. */
function vectorsImportsOfConformance(graph: Graph): string[] {
  const found = new Set<string>();
  for (const [file, targets] of graph) {
    if (layerOf(file) !== 'vectors' || UNCHECKED.some((p) => file.startsWith(p))) continue;
    for (const t of targets) if (t.startsWith('conformance/')) found.add(t);
  }
  return [...found].sort();
}

/** The line count of a file as `wc -l` gives it. */
const linesOf = (file: string): number => readSource(file).split('\n').length - 1;

/** `N names: V values (...), T types.` of each committed API report, by file. */
function reportCounts(): Map<string, { names: number; values: number; types: number }> {
  const dir = join(ROOT, 'api');
  return new Map(
    readdirSync(dir).map((file) => {
      const m = /^(\d+) names: (\d+) values \([^)]*\), (\d+) types\.$/m.exec(
        readFileSync(join(dir, file), 'utf8'),
      )!;
      return [file, { names: Number(m[1]), values: Number(m[2]), types: Number(m[3]) }] as const;
    }),
  );
}

describe('docs/architecture.md states what the code does', () => {
  const doc = readSource('docs/architecture.md');

  it('its table of allowed imports is LAYERS, row by row', () => {
    const layers = Object.fromEntries(
      Object.entries(LAYERS)
        .filter(([, allowed]) => allowed.length > 0)
        .map(([folder, allowed]) => [folder, [...allowed].sort()]),
    );
    expect(documentedLayers(doc)).toEqual(layers);
  });

  it('what vectors/ takes from conformance/ is what its files import', () => {
    expect(documentedVectorsImports(doc)).toEqual(vectorsImportsOfConformance(graph));
  });

  it("each file size it states (`path` (N lines)) is the file's", () => {
    const stated = [...doc.matchAll(/`([^`\s]+)` \((\d[\d,]*) lines/g)];
    expect(stated.length).toBeGreaterThan(0);
    for (const [, file, n] of stated)
      expect(linesOf(file!), file).toBe(Number(n!.replace(/,/g, '')));
  });

  it("the API counts it states are the committed reports' (test/api-report.test.ts keeps those current)", () => {
    const counts = reportCounts();
    const root = counts.get('payconform.api.md')!;
    const prose = doc.replace(/\s+/g, ' ');
    expect(
      prose.includes(`(${root.names} names: ${root.values} values, ${root.types} types)`),
    ).toBe(true);
    const all = [...counts.values()].reduce(
      (sum, c) => ({ values: sum.values + c.values, types: sum.types + c.types }),
      { values: 0, types: 0 },
    );
    const together = `The ${counts.size} entry points together hold ${all.values} values and ${all.types} types`;
    expect(prose.includes(together), together).toBe(true);
  });

  it('the checks fail on a doc that says less than the code: a row missing, an import unlisted', () => {
    const wrong = doc
      .replace(
        '| `vectors/` (harness, adapters) | `src/`, `conformance/`, `schemas/` |',
        '| `vectors/` | `src/`, `schemas/` |',
      )
      .replace('`conformance/exit-code-table.ts`', '`conformance/run/exit-code.ts`');
    expect(documentedLayers(wrong)['vectors']).toEqual(['schemas', 'src']);
    expect(documentedVectorsImports(wrong)).not.toContain('conformance/exit-code-table.ts');
    expect(vectorsImportsOfConformance(graph)).toContain('conformance/exit-code-table.ts');
  });
});
