// The package as a user gets it: `npm pack` (whose `prepack` builds dist/ fresh and drops `prepare` from the packed
// manifest), one `npm install` of the
// tarball into a fresh "type": "module" project, then the installed package is used from plain JavaScript, from
// TypeScript (NodeNext, strict), by its JSON subpaths and through its `payconform` command. publint and
// @arethetypeswrong/cli lint the same tarball. Needs the npm registry for the tarball's dependencies (CI reaches it).
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMAND_TABLE } from '../cli/command-table.js';
import { REPO_ROOT } from './fixtures/cli.js';
import { docExamples, type DocExample } from './fixtures/doc-examples.js';
import { redisTestsEnabled, startRedisServer, type RunningRedis } from './fixtures/redis-server.js';

const repoPackage = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
};
const work = mkdtempSync(join(tmpdir(), 'payconform-pack-'));
const consumer = join(work, 'consumer');
const installed = join(consumer, 'node_modules', 'payconform');
let tarball = '';
const pythonMissing = pythonStatus();
let packedFiles: string[] = [];
/** @arethetypeswrong/cli's run on the tarball, started beside `npm install` (its exit status; its JSON is in a file). */
let attwRun: Promise<{ error?: Error; status: number | null }>;
const attwJson = join(work, 'attw.json');

/** The environment for npm children: the parent's, less what `npm test` sets for its own package. */
function npmEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (name.startsWith('npm_package_') || name.startsWith('npm_lifecycle_') || name === 'INIT_CWD')
      continue;
    env[name] = value;
  }
  return {
    ...env,
    NO_COLOR: '1',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  };
}

function run(
  command: string,
  args: readonly string[],
  cwd: string,
  timeoutMs: number,
  input = '',
  extraEnv: NodeJS.ProcessEnv = {},
): SpawnSyncReturns<string> {
  return spawnSync(command, [...args], {
    cwd,
    env: { ...npmEnv(), ...extraEnv },
    input,
    encoding: 'utf8',
    timeout: timeoutMs,
    maxBuffer: 64 * 1024 * 1024,
  });
}

function ok(r: SpawnSyncReturns<string>, what: string): string {
  if (r.error || r.status !== 0)
    throw new Error(
      `${what} failed (status ${r.status}, ${r.error?.message ?? 'no spawn error'}):\n${r.stdout}\n${r.stderr}`,
    );
  return r.stdout;
}

/** The README's "Library" example, verbatim. */
function readmeLibraryExample(): string {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Library'));
  const block = /```js\n([\s\S]*?)\n```/.exec(section);
  if (!block) throw new Error('README "## Library" has no ```js block');
  return block[1]!;
}

beforeAll(() => {
  const packed = ok(
    run('npm', ['pack', '--json', '--pack-destination', work], REPO_ROOT, 240_000),
    'npm pack',
  );
  const info = JSON.parse(packed.slice(packed.indexOf('['))) as Array<{
    filename: string;
    files: Array<{ path: string }>;
  }>;
  tarball = join(work, info[0]!.filename);
  packedFiles = info[0]!.files.map((f) => f.path);
  attwRun = startAttw();
  mkdirSync(consumer);
  writeFileSync(
    join(consumer, 'package.json'),
    JSON.stringify({ name: 'payconform-consumer', private: true, type: 'module' }),
  );
  ok(
    run(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball],
      consumer,
      240_000,
    ),
    'npm install of the tarball',
  );
}, 600_000);

afterAll(async () => {
  await attwRun?.catch(() => undefined);
  rmSync(work, { recursive: true, force: true });
});

/**
 * Runs @arethetypeswrong/cli on the tarball (it needs only the tarball, so it runs while `npm install` does), killed
 * after 120 s. attw exits 1 when it reports any problem; its JSON goes to a file (it exits before a pipe is drained).
 */
function startAttw(): Promise<{ error?: Error; status: number | null }> {
  const attw = join(REPO_ROOT, 'node_modules', '@arethetypeswrong', 'cli', 'dist', 'index.js');
  const fd = openSync(attwJson, 'w');
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [attw, tarball, '--format', 'json'], {
      cwd: work,
      stdio: ['ignore', fd, 'ignore'],
      timeout: 120_000,
    });
    closeSync(fd);
    child.once('error', (error) => resolve({ error, status: null }));
    child.once('close', (status, signal) =>
      resolve(
        signal === null ? { status } : { error: new Error(`attw ended by ${signal}`), status },
      ),
    );
  });
}

