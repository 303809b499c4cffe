import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../cli/main.js';
import { loadTestKeys } from './fixtures/keys.js';
import { memoryIo as createMemoryIo } from './fixtures/memory-io.js';
import { runMain, signingEnv } from './fixtures/cli.js';

const keys = loadTestKeys();
const SECRET = 'test-only-cli-secret';
const env = signingEnv(SECRET, keys.clientEd25519);
const request = {
  method: 'POST',
  url: 'https://api.example.com:8443/api/payouts?dry=1',
  headers: { 'Content-Type': 'application/vnd.service.v1.0+json' },
  body: '{"amount":10.5,"reference":"caf\u00e9"}',
};
const dir = mkdtempSync(join(tmpdir(), 'payconform-cli-'));

function io(stdin = '', extraEnv: Record<string, string | undefined> = env) {
  const cli = createMemoryIo({ stdin, env: extraEnv });
  return { cli, out: () => cli.out.join(''), err: () => cli.err.join('') };
}

/** `payconform ARGS` with `input` on standard input, through main() in-process, as the binary runs it. */
function payconform(args: string[], input: string, extraEnv: Record<string, string>) {
  return runMain(
    args,
    { PATH: process.env.PATH ?? '', ...extraEnv },
    { stdin: input, timeoutMs: 20_000 },
  );
}

/** The request JSON a verifier receives: the signed headers added, with the real secret (sign masks it). */
function signedRequestJson(signOutput: string, body = request.body): string {
  const { headers } = JSON.parse(signOutput) as { headers: Record<string, string> };
  return JSON.stringify({
    ...request,
    body,
    headers: { ...request.headers, ...headers, 'x-application-secret': SECRET },
  });
}

describe('payconform sign / verify from the outside (main() with its exit code and output)', () => {
  it('sign from stdin, then verify: exit 0; the secret is never printed', async () => {
    const signed = await payconform(
      ['sign', '--request', '-', '--created', '1767225600', '--nonce', 'cli-nonce-1'],
      JSON.stringify(request),
      env,
    );
    expect(signed.code, signed.stderr).toBe(0);
    expect(signed.stdout).not.toContain(SECRET);
    const out = JSON.parse(signed.stdout) as {
      headers: Record<string, string>;
      signatureBase: string;
    };
    expect(out.signatureBase).toContain('"x-application-secret": [REDACTED]');
    expect(out.signatureBase).toContain('"@path": /api/payouts?dry=1');
    expect(out.signatureBase).toContain('"@authority": api.example.com:8443');
    expect(out.headers['signature-input']).toContain(
      'created=1767225600;keyid="key-1";alg="ed25519";nonce="cli-nonce-1"',
    );
    const file = join(dir, 'signed.json');
    writeFileSync(file, signedRequestJson(signed.stdout));
    const verified = await payconform(
      ['verify', '--request', file, '--now', '1767225700'],
      '',
      env,
    );
    expect(verified.code, verified.stderr).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({
      ok: true,
      code: null,
      step: 12,
      keyId: 'key-1',
    });
    expect(verified.stdout).not.toContain(SECRET);
  });

  it('verify of a tampered body: exit 1 with the code and step', async () => {
    const signed = await payconform(
      ['sign', '--request', '-', '--created', '1767225600', '--nonce', 'n2'],
      JSON.stringify(request),
      env,
    );
    const verified = await payconform(
      ['verify', '--request', '-', '--now', '1767225600'],
      signedRequestJson(signed.stdout, '{"amount":99}'),
      env,
    );
    expect(verified.code).toBe(1);
    expect(JSON.parse(verified.stdout)).toMatchObject({
      ok: false,
      code: 'DIGEST_MISMATCH',
      step: 8,
    });
  });

  it('bad usage exits 2 with a clear message', async () => {
    const noEnv = await payconform(['sign', '--request', '-'], JSON.stringify(request), {});
    expect(noEnv.code).toBe(2);
    expect(noEnv.stderr).toContain('PAYCONFORM_APPLICATION_ID');
  });
});

