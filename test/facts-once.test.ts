// Facts written once in shipped code: each limit and timeout is one constant, and the facts below each live in one
// module that every other reads (test/fixtures/facts-once.ts finds them, with a TypeScript parser). Guarded:
// - the Redis command timeout (REDIS_COMMAND_TIMEOUT_MS, redis/commander.ts): never a number given to withTimeout
//   or evalScript;
// - the default request body cap (DEFAULT_MAX_BODY_BYTES, net/incoming-request.ts): the middleware's and the
//   reference service's, never `maxBodyBytes ?? <number>`;
// - the webhook kinds (WEBHOOK_KINDS and WebhookKind, src/webhooks/kinds.ts): never spelled as a list or a union;
// - the default retry policy (defaultRetryPolicy, server/webhook-delivery.ts): never spelled as an object, and the
//   docs' quote of it checked below;
// - the /sandbox/ protocol (SANDBOX_ENDPOINTS, net/sandbox-protocol.ts): the routes, the portal, the state hook's
//   sandbox provider and discovery build every path from it, never from a string;
// - the payout and refund media types (src/schemas/media-types.ts);
// - any constant named as a limit or timeout (LIMIT_NAME: `*_MS`, `*_BYTES`, `MAX_*`, `DEFAULT_*`, ...): declared in
//   one file only.
// The samples at the end show that each detection fails on the fact written twice.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SANDBOX_ENDPOINTS, sandboxPath } from '../net/sandbox-protocol.js';
import { defaultRetryPolicy } from '../server/webhook-delivery.js';
import { FACTS, factsWrittenTwice } from './fixtures/facts-once.js';
import packageJson from '../package.json' with { type: 'json' };

/** Every TypeScript file under `path` (or `path` itself), tests left out. */
function sourcesUnder(path: string): string[] {
  if (!statSync(path, { throwIfNoEntry: false })?.isDirectory())
    return /\.ts$/.test(path) && !path.endsWith('.test.ts') ? [path] : [];
  return readdirSync(path).flatMap((name) => sourcesUnder(`${path}/${name}`));
}

/** The shipped TypeScript: what package.json's "files" ships, but the build output. */
function shippedSources(): Map<string, string> {
  const roots = packageJson.files
    .filter((f) => !f.startsWith('!') && f !== 'dist/')
    .map((f) => f.replace(/\/(\*\*\/\*\.ts)?$/, ''))
    .filter((f) => statSync(f, { throwIfNoEntry: false }) !== undefined);
  return new Map(roots.flatMap(sourcesUnder).map((f) => [f, readFileSync(f, 'utf8')] as const));
}

/** `1 s`, `60 s` (whole seconds), as the docs write a duration. */
const seconds = (ms: number): string => `${ms / 1000} s`;

describe('facts written once in shipped code', () => {
  const sources = shippedSources();

  it('reads the shipped code, each fact home among it', () => {
    expect(sources.size).toBeGreaterThan(300);
    for (const fact of FACTS) expect([...sources.keys()], fact.fact).toContain(fact.home);
  });

  it('no limit, timeout or listed fact is written twice, nor a /sandbox/ path outside its table', () => {
    expect(
      factsWrittenTwice(sources),
      'name the one constant (its home is in test/fixtures/facts-once.ts) instead of writing it again',
    ).toEqual([]);
  });

  it('docs/reference-service.md quotes the default retry policy as the constant holds it, and names it', () => {
    const { initialDelayMs, maxDelayMs, maxAttempts, requestTimeoutMs } = defaultRetryPolicy;
    const quote = `default ${seconds(initialDelayMs)} up to ${seconds(maxDelayMs)}, ${maxAttempts} attempts, ${seconds(requestTimeoutMs)} per attempt: \`defaultRetryPolicy\``;
    const doc = readFileSync('docs/reference-service.md', 'utf8').replace(/\s+/g, ' ');
    expect(doc).toContain(quote);
  });

  it('every /sandbox/ endpoint has a handler in the service, and the index lists each one', async () => {
    const { sandboxRoutes } = await import('../server/routes/sandbox.js');
    const routes = sandboxRoutes('/sandbox').map(([method, path]) => `${method} ${path}`);
    for (const [name, e] of Object.entries(SANDBOX_ENDPOINTS))
      expect(routes, name).toContain(`${e.method} /sandbox${e.path}`);
    expect(sandboxPath('advancePayout', { payoutId: 'a b' })).toBe(
      '/sandbox/payouts/a%20b/advance',
    );
    expect(() => sandboxPath('getRefund')).toThrow(TypeError);
  });
});

