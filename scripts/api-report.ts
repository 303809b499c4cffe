// The package's public surface, one report per entry point (`api/<entry>.api.md`), made from the declarations tsc
// emits (as API Extractor's reports are): every exported name with the first line of its doc comment (what it
// promises) and its declaration, "(undocumented)" where it carries no doc comment, and the counts. `npm run
// api:report` writes the reports; test/api-report.test.ts fails when the surface changes without them, when a public
// name is undocumented, when the counts pass their bounds (SURFACE_BOUNDS) or when a type name has two shapes.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseSync } from 'oxc-parser';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The package's root entry, the one most users import from. */
export const ROOT_ENTRY = 'payconform';

/** The package's entry points: the export name and the source file whose declarations it publishes. */
export const ENTRY_POINTS: readonly { readonly name: string; readonly file: string }[] = [
  { name: ROOT_ENTRY, file: 'index' },
  { name: 'payconform/conformance', file: 'conformance/index' },
  { name: 'payconform/server', file: 'server/index' },
  { name: 'payconform/redis', file: 'redis/index' },
  { name: 'payconform/node', file: 'node/index' },
];

/**
 * How many values (functions, classes, constants) the surface may hold: a root a user learns in an afternoon (jose's
 * root exports about 48 functions), and every entry point together. Types are not counted.
 */
export const SURFACE_BOUNDS = { rootValues: 50, allValues: 150 } as const;

/** One public name: where it is declared, what it is, its declaration text, and whether a doc comment precedes it. */
export interface PublicName {
  readonly name: string;
  readonly kind: string;
  readonly text: string;
  readonly documented: boolean;
  /** The first line of its doc comment (empty when undocumented or for a package's re-exported name). */
  readonly summary: string;
  readonly isType: boolean;
  /** The emitted declaration file it is declared in (absent for a package's re-exported name). */
  readonly file?: string;
}

type Node = Record<string, unknown> & { type: string; start: number; end: number };
type Declared =
  | { readonly mod: Module; readonly statements: Node[] }
  | { readonly pkg: string; readonly name: string };
type Ref =
  | { readonly kind: 'local'; readonly name: string }
  | { readonly kind: 'from'; readonly source: string; readonly name: string };

/** What one declaration file declares, imports and exports. */
interface Module {
  readonly file: string;
  readonly source: string;
  readonly comments: readonly Node[];
  readonly declared: Map<string, Node[]>;
  readonly imports: Map<string, { readonly source: string; readonly name: string }>;
  readonly exports: Map<string, Ref>;
  readonly stars: string[];
}

const TYPE_DECLARATIONS = new Set(['TSInterfaceDeclaration', 'TSTypeAliasDeclaration']);

function nameOf(node: unknown): string | undefined {
  const n = node as { name?: unknown; value?: unknown } | undefined;
  if (typeof n?.name === 'string') return n.name;
  return typeof n?.value === 'string' ? n.value : undefined;
}

/** The names a declaration statement declares (one per declarator for `const a, b`). */
function declaredNames(decl: Node): string[] {
  if (decl.type === 'VariableDeclaration')
    return (decl['declarations'] as Node[])
      .map((d) => nameOf(d['id']))
      .filter((n) => n !== undefined);
  const name = nameOf(decl['id']);
  return name === undefined ? [] : [name];
}

function recordDeclaration(mod: Module, statement: Node, decl: Node): void {
  for (const name of declaredNames(decl)) {
    const list = mod.declared.get(name) ?? [];
    list.push(statement);
    mod.declared.set(name, list);
  }
}

function recordStatement(mod: Module, s: Node): void {
  const source = nameOf(s['source']);
  if (s.type === 'ImportDeclaration' && source !== undefined) {
    for (const spec of (s['specifiers'] as Node[]) ?? []) {
      const local = nameOf(spec['local'])!;
      mod.imports.set(local, { source, name: nameOf(spec['imported']) ?? 'default' });
    }
  } else if (s.type === 'ExportAllDeclaration' && source !== undefined) {
    mod.stars.push(source);
  } else if (s.type === 'ExportNamedDeclaration') {
    const decl = s['declaration'] as Node | null;
    if (decl) recordDeclaration(mod, s, decl);
    for (const spec of (s['specifiers'] as Node[]) ?? []) {
      const local = nameOf(spec['local'])!;
      const exported = nameOf(spec['exported'])!;
      mod.exports.set(
        exported,
        source === undefined
          ? { kind: 'local', name: local }
          : { kind: 'from', source, name: local },
      );
    }
    if (decl)
      for (const name of declaredNames(decl)) mod.exports.set(name, { kind: 'local', name });
  } else if (s.type.endsWith('Declaration')) {
    recordDeclaration(mod, s, s);
  }
}

