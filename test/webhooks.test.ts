// Proves webhook signatures (spec: Webhook authentication): SHA256withRSA over the exact bytes, every failure code.

import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { inspect } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KeyFormatError } from '../src/keys/errors.js';
import {
  exportRsaPrivateKeyPem,
  exportRsaPublicKeyPem,
  exportTrimmedPublicKeyPem,
  generateWebhookKeyPair,
  MAX_AUTHORIZATION_LENGTH,
  parseRsaPrivateKey,
  parseRsaPublicKey,
  signWebhook,
  verifyWebhook,
  webhookErrorCodes,
  type WebhookVerifyResult,
} from '../src/webhooks/index.js';
import { loadTestKeys } from './fixtures/keys.js';

const keys = loadTestKeys();
const privateKey = parseRsaPrivateKey(keys.webhookRsa.privatePem);
const publicKey = parseRsaPublicKey(keys.webhookRsa.publicPem);
const otherPrivate = parseRsaPrivateKey(keys.otherRsa.privatePem);

// A payout webhook body as the service might send it (spec: Events, payout webhook payload).
const BODY_TEXT =
  '{"eventTimeUtc":"2024-05-01T10:00:00.123Z","applicationId":"0d1b7e1c-2f6a-4c53-9d0e-4f1f6b7f9a10","payoutId":"6a3c1b9e-8f0d-4b2a-a1c4-2b5d8e9f0a11","payoutAmount":10.5,"payoutCurrency":"GBP","payoutReference":"INV 42 – £","payoutStatus":"PROCESSED","payoutStatusDescription":"","payoutWebhookDeliveryAttempt":0,"destination":{"type":"SCAN","name":"Jane Doe","accountNumber":"12345678","sortCode":"123456"}}';
const body = new TextEncoder().encode(BODY_TEXT);
const header = signWebhook(body, privateKey);
const signatureB64 = header.slice('SHA256withRSA '.length);

function expectCode(result: WebhookVerifyResult, code: keyof typeof webhookErrorCodes): void {
  expect(result).toMatchObject({ ok: false, code });
  if (!result.ok) expect(result.message.length).toBeGreaterThan(10);
}

describe('spec: Webhook authentication — sign then verify over the exact bytes', () => {
  it('signWebhook returns the full Authorization value "SHA256withRSA <base64>"', () => {
    expect(header).toMatch(/^SHA256withRSA [A-Za-z0-9+/]{342}==$/);
    expect(Buffer.from(signatureB64, 'base64')).toHaveLength(256);
  });

  it('RSASSA-PKCS1-v1_5 is deterministic: the same body and key give the same header', () => {
    expect(signWebhook(body, keys.webhookRsa.privatePem)).toBe(header);
  });

  it('interoperates with a plain node:crypto RSA-SHA256 verifier (the algorithm is what the name says)', async () => {
    const { verify } = await import('node:crypto');
    expect(
      verify(
        'RSA-SHA256',
        body,
        createPublicKey(keys.webhookRsa.publicPem),
        Buffer.from(signatureB64, 'base64'),
      ),
    ).toBe(true);
  });

  it.each<[string, () => Parameters<typeof verifyWebhook>[2]]>([
    ['a parsed key', () => publicKey],
    ['the full SPKI PEM', () => keys.webhookRsa.publicPem],
    [
      'the trimmed PEM body with line breaks (what /.well-known/signature/pem serves)',
      () => exportTrimmedPublicKeyPem(publicKey),
    ],
    [
      'the trimmed PEM body on one line',
      () => exportTrimmedPublicKeyPem(publicKey, { singleLine: true }),
    ],
    [
      'the trimmed PEM body with CRLF and a final newline',
      () => `${exportTrimmedPublicKeyPem(publicKey).replace(/\n/g, '\r\n')}\r\n`,
    ],
    [
      'SPKI DER bytes',
      () =>
        new Uint8Array(
          createPublicKey(keys.webhookRsa.publicPem).export({ format: 'der', type: 'spki' }),
        ),
    ],
    [
      'a PKCS#1 "RSA PUBLIC KEY" PEM',
      () =>
        createPublicKey(keys.webhookRsa.publicPem).export({
          format: 'pem',
          type: 'pkcs1',
        }) as string,
    ],
  ])('verifies with %s', (_name, key) => {
    expect(verifyWebhook(body, header, key())).toEqual({ ok: true });
  });

  it('exportTrimmedPublicKeyPem is the committed PEM without its BEGIN/END lines', () => {
    const pem = keys.webhookRsa.publicPem;
    const trimmed = pem
      .replace('-----BEGIN PUBLIC KEY-----\n', '')
      .replace('-----END PUBLIC KEY-----\n', '')
      .replace(/\n$/, '');
    expect(exportTrimmedPublicKeyPem(publicKey)).toBe(trimmed);
    expect(exportTrimmedPublicKeyPem(privateKey)).toBe(trimmed);
    expect(exportTrimmedPublicKeyPem(publicKey, { singleLine: true })).toBe(
      trimmed.replace(/\n/g, ''),
    );
    expect(exportRsaPublicKeyPem(publicKey)).toBe(pem);
  });

  it('an empty body signs and verifies', () => {
    const empty = new Uint8Array(0);
    expect(verifyWebhook(empty, signWebhook(empty, privateKey), publicKey)).toEqual({ ok: true });
  });

  it('round-trips arbitrary bodies, and any changed byte fails (fast-check)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 300 }), fc.nat(), (bytes, at) => {
        const h = signWebhook(bytes, privateKey);
        expect(verifyWebhook(bytes, h, publicKey).ok).toBe(true);
        const changed = bytes.slice();
        const i = at % changed.length;
        changed[i] = (changed[i] as number) ^ 0x01;
        expectCode(verifyWebhook(changed, h, publicKey), 'SIGNATURE_INVALID');
      }),
      { numRuns: 25 },
    );
  });
});

