// No secret in any output (docs/security.md, "Secrets"), by property, through `main()` in-process:
// a password drawn into a target URL (as given, or one the URL parser refuses), in every form the parser reads as
// user information (`http://`, and `http:/`, `http:\\`, `http:` with no slash and other runs of `/` and `\` after a
// special scheme, in any letter case), in `--target`, `PAYCONFORM_TARGET`, the config's `target` or `audit webhooks
// --target`, refused with exit 2, appears in none of the reports written for that exit (JSON, JUnit, HTML, Markdown,
// HAR) nor on stdout or stderr; an attestation key drawn into PAYCONFORM_ATTEST_KEY (a base64 seed)
// or the file PAYCONFORM_ATTEST_KEY_FILE names (PEM), and carried by the config (as its `keyId`, so it reaches every
// signed request, the HAR and the attestation's carried config), appears in no report, no stream and not in the
// attestation's statement. The masking rule itself (conformance/report/redact.ts) is judged by the URL parser: wherever it
// reads a password, the masked text holds none. Budget: 300 URLs masked (under 0.1 s), 20 refused runs (about 3 s)
// and 3 completed audits of one check (about 5 s), sized to reach every way in; PAYCONFORM_LONG_TESTS=1 draws 2,000,
// 100 and 12.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createPrivateKey } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../cli/main.js';
import { maskUrlCredentials, REDACTED } from '../conformance/report/redact.js';
import { leaksIn } from './fixtures/secret-leaks.js';
import { memoryIo } from './fixtures/memory-io.js';
import {
  startTestApplicationService,
  type TestApplicationService,
} from './fixtures/test-application-service.js';

const LONG = process.env['PAYCONFORM_LONG_TESTS'] === '1';
const dir = mkdtempSync(join(tmpdir(), 'payconform-secrets-out-'));
const FORMATS = ['json', 'junit', 'html', 'markdown', 'har'] as const;

/** Characters a user may type in a URL password without ending the authority (RFC 3986 userinfo). */
const PASSWORD_CHARS = [
  ...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789',
  ...".-_~!$&'()*+,;=:",
];
const passwordArb = fc
  .array(fc.constantFrom(...PASSWORD_CHARS), { minLength: 8, maxLength: 32 })
  .map((c) => c.join(''));

/** Every file the run wrote and both streams, each named. */
function outputsOf(
  files: readonly string[],
  io: { out: string[]; err: string[] },
): Array<[string, string]> {
  return [
    ...files
      .filter((f) => existsSync(f))
      .map((f): [string, string] => [f, readFileSync(f, 'utf8')]),
    ['stdout', io.out.join('')],
    ['stderr', io.err.join('')],
  ];
}

/** The forms of a key's 32-byte seed a report could hold: as given (base64), base64url, hex. */
function keyLeaks(text: string, seed: Buffer): string[] {
  const forms = [
    seed.toString('base64'),
    seed.toString('base64url'),
    seed.toString('hex'),
    seed.toString('hex').toUpperCase(),
  ];
  return [...forms.filter((f) => text.includes(f)), ...leaksIn(text, seed.toString('base64'))];
}

/** A special scheme in any letter case, and what may stand between it and the user information (WHATWG URL). */
const schemeArb = fc
  .tuple(fc.constantFrom('http', 'https', 'ws'), fc.boolean())
  .map(([s, upper]) => (upper ? s.toUpperCase() : s));
const separatorArb = fc.constantFrom('//', '/', '\\', '', '\\\\', '/\\', '///');

describe('conformance/report/redact.ts: maskUrlCredentials, judged by the URL parser itself', () => {
  // Any scheme, any run of `/` and `\` after it, tabs and line breaks anywhere inside (the parser drops them): where
  // the WHATWG parser reads a password, the masked text holds none of it, and parses to no password at all.
  const part = (chars: readonly string[], min: number) =>
    fc.array(fc.constantFrom(...chars), { minLength: min, maxLength: 12 }).map((c) => c.join(''));
  const urlArb = fc
    .tuple(
      fc.constantFrom('http', 'HTTPS', 'Ws', 'wss', 'ftp', 'redis', 'x+y.z-1'),
      part(['/', '\\'], 0),
      part([...'abcXYZ019._~-'], 0),
      passwordArb,
      fc.constantFrom('', '@extra'),
      fc.constantFrom('127.0.0.1:9', 'example.com', '[::1]'),
      fc.constantFrom('', '/p', '?q=1', '#f', '\\x'),
      fc.array(fc.nat(), { maxLength: 2 }),
    )
    .map(([scheme, slashes, user, password, more, host, tail, breaks]) => {
      let url = `${scheme}:${slashes}${user}:${password}${more}@${host}${tail}`;
      for (const at of breaks) {
        const i = 1 + (at % (url.length - 1));
        url = `${url.slice(0, i)}${at % 2 === 0 ? '\t' : '\n'}${url.slice(i)}`;
      }
      return url;
    });

  it('no password the parser reads is left, alone or quoted in a message', () => {
    fc.assert(
      fc.property(urlArb, (url) => {
        let parsed: URL;
        try {
          parsed = new URL(url);
        } catch {
          return;
        }
        fc.pre(parsed.password !== '');
        const masked = maskUrlCredentials(url);
        expect(new URL(masked).password, masked).toBe('');
        const said = maskUrlCredentials(`--target "${url}" is not a URL`);
        for (const text of [masked, said])
          expect(text.replace(/[\t\n]/g, ''), text).not.toContain(
            decodeURIComponent(parsed.password),
          );
      }),
      { numRuns: LONG ? 2_000 : 300 },
    );
  });

  it('the three forms the parser reads without `//`, as written', () => {
    for (const url of [
      'http:/user:pw-1234@host',
      'http:\\\\user:pw-1234@host',
      'http:user:pw-1234@host',
    ])
      expect(maskUrlCredentials(url)).toBe(`${url.slice(0, url.indexOf('user'))}${REDACTED}@host`);
  });
});

