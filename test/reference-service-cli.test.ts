// `payconform serve` from the outside: starts, prints what a client needs, accepts a signed payout, stops on Ctrl-C;
// refuses faults off loopback, unknown faults, partial credentials and bad config files.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../cli/main.js';
import { exportEd25519PublicKeyBase64, parseEd25519PrivateKey } from '../src/keys/index.js';
import { forgeryForms } from '../conformance/checks/server/forgery-kinds.js';
import { faultCatalogue } from '../server/index.js';
import { parseServiceConfig, ServiceConfigError } from '../server/config.js';
import { loadTestKeys } from './fixtures/keys.js';
import { PAYOUT_TYPE, send } from './reference-service-client.js';
import { signRequest } from '../src/profile/sign-request.js';
import { memoryIo as createMemoryIo } from './fixtures/memory-io.js';
import { CLI_ARGS } from './fixtures/cli.js';

const memoryIo = (env: Record<string, string> = {}) => createMemoryIo({ env });

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
});

/** Spawns `payconform serve`, resolves with the child and its output once it prints "Ctrl-C stops." (15 s max). */
function spawnServe(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, [...CLI_ARGS, 'serve', '--port', '0', ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let text = '';
  child.stdout!.on('data', (d: Buffer) => (text += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (text += d.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`serve did not start in 15 s:\n${text}`)),
      15_000,
    );
    const check = () => {
      if (text.includes('Ctrl-C stops.')) {
        clearTimeout(timer);
        resolve({ child, output: () => text });
      }
    };
    child.stdout!.on('data', check);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited ${code}:\n${text}`));
    });
  });
}

function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    const timer = setTimeout(() => resolve(-1), 10_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

describe('payconform serve (spawned)', () => {
  it('writes development credentials to --credentials-out (mode 0600, never to its output), accepts a payout signed with them, and stops cleanly on SIGINT', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'payconform-serve-creds-'));
    const credentials = join(dir, 'dev.env');
    writeFileSync(credentials, 'stale\n', { mode: 0o644 }); // an existing file's wider mode is not kept
    const { child, output } = await spawnServe(['--quiet', '--credentials-out', credentials]);
    const text = output();
    expect(text).toContain('DEVELOPMENT ONLY');
    expect(text).toContain(`secret and private key written to ${credentials} (mode 0600)`);
    expect(statSync(credentials).mode & 0o777).toBe(0o600);
    const file = readFileSync(credentials, 'utf8');
    const baseUrl = /listening on (http:\/\/\S+)/.exec(text)![1]!;
    const env = (name: string) => new RegExp(`^export ${name}=(\\S+)$`, 'm').exec(file)![1]!;
    for (const secret of ['PAYCONFORM_APPLICATION_SECRET', 'PAYCONFORM_PRIVATE_KEY'])
      expect(text).not.toContain(env(secret));
    expect(text).not.toContain('PRIVATE KEY');
    expect(text).toContain(`application ${env('PAYCONFORM_APPLICATION_ID')}: keyId`);
    const selector = /payInAccountSelector: (\S+)/.exec(text)![1]!;
    const privateKey = parseEd25519PrivateKey(env('PAYCONFORM_PRIVATE_KEY'));
    const body = new TextEncoder().encode(
      JSON.stringify({
        applicationId: env('PAYCONFORM_APPLICATION_ID'),
        payInAccountSelector: selector,
        amount: 12.5,
        reference: 'CLI',
        destination: {
          destinationType: 'toAccount',
          accountType: 'SCAN',
          holderName: 'CoP No Match',
          accountNumber: '12345678',
          sortCode: '040004',
          iban: null,
        },
        doNotCommitOnCoPMismatch: true,
      }),
    );
    const { headers } = signRequest(
      {
        method: 'POST',
        url: `${baseUrl}/api/payouts`,
        headers: [['content-type', PAYOUT_TYPE]],
        body,
      },
      {
        applicationId: env('PAYCONFORM_APPLICATION_ID'),
        applicationSecret: env('PAYCONFORM_APPLICATION_SECRET'),
        keyId: env('PAYCONFORM_KEY_ID'),
        privateKey,
      },
    );
    const res = await send(baseUrl, {
      method: 'POST',
      path: '/api/payouts',
      headers: [['content-type', PAYOUT_TYPE], ...Object.entries(headers)],
      body,
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ status: 'AWAITING_COMMIT', copStatus: 'NO_MATCH' });
    // The seeded payments printed are real.
    const settled = /^ {2}(\S+) {2}SETTLED/m.exec(text)![1]!;
    const payments = await send(baseUrl, { method: 'GET', path: `/sandbox/payments/${settled}` });
    expect(payments.json.status).toBe('SETTLED');
    child.kill('SIGINT');
    expect(await exitOf(child)).toBe(0);
  });

  it('without --credentials-out, generated secrets are not printed and the banner says how to get them', async () => {
    const { child, output } = await spawnServe(['--quiet']);
    const text = output();
    expect(text).toContain('secret and private key not printed: start with --credentials-out FILE');
    expect(text).not.toMatch(/PAYCONFORM_(APPLICATION_SECRET|PRIVATE_KEY)=/);
    expect(text).not.toContain('PRIVATE KEY');
    child.kill('SIGINT');
    expect(await exitOf(child)).toBe(0);
  });

  it('--variant lenient: the banner names it, and a payout whose created is written as a Decimal is accepted (RFC 8941 reads it)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'payconform-serve-lenient-'));
    const credentials = join(dir, 'dev.env');
    const { child, output } = await spawnServe([
      '--quiet',
      '--variant',
      'lenient',
      '--credentials-out',
      credentials,
    ]);
    const text = output();
    expect(text).toContain('(variant lenient:');
    const file = readFileSync(credentials, 'utf8');
    const env = (name: string) => new RegExp(`^export ${name}=(\\S+)$`, 'm').exec(file)![1]!;
    const baseUrl = /listening on (http:\/\/\S+)/.exec(text)![1]!;
    const selector = /payInAccountSelector: (\S+)/.exec(text)![1]!;
    const body = new TextEncoder().encode(
      JSON.stringify({
        applicationId: env('PAYCONFORM_APPLICATION_ID'),
        payInAccountSelector: selector,
        amount: 1.5,
        reference: 'LENIENT',
        destination: {
          destinationType: 'toAccount',
          accountType: 'SCAN',
          holderName: 'Ada Lovelace',
          accountNumber: '12345678',
          sortCode: '040004',
          iban: null,
        },
      }),
    );
    const form = forgeryForms.find((f) => f.name === 'created-decimal')!;
    const request = { method: 'POST', url: `${baseUrl}/api/payouts`, body };
    const forged = form.build({
      request: { ...request, headers: [['content-type', PAYOUT_TYPE]] },
      credentials: {
        applicationId: env('PAYCONFORM_APPLICATION_ID'),
        applicationSecret: env('PAYCONFORM_APPLICATION_SECRET'),
        keyId: env('PAYCONFORM_KEY_ID'),
        privateKey: parseEd25519PrivateKey(env('PAYCONFORM_PRIVATE_KEY')),
      },
      now: Math.floor(Date.now() / 1000),
      size: 0,
    });
    expect(forged.headers.find(([n]) => n === 'signature-input')![1]).toMatch(/;created=\d+\.0;/);
    const res = await send(baseUrl, {
      method: 'POST',
      path: '/api/payouts',
      headers: forged.headers,
      body,
    });
    expect(res.status, res.text).toBe(201);
    child.kill('SIGTERM');
    expect(await exitOf(child)).toBe(0);
  });

  it('uses credentials from the environment and never prints the secret', async () => {
    const keys = loadTestKeys();
    const secret = 'test-only-env-secret-xyz-123';
    const { child, output } = await spawnServe(['--fault', 'no-cop-hold'], {
      PAYCONFORM_APPLICATION_ID: '11111111-2222-4333-8444-555555555555',
      PAYCONFORM_APPLICATION_SECRET: secret,
      PAYCONFORM_KEY_ID: 'env-key',
      PAYCONFORM_PUBLIC_KEY: exportEd25519PublicKeyBase64(keys.clientEd25519.publicKey),
      PAYCONFORM_MERCHANT_ID: 'merchant-env',
    });
    const text = output();
    expect(text).toContain('application 11111111-2222-4333-8444-555555555555: keyId env-key');
    expect(text).not.toContain(secret);
    expect(text).not.toContain('DEVELOPMENT ONLY');
    expect(text).toContain('FAULTY SERVICE');
    expect(text).toContain('no-cop-hold');
    child.kill('SIGTERM');
    expect(await exitOf(child)).toBe(0);
  });
});

describe('--config file (schemas/reference-service-config.schema.json)', () => {
  it('registers several applications, a secret from the environment, CoP off', () => {
    const pub = exportEd25519PublicKeyBase64(loadTestKeys().clientEd25519.publicKey);
    const { applications, config } = parseServiceConfig(
      JSON.stringify({
        port: 9000,
        webhookUrls: { payout: 'http://127.0.0.1:9999/hooks' },
        applications: [
          {
            applicationId: 'app-1',
            applicationSecret: 'test-only-s1',
            keyId: 'k1',
            publicKey: pub,
            merchantId: 'm1',
          },
          {
            applicationId: 'app-2',
            applicationSecretEnv: 'APP2_SECRET',
            keyId: 'k2',
            publicKey: pub,
            merchantId: 'm2',
            cop: false,
          },
        ],
      }),
      { APP2_SECRET: 'test-only-from-env' },
    );
    expect(config.port).toBe(9000);
    expect(applications.map((a) => [a.applicationId, a.applicationSecret, a.cop])).toEqual([
      ['app-1', 'test-only-s1', undefined],
      ['app-2', 'test-only-from-env', false],
    ]);
    expect(() =>
      parseServiceConfig(
        JSON.stringify({
          applications: [
            {
              applicationId: 'a',
              applicationSecretEnv: 'NOPE',
              keyId: 'k',
              publicKey: pub,
              merchantId: 'm',
            },
          ],
        }),
        {},
      ),
    ).toThrow(ServiceConfigError);
    expect(() => parseServiceConfig('{"port": 1,', {})).toThrow(/offset/);
    expect(() => parseServiceConfig('{"unknown": true}', {})).toThrow(/unknown/);
  });
});

describe('payconform serve (in-process, refusals)', () => {
  it('--list-faults lists every fault of the catalogue', async () => {
    const io = memoryIo();
    expect(await main(['serve', '--list-faults'], io)).toBe(0);
    for (const f of faultCatalogue) expect(io.out.join('')).toContain(f.name);
  });

  it('refuses a fault off loopback, an unknown fault, partial env credentials, a bad config', async () => {
    let io = memoryIo();
    expect(await main(['serve', '--host', '0.0.0.0', '--fault', 'no-replay-check'], io)).toBe(2);
    expect(io.err.join('')).toContain('loopback');
    io = memoryIo();
    expect(await main(['serve', '--fault', 'no-such-fault'], io)).toBe(2);
    expect(io.err.join('')).toContain('no-such-fault');
    io = memoryIo({
      PAYCONFORM_APPLICATION_ID: 'x',
      PAYCONFORM_APPLICATION_SECRET: 'test-only-partial',
    });
    expect(await main(['serve'], io)).toBe(2);
    expect(io.err.join('')).toContain('PAYCONFORM_KEY_ID');
    expect(io.err.join('')).not.toContain('test-only-partial');
    const dir = mkdtempSync(join(tmpdir(), 'payconform-serve-'));
    writeFileSync(
      join(dir, 'bad.json'),
      JSON.stringify({ port: 'eighty', applications: [{ applicationId: 'a' }] }),
    );
    io = memoryIo();
    expect(await main(['serve', '--config', join(dir, 'bad.json')], io)).toBe(2);
    expect(io.err.join('')).toContain('/port');
    io = memoryIo();
    expect(await main(['serve', '--port', '99999'], io)).toBe(2);
  });
});