describe('the packed tarball', () => {
  it('holds the compiled code, types, JSON and sources, and no tests, benchmarks or tool configs', () => {
    for (const file of [
      'package.json',
      'README.md',
      'bin/payconform.js',
      'index.ts',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/net/verify-pool/worker.js',
      'dist/src/index.js',
      'dist/src/index.d.ts',
      'dist/node/index.js',
      'dist/node/index.d.ts',
      'dist/src/index.js.map',
      'dist/src/index.d.ts.map',
      'dist/cli/main.js',
      'dist/conformance/requirements.json',
      'dist/schemas/openapi.json',
      'dist/vectors/index.json',
      'src/index.ts',
    ]) {
      expect(packedFiles, file).toContain(file);
    }
    const unwanted = packedFiles.filter((f) =>
      /^(test|bench|scripts|node_modules|reports|tmp|dist\/vectors\/adapters)\/|^vitest\.config|^tsconfig|\.test\.ts$|\.tgz$/.test(
        f,
      ),
    );
    expect(unwanted).toEqual([]);
  });

  it('the packed manifest has no install-time script: no prepare (npm 11 would warn), no install hooks', () => {
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
      scripts?: Record<string, string>;
    };
    for (const hook of ['prepare', 'preinstall', 'install', 'postinstall'])
      expect(Object.keys(manifest.scripts ?? {}), hook).not.toContain(hook);
    // The repository keeps it, so that `npm ci` in a fresh clone builds dist/.
    const repo = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(repo.scripts['prepare']).toBe('npm run build');
  });

  it('installs without a transpiler: tsx is not among its dependencies', () => {
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
    };
    expect(Object.keys(manifest.dependencies ?? {})).not.toContain('tsx');
  });

  it('publint reports nothing', async () => {
    const { publint } = await import('publint');
    const bytes = readFileSync(tarball);
    const { messages } = await publint({
      pack: { tarball: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) },
      strict: true,
    });
    expect(messages).toEqual([]);
  });

  it('@arethetypeswrong/cli finds problems only under node10 resolution and require() from CommonJS (ESM only, documented)', async () => {
    const r = await attwRun;
    expect(r.error).toBeUndefined();
    const { analysis } = JSON.parse(readFileSync(attwJson, 'utf8')) as {
      analysis: {
        problems: Array<{ kind: string; resolutionKind?: string; resolutionOption?: string }>;
      };
    };
    const elsewhere = analysis.problems.filter(
      (p) => !['node10', 'node16-cjs'].includes(p.resolutionKind ?? p.resolutionOption ?? ''),
    );
    expect(elsewhere).toEqual([]);
    expect([...new Set(analysis.problems.map((p) => p.kind))].sort()).toEqual([
      'CJSResolvesToESM',
      'InternalResolutionError',
    ]);
  }, 150_000); // attw itself may take its 120 s on a loaded machine (five entry points)
});

/** Constant modules outside the CLI that `--help` may load (the command table's defaults): they import nothing. */
const HELP_LEAVES = [
  'payconform/dist/conformance/run/result.js',
  'payconform/dist/conformance/checks/server/forgery-settings.js',
  'payconform/dist/conformance/exit-code-table.js',
  'payconform/dist/conformance/config/config-defaults.js',
  'payconform/dist/conformance/explore/explore-defaults.js',
  'payconform/dist/vectors/harness/harness-defaults.js',
];