describe('a refused run: the password of a --target URL is in no report and no stream', () => {
  it('every form the URL parser reads as user information, as given or unparseable, from --target, PAYCONFORM_TARGET, the config or audit webhooks (exit 2 each time)', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        passwordArb,
        fc.constantFrom('argument', 'environment', 'config', 'webhooks'),
        fc.boolean(),
        schemeArb,
        separatorArb,
        async (password, where, unparseable, scheme, separator) => {
          run += 1;
          const url = `${scheme}:${separator}user:${password}@127.0.0.1:9${unparseable ? ':bad' : ''}`;
          const files = FORMATS.map((f) => join(dir, `refused-${run}.${f}`));
          const config = join(dir, `refused-${run}.config.json`);
          writeFileSync(config, JSON.stringify({ target: url }));
          const io = memoryIo({ env: where === 'environment' ? { PAYCONFORM_TARGET: url } : {} });
          const code = await main(
            [
              'audit',
              ...(where === 'webhooks' ? ['webhooks'] : ['server', '--no-explore']),
              ...(where === 'argument' || where === 'webhooks' ? ['--target', url] : []),
              ...(where === 'config' ? ['--config', config] : []),
              ...FORMATS.flatMap((f, i) => ['--report', `${f}:${files[i]}`]),
            ],
            io,
          );
          expect(code).toBe(2);
          const outputs = outputsOf(files, io);
          // Every report was written for the exit, and says why.
          expect(outputs.filter(([name]) => files.includes(name))).toHaveLength(FORMATS.length);
          for (const [name, text] of outputs)
            expect(leaksIn(text, password), `${url} ${where} ${name}`).toEqual([]);
        },
      ),
      { numRuns: LONG ? 100 : 20 },
    );
  }, 60_000);
});

describe('a completed run: the attestation key is in no output, wherever it comes from and whatever carries it', () => {
  let target: TestApplicationService;
  beforeAll(async () => {
    target = await startTestApplicationService();
  });
  afterAll(async () => {
    await target.service.close();
  });

  it('PAYCONFORM_ATTEST_KEY or PAYCONFORM_ATTEST_KEY_FILE, carried by the config as its keyId', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.boolean(),
        async (seedBytes, fromFile) => {
          run += 1;
          const seed = Buffer.from(seedBytes);
          const seedBase64 = seed.toString('base64');
          const config = join(dir, `attest-${run}.config.json`);
          target.writeConfig(config, { keyId: seedBase64 });
          const keyFile = join(dir, `attest-${run}.pem`);
          writeFileSync(keyFile, pemOfSeed(seed));
          const files = FORMATS.map((f) => join(dir, `attest-${run}.${f}`));
          const attestation = join(dir, `attest-${run}.intoto.json`);
          const io = memoryIo({
            env: {
              ...target.env,
              ...(fromFile
                ? { PAYCONFORM_ATTEST_KEY_FILE: keyFile }
                : { PAYCONFORM_ATTEST_KEY: seedBase64 }),
            },
          });
          const code = await main(
            [
              'audit',
              'server',
              '--no-explore',
              '--only',
              'payout-signed-accepted',
              '--target',
              target.service.baseUrl,
              '--config',
              config,
              ...FORMATS.flatMap((f, i) => ['--report', `${f}:${files[i]}`]),
              '--attest',
              attestation,
            ],
            io,
          );
          // The run completes (the target refuses the unknown keyid: exit 1) and is attested.
          expect(code, io.err.join('')).toBe(1);
          const envelope = JSON.parse(readFileSync(attestation, 'utf8')) as { payload: string };
          const statement = Buffer.from(envelope.payload, 'base64').toString('utf8');
          const carried = (
            JSON.parse(statement) as {
              predicate: { configuration: Array<{ name?: string; content?: string }> };
            }
          ).predicate.configuration.find((d) => d.name === 'payconform-audit-config.json');
          const configText = Buffer.from(carried?.content ?? '', 'base64').toString('utf8');
          const outputs = [
            ...outputsOf([...files, attestation], io),
            ['statement', statement],
            ['carried config', configText],
          ];
          // The key did reach the outputs (so this can fail): each place it went holds the mask instead.
          expect(readFileSync(files[4]!, 'utf8')).toContain(`keyid=\\"${REDACTED}\\"`);
          expect(configText).toContain(`"keyId\\":\\"${REDACTED}`);
          for (const [name, text] of outputs)
            expect(keyLeaks(text!, seed), `${fromFile ? 'file' : 'env'} ${name}`).toEqual([]);
        },
      ),
      { numRuns: LONG ? 12 : 3 },
    );
  }, 120_000);
});

/** The PKCS#8 PEM of an Ed25519 seed (what a key file holds). */
function pemOfSeed(seed: Buffer): string {
  const der = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]);
  return createPrivateKey({ key: der, format: 'der', type: 'pkcs8' })
    .export({ format: 'pem', type: 'pkcs8' })
    .toString();
}