describe('the detection (test/fixtures/facts-once.ts) fails on each fact written twice', () => {
  const found = (files: Record<string, string>): string[] =>
    factsWrittenTwice(new Map(Object.entries(files)));
  const home = (file: string, source: string) => ({ [file]: source });

  it('a limit constant declared in a second file, and a listed fact declared outside its home', () => {
    expect(
      found({
        'net/incoming-request.ts': 'export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;',
        'server/start-steps.ts': 'export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;',
        'cli/a.ts': 'const STDERR_TAIL_BYTES = 4096;',
        'vectors/harness/b.ts': 'export const STDERR_TAIL_BYTES = 4096;',
      }),
    ).toEqual([
      'cli/a.ts:1: the limit STDERR_TAIL_BYTES declared in 2 files',
      'server/start-steps.ts:1: the default request body cap (DEFAULT_MAX_BODY_BYTES): DEFAULT_MAX_BODY_BYTES declared outside net/incoming-request.ts',
      'vectors/harness/b.ts:1: the limit STDERR_TAIL_BYTES declared in 2 files',
    ]);
  });

  it('a Redis deadline, a body cap and the retry policy written as numbers', () => {
    expect(
      found({
        'server/redis-batch.ts': [
          "const a = withTimeout(client.sendCommand(['GET', k]), 2000, 'get');",
          "const b = evalScript(client, PRUNE, [k], [], 2_000, 'prune');",
          'const c = withTimeout(p, REDIS_COMMAND_TIMEOUT_MS, "ok");',
          'const d = options.maxBodyBytes ?? 1024 * 1024;',
          'const e = { initialDelayMs: 1000, maxDelayMs: 60_000, maxAttempts: 8, requestTimeoutMs: 1 };',
          'const f = { initialDelayMs: 40, maxDelayMs: 200, maxAttempts: 6 };',
        ].join('\n'),
      }),
    ).toEqual([
      'server/redis-batch.ts:1: the Redis command timeout written in place of REDIS_COMMAND_TIMEOUT_MS',
      'server/redis-batch.ts:2: the Redis command timeout written in place of REDIS_COMMAND_TIMEOUT_MS',
      'server/redis-batch.ts:4: the default request body cap (DEFAULT_MAX_BODY_BYTES) written in place of DEFAULT_MAX_BODY_BYTES',
      'server/redis-batch.ts:5: the default webhook retry policy written in place of defaultRetryPolicy',
    ]);
  });

  it('the webhook kinds spelled as a list or a union, a media type as a string', () => {
    expect(
      found({
        'server/portal/views.ts': "const KINDS = ['payment', 'payout', 'refund'];",
        'server/state.ts': "export type WebhookKind = 'payment' | 'refund' | 'payout';",
        'server/representations.ts': "const T = 'application/vnd.service.v1.0+json';",
        'server/other.ts': "const two = ['payment', 'payout'];",
      }),
    ).toEqual([
      'server/portal/views.ts:1: the webhook kinds written in place of WEBHOOK_KINDS',
      'server/representations.ts:1: the payout and refund media types written in place of PAYOUT_MEDIA_TYPE',
      'server/state.ts:1: the webhook kinds written in place of WEBHOOK_KINDS',
      'server/state.ts:1: the webhook kinds: WebhookKind declared outside src/webhooks/kinds.ts',
    ]);
  });

  it('a /sandbox/ path in a string or a template, but not the word in a message', () => {
    expect(
      found({
        'conformance/config/discover.ts': [
          'const a = getJson(`${base}/sandbox/applications`);',
          'const b = { url: `${ctx.baseUrl}/sandbox${path}` };',
          "const c = '/sandbox';",
          "router.add('POST', '/sandbox/payouts/{payoutId}/advance', h);",
          "const d = `the target's /sandbox/`;",
          'const e = "a target with payconform\'s /sandbox/ endpoints";',
          "const f = '/portal/sandbox';",
          '// GET /sandbox/payouts in a comment',
        ].join('\n'),
      }),
    ).toEqual([
      'conformance/config/discover.ts:1: the /sandbox/ protocol (each path and method) written in place of SANDBOX_BASE_PATH',
      'conformance/config/discover.ts:2: the /sandbox/ protocol (each path and method) written in place of SANDBOX_BASE_PATH',
      'conformance/config/discover.ts:3: the /sandbox/ protocol (each path and method) written in place of SANDBOX_BASE_PATH',
      'conformance/config/discover.ts:4: the /sandbox/ protocol (each path and method) written in place of SANDBOX_BASE_PATH',
    ]);
  });

  it("a fact's home that no longer declares it", () => {
    expect(
      found(home('src/webhooks/kinds.ts', "export const WEBHOOK_KINDS = ['payment'];")),
    ).toEqual([
      'src/webhooks/kinds.ts: the webhook kinds: WebhookKind is not declared in its home',
    ]);
  });
});
