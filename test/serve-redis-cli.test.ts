// `payconform serve --redis-url` from the outside: two spawned processes on one redis-server accept a signed request
// once between them; a password is refused on the command line; an unreachable Redis is a usage error (exit 2).
import { once } from 'node:events';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import https from 'node:https';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../cli/main.js';
import { parseEd25519PrivateKey } from '../src/keys/index.js';
import { signRequest } from '../src/profile/sign-request.js';
import { memoryIo } from './fixtures/memory-io.js';
import { redisTestsEnabled, startRedisServer, type RunningRedis } from './fixtures/redis-server.js';
import { PAYOUT_TYPE, send } from './reference-service-client.js';
import { CLI_ARGS, REPO_ROOT } from './fixtures/cli.js';

/** Killed after each test; `kept` (a process several tests share) after the file. */
const children: ChildProcess[] = [];
const kept: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
});
afterAll(() => {
  for (const c of kept.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
});

/**
 * Spawns `payconform serve`; resolves once it prints "Ctrl-C stops." (20 s max) with its output followed by the
 * generated credentials it wrote to --credentials-out (never printed), if any. `keep`: the process outlives the test
 * (a later test of the file uses it too and stops it).
 */
function spawnServe(
  args: string[],
  env: Record<string, string> = {},
  entry: readonly string[] = CLI_ARGS,
  keep = false,
): Promise<{ child: ChildProcess; text: string }> {
  const credentials = join(mkdtempSync(join(tmpdir(), 'payconform-serve-redis-')), 'dev.env');
  const argv = [...entry, 'serve', '--port', '0', '--quiet', '--credentials-out', credentials];
  const child = spawn(process.execPath, [...argv, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  (keep ? kept : children).push(child);
  let text = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`serve did not start in 20 s:\n${text}`)),
      20_000,
    );
    const add = (d: Buffer) => {
      text += d.toString();
      if (text.includes('Ctrl-C stops.')) {
        clearTimeout(timer);
        resolve({
          child,
          text: existsSync(credentials) ? text + readFileSync(credentials, 'utf8') : text,
        });
      }
    };
    child.stdout!.on('data', add);
    child.stderr!.on('data', add);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited ${code}:\n${text}`));
    });
  });
}

/** A create-payout request signed with the credentials `serve` printed (`text`), for its `url`; `created` default now. */
function signedPayout(text: string, url: string, reference: string) {
  const field = (name: string) => new RegExp(`${name}=(\\S+)`).exec(text)![1]!;
  const body = new TextEncoder().encode(
    JSON.stringify({
      applicationId: field('PAYCONFORM_APPLICATION_ID'),
      payInAccountSelector: 'main',
      amount: 4.5,
      reference,
      destination: {
        destinationType: 'toAccount',
        accountType: 'SCAN',
        holderName: 'Jane Doe',
        accountNumber: '12345678',
        sortCode: '040004',
        iban: null,
      },
    }),
  );
  const { headers } = signRequest(
    { method: 'POST', url: `${url}/api/payouts`, headers: [['content-type', PAYOUT_TYPE]], body },
    {
      applicationId: field('PAYCONFORM_APPLICATION_ID'),
      applicationSecret: field('PAYCONFORM_APPLICATION_SECRET'),
      keyId: field('PAYCONFORM_KEY_ID'),
      privateKey: parseEd25519PrivateKey(field('PAYCONFORM_PRIVATE_KEY')),
    },
  );
  return {
    method: 'POST',
    path: '/api/payouts',
    headers: [['content-type', PAYOUT_TYPE] as const, ...Object.entries(headers)],
    body,
  };
}

/**
 * Exactly one copy accepted (201); every other copy refused: 401 as a replay, or 503 where the nonce store did not
 * answer in time on a loaded machine (fail closed: nothing accepted); at least one refused as a replay.
 */
function expectAcceptedOnce(answers: ReadonlyArray<{ status: number; text: string }>): void {
  const statuses = answers.map((a) => a.status);
  const all = answers.map((a) => a.text).join('\n');
  expect(
    statuses.filter((s) => s === 201),
    all,
  ).toHaveLength(1);
  expect(
    statuses.filter((s) => s !== 201 && s !== 401 && s !== 503),
    all,
  ).toEqual([]);
  expect(statuses.filter((s) => s === 401).length, all).toBeGreaterThan(0);
}

describe('payconform serve --redis-url: refusals', () => {
  it('refuses a password on the command line, and a non-Redis URL', async () => {
    const io = memoryIo();
    expect(await main(['serve', '--redis-url', 'redis://:hunter2@127.0.0.1:6379'], io)).toBe(2);
    expect(io.err.join('')).toMatch(/PAYCONFORM_REDIS_URL/);
    expect(io.err.join('') + io.out.join('')).not.toContain('hunter2');
    expect(await main(['serve', '--redis-url', 'http://127.0.0.1:6379'], memoryIo())).toBe(2);
  });

  it('--workers N > 1 without Redis is refused, saying why', async () => {
    const io = memoryIo();
    expect(await main(['serve', '--port', '0', '--workers', '2'], io)).toBe(2);
    expect(io.err.join('')).toMatch(/--workers N > 1 requires --redis-url/);
  });

  it('an unreachable Redis is a usage error, not a service that starts without it', async () => {
    const io = memoryIo();
    const socket = join(tmpdir(), `payconform-no-redis-${process.pid}.sock`);
    expect(await main(['serve', '--port', '0', '--redis-url', `unix://${socket}`], io)).toBe(2);
    expect(io.err.join('')).toMatch(/cannot connect to Redis/);
  });
});

