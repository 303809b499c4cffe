// `payconform sign --output headers|request|curl` as people use it: the headers merged into the request verify (by
// `payconform verify` and by an independent RFC 9421 library), bodyless requests (`body: null` or none) sign and verify,
// `--output request` is request JSON that verify accepts (secret as an environment reference), `--output curl` is a
// command that a real curl runs against the reference service, and the secret appears in no output.
import { execFile, spawnSync } from 'node:child_process';
import { createPublicKey, verify as cryptoVerify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { httpbis, type ComponentParser } from 'http-message-signatures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../cli/main.js';
import { parseRequestJson } from '../cli/request-json.js';
import { startReferenceService, type RunningReferenceService } from '../server/index.js';
import { getSchemaValidator } from '../src/schemas/index.js';
import { profileAuthority, profilePath } from '../vectors/adapters/shared/profile-glue.js';
import { REPO_ROOT, signingEnv } from './fixtures/cli.js';
import { loadTestKeys } from './fixtures/keys.js';
import { memoryIo } from './fixtures/memory-io.js';

const keys = loadTestKeys();
const SECRET = 'test-only-sign-output-secret';
const env = signingEnv(SECRET, keys.clientEd25519);
const CREATED = ['--created', '1767225600'];
const NOW = ['--now', '1767225650'];
const SECRET_REF = { env: 'PAYCONFORM_APPLICATION_SECRET' };
const post = {
  method: 'POST',
  url: 'https://api.example.com:8443/api/payouts',
  headers: {
    'content-type': 'application/vnd.service.v1.0+json',
    'x-application-secret': SECRET_REF,
  },
  body: '{"amount":10.5,"reference":"caf\u00e9"}',
};
const get = {
  method: 'GET',
  url: 'https://api.example.com/api/payouts/p-1',
  headers: { 'x-application-secret': SECRET_REF },
  body: null,
};
const validateRequestJson = getSchemaValidator(
  'https://payconform.dev/schemas/request.schema.json',
);

async function cli(
  args: readonly string[],
  stdin: unknown,
  extraEnv: Record<string, string | undefined> = env,
) {
  const io = memoryIo({
    env: extraEnv,
    stdin: typeof stdin === 'string' ? stdin : JSON.stringify(stdin),
  });
  const code = await main(args, io);
  return { code, out: io.out.join(''), err: io.err.join('') };
}

/** `{ ...request, headers: { ...request.headers, ...signed } }`: what a user does with sign's `headers`. */
function merged(request: { headers: Record<string, unknown> }, signed: Record<string, string>) {
  return { ...request, headers: { ...request.headers, ...signed } };
}

/** The service profile for http-message-signatures: its own @path drops the query and absent fields throw. */
const profileComponents: ComponentParser = (name, _params, message) => {
  if (!('method' in message)) return null;
  if (name === '@path') return [profilePath(message.url.toString())];
  if (name === '@authority') return [profileAuthority(message.url.toString())];
  if (!name.startsWith('@') && !Object.keys(message.headers).some((h) => h.toLowerCase() === name))
    return [''];
  return null;
};

/** Verifies with an independent RFC 9421 implementation (http-message-signatures) and node:crypto's Ed25519. */
async function independentlyVerified(requestJson: string): Promise<boolean> {
  const request = parseRequestJson(requestJson, memoryIo({ env }));
  const headers: Record<string, string> = {};
  for (const [name, value] of request.headers) headers[name.toLowerCase()] = value;
  const publicKey = createPublicKey(keys.clientEd25519.publicPem);
  return httpbis.verifyMessage(
    {
      componentParser: profileComponents,
      requiredFields: [
        '@method',
        '@path',
        '@authority',
        'content-digest',
        'content-type',
        'content-length',
        'x-application-id',
        'x-application-secret',
      ],
      keyLookup: async (params) =>
        params.keyid === 'key-1'
          ? {
              id: 'key-1',
              algs: ['ed25519'],
              verify: async (data, signature) => cryptoVerify(null, data, publicKey, signature),
            }
          : null,
    },
    { method: request.method, url: request.url, headers },
  ) as Promise<boolean>;
}

describe('sign --output headers (the default)', () => {
  it.each([
    [
      'POST with a body',
      post,
      ['x-application-id', 'content-digest', 'content-length', 'signature-input', 'signature'],
    ],
    ['GET with "body": null', get, ['x-application-id', 'signature-input', 'signature']],
    [
      'GET with no body member',
      { ...get, body: undefined },
      ['x-application-id', 'signature-input', 'signature'],
    ],
  ])(
    '%s: exactly the headers signing adds, never the secret; merged into the request, verify and an independent verifier accept it',
    async (_name, request, expected) => {
      const signed = await cli(['sign', '--request', '-', ...CREATED, '--nonce', 'n-1'], request);
      expect(signed.code, signed.err).toBe(0);
      expect(signed.err).toBe('');
      expect(signed.out).not.toContain(SECRET);
      const { headers, signatureBase } = JSON.parse(signed.out) as {
        headers: Record<string, string>;
        signatureBase: string;
      };
      expect(Object.keys(headers)).toEqual(expected);
      expect(signatureBase).toContain('"x-application-secret": [REDACTED]');
      const mergedJson = JSON.stringify(merged(request, headers));
      const verified = await cli(['verify', '--request', '-', ...NOW], mergedJson);
      expect(verified.code, verified.out + verified.err).toBe(0);
      expect(JSON.parse(verified.out)).toMatchObject({ ok: true, keyId: 'key-1', nonce: 'n-1' });
      expect(await independentlyVerified(mergedJson)).toBe(true);
      // The check can fail: a changed method no longer verifies, for either verifier.
      const changed = JSON.stringify({ ...merged(request, headers), method: 'DELETE' });
      expect((await cli(['verify', '--request', '-', ...NOW], changed)).code).toBe(1);
      expect(await independentlyVerified(changed).catch(() => false)).toBe(false);
    },
  );

  it('a request without x-application-secret, or with another value, gets a note on stderr (stdout stays the JSON)', async () => {
    const without = await cli(['sign', '--request', '-', ...CREATED], {
      ...post,
      headers: { 'content-type': 'application/json' },
    });
    expect(without.code).toBe(0);
    expect(without.err).toContain('no x-application-secret header');
    expect(JSON.parse(without.out)).toHaveProperty('headers');
    const other = await cli(['sign', '--request', '-', ...CREATED], {
      ...post,
      headers: { 'x-application-secret': 'something-else' },
    });
    expect(other.err).toContain('not the value of PAYCONFORM_APPLICATION_SECRET');
    expect(other.err).not.toContain(SECRET);
  });
});

describe('sign --output request', () => {
  it.each([
    ['with a body', post],
    ['bodyless', get],
  ])(
    '%s: request JSON (schema-valid, secret as {"env"}) that verify accepts as it is',
    async (_name, request) => {
      const signed = await cli(
        ['sign', '--request', '-', '--output', 'request', ...CREATED],
        request,
      );
      expect(signed.code, signed.err).toBe(0);
      expect(signed.out).not.toContain(SECRET);
      const json = JSON.parse(signed.out) as { headers: Record<string, unknown>; body?: string };
      expect(validateRequestJson(json)).toEqual({ valid: true });
      expect(json.headers['x-application-secret']).toEqual(SECRET_REF);
      expect(json.body).toBe(request.body ?? undefined);
      const verified = await cli(['verify', '--request', '-', ...NOW], signed.out);
      expect(verified.code, verified.out + verified.err).toBe(0);
      expect(await independentlyVerified(signed.out)).toBe(true);
      // Without the variable, verify names it and stops (exit 2) instead of sending an empty secret.
      const missing = await cli(['verify', '--request', '-', ...NOW], signed.out, {
        ...env,
        PAYCONFORM_APPLICATION_SECRET: undefined,
      });
      expect(missing.code).toBe(2);
      expect(missing.err).toContain('PAYCONFORM_APPLICATION_SECRET');
    },
  );

  it('binary bodies round-trip as bodyBase64', async () => {
    const binary = {
      ...post,
      body: undefined,
      bodyBase64: Buffer.from([0, 255, 10]).toString('base64'),
    };
    const signed = await cli(['sign', '--request', '-', '-o', 'request', ...CREATED], binary);
    expect(JSON.parse(signed.out)).toMatchObject({ bodyBase64: 'AP8K' });
    expect((await cli(['verify', '--request', '-', ...NOW], signed.out)).code).toBe(0);
  });
});

describe('sign --output curl: the secret, however short, is an environment reference', () => {
  // Secrets of fewer than 4 characters are not masked wherever they appear (they would mask ordinary text), only
  // where their position gives them away: the x-application-secret header is such a place.
  it.each(['s', 'ab', 'xyz', 'test-only-secret-of-usual-length'])('secret %j', async (secret) => {
    const r = await cli(
      ['sign', '--request', '-', '--output', 'curl', ...CREATED],
      post,
      signingEnv(secret, keys.clientEd25519),
    );
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(`-H 'x-application-secret: '"$PAYCONFORM_APPLICATION_SECRET"`);
    expect(r.out).not.toContain(`x-application-secret: ${secret}`);
  });
});

describe('request JSON read by verify', () => {
  it("accepts a test vector's request as it is (wire-form [name, value] headers, bodyUtf8), and the schema does too", async () => {
    const file = JSON.parse(
      readFileSync(join(REPO_ROOT, 'vectors', 'request-signing.json'), 'utf8'),
    ) as { cases: Array<{ id: string; input: { request: unknown; now: number } }> };
    const vector = file.cases.find((c) => c.id === 'verify-post-payout-valid')!;
    const keysFile = JSON.parse(readFileSync(join(REPO_ROOT, 'vectors', 'keys.json'), 'utf8')) as {
      keys: Record<string, { public: Record<string, string> }>;
      verifiers: Record<
        string,
        Array<{
          applicationId: string;
          applicationSecret: string;
          keys: Array<{ keyId: string; publicKey: { key: string } }>;
        }>
      >;
    };
    const app = keysFile.verifiers['default']![0]!;
    const vectorEnv = {
      PAYCONFORM_APPLICATION_ID: app.applicationId,
      PAYCONFORM_APPLICATION_SECRET: app.applicationSecret,
      PAYCONFORM_PUBLIC_KEY: keysFile.keys[app.keys[0]!.publicKey.key]!.public['spki-pem']!,
    };
    expect(validateRequestJson(vector.input.request)).toEqual({ valid: true });
    const verified = await cli(
      ['verify', '--request', '-', '--now', String(vector.input.now)],
      vector.input.request,
      vectorEnv,
    );
    expect(verified.code, verified.out + verified.err).toBe(0);
  });

  it.each([
    [{ ...get, headers: { 'x-application-secret': { env: 'NOT SET' } } }, 'environment variable'],
    [
      { ...get, headers: { 'x-application-secret': { env: 'PAYCONFORM_UNSET_VARIABLE' } } },
      'PAYCONFORM_UNSET_VARIABLE, which is not set',
    ],
    [{ ...get, headers: { a: { value: 'x' } } }, '{"env": "NAME"}'],
    [{ ...get, headers: [['a']] }, '[name, value] pairs'],
    [{ ...post, bodyUtf8: 'x' }, 'not both'],
    [{ ...get, body: 5 }, '"body" must be a string'],
  ])('%j exits 2 with a message, and the schema refuses it too', async (request, message) => {
    const r = await cli(['verify', '--request', '-'], request);
    expect(r.code).toBe(2);
    expect(r.err).toContain(message);
    if (message !== 'PAYCONFORM_UNSET_VARIABLE, which is not set')
      expect(validateRequestJson(request).valid).toBe(false);
  });

  it('--output takes headers, request or curl', async () => {
    const r = await cli(['sign', '--request', '-', '--output', 'yaml'], post);
    expect(r.code).toBe(2);
    expect(r.err).toContain('--output must be one of headers, request, curl');
  });
});

describe('sign --output curl, run by a real curl against the reference service', () => {
  let service: RunningReferenceService;
  let serviceEnv: Record<string, string>;
  const curlMissing =
    spawnSync('curl', ['--version'], { encoding: 'utf8', timeout: 10_000 }).status !== 0;

  beforeAll(async () => {
    service = await startReferenceService();
    const c = service.credentials;
    serviceEnv = {
      PAYCONFORM_APPLICATION_ID: c.applicationId,
      PAYCONFORM_APPLICATION_SECRET: c.applicationSecret,
      PAYCONFORM_KEY_ID: c.keyId,
      PAYCONFORM_PRIVATE_KEY: Buffer.from(c.privateKey!.seed).toString('base64'),
    };
  });

  afterAll(async () => {
    await service?.close();
  });

  /** Runs the printed command through sh, asynchronously: the reference service answers from this same process. */
  function runCurl(
    command: string,
    secret: string | undefined,
  ): Promise<{ status: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      const env = {
        PATH: process.env.PATH ?? '',
        ...(secret === undefined ? {} : { PAYCONFORM_APPLICATION_SECRET: secret }),
      };
      execFile(
        'sh',
        ['-c', command],
        { env, encoding: 'utf8', timeout: 30_000 },
        (error, stdout, stderr) => {
          resolve({
            status: error ? (typeof error.code === 'number' ? error.code : null) : 0,
            stdout,
            stderr,
          });
        },
      );
    });
  }

  it.skipIf(curlMissing && process.env.CI !== 'true')(
    'a signed payout POST and a bodyless commit are accepted; the command holds "$PAYCONFORM_APPLICATION_SECRET", never the secret',
    async () => {
      expect(curlMissing, 'curl is needed (CI installs it: .ci/run)').toBe(false);
      const c = service.credentials;
      const body = JSON.stringify({
        applicationId: c.applicationId,
        payInAccountSelector: c.payInAccountSelector,
        amount: 1.5,
        reference: 'CLI-CURL-1',
        destination: service.copDestinations.PARTIAL_MATCH, // with doNotCommitOnCoPMismatch: held until commit
        doNotCommitOnCoPMismatch: true,
      });
      const payout = {
        method: 'POST',
        url: `${service.baseUrl}/api/payouts`,
        headers: {
          'content-type': 'application/vnd.service.v1.0+json',
          accept: 'application/vnd.service.v1.0+json',
        },
        body,
      };
      const signed = await cli(['sign', '--request', '-', '--output', 'curl'], payout, serviceEnv);
      expect(signed.code, signed.err).toBe(0);
      expect(signed.out).not.toContain(c.applicationSecret);
      expect(signed.out).toContain('"$PAYCONFORM_APPLICATION_SECRET"');
      const created = await runCurl(signed.out, c.applicationSecret);
      expect(created.status, created.stderr).toBe(0);
      expect(created.stdout).toMatch(/^HTTP\/1\.1 201 /);
      const payoutId = (
        JSON.parse(created.stdout.slice(created.stdout.indexOf('\r\n\r\n') + 4)) as {
          payoutId: string;
        }
      ).payoutId;

      // Commit: a POST without a body ("body": null).
      const commit = {
        method: 'POST',
        url: `${service.baseUrl}/api/payouts/${payoutId}/commit`,
        headers: { accept: 'application/vnd.service.v1.0+json' },
        body: null,
      };
      const signedCommit = await cli(
        ['sign', '--request', '-', '--output', 'curl'],
        commit,
        serviceEnv,
      );
      const committed = await runCurl(signedCommit.out, c.applicationSecret);
      expect(committed.stdout).toMatch(/^HTTP\/1\.1 200 /);
      expect(committed.stdout).toContain('"status":"IN_PROGRESS"');
      // Without the variable the command sends an empty secret, and the service refuses it.
      const again = await cli(
        ['sign', '--request', '-', '--output', 'curl'],
        { ...commit, url: `${service.baseUrl}/api/payouts/${payoutId}/cancel` },
        serviceEnv,
      );
      expect((await runCurl(again.out, undefined)).stdout).toMatch(/^HTTP\/1\.1 401 /);
    },
  );
});

describe("docs/library.md's request JSON example", () => {
  it('is schema-valid request JSON that signs and then verifies', async () => {
    const library = readFileSync(join(REPO_ROOT, 'docs/library.md'), 'utf8');
    const section = library.slice(library.indexOf('## Signing from the command line'));
    const example = JSON.parse(/```jsonc\n([\s\S]*?)\n```/.exec(section)![1]!) as unknown;
    expect(validateRequestJson(example)).toEqual({ valid: true });
    const signed = await cli(['sign', '--request', '-', '-o', 'request', ...CREATED], example);
    expect(signed.code, signed.err).toBe(0);
    expect((await cli(['verify', '--request', '-', ...NOW], signed.out)).code).toBe(0);
  });
});