describe('the installed package', () => {
  /** The module URLs a run of the installed command resolves (a module.register resolve hook appends each to a file). */
  function loadedModules(args: readonly string[], stdin = ''): string[] {
    writeFileSync(
      join(consumer, 'load-hooks.mjs'),
      `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(process.env.PAYCONFORM_LOAD_LOG, result.url + '\\n');
  return result;
}
`,
    );
    writeFileSync(
      join(consumer, 'load-register.mjs'),
      "import { register } from 'node:module'; register('./load-hooks.mjs', import.meta.url);\n",
    );
    const log = join(consumer, `load-${args[0]!.replace(/\W/g, '')}.log`);
    writeFileSync(log, '');
    const r = spawnSync(
      process.execPath,
      ['--import', './load-register.mjs', join(installed, 'bin', 'payconform.js'), ...args],
      {
        cwd: consumer,
        env: { ...npmEnv(), PAYCONFORM_LOAD_LOG: log },
        input: stdin,
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(r.error).toBeUndefined();
    return readFileSync(log, 'utf8')
      .split('\n')
      .filter((url) => url.startsWith('file:'))
      .map((url) => url.slice(url.indexOf('/node_modules/') + '/node_modules/'.length));
  }

  it('start-up loads only what the command uses: --help no command module, no dependency, no transpiler', () => {
    const help = loadedModules(['--help']);
    expect(help).toContain('payconform/dist/cli/main.js');
    // The command table shows defaults and choices from their one source: constant modules of other layers, each of
    // which imports nothing at run time, so loading them costs no more than the numbers themselves.
    const leaves = HELP_LEAVES.filter((m) => help.includes(m));
    for (const leaf of leaves)
      expect(
        distImports(join(installed, 'dist')).filter((i) => `payconform/dist/${i.file}` === leaf),
        leaf,
      ).toEqual([]);
    expect(
      help.filter(
        (m) =>
          !HELP_LEAVES.includes(m) &&
          (!m.startsWith('payconform/') ||
            /^payconform\/dist\/(conformance|server|redis|vectors|cli\/commands)\//.test(m)),
      ),
    ).toEqual([]);
    const validate = loadedModules(['validate', 'payout', '-'], '{}');
    expect(validate).toContain('payconform/dist/cli/commands/validate.js');
    expect(
      validate.filter(
        (m) =>
          !HELP_LEAVES.includes(m) &&
          /^payconform\/dist\/(conformance|server|redis|vectors)\/|^payconform\/dist\/cli\/commands\/(?!validate)|^(tsx|typescript|esbuild)\//.test(
            m,
          ),
      ),
    ).toEqual([]);
  });

  it('(a) the README library example signs and verifies under plain node', () => {
    writeFileSync(join(consumer, 'round-trip.mjs'), readmeLibraryExample());
    const out = ok(run(process.execPath, ['round-trip.mjs'], consumer, 60_000), 'round-trip.mjs');
    expect(out).toBe('verified: keyid client-key-1\n');
  });

  it('(b) a strict NodeNext TypeScript consumer type-checks against the shipped declarations, and a wrong call does not', () => {
    writeFileSync(
      join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: ['node'],
          typeRoots: [join(REPO_ROOT, 'node_modules', '@types')],
        },
        files: ['consumer.ts', 'consumer-wrong.ts'],
      }),
    );
    const source = `import { signRequest, verifyRequest, MemoryNonceStore, toFieldLines, validatePayload, type HttpRequest } from 'payconform';
import { exitCodeFor, type RunSummary } from 'payconform/conformance';
import { startReferenceService, type RunningReferenceService } from 'payconform/server';
import type { RedisNonceStore } from 'payconform/redis';
import { createExpressVerifier, createFastifyVerifier, type VerifiedApplication } from 'payconform/node';
import schema from 'payconform/schemas/payout.schema.json' with { type: 'json' };

const request: HttpRequest = { method: 'GET', url: 'https://api.example.com/api/payouts/1', headers: toFieldLines({}), body: new Uint8Array() };
const store: MemoryNonceStore = new MemoryNonceStore();
export const checks: unknown[] = [signRequest, verifyRequest, validatePayload, exitCodeFor, startReferenceService, request, store, schema];
export const middleware: unknown[] = [createExpressVerifier, createFastifyVerifier];
export type Used = [RunSummary, RunningReferenceService, RedisNonceStore, VerifiedApplication];
`;
    const tsc = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    writeFileSync(join(consumer, 'consumer.ts'), source);
    // The declarations are real types, not `any`: a wrong argument is an error. Both files are one program (one tsc
    // run): every error tsc reports must be in the wrong one, so the right one type-checks clean.
    writeFileSync(
      join(consumer, 'consumer-wrong.ts'),
      `${source}\nsignRequest(request, { applicationId: 1 });\n`,
    );
    const both = run(process.execPath, [tsc, '-p', 'tsconfig.json'], consumer, 120_000);
    expect(both.status).not.toBe(0);
    expect(both.stdout).toMatch(/^consumer-wrong\.ts\(\d+,\d+\): error TS\d+/m);
    const errors = both.stdout.split('\n').filter((line) => /error TS\d+/.test(line));
    expect(
      errors.filter((line) => !/^consumer-wrong\.ts\(\d+,\d+\): error TS\d+/.test(line)),
      `${both.stdout}\n${both.stderr}`,
    ).toEqual([]);
  });

  it('(e) payconform/node verifies a signed request in a node:http service, with neither Express nor Fastify installed', () => {
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
      peerDependenciesMeta?: Record<string, { optional?: boolean }>;
    };
    for (const name of ['express', 'fastify']) {
      expect(Object.keys(manifest.dependencies ?? {})).not.toContain(name);
      expect(manifest.peerDependenciesMeta?.[name]?.optional, name).toBe(true);
    }
    writeFileSync(
      join(consumer, 'node-service.mjs'),
      `import http from 'node:http';
import { generateKeyPairSync } from 'node:crypto';
import { applySignedHeaders, MemoryNonceStore, parseEd25519PrivateKey, parseEd25519PublicKey, signRequest,
  toFieldLines } from 'payconform';
import { verifyIncomingRequest, writeRefusal } from 'payconform/node';

const pair = generateKeyPairSync('ed25519');
const privateKey = parseEd25519PrivateKey(pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
const publicKey = parseEd25519PublicKey(pair.publicKey.export({ type: 'spki', format: 'pem' }).toString());
const record = { secret: 'test-only-secret', publicKeys: new Map([['k1', publicKey]]) };
const options = { nonceStore: new MemoryNonceStore(), resolveApplication: async (id) => (id === 'a1' ? record : undefined) };
const server = http.createServer(async (req, res) => {
  const v = await verifyIncomingRequest(req, options);
  if (!v.ok) return writeRefusal(res, v);
  res.end(v.application.applicationId);
});
server.listen(0, '127.0.0.1', async () => {
  const port = server.address().port;
  const body = '{"amount":1}';
  const request = { method: 'POST', url: 'http://127.0.0.1:' + port + '/api/payouts',
    headers: toFieldLines({ host: '127.0.0.1:' + port, 'content-type': 'application/json' }),
    body: new TextEncoder().encode(body) };
  const { headers } = signRequest(request, { applicationId: 'a1', applicationSecret: 'test-only-secret', keyId: 'k1', privateKey });
  const signed = applySignedHeaders(request, headers);
  const send = () => new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/api/payouts', agent: false,
      headers: signed.headers.flat() }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve(res.statusCode + ' ' + text.slice(0, 60)));
    });
    req.on('error', reject);
    req.end(body);
  });
  console.log(await send());
  console.log(await send());
  server.close();
});
`,
    );
    const out = ok(
      run(process.execPath, ['node-service.mjs'], consumer, 60_000),
      'node-service.mjs',
    );
    const [first, second] = out.trim().split('\n');
    expect(first).toBe('200 a1');
    expect(second).toMatch(/^401 \{"statusCode":401,"statusName":"UNAUTHORIZED"/);
    for (const name of ['express', 'fastify'])
      expect(existsSync(join(consumer, 'node_modules', name)), name).toBe(false);
  });

  it('(c) a vector file and a schema file resolve by their package subpaths and are the repository files', () => {
    writeFileSync(
      join(consumer, 'subpaths.mjs'),
      `import schema from 'payconform/schemas/payout-create-request.schema.json' with { type: 'json' };
import index from 'payconform/vectors/index.json' with { type: 'json' };
console.log(JSON.stringify({
  schemaId: schema.$id,
  indexFiles: index.files.length,
  rfc: import.meta.resolve('payconform/vectors/rfc/rfc9421.json'),
  openapi: import.meta.resolve('payconform/schemas/openapi.json'),
}));
`,
    );
    const out = JSON.parse(
      ok(run(process.execPath, ['subpaths.mjs'], consumer, 60_000), 'subpaths.mjs'),
    ) as Record<string, string | number>;
    const repoSchema = JSON.parse(
      readFileSync(join(REPO_ROOT, 'schemas', 'payout-create-request.schema.json'), 'utf8'),
    ) as { $id: string };
    const repoIndex = JSON.parse(
      readFileSync(join(REPO_ROOT, 'vectors', 'index.json'), 'utf8'),
    ) as { files: unknown[] };
    expect(out.schemaId).toBe(repoSchema.$id);
    expect(out.indexFiles).toBe(repoIndex.files.length);
    expect(readFileSync(new URL(String(out.rfc)), 'utf8')).toBe(
      readFileSync(join(REPO_ROOT, 'vectors', 'rfc', 'rfc9421.json'), 'utf8'),
    );
    expect(readFileSync(new URL(String(out.openapi)), 'utf8')).toBe(
      readFileSync(join(REPO_ROOT, 'schemas', 'openapi.json'), 'utf8'),
    );
  });

  it('(d) the installed payconform command: --help, --version, validate on a schema-valid and an invalid payload', () => {
    const bin = join(consumer, 'node_modules', '.bin', 'payconform');
    const help = run(bin, ['--help'], consumer, 60_000);
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toContain('usage: payconform <command>');
    expect(help.stdout).toContain('payconform validate');
    expect(ok(run(bin, ['--version'], consumer, 60_000), '--version')).toBe(
      `${repoPackage.version}\n`,
    );
    const payloads = JSON.parse(
      readFileSync(join(REPO_ROOT, 'vectors', 'payloads', 'payout-create-request.json'), 'utf8'),
    ) as { cases: Array<{ result: string; payload: unknown }> };
    const valid = payloads.cases.find((c) => c.result === 'valid')!.payload;
    writeFileSync(join(consumer, 'payout.json'), JSON.stringify(valid));
    const accepted = run(
      bin,
      ['validate', 'payout-create-request', 'payout.json'],
      consumer,
      60_000,
    );
    expect(accepted.status, `${accepted.stdout}\n${accepted.stderr}`).toBe(0);
    const refused = run(
      bin,
      ['validate', 'payout-create-request', '-'],
      consumer,
      60_000,
      JSON.stringify({ ...(valid as object), amount: 'ten' }),
    );
    expect(refused.status).toBe(1);
    expect(refused.stdout).toContain('/amount');
  });

  it.skipIf(pythonMissing !== undefined)(
    "(e) the docs' harness example works from the installed package: the shipped Python adapter passes every case",
    () => {
      const bin = join(consumer, 'node_modules', '.bin', 'payconform');
      const r = run(
        bin,
        [
          'vectors',
          'run',
          '--exec',
          'python3 node_modules/payconform/vectors/adapters/python/adapter.py',
        ],
        consumer,
        120_000,
      );
      const total = (
        JSON.parse(readFileSync(join(REPO_ROOT, 'vectors', 'index.json'), 'utf8')) as {
          totalCases: number;
        }
      ).totalCases;
      expect(r.stdout).toContain(`${total} cases: ${total} passed, 0 failed, 0 skipped`);
      expect(r.status, r.stderr).toBe(0);
      expect(packedFiles).toContain('vectors/release/run-vectors.py');
    },
  );
});