function readModule(file: string): Module {
  const source = readFileSync(file, 'utf8');
  const parsed = parseSync(file, source, { lang: 'dts', sourceType: 'module' });
  if (parsed.errors.length > 0)
    throw new Error(`${file}: ${parsed.errors.map((e) => e.message).join('; ')}`);
  const mod: Module = {
    file,
    source,
    comments: parsed.comments as unknown as Node[],
    declared: new Map(),
    imports: new Map(),
    exports: new Map(),
    stars: [],
  };
  for (const s of parsed.program.body as unknown as Node[]) recordStatement(mod, s);
  return mod;
}

/** The declarations of one entry point's names, following re-exports and imports through the emitted files. */
class Resolver {
  private readonly modules = new Map<string, Module>();

  module(file: string): Module {
    let mod = this.modules.get(file);
    if (mod === undefined) {
      mod = readModule(file);
      this.modules.set(file, mod);
    }
    return mod;
  }

  target(from: Module, specifier: string): Module {
    return this.module(resolve(dirname(from.file), specifier.replace(/\.js$/, '.d.ts')));
  }

  /** Every name `mod` exports, star re-exports included (an explicit export wins over a star). */
  exportedNames(mod: Module, seen = new Set<string>()): Set<string> {
    const names = new Set(mod.exports.keys());
    if (seen.has(mod.file)) return names;
    seen.add(mod.file);
    for (const star of mod.stars)
      for (const n of this.exportedNames(this.target(mod, star), seen)) names.add(n);
    return names;
  }

  /** The module and statements that declare `name` as `mod` exports it, or the package it comes from. */
  declaration(mod: Module, name: string, depth = 0): Declared {
    if (depth > 50) throw new Error(`${mod.file}: re-exports of ${name} loop`);
    const ref = mod.exports.get(name);
    if (ref?.kind === 'from') return this.follow(mod, ref.source, ref.name, depth);
    if (ref?.kind === 'local') return this.local(mod, ref.name, depth);
    for (const star of mod.stars) {
      const target = this.target(mod, star);
      if (this.exportedNames(target).has(name)) return this.declaration(target, name, depth + 1);
    }
    throw new Error(`${mod.file}: ${name} is exported but not found`);
  }

  private local(mod: Module, name: string, depth: number): Declared {
    const statements = mod.declared.get(name);
    if (statements !== undefined) return { mod, statements };
    const imported = mod.imports.get(name);
    if (imported === undefined)
      throw new Error(`${mod.file}: ${name} is neither declared nor imported`);
    return this.follow(mod, imported.source, imported.name, depth);
  }

  /** A relative specifier is followed into the emitted file; a package's name is the package's to document. */
  private follow(mod: Module, specifier: string, name: string, depth: number): Declared {
    if (!specifier.startsWith('.')) return { pkg: specifier, name };
    return this.declaration(this.target(mod, specifier), name, depth + 1);
  }
}

/** The doc comment (`/** … *\/`) that ends right before `statement`, with only whitespace between. */
function docComment(mod: Module, statement: Node): Node | undefined {
  return mod.comments.find(
    (c) =>
      c.type === 'Block' &&
      String(c['value']).startsWith('*') &&
      c.end <= statement.start &&
      mod.source.slice(c.end, statement.start).trim() === '',
  );
}

/** The first line of a doc comment's text, without its `*` margin (`/** One line. *\/` gives `One line.`). */
export function firstDocLine(comment: string): string {
  const lines = comment
    .replace(/^\*/, '')
    .split('\n')
    .map((line) => line.replace(/^\s*\*?\s?/, '').trim())
    .filter((line) => line !== '');
  return lines[0] ?? '';
}

/** The statement's text without comments, one declaration per line run, whitespace as tsc wrote it. */
function declarationText(mod: Module, statement: Node): string {
  let text = mod.source.slice(statement.start, statement.end);
  for (const c of [...mod.comments].reverse())
    if (c.start >= statement.start && c.end <= statement.end)
      text = text.slice(0, c.start - statement.start) + text.slice(c.end - statement.start);
  const body = text
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== '')
    .join('\n');
  return body.startsWith('export ') ? body : `export ${body}`;
}

function kindOf(statement: Node): string {
  const decl = (statement['declaration'] as Node | null) ?? statement;
  return decl.type
    .replace(/^TS/, '')
    .replace(/Declaration$/, '')
    .replace(/^Declare/, '');
}

