// The layers, drawn from the code's own imports: which top-level folder may import which, written down once here
// (docs/architecture.md explains the picture), and no import circle between files anywhere in shipped code.
import { readFileSync } from 'node:fs';
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
      ['conformance/webhook-listener.ts', ['server/listen.ts']],
      ['vectors/adapters/interop.ts', ['cli/main.ts']],
      ['conformance/checks/client/index.ts', ['conformance/checks/client/https-only.ts']],
      ['conformance/checks/client/https-only.ts', ['conformance/checks/client/index.ts']],
      ['test/any.ts', ['cli/main.ts']],
    ]);
    expect(wrongDirections(before)).toEqual([
      'conformance/webhook-listener.ts -> server/listen.ts',
      'vectors/adapters/interop.ts -> cli/main.ts',
    ]);
    expect(circles(before)).toEqual([
      ['conformance/checks/client/https-only.ts', 'conformance/checks/client/index.ts'],
    ]);
  });
});