describe('the installed package runs what it ships', () => {
  const bin = () => join(consumer, 'node_modules', '.bin', 'payconform');

  it('every file under dist/ imports only Node built-ins, itself, its dependencies and its optional peers', () => {
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
      peerDependencies?: Record<string, string>;
      peerDependenciesMeta?: Record<string, { optional?: boolean }>;
    };
    const allowed = new Set(
      [
        manifest.dependencies ? Object.keys(manifest.dependencies) : [],
        Object.keys(manifest.peerDependencies ?? {}).filter(
          (name) => manifest.peerDependenciesMeta?.[name]?.optional === true,
        ),
      ].flat(),
    );
    const imports = distImports(join(installed, 'dist'));
    expect(imports.length).toBeGreaterThan(100); // the scan sees the compiled code
    const foreign = imports.filter(({ specifier }) => {
      if (specifier.startsWith('.') || specifier.startsWith('node:')) return false;
      const name = specifier.startsWith('@')
        ? specifier.split('/').slice(0, 2).join('/')
        : specifier.split('/')[0]!;
      return name !== 'payconform' && !builtinModules.includes(name) && !allowed.has(name);
    });
    expect(foreign.map((i) => `${i.file}: ${i.specifier}`)).toEqual([]);
    // The scan finds what it is for: the explorer's run-time import of fast-check, a dependency.
    expect(
      imports.filter(
        (i) => i.file.startsWith('conformance/explore/') && i.specifier === 'fast-check',
      ),
    ).not.toEqual([]);
  });

  it.each(COMMAND_TABLE.map((c) => c.name))('payconform %s --help', (name) => {
    const r = run(bin(), [...name.split(' '), '--help'], consumer, 60_000);
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toContain(`usage: payconform ${name}`);
  });

  // The fixed checks, every one, run once: in the --no-explore run below. This run shows the explorer is on by
  // default: explore-model is a check of the run only when exploring (with --no-explore, --only refuses it as unknown),
  // and here it is selected without any explore option, beside one fixed check.
  it('the main job: audit server against the embedded reference service passes, exploring by default', () => {
    const r = run(
      bin(),
      ['audit', 'server', '--only', 'payout-signed-accepted,explore-model'],
      consumer,
      180_000,
    );
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(/explore-model/);
    expect(r.stdout).toMatch(/^ {2}explore +1 pass$/m);
    expect(r.stdout).toMatch(/^verdict: PASS/m);
  }, 190_000);

  it('the main job without the explorer: audit server --no-explore passes, and no exploration ran', () => {
    const r = run(bin(), ['audit', 'server', '--no-explore'], consumer, 120_000);
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).not.toMatch(/explore-model/);
    expect(r.stdout).toMatch(/^verdict: PASS/m);
  }, 130_000);

  it('serve listens, answers, and stops on SIGTERM', async () => {
    const child = spawn(bin(), ['serve', '--port', '0', '--quiet'], {
      cwd: consumer,
      env: npmEnv(),
    });
    try {
      let out = '';
      const baseUrl = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`serve did not announce: ${out}`)), 60_000);
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const m = /listening on (http:\/\/\S+)/.exec(out);
          if (m) {
            clearTimeout(timer);
            resolve(m[1]!);
          }
        });
        child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${out}`)));
      });
      const answer = await fetch(new URL('/api/payouts', baseUrl), { method: 'POST', body: '{}' });
      expect(answer.status).toBe(401); // unsigned: refused with the spec's error body
      expect(await answer.json()).toMatchObject({ statusCode: 401 });
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  }, 90_000);

  it('serve --redis-url without the optional peer "redis" says which package to install (exit 2, not a defect)', () => {
    expect(existsSync(join(consumer, 'node_modules', 'redis'))).toBe(false);
    const r = run(
      bin(),
      ['serve', '--port', '0', '--redis-url', 'redis://127.0.0.1:1'],
      consumer,
      60_000,
    );
    expect(r.stderr).toContain('needs the package "redis", an optional peer dependency');
    expect(r.stderr).toContain('npm install redis');
    expect(r.status).toBe(2);
  });
});

describe('the code examples of the README and docs/, against the installed package', () => {
  const examples = docExamples(REPO_ROOT);
  const dir = join(consumer, 'examples');
  const out = join(consumer, 'examples-out');
  const redisEnabled = redisTestsEnabled();
  let redis: RunningRedis | undefined;

  beforeAll(async () => {
    // The frameworks and the Redis client the examples use (optional peers), at the versions the repository tests.
    const peers = ['express', 'fastify', 'redis', '@types/express'].map(
      (name) =>
        `${name}@${(JSON.parse(readFileSync(join(REPO_ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version}`,
    );
    ok(
      run(
        'npm',
        ['install', '--prefer-offline', '--no-audit', '--no-fund', ...peers],
        consumer,
        240_000,
      ),
      'npm install of the optional peers',
    );
    mkdirSync(dir);
    for (const e of examples) {
      writeFileSync(join(dir, `${e.stem}.ts`), e.code);
      if (e.lang === 'js') writeFileSync(join(dir, `${e.stem}.mjs`), e.code);
    }
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noUncheckedIndexedAccess: true,
          skipLibCheck: true,
          types: ['node'],
          rootDir: dir,
          outDir: out,
        },
        include: ['*.ts'],
      }),
    );
    copyFileSync(
      join(REPO_ROOT, 'test', 'fixtures', 'drive-doc-example.mjs'),
      join(consumer, 'drive-doc-example.mjs'),
    );
    if (redisEnabled) redis = await startRedisServer();
  }, 300_000);

  afterAll(async () => {
    await redis?.close();
  });

  it('finds the examples: the README library and middleware examples among them; a named module is imported', () => {
    expect(examples.map((e) => e.where)).toEqual(
      expect.arrayContaining(['README.md#1', 'README.md#2', 'docs/library.md#1']),
    );
    for (const e of examples.filter((x) => x.named))
      expect(
        examples.some((other) => other.code.includes(`'./${e.stem}.js'`)),
        `${e.where} (${e.stem}.ts) is imported by no example`,
      ).toBe(true);
  });

  it('every example type-checks under strict TypeScript (NodeNext) against the shipped declarations', () => {
    const tsc = run(
      process.execPath,
      [
        join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
        '-p',
        join(dir, 'tsconfig.json'),
      ],
      consumer,
      180_000,
    );
    expect(`${tsc.stdout}${tsc.stderr}`).toBe('');
    expect(tsc.status).toBe(0);
  }, 190_000);

  it.for(examples.filter((e) => !e.named))(
    '$where runs and does what it says',
    { timeout: 60_000 },
    (e, ctx) => {
      const needsRedis = e.code.includes("'payconform/redis'");
      if (needsRedis && !redisEnabled) ctx.skip();
      const r = runExample(e, redis?.url);
      expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
      if (e.lang === 'js') return; // a program: it ran to its end (README.md#1 is also checked word for word above)
      const report = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as {
        application: string;
        kind: 'app' | 'verify' | 'program';
        first?: { status?: number; body?: string; ok?: boolean };
        replay?: { status?: number; code?: string };
      };
      if (report.kind === 'app') {
        expect(report.first?.status, report.first?.body).toBe(201);
        expect(JSON.parse(report.first!.body!)).toEqual({
          applicationId: report.application,
          amount: '10.50',
        });
        expect(report.replay?.status).toBe(401); // the same signed bytes again: the nonce is used up
      } else if (report.kind === 'verify') {
        expect(report.first).toMatchObject({ ok: true, applicationId: report.application });
        expect(report.replay).toMatchObject({ ok: false, code: 'NONCE_REPLAYED' });
      }
    },
  );

  /** A JavaScript example runs as written under node; a TypeScript one as compiled, through the driver. */
  function runExample(e: DocExample, redisUrl: string | undefined): SpawnSyncReturns<string> {
    const work = mkdtempSync(join(consumer, 'run-'));
    const args =
      e.lang === 'js'
        ? [join(dir, `${e.stem}.mjs`)]
        : [join(consumer, 'drive-doc-example.mjs'), join(out, `${e.stem}.js`), work];
    return run(
      process.execPath,
      args,
      consumer,
      50_000,
      '',
      redisUrl ? { REDIS_URL: redisUrl } : {},
    );
  }
});

/** Every module specifier the compiled files under `dist` import (static, re-export and dynamic), by file. */
function distImports(dist: string): Array<{ file: string; specifier: string }> {
  const found: Array<{ file: string; specifier: string }> = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.js')) {
        const text = readFileSync(path, 'utf8');
        for (const m of text.matchAll(
          /(?:^|[;\s])(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|(?:^|[;\s])import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm,
        ))
          found.push({ file: relative(dist, path), specifier: (m[1] ?? m[2] ?? m[3])! });
      }
    }
  };
  walk(dist);
  return found;
}

function pythonStatus(): string | undefined {
  const r = spawnSync('python3', ['-c', 'import cryptography'], { encoding: 'utf8' });
  if (r.error) return 'python3 not found';
  return r.status === 0 ? undefined : 'python3 cannot import cryptography';
}