/** The public names of one entry point's emitted declaration file, sorted by name. */
export function publicNames(resolver: Resolver, entryFile: string): PublicName[] {
  const entry = resolver.module(entryFile);
  return [...resolver.exportedNames(entry)].sort().map((name) => {
    const declared = resolver.declaration(entry, name);
    if ('pkg' in declared) {
      const text = `export { ${declared.name} } from '${declared.pkg}';`;
      const kind = `re-export of ${declared.pkg}`;
      return { name, kind, text, documented: true, summary: '', isType: false };
    }
    const { mod, statements } = declared;
    const first = statements[0]!;
    const decl = (first['declaration'] as Node | null) ?? first;
    const doc = statements.map((s) => docComment(mod, s)).find((c) => c !== undefined);
    return {
      name,
      kind: kindOf(first),
      text: statements.map((s) => declarationText(mod, s)).join('\n'),
      documented: doc !== undefined,
      summary: doc === undefined ? '' : firstDocLine(String(doc['value'])),
      isType: TYPE_DECLARATIONS.has(decl.type),
      file: mod.file,
    };
  });
}

/** Values and types among `names`. */
export function countNames(names: readonly PublicName[]): { values: number; types: number } {
  const values = names.filter((n) => !n.isType).length;
  return { values, types: names.length - values };
}

/**
 * One entry point's report, as committed in `api/`. `all`, given for the root entry's report, adds the counts of
 * every entry point together, with the bounds the test holds them to.
 */
export function renderReport(
  entryName: string,
  names: readonly PublicName[],
  all?: { readonly entries: number; readonly values: number; readonly types: number },
): string {
  const { values, types } = countNames(names);
  const lines = [
    `# API report: \`${entryName}\``,
    '',
    'Made by `npm run api:report` from the declarations tsc emits; test/api-report.test.ts fails when the public',
    'surface changes without this file. Do not edit it by hand. Under each name: the first line of its doc comment.',
    'What a change here means for the version: docs/install.md, "Versions".',
    '',
    `${names.length} names: ${values} values (functions, classes, constants), ${types} types.`,
  ];
  if (all !== undefined)
    lines.push(
      `This entry point holds at most ${SURFACE_BOUNDS.rootValues} values; the ${all.entries} entry points together hold ` +
        `${all.values} values (at most ${SURFACE_BOUNDS.allValues}) and ${all.types} types.`,
    );
  lines.push('', '```ts');
  for (const n of names) {
    lines.push(`// ${n.name} (${n.kind})${n.documented ? '' : ' (undocumented)'}`);
    if (n.summary !== '') lines.push(`// ${n.summary}`);
    lines.push(n.text, '');
  }
  lines.push('```', '');
  return lines.join('\n');
}

/** Emits the declarations into a temporary folder and returns every entry point's report, keyed by file name. */
export function makeReports(root = ROOT): Map<string, { names: PublicName[]; text: string }> {
  const out = mkdtempSync(join(tmpdir(), 'payconform-api-'));
  try {
    const tsc = join(root, 'node_modules', '.bin', 'tsc');
    const args = [
      '-p',
      'tsconfig.build.json',
      '--outDir',
      out,
      '--emitDeclarationOnly',
      '--declarationMap',
      'false',
    ];
    const built = spawnSync(tsc, args, { cwd: root, encoding: 'utf8' });
    if (built.status !== 0) throw new Error(`tsc failed:\n${built.stdout}${built.stderr}`);
    const resolver = new Resolver();
    const entries = ENTRY_POINTS.map((entry) => ({
      entry,
      names: publicNames(resolver, join(out, `${entry.file}.d.ts`)).map((n) =>
        n.file === undefined ? n : { ...n, file: relative(out, n.file).replace(/\.d\.ts$/, '.ts') },
      ),
    }));
    const counts = entries.map((e) => countNames(e.names));
    const all = {
      entries: entries.length,
      values: counts.reduce((sum, c) => sum + c.values, 0),
      types: counts.reduce((sum, c) => sum + c.types, 0),
    };
    const reports = new Map<string, { names: PublicName[]; text: string }>();
    for (const { entry, names } of entries) {
      const file = `${entry.name.replace('/', '-')}.api.md`;
      const total = entry.name === ROOT_ENTRY ? all : undefined;
      reports.set(file, { names, text: renderReport(entry.name, names, total) });
    }
    return reports;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

export { Resolver };

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const [file, { names, text }] of makeReports()) {
    writeFileSync(join(ROOT, 'api', file), text);
    const undocumented = names.filter((n) => !n.documented);
    console.log(`api/${file}: ${names.length} names, ${undocumented.length} undocumented`);
    if (process.argv.includes('--undocumented'))
      for (const n of undocumented) console.log(`  ${n.name}\t${n.file}`);
  }
}