describe('spec: Webhook authentication rule 1 — re-serialisation breaks verification', () => {
  const parsed: unknown = JSON.parse(BODY_TEXT);
  it.each([
    ['pretty-printed JSON', JSON.stringify(parsed, null, 2)],
    ['JSON with spaces after separators', BODY_TEXT.replace(/":/g, '": ').replace(/,"/g, ', "')],
    ['the body plus a trailing newline', `${BODY_TEXT}\n`],
    ['a number re-serialised (10.5 → 10.50)', BODY_TEXT.replace('10.5', '10.50')],
    ['non-ASCII escaped (£ → \\u00a3)', BODY_TEXT.replace('£', '\\u00a3')],
  ])('%s fails with SIGNATURE_INVALID', (_name, text) => {
    expect(text).not.toBe(BODY_TEXT);
    expectCode(
      verifyWebhook(new TextEncoder().encode(text), header, publicKey),
      'SIGNATURE_INVALID',
    );
  });

  it('compact re-serialisation happens to give the same bytes here, and then verifies (the bytes are what count)', () => {
    expect(JSON.stringify(parsed)).toBe(BODY_TEXT);
    expect(
      verifyWebhook(new TextEncoder().encode(JSON.stringify(parsed)), header, publicKey).ok,
    ).toBe(true);
  });

  it('a string body is refused as caller misuse (TypeError), never silently re-encoded', () => {
    expect(() => verifyWebhook(BODY_TEXT as unknown as Uint8Array, header, publicKey)).toThrow(
      TypeError,
    );
    expect(() => signWebhook(BODY_TEXT as unknown as Uint8Array, privateKey)).toThrow(TypeError);
  });
});

describe('verifyWebhook failure codes', () => {
  it('another key: signed by another key → SIGNATURE_INVALID; verifies with that key', () => {
    const forged = signWebhook(body, otherPrivate);
    expectCode(verifyWebhook(body, forged, publicKey), 'SIGNATURE_INVALID');
    expect(verifyWebhook(body, forged, keys.otherRsa.publicPem).ok).toBe(true);
  });

  it.each([
    ['undefined', undefined],
    ['empty', ''],
    ['only whitespace', ' \t '],
  ])('Authorization %s → AUTHORIZATION_MISSING', (_name, value) => {
    expectCode(verifyWebhook(body, value, publicKey), 'AUTHORIZATION_MISSING');
  });

  it.each([
    ['the algorithm name alone', 'SHA256withRSA'],
    ['the signature alone', signatureB64],
    ['a tab as separator', `SHA256withRSA\t${signatureB64}`],
    ['a quoted algorithm name', `"SHA256withRSA" ${signatureB64}`],
    ['a comma-joined name', `SHA256withRSA,x ${signatureB64}`],
    ['an overlong value', `SHA256withRSA ${'A'.repeat(MAX_AUTHORIZATION_LENGTH)}`],
  ])('%s → AUTHORIZATION_MALFORMED', (_name, value) => {
    expectCode(verifyWebhook(body, value, publicKey), 'AUTHORIZATION_MALFORMED');
  });

  it('a non-string header value (caller passed an array) → AUTHORIZATION_MALFORMED, no exception', () => {
    expectCode(
      verifyWebhook(body, [header] as unknown as string, publicKey),
      'AUTHORIZATION_MALFORMED',
    );
  });

  it.each([
    ['lower case', 'sha256withrsa'],
    ['other capitalisation', 'SHA256WithRSA'],
    ['SHA512withRSA', 'SHA512withRSA'],
    ['RS256 (JOSE name)', 'RS256'],
    ['Bearer', 'Bearer'],
  ])('algorithm %s → ALGORITHM_UNSUPPORTED (exact, case-sensitive match)', (_name, alg) => {
    const r = verifyWebhook(body, `${alg} ${signatureB64}`, publicKey);
    expectCode(r, 'ALGORITHM_UNSUPPORTED');
  });

  it('a capitalisation difference is named as such in the message', () => {
    const r = verifyWebhook(body, `sha256withRSA ${signatureB64}`, publicKey);
    expect(!r.ok && r.message).toMatch(/capitalisation/);
  });

  it('separator: one or more spaces (RFC 9110 §11.4 1*SP) and outer whitespace are accepted', () => {
    expect(verifyWebhook(body, `SHA256withRSA   ${signatureB64}`, publicKey).ok).toBe(true);
    expect(verifyWebhook(body, ` \tSHA256withRSA ${signatureB64} \t`, publicKey).ok).toBe(true);
  });

  it('the signature has + or /, so the base64url case below is meaningful', () => {
    expect(signatureB64).toMatch(/[+/]/);
  });

  const sigBytes = Buffer.from(signatureB64, 'base64');
  it.each([
    ['base64url alphabet', signatureB64.replace(/\+/g, '-').replace(/\//g, '_')],
    ['missing padding', signatureB64.replace(/=+$/, '')],
    ['an inner space', `${signatureB64.slice(0, 100)} ${signatureB64.slice(100)}`],
    ['an inner line break', `${signatureB64.slice(0, 64)}\n${signatureB64.slice(64)}`],
    ['255 bytes', sigBytes.subarray(0, 255).toString('base64')],
    ['257 bytes', Buffer.concat([sigBytes, Buffer.from([0])]).toString('base64')],
    ['a 64-byte Ed25519-sized signature', Buffer.alloc(64, 1).toString('base64')],
    ['hex instead of base64', sigBytes.toString('hex')],
  ])('signature with %s → SIGNATURE_MALFORMED', (_name, sig) => {
    expectCode(verifyWebhook(body, `SHA256withRSA ${sig}`, publicKey), 'SIGNATURE_MALFORMED');
  });

  it('a well-formed 256-byte signature of all zeros → SIGNATURE_INVALID', () => {
    expectCode(
      verifyWebhook(body, `SHA256withRSA ${Buffer.alloc(256).toString('base64')}`, publicKey),
      'SIGNATURE_INVALID',
    );
  });

  const rsa1024 = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({
    format: 'pem',
    type: 'spki',
  }) as string;
  it.each<[string, unknown]>([
    ['empty text', ''],
    ['garbage text', 'this is not a key'],
    [
      'base64url trimmed body',
      exportTrimmedPublicKeyPem(publicKey, { singleLine: true })
        .replace(/\+/g, '-')
        .replace(/\//g, '_'),
    ],
    ['an Ed25519 public key PEM', keys.rfc9421Ed25519.publicPem],
    ['the private key PEM given as the public key', keys.webhookRsa.privatePem],
    ['an RSA 1024 key (below the 2048-bit policy)', rsa1024],
    ['random DER-like bytes', new Uint8Array([0x30, 0x03, 0x02, 0x01, 0x00])],
    ['a parsed private key object', privateKey],
  ])('key: %s → KEY_INVALID (checked before the header)', (_name, key) => {
    expectCode(verifyWebhook(body, header, key as string), 'KEY_INVALID');
    expectCode(verifyWebhook(body, undefined, key as string), 'KEY_INVALID');
  });

  it('never throws on arbitrary Authorization values or key text, and every code is documented (fast-check)', () => {
    const codes = Object.keys(webhookErrorCodes);
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 400 }),
          fc.constantFrom(header, `SHA256withRSA ${signatureB64.slice(1)}`),
        ),
        (value) => {
          const r = verifyWebhook(body, value, publicKey);
          if (!r.ok) expect(codes).toContain(r.code);
        },
      ),
      { numRuns: 400 },
    );
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ maxLength: 200 }), fc.uint8Array({ maxLength: 200 })),
        (key) => {
          expectCode(verifyWebhook(body, header, key), 'KEY_INVALID');
        },
      ),
      { numRuns: 200 },
    );
  });

  it('documents exactly the six codes', () => {
    expect(Object.keys(webhookErrorCodes).sort()).toEqual([
      'ALGORITHM_UNSUPPORTED',
      'AUTHORIZATION_MALFORMED',
      'AUTHORIZATION_MISSING',
      'KEY_INVALID',
      'SIGNATURE_INVALID',
      'SIGNATURE_MALFORMED',
    ]);
  });
});

