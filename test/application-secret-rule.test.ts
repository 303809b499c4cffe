// One rule for the application secret: checked once at start by every command that can see a
// secret (exit 2, a readable message that never quotes the secret), by `serve --config`, by the reference service's
// options and by signRequest; a malformed secret is never trimmed silently.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../cli/main.js';
import {
  applicationSecretMatches,
  applicationSecretProblem,
} from '../src/profile/application-secret.js';
import { signRequest } from '../src/profile/sign-request.js';
import { startReferenceService } from '../server/index.js';
import { loadTestKeys } from './fixtures/keys.js';
import { memoryIo } from './fixtures/memory-io.js';
import { testApplication } from './reference-service-client.js';

const keys = loadTestKeys();
const dir = mkdtempSync(join(tmpdir(), 'payconform-secret-rule-'));
const requestFile = join(dir, 'request.json');
writeFileSync(
  requestFile,
  JSON.stringify({
    method: 'POST',
    url: 'https://api.example.com/api/payouts',
    headers: { 'content-type': 'application/vnd.service.v1.0+json' },
    body: '{}',
  }),
);

// TEST ONLY values, each breaking the rule one way.
const BAD: ReadonlyArray<readonly [string, string, RegExp]> = [
  ['leading space', ' test-only-secret', /leading or trailing whitespace/],
  ['trailing newline', 'test-only-secret\n', /leading or trailing whitespace/],
  ['non-ASCII', 'test-only-sécret', /non-ASCII character at position 12/],
  ['control character', 'test-only\tsecret', /control character at position 10/],
];

describe('applicationSecretProblem: the rule', () => {
  it('accepts visible ASCII with inner spaces; refuses empty, surrounding whitespace, control and non-ASCII characters', () => {
    for (const ok of ['s', 'test-only-secret', 'a b', `!"#$%&'()*+,-./:;<=>?@[\\]^_\`{|}~`])
      expect(applicationSecretProblem(ok), ok).toBeUndefined();
    expect(applicationSecretProblem('')).toBe('is empty');
    for (const [, value, message] of BAD) expect(applicationSecretProblem(value)).toMatch(message);
    expect(applicationSecretProblem('a\u007fb')).toMatch(/control character at position 2/);
  });

  it('signRequest and the reference service apply the same rule', async () => {
    for (const [, value, message] of BAD) {
      expect(() =>
        signRequest(
          { method: 'GET', url: 'https://a.example/', headers: [], body: new Uint8Array() },
          {
            applicationId: 'a',
            applicationSecret: value,
            keyId: 'k',
            privateKey: keys.clientEd25519.privateKey,
          },
        ),
      ).toThrow(message);
      await expect(
        startReferenceService({
          applications: [{ ...testApplication(), applicationSecret: value }],
          seedPayments: false,
        }),
      ).rejects.toThrow(message);
    }
  });
});

describe('every command checks the secret once at start: exit 2 and a readable message, never the secret', () => {
  const credentials = {
    PAYCONFORM_APPLICATION_ID: '3f6d2a0e-5b1c-4c7e-9a8b-0d1e2f3a4b5c',
    PAYCONFORM_KEY_ID: 'test-only-client-key-1',
    PAYCONFORM_MERCHANT_ID: 'test-only-merchant',
    PAYCONFORM_PRIVATE_KEY: keys.clientEd25519.seedBase64,
    PAYCONFORM_PUBLIC_KEY: keys.clientEd25519.publicPem,
  };
  const commands: ReadonlyArray<readonly string[]> = [
    ['sign', '--request', requestFile],
    ['verify', '--request', requestFile],
    ['serve', '--port', '0'],
    ['audit', 'server', '--target', 'http://127.0.0.1:9'],
    ['audit', 'server'],
    ['audit', 'client', '--exec', 'true'],
    [
      'audit',
      'webhooks',
      '--target',
      'http://127.0.0.1:9/hooks',
      '--public-key-out',
      join(dir, 'key.pem'),
    ],
  ];
  for (const args of commands) {
    it(`payconform ${args.slice(0, 2).join(' ')}`, async () => {
      for (const [, value, message] of BAD) {
        const io = memoryIo({ env: { ...credentials, PAYCONFORM_APPLICATION_SECRET: value } });
        expect(await main(args, io)).toBe(2);
        const err = io.err.join('');
        expect(err).toMatch(/PAYCONFORM_APPLICATION_SECRET /);
        expect(err).toMatch(message);
        expect(err + io.out.join('')).not.toContain('test-only');
        // Refused before anything ran: nothing was started, printed or checked.
        expect(io.out.join('')).toBe('');
      }
    });
  }

  it('payconform serve --config: a secret in the file (or named by applicationSecretEnv) follows the same rule', async () => {
    const config = join(dir, 'serve.json');
    const app = {
      applicationId: 'app-1',
      keyId: 'k1',
      publicKey: keys.clientEd25519.publicPem,
      merchantId: 'm1',
    };
    writeFileSync(
      config,
      JSON.stringify({ applications: [{ ...app, applicationSecret: 'test-only-secret ' }] }),
    );
    const io = memoryIo();
    expect(await main(['serve', '--port', '0', '--config', config], io)).toBe(2);
    expect(io.err.join('')).toMatch(
      /applications\/0: the application secret \(applicationSecret\) has leading or trailing whitespace/,
    );
    writeFileSync(
      config,
      JSON.stringify({ applications: [{ ...app, applicationSecretEnv: 'APP_SECRET' }] }),
    );
    const io2 = memoryIo({ env: { APP_SECRET: 'test-only-sécret' } });
    expect(await main(['serve', '--port', '0', '--config', config], io2)).toBe(2);
    expect(io2.err.join('')).toMatch(/environment variable APP_SECRET\) has a non-ASCII character/);
    expect(io.err.join('') + io2.err.join('')).not.toContain('test-only');
  });
});

describe('applicationSecretMatches: the one comparison (verifyRequest and the reference service)', () => {
  const secret = 'test-only-secret-0123456789';
  it('is true only for the same text', () => {
    expect(applicationSecretMatches(secret, secret)).toBe(true);
    expect(applicationSecretMatches(secret.split('').join(''), secret)).toBe(true);
    for (const other of [
      '',
      'T' + secret.slice(1),
      secret.slice(0, -1) + '8',
      secret.slice(0, -1),
      secret + '0',
      secret + secret,
      ' ' + secret,
    ]) {
      expect(applicationSecretMatches(other, secret), JSON.stringify(other)).toBe(false);
    }
    // A received text whose code units past the end would cancel out must still differ by its length.
    expect(applicationSecretMatches(secret + '\0', secret)).toBe(false);
    // Compared as written, not through UTF-8 (where both lone surrogates would become U+FFFD).
    expect(applicationSecretMatches('a\ud800', 'a\udc00')).toBe(false);
  });
});
