// Secrets never reach any output: a synthetic check plants the application secret and the private key (in several
// encodings) everywhere a finding can carry text, and every reporter's output is searched for them.
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { violation, type Check } from '../conformance/run/check.js';
import { curlFor } from '../conformance/report/curl.js';
import { runChecks } from '../conformance/run/engine.js';
import { createRedactor, REDACTED } from '../conformance/report/redact.js';
import { createConsoleReporter } from '../conformance/reporters/console.js';
import { renderHtmlReport } from '../conformance/reporters/html.js';
import { renderJsonReport } from '../conformance/reporters/json.js';
import { renderJunitReport } from '../conformance/reporters/junit.js';

// TEST ONLY: a throwaway key generated per run, never a real credential.
const { privateKey } = generateKeyPairSync('ed25519');
const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
const der = privateKey.export({ format: 'der', type: 'pkcs8' });
const seed = der.subarray(der.length - 32);
const applicationSecret = 'sk_test_7f3a9c1e-secret-value';

/** Every form a leak could take. */
const forms = [
  applicationSecret,
  JSON.stringify(applicationSecret).slice(1, -1),
  Buffer.from(applicationSecret).toString('base64'),
  pem.trim(),
  ...pem.split('\n').filter((l) => l && !l.startsWith('-----')),
  seed.toString('base64'),
  seed.toString('base64url'),
  seed.toString('hex'),
];

function leaks(text: string): string[] {
  return forms.filter((f) => text.includes(f));
}

describe('createRedactor', () => {
  const redactor = createRedactor({ applicationSecret, privateKey: pem });

  it('masks every derived form of both secrets', () => {
    for (const f of forms)
      expect(redactor.redactText(`before ${f} after`), f).toBe(`before ${REDACTED} after`);
  });

  it('derives the same forms from the base64 seed as from the PEM', () => {
    const fromSeed = createRedactor({ privateKey: seed.toString('base64') });
    expect(fromSeed.redactText(pem)).not.toContain(der.toString('base64').slice(0, 64));
    expect(fromSeed.redactText(seed.toString('hex'))).toBe(REDACTED);
  });

  it('masks the signature-base line and the header value whatever the value is', () => {
    const base =
      '"x-application-id": app-1\n"x-application-secret": some-other-value\n"@signature-params": ("@method");created=1';
    expect(redactor.redactText(base)).toBe(
      `"x-application-id": app-1\n"x-application-secret": ${REDACTED}\n"@signature-params": ("@method");created=1`,
    );
    expect(redactor.redactText('"x-application-secret": \n')).toBe('"x-application-secret": \n');
    expect(
      redactor.redactHeaders([
        ['X-Application-Secret', 'wrong-but-masked'],
        ['x-application-id', 'app-1'],
        ['Authorization', 'SHA256withRSA abc'],
      ]),
    ).toEqual([
      ['X-Application-Secret', REDACTED],
      ['x-application-id', 'app-1'],
      ['Authorization', 'SHA256withRSA abc'],
    ]);
  });

  it('masks JSON members named like secrets and secret bytes inside binary bodies', () => {
    expect(redactor.redactText('{"applicationSecret":"zzz","privateKey": "yyy","n":1}')).toBe(
      `{"applicationSecret":"${REDACTED}","privateKey": "${REDACTED}","n":1}`,
    );
    const body = Buffer.concat([
      Buffer.from([0xff, 0x00]),
      Buffer.from(applicationSecret),
      Buffer.from([0xfe]),
    ]);
    expect(Buffer.from(redactor.redactBytes(body)).includes(Buffer.from(applicationSecret))).toBe(
      false,
    );
  });
});

describe('the engine redacts every finding before any reporter sees it', () => {
  // Found by the masking property (test/secret-masking.property.test.ts): a secret that holds text which reads as
  // an escape (`\t`, `%41`, `&amp;`) was missed where other characters of the copy were escaped, since every
  // decoded view also undid the secret's own text.
  it.each([
    ['a11\\f/b\\ r\\t', 'a11\\f/b%5c r\\t'],
    ['n\\f0r b\\txxb0xt%', 'n\\f0r b%5ctx&amp;#120;b0xt%'],
    ['ab%41cdefg', '\\u0061b%41cdefg'],
    ['x&amp;y1234', '%78&amp;y1234'],
  ])('masks %j echoed as %j (text that reads as an escape, the rest escaped)', (secret, echo) => {
    const masked = createRedactor({ applicationSecret: secret }).redactText(`echo: ${echo}.`);
    expect(masked).toBe(`echo: ${REDACTED}.`);
  });

  it('no reporter output contains a secret in any form', async () => {
    const redactor = createRedactor({ applicationSecret, privateKey: pem });
    const request = {
      method: 'POST',
      url: `http://127.0.0.1:9/api/payouts?leak=${encodeURIComponent(applicationSecret)}`,
      headers: [
        ['x-application-secret', applicationSecret],
        ['x-debug', `key=${seed.toString('base64')}`],
      ] as const,
      body: new TextEncoder().encode(JSON.stringify({ note: applicationSecret, pem })),
    };
    const leaky: Check<null> = {
      id: 'leaky',
      title: `check that mentions ${applicationSecret}`,
      area: 'signing',
      requirements: ['SIG-VERIFY-APPLICATION-SECRET'],
      level: 'MUST',
      appliesTo: 'server',
      run: async () => [
        violation(`secret ${applicationSecret} was accepted with key ${seed.toString('hex')}`, {
          expected: `"x-application-secret": ${applicationSecret}`,
          received: pem,
          evidence: {
            request,
            response: {
              status: 500,
              headers: [['x-echo', applicationSecret]],
              body: Buffer.concat([Buffer.from([0xff]), Buffer.from(applicationSecret)]),
            },
            reproduce: curlFor(request, redactor) + ` # ${applicationSecret}`,
            notes: `signature base:\n"x-application-secret": ${applicationSecret}\n${seed.toString('base64url')}`,
          },
        }),
      ],
    };
    // Control: without the secrets configured the same run leaks, so the assertions below can fail.
    const unguarded = await runChecks({
      checks: [leaky],
      context: null,
      role: 'server',
      target: 'http://127.0.0.1:9',
      toolVersion: 'test',
    });
    expect(leaks(renderJsonReport(unguarded)).length).toBeGreaterThan(0);
    let consoleOut = '';
    const summary = await runChecks({
      checks: [leaky],
      context: null,
      role: 'server',
      target: 'http://127.0.0.1:9',
      toolVersion: 'test',
      redactor,
      subscribers: [
        createConsoleReporter({
          stream: { write: (t: string) => (consoleOut += t) },
          verbose: true,
        }),
      ],
    });
    const outputs = {
      console: consoleOut,
      json: renderJsonReport(summary),
      junit: renderJunitReport(summary),
      html: renderHtmlReport(summary),
    };
    for (const [name, text] of Object.entries(outputs)) {
      expect(leaks(text), name).toEqual([]);
      expect(text, name).toContain(REDACTED);
    }
    expect(summary.results[0]?.outcome).toBe('fail');
    // The reproduce command still works: it reads the secret from the environment.
    expect(summary.results[0]?.findings[0]?.evidence?.reproduce).toContain(
      '"$PAYCONFORM_APPLICATION_SECRET"',
    );
  });
});