describe('RSA key parsing and generation', () => {
  it('parseRsaPrivateKey accepts PKCS#8 PEM, PKCS#1 PEM and PKCS#8 DER, all signing identically', () => {
    const ko = createPrivateKey(keys.webhookRsa.privatePem);
    const forms = [
      keys.webhookRsa.privatePem,
      ko.export({ format: 'pem', type: 'pkcs1' }) as string,
      new Uint8Array(ko.export({ format: 'der', type: 'pkcs8' })),
    ];
    for (const form of forms) {
      const k = parseRsaPrivateKey(form);
      expect(k.modulusBits).toBe(2048);
      expect(signWebhook(body, k)).toBe(header);
    }
  });

  it.each<[string, string | Uint8Array, string]>([
    ['a public key PEM', keys.webhookRsa.publicPem, 'KEY_FORMAT_INVALID'],
    ['an Ed25519 private key PEM', keys.rfc9421Ed25519.privatePem, 'KEY_TYPE_UNSUPPORTED'],
    ['text without PEM lines', 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC', 'KEY_FORMAT_INVALID'],
    ['garbage bytes', new Uint8Array([1, 2, 3]), 'KEY_FORMAT_INVALID'],
    [
      'a PEM with a broken body',
      '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----',
      'KEY_FORMAT_INVALID',
    ],
  ])('parseRsaPrivateKey rejects %s → %s', (_name, input, code) => {
    expect(() => parseRsaPrivateKey(input)).toThrow(KeyFormatError);
    try {
      parseRsaPrivateKey(input);
    } catch (e) {
      expect((e as KeyFormatError).code).toBe(code);
    }
  });

  it('signWebhook with an unusable key throws KeyFormatError', () => {
    expect(() => signWebhook(body, 'not a key')).toThrow(KeyFormatError);
  });

  it('generateWebhookKeyPair makes a working 2048-bit pair and refuses smaller sizes', () => {
    const pair = generateWebhookKeyPair();
    expect(pair.publicKey.modulusBits).toBe(2048);
    const h = signWebhook(body, pair.privateKey);
    expect(verifyWebhook(body, h, exportTrimmedPublicKeyPem(pair.publicKey)).ok).toBe(true);
    expectCode(verifyWebhook(body, h, publicKey), 'SIGNATURE_INVALID');
    expect(parseRsaPrivateKey(exportRsaPrivateKeyPem(pair.privateKey)).modulusBits).toBe(2048);
    expect(() => generateWebhookKeyPair(1024)).toThrow(TypeError);
  });

  it('printing a parsed private key shows no key material', () => {
    const shown = inspect(privateKey, { depth: 5 }) + JSON.stringify(privateKey);
    expect(shown).not.toContain(
      keys.webhookRsa.privatePem.split('\n')[1]?.slice(0, 20) ?? 'unreachable',
    );
    expect(shown).not.toMatch(/[A-Za-z0-9+/]{64}/);
  });
});
