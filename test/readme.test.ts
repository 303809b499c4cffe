// The documentation's "bytes on the wire" page is what the library produces, byte for byte, and its code tables and
// example config are the code's (so the README and the docs/ pages it links stay true).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { toFieldLines } from '../src/http/message.js';
import { resolveConfig } from '../conformance/config/config.js';
import { signRequest } from '../src/profile/sign-request.js';
import { verifyErrorCodes } from '../src/profile/verify-error-codes.js';
import { webhookErrorCodes } from '../src/webhooks/webhook-error-codes.js';
import { loadTestKeys } from './fixtures/keys.js';

const doc = (path: string): string => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');
const section = doc('docs/bytes-on-the-wire.md');
const blocks = [...section.matchAll(/```(\w*)\n([\s\S]*?)\n```/g)].map((m) => ({
  lang: m[1],
  text: m[2]!,
}));

describe('docs/bytes-on-the-wire.md: one signed request', () => {
  const body =
    '{"applicationId":"3f6d2a0e-5b1c-4c7e-9a8b-0d1e2f3a4b5c","amount":10.5,"reference":"INV-1"}';
  const signed = signRequest(
    {
      method: 'POST',
      url: 'https://api.example.com/api/payouts',
      headers: toFieldLines({ 'Content-Type': 'application/vnd.service.v1.0+json' }),
      body: new TextEncoder().encode(body),
    },
    {
      applicationId: '3f6d2a0e-5b1c-4c7e-9a8b-0d1e2f3a4b5c',
      applicationSecret: 'test-only-application-secret',
      keyId: 'test-only-client-key-1',
      privateKey: loadTestKeys().clientEd25519.privateKey,
    },
    { created: 1_767_225_600, nonce: '8b1f3c2e-6d4a-4f5b-9c7e-1a2b3c4d5e6f' },
  );

  it('has the request and the signature base as code blocks', () => {
    expect(blocks.map((b) => b.lang)).toEqual(['http', '']);
  });

  it('the printed signature base is the library signature base, byte for byte', () => {
    expect(blocks[1]!.text).toBe(signed.signatureBase);
  });

  it('the printed request carries exactly the headers signRequest adds, and the body', () => {
    const request = blocks[0]!.text;
    const [head, printedBody] = request.split('\n\n');
    const printed = new Map(
      head!
        .split('\n')
        .slice(1)
        .map((line) => [
          line.slice(0, line.indexOf(':')).toLowerCase(),
          line.slice(line.indexOf(':') + 2),
        ]),
    );
    for (const [name, value] of Object.entries(signed.headers))
      expect(printed.get(name), name).toBe(value);
    expect(printedBody).toBe(body);
  });
});

describe('docs/library.md: verification error codes', () => {
  const library = doc('docs/library.md');
  const codes = library.slice(library.indexOf('## Verification error codes'), library.length);
  const table = codes.slice(0, codes.indexOf('Webhook verification codes'));
  const webhook = codes.slice(codes.indexOf('Webhook verification codes'));
  const listed = (text: string) =>
    new Set([...text.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!));

  it('lists exactly the codes of verifyErrorCodes, each in the row of its step', () => {
    expect([...listed(table)].sort()).toEqual(Object.keys(verifyErrorCodes).sort());
    for (const [code, { step }] of Object.entries(verifyErrorCodes)) {
      if (code === 'REQUEST_MALFORMED') continue; // listed under "any": it can happen at every step
      const row = table.split('\n').find((line) => line.includes(`\`${code}\``))!;
      expect(row.startsWith(`| ${step} `), `${code} belongs to step ${step}: ${row}`).toBe(true);
    }
  });

  it('lists exactly the codes of webhookErrorCodes', () => {
    expect([...listed(webhook)].sort()).toEqual(Object.keys(webhookErrorCodes).sort());
  });
});

describe('docs/cli.md: the example audit config', () => {
  it('is a valid conformance config (schemas/conformance-config.schema.json)', () => {
    const json = doc('docs/cli.md').match(/```json\n([\s\S]*?)\n```/);
    expect(json).not.toBeNull();
    const resolved = resolveConfig(JSON.parse(json![1]!), {});
    expect(resolved.ok, resolved.ok ? '' : resolved.message).toBe(true);
  });
});