describe('payconform sign / verify in-process', () => {
  it('deterministic with --created and --nonce; same bytes twice', async () => {
    const a = io(JSON.stringify(request));
    const b = io(JSON.stringify(request));
    expect(
      await main(['sign', '--request', '-', '--created', '1767225600', '--nonce', 'x'], a.cli),
    ).toBe(0);
    expect(
      await main(['sign', '--request', '-', '--created', '1767225600', '--nonce', 'x'], b.cli),
    ).toBe(0);
    expect(a.out()).toBe(b.out());
  });

  it('bodyBase64 carries binary bodies; PEM private keys work', async () => {
    const binary = {
      ...request,
      body: undefined,
      bodyBase64: Buffer.from([0, 255, 10, 13]).toString('base64'),
    };
    const a = io(JSON.stringify(binary), {
      ...env,
      PAYCONFORM_PRIVATE_KEY: keys.clientEd25519.privatePem,
    });
    expect(
      await main(['sign', '--request', '-', '--created', '1767225600', '--nonce', 'x'], a.cli),
    ).toBe(0);
    expect(JSON.parse(a.out()).headers['content-length']).toBe('4');
  });

  it('verify without PAYCONFORM_KEY_ID uses the keyid the request claims', async () => {
    const s = io(JSON.stringify(request));
    await main(['sign', '--request', '-', '--created', '1767225600', '--nonce', 'x'], s.cli);
    const v = io(signedRequestJson(s.out()), { ...env, PAYCONFORM_KEY_ID: undefined });
    expect(await main(['verify', '--request', '-', '--now', '1767225600'], v.cli)).toBe(0);
    const stale = io(signedRequestJson(s.out()));
    expect(await main(['verify', '--request', '-', '--now', '1767226000'], stale.cli)).toBe(1);
    expect(JSON.parse(stale.out())).toMatchObject({ code: 'CREATED_EXPIRED', step: 3 });
  });

  it.each([
    [['sign'], '', 'required'],
    [['sign', '--request', '-', '--bogus'], '{}', 'bogus'],
    [['sign', '--request', '-'], 'not json', 'not valid JSON'],
    [['sign', '--request', '-'], '[]', 'JSON object'],
    [['sign', '--request', '-'], '{"method":"POST"}', '"url"'],
    [['sign', '--request', '-'], JSON.stringify({ ...request, headers: { a: 1 } }), 'header'],
    [['sign', '--request', '-'], JSON.stringify({ ...request, bodyBase64: 'AA==' }), 'either'],
    [
      ['sign', '--request', '-'],
      JSON.stringify({ ...request, body: undefined, bodyBase64: 'A_==' }),
      'base64',
    ],
    [['sign', '--request', '-', '--created', '1.5'], JSON.stringify(request), '--created'],
    [['sign', '--request', '-', '--nonce', 'x'.repeat(60)], JSON.stringify(request), 'nonce'],
    [['sign', '--request', join(dir, 'missing.json')], '', 'cannot read'],
    [['verify', '--request', '-', '--now', 'soon'], JSON.stringify(request), '--now'],
  ])('%j exits 2', async (args, stdin, message) => {
    const r = io(stdin);
    expect(await main(args, r.cli)).toBe(2);
    expect(r.err()).toContain(message);
  });

  it('a bad key exits 2 and does not echo the key', async () => {
    const badKey = 'c2VjcmV0LWtleS1tYXRlcmlhbC10aGF0LWlzLXdyb25n';
    const r = io(JSON.stringify(request), { ...env, PAYCONFORM_PRIVATE_KEY: badKey });
    expect(await main(['sign', '--request', '-'], r.cli)).toBe(2);
    expect(r.err()).toContain('PAYCONFORM_PRIVATE_KEY');
    expect(r.err()).not.toContain(badKey);
    const v = io(JSON.stringify(request), { ...env, PAYCONFORM_PUBLIC_KEY: 'not a key' });
    expect(await main(['verify', '--request', '-'], v.cli)).toBe(2);
    expect(v.err()).toContain('PAYCONFORM_PUBLIC_KEY');
  });
});