describe.runIf(redisTestsEnabled())(
  'payconform serve --redis-url (two spawned instances, one redis-server)',
  () => {
    let redis: RunningRedis;
    beforeAll(async () => {
      redis = await startRedisServer();
    });
    afterAll(async () => {
      await redis?.close();
    });

    // One `--workers 2` cluster (a primary and two workers, each a process under tsx) for the two tests that only
    // send to it: started by the first that needs it, stopped (SIGTERM, exit 0) by the Redis-restart test, the last.
    let cluster: Promise<{ child: ChildProcess; text: string }> | undefined;
    const workersCluster = () =>
      (cluster ??= spawnServe(['--workers', '2', '--redis-url', redis.url], {}, CLI_ARGS, true));

    it('accepts one signed request once across both instances (flag on one, PAYCONFORM_REDIS_URL on the other)', async () => {
      const first = await spawnServe(['--redis-url', redis.url]);
      const field = (name: string) => new RegExp(`${name}=(\\S+)`).exec(first.text)![1]!;
      // The second instance gets the first one's (generated) credentials, as a deployment shares them.
      const env = {
        PAYCONFORM_APPLICATION_ID: field('PAYCONFORM_APPLICATION_ID'),
        PAYCONFORM_APPLICATION_SECRET: field('PAYCONFORM_APPLICATION_SECRET'),
        PAYCONFORM_KEY_ID: field('PAYCONFORM_KEY_ID'),
        PAYCONFORM_MERCHANT_ID: field('PAYCONFORM_MERCHANT_ID'),
        PAYCONFORM_PUBLIC_KEY: /public key \(base64\): (\S+)/.exec(first.text)![1]!,
      };
      const second = await spawnServe([], { ...env, PAYCONFORM_REDIS_URL: redis.url });
      expect(first.text).toMatch(/ in Redis at unix:/);
      expect(second.text).toMatch(/ in Redis at unix:/);
      const urls = [first.text, second.text].map((t) => /listening on (http:\/\/\S+)/.exec(t)![1]!);
      const selectors = [first.text, second.text].map(
        (t) => /payInAccountSelector: (\S+)/.exec(t)![1]!,
      );
      expect(selectors[0]).toBe(selectors[1]);
      const body = new TextEncoder().encode(
        JSON.stringify({
          applicationId: env.PAYCONFORM_APPLICATION_ID,
          payInAccountSelector: 'main',
          amount: 12.5,
          reference: 'TWO-PROCESSES',
          destination: {
            destinationType: 'toAccount',
            accountType: 'SCAN',
            holderName: 'Jane Doe',
            accountNumber: '12345678',
            sortCode: '040004',
            iban: null,
          },
        }),
      );
      const { headers } = signRequest(
        {
          method: 'POST',
          url: 'http://payments.test/api/payouts',
          headers: [['content-type', PAYOUT_TYPE]],
          body,
        },
        {
          applicationId: env.PAYCONFORM_APPLICATION_ID,
          applicationSecret: env.PAYCONFORM_APPLICATION_SECRET,
          keyId: env.PAYCONFORM_KEY_ID,
          privateKey: parseEd25519PrivateKey(field('PAYCONFORM_PRIVATE_KEY')),
        },
      );
      const request = {
        method: 'POST',
        path: '/api/payouts',
        headers: [
          ['host', 'payments.test'] as const,
          ['content-type', PAYOUT_TYPE] as const,
          ...Object.entries(headers),
        ],
        body,
      };
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) => send(urls[i % 2]!, request)),
      );
      expectAcceptedOnce(answers);
    }, 60_000);

    it('--workers 2: two processes on one port, generated credentials shared, a signed request accepted once', async () => {
      const { text } = await workersCluster();
      expect(text).toMatch(/workers: 2 processes sharing the port/);
      const url = /listening on (http:\/\/\S+)/.exec(text)![1]!;
      const request = signedPayout(text, url, 'WORKERS');
      // Each on its own connection: the cluster spreads them over both workers.
      const answers = await Promise.all(Array.from({ length: 20 }, () => send(url, request)));
      expectAcceptedOnce(answers);
      // Both workers share the payout.
      const created = answers.find((a) => a.status === 201)!.json.payoutId as string;
      const seen = await Promise.all(
        Array.from({ length: 6 }, () =>
          send(url, { method: 'GET', path: `/sandbox/payouts/${created}` }),
        ),
      );
      expect(seen.map((s) => s.status)).toEqual(Array(6).fill(200));
    }, 60_000);

    it('--workers 2 --tls: every worker serves the one certificate the primary issued (a client trusting the printed CA reaches both)', async () => {
      const caFile = join(mkdtempSync(join(tmpdir(), 'payconform-workers-tls-')), 'ca.pem');
      const { child, text } = await spawnServe([
        '--workers',
        '2',
        '--redis-url',
        redis.url,
        '--tls',
        '--tls-ca-out',
        caFile,
      ]);
      // One TLS line, naming the file the primary wrote (not one per worker).
      expect(text.match(/TLS: certificate for localhost/g)).toHaveLength(1);
      expect(text).toContain(caFile);
      const url = new URL(/listening on (https:\/\/\S+)/.exec(text)![1]!);
      const ca = readFileSync(caFile, 'utf8');
      // Twelve fresh connections: the cluster hands them to both workers in turn; each must verify against the CA.
      const seen = await Promise.all(
        Array.from(
          { length: 12 },
          () =>
            new Promise<{ status: number | string; fingerprint?: string }>((resolve) => {
              const req = https.get(
                {
                  host: url.hostname,
                  port: Number(url.port),
                  path: '/.well-known/signature/pem',
                  ca,
                  agent: false,
                  timeout: 10_000,
                },
                (res) => {
                  const fingerprint = (
                    res.socket as import('node:tls').TLSSocket
                  ).getPeerCertificate().fingerprint256;
                  res.resume();
                  res.on('end', () => resolve({ status: res.statusCode ?? 0, fingerprint }));
                },
              );
              req.on('error', (error: NodeJS.ErrnoException) =>
                resolve({ status: error.code ?? error.message }),
              );
              req.on('timeout', () => req.destroy(new Error('timeout')));
            }),
        ),
      );
      expect(seen.map((s) => s.status)).toEqual(Array(12).fill(200));
      expect(new Set(seen.map((s) => s.fingerprint)).size).toBe(1);
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }, 60_000);

    it('--workers 2, Redis restarted empty: a payout accepted before is refused after (CREATED_BEFORE_NONCE_STORE_RESET), one signed afresh is accepted; SIGTERM then stops the cluster (exit 0)', async () => {
      const { child, text } = await workersCluster();
      const url = /listening on (http:\/\/\S+)/.exec(text)![1]!;
      const before = signedPayout(text, url, 'BEFORE-RESTART');
      expect((await send(url, before)).status).toBe(201);
      await redis.restart();
      // Each copy on its own connection, so both workers answer; 503 while a worker's client reconnects (bounded:
      // 50 rounds, 100 ms apart).
      let replays = await Promise.all(Array.from({ length: 6 }, () => send(url, before)));
      for (let i = 0; i < 50 && replays.some((r) => r.status === 503); i += 1) {
        await new Promise((r) => setTimeout(r, 100));
        replays = await Promise.all(Array.from({ length: 6 }, () => send(url, before)));
      }
      for (const r of replays) {
        expect(r.status, r.text).toBe(401);
        expect(r.text).toContain('CREATED_BEFORE_NONCE_STORE_RESET');
      }
      // Signed afresh (a new nonce each): accepted once the second of the restart has passed (bounded: 30 tries).
      let fresh = await send(url, signedPayout(text, url, 'AFTER-RESTART-0'));
      const refusals: string[] = [];
      for (let i = 1; i < 30 && fresh.status !== 201; i += 1) {
        refusals.push(`${fresh.status} ${fresh.text}`);
        await new Promise((r) => setTimeout(r, 100));
        fresh = await send(url, signedPayout(text, url, `AFTER-RESTART-${i}`));
      }
      expect(fresh.status, refusals.join('\n')).toBe(201);
      for (const r of refusals)
        expect(r).toMatch(
          /^(401|503) .*(CREATED_BEFORE_NONCE_STORE_RESET|NONCE_STORE_UNAVAILABLE)/,
        );
      child.kill('SIGTERM');
      // The exit itself, bounded by the test's own time limit.
      const [code] = (await once(child, 'exit')) as [number | null];
      expect(code).toBe(0);
    }, 60_000);

    it('--workers 2 from the built command (bin/payconform.js, as installed): the workers start from the same build', async () => {
      const { child, text } = await spawnServe(['--workers', '2', '--redis-url', redis.url], {}, [
        join(REPO_ROOT, 'bin', 'payconform.js'),
      ]);
      expect(text).toMatch(/workers: 2 processes sharing the port/);
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }, 60_000);
  },
);
