// The committed vector files: schema-valid, self-consistent, and reproduced by the library case by case with both
// Ed25519 backends, read back from their JSON wire form; the RFC examples checked against the published strings.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { backends } from '../src/ed25519/index.js';
import { verifySignatureBase } from '../src/signatures/create-signature.js';
import { signSignatureBase } from '../src/signatures/create-signature.js';
import { parseEd25519PrivateKey, parseEd25519PublicKey } from '../src/keys/index.js';
import { validateAgainst } from '../src/schemas/validator.js';
import { verifyErrorCodes } from '../src/profile/verify-error-codes.js';
import { webhookErrorCodes } from '../src/webhooks/index.js';
import { libraryAnswer } from '../vectors/adapters/node/answer.js';
import type { KeysFile, VectorCase, VectorFile } from '../vectors/format.js';
import { messageInput, type VectorIndex } from '../vectors/harness/load.js';

const SCHEMA = 'https://payconform.dev/schemas/vectors.schema.json';
const dir = fileURLToPath(new URL('../vectors/', import.meta.url));
const read = <T>(path: string): T => JSON.parse(readFileSync(dir + path, 'utf8')) as T;
const index = read<
  VectorIndex & {
    totalCases: number;
    files: Array<{
      path: string;
      cases: number;
      valid: number;
      invalid: number;
      acceptable: number;
    }>;
  }
>('index.json');
const keys = read<KeysFile>('keys.json');
const files = index.files.map((f) => ({ path: f.path, file: read<VectorFile>(f.path) }));
const allCases = files.flatMap(({ path, file }) => file.cases.map((c) => ({ path, c })));

describe('vector files: JSON Schema (schemas/vectors.schema.json, shared registry)', () => {
  it.each(['index.json', 'keys.json', ...index.files.map((f) => f.path)])(
    '%s validates',
    (path) => {
      const result = validateAgainst(SCHEMA, read(path));
      expect(result.valid ? [] : result.errors).toEqual([]);
    },
  );

  it('rejects a case with a missing id, an unknown op, an extra property, or two bodies', () => {
    const file = read<VectorFile>('request-signing.json');
    const withCase = (mutate: (c: Record<string, unknown>) => void): unknown => {
      const copy = structuredClone(file) as unknown as { cases: Array<Record<string, unknown>> };
      mutate(copy.cases[0]!);
      return copy;
    };
    expect(
      validateAgainst(
        SCHEMA,
        withCase((c) => delete c.id),
      ).valid,
    ).toBe(false);
    expect(
      validateAgainst(
        SCHEMA,
        withCase((c) => (c.op = 'frobnicate')),
      ).valid,
    ).toBe(false);
    expect(
      validateAgainst(
        SCHEMA,
        withCase((c) => (c.extra = 1)),
      ).valid,
    ).toBe(false);
    expect(
      validateAgainst(
        SCHEMA,
        withCase(
          (c) => ((c.input as { request: Record<string, unknown> }).request.bodyBase64 = ''),
        ),
      ).valid,
    ).toBe(false);
    expect(
      validateAgainst(
        SCHEMA,
        withCase((c) => (c.result = 'maybe')),
      ).valid,
    ).toBe(false);
    expect(validateAgainst(SCHEMA, { ...keys, testOnly: false }).valid).toBe(false);
  });
});

describe('vector files: consistency the schema cannot express', () => {
  it('case ids are unique across all files and flags are explained in notes, every note used', () => {
    const ids = allCases.map(({ c }) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { file } of files) {
      const used = new Set(file.cases.flatMap((c) => c.flags));
      for (const flag of used)
        expect(Object.keys(file.notes), `${file.name}: flag ${flag}`).toContain(flag);
      expect([...used].sort()).toEqual(Object.keys(file.notes).sort());
      expect(file.numberOfCases).toBe(file.cases.length);
    }
  });

  it('index.json counts match the files', () => {
    for (const entry of index.files) {
      const { file } = files.find((f) => f.path === entry.path)!;
      expect(entry.cases).toBe(file.cases.length);
      expect(entry.valid + entry.invalid + entry.acceptable).toBe(entry.cases);
      expect(entry.invalid).toBe(file.cases.filter((c) => c.result === 'invalid').length);
    }
    expect(index.totalCases).toBe(allCases.length);
  });

  it('every error code in the vectors is a documented code', () => {
    const documented = new Set<string>([
      ...Object.keys(verifyErrorCodes),
      ...Object.keys(webhookErrorCodes),
      'KEY_FORMAT_INVALID',
      'KEY_TYPE_UNSUPPORTED',
      'DIGEST_MALFORMED',
      'DIGEST_ALGORITHM_UNSUPPORTED',
      'DIGEST_MISMATCH',
      'BASE_NOT_ASCII',
      'FIELD_DUPLICATED',
    ]);
    for (const { c } of allCases) {
      const code =
        (c.expected as { code?: string; error?: string }).code ??
        (c.expected as { error?: string }).error;
      if (code !== undefined) expect(documented, c.id).toContain(code);
    }
  });

  it('keys.json is marked test-only throughout, and every private key matches its public key', () => {
    expect(keys.testOnly).toBe(true);
    expect(keys.warning).toMatch(/TEST ONLY/);
    for (const [name, entry] of Object.entries(keys.keys)) {
      expect(entry.testOnly, name).toBe(true);
      expect(entry.description, name).toMatch(/^TEST ONLY/);
      if (entry.type === 'ed25519' && entry.private) {
        const fromSeed = parseEd25519PrivateKey(entry.private['seed-base64']);
        expect(Buffer.from(fromSeed.publicKey.raw).toString('base64'), name).toBe(
          entry.public['raw-base64'],
        );
        expect(Buffer.from(parseEd25519PrivateKey(entry.private['pkcs8-pem']).seed)).toEqual(
          Buffer.from(fromSeed.seed),
        );
        expect(
          Buffer.from(parseEd25519PublicKey(entry.public['trimmed-pem']).raw).toString('base64'),
        ).toBe(entry.public['raw-base64']);
      }
    }
  });

  it('covers the profile rules the set promises (spot check of required ids)', () => {
    const ids = new Set(allCases.map(({ c }) => c.id));
    for (const id of [
      'verify-created-300s-old-valid',
      'verify-created-301s-old',
      'verify-created-301s-in-future',
      'verify-nonce-50-characters-valid',
      'verify-nonce-51-characters',
      'verify-nonce-missing',
      'verify-nonce-replayed',
      'verify-signature-header-missing',
      'verify-signature-input-header-missing',
      'verify-label-not-sig1',
      'verify-label-duplicated',
      'verify-components-reordered',
      'verify-components-secret-missing',
      'verify-components-extra',
      'verify-parameters-reordered',
      'verify-alg-rsa',
      'verify-keyid-unknown',
      'verify-application-secret-wrong',
      'verify-application-secret-empty',
      'verify-application-id-missing',
      'verify-body-changed',
      'verify-body-reserialised',
      'verify-content-digest-sha256-only',
      'verify-content-digest-on-get',
      'verify-content-digest-uppercase-key',
      'verify-body-trailing-newline-added',
      'verify-signature-base64url',
      'verify-signature-63-bytes',
      'sign-get-bodyless',
      'sign-delete-bodyless',
      'sign-query-string',
      'sign-non-default-port',
      'sign-port-443-omitted',
      'sign-uppercase-host',
      'sign-post-non-ascii-body',
      'sign-post-empty-body',
      'sign-key-pkcs8-pem',
      'sign-key-pkcs8-der',
      'parse-private-seed-base64',
      'parse-rsa-trimmed-pem',
      'webhook-payment-valid',
      'webhook-reserialised-after-signing',
      'webhook-body-changed',
      'webhook-wrong-algorithm-name',
      'webhook-signed-by-another-key',
      'webhook-authorization-missing',
      'rfc9421-b26-verify',
      'rfc9530-b5-over-padded-sha256',
      'rfc9421-b2-test-response-content-digest-published',
    ])
      expect(ids, id).toContain(id);
  });
});

function answerMatches(c: VectorCase, result: Record<string, unknown>): void {
  if (c.op === 'sign') {
    expect(result).toEqual({
      headers: c.expected.headers,
      signatureBase: c.expected.signatureBase,
    });
  } else {
    expect(result).toEqual(c.expected);
  }
}

describe('every case through the library, read back from its JSON, with both Ed25519 backends', () => {
  for (const backend of backends) {
    for (const { path, file } of files) {
      it(`${path} (${backend.name}): ${file.cases.length} cases give exactly the recorded result`, async () => {
        for (const c of file.cases) {
          const result = await libraryAnswer(c.op, messageInput(keys, c), backend);
          // A recorded webhook Authorization value is a generator extra, not part of the verifier's answer.
          const expected = c.op === 'webhook-verify' && c.expected.ok ? { ok: true } : c.expected;
          if (c.op === 'sign') answerMatches(c, result);
          else expect(result, c.id).toEqual(expected);
        }
      });
    }
  }
});

describe('independent checks of the signatures in the vectors', () => {
  const ed = (name: string) => {
    const entry = keys.keys[name]!;
    if (entry.type !== 'ed25519' || !entry.private)
      throw new Error(`${name} is not an Ed25519 key pair`);
    return entry;
  };
  it('every valid Ed25519 signature in sign and verify cases verifies over its base with both backends', () => {
    let checked = 0;
    for (const { c } of allCases) {
      if (c.op !== 'sign' && !(c.op === 'verify' && c.expected.ok)) continue;
      const base =
        c.op === 'sign'
          ? c.expected.signatureBase
          : (c.expected as { signatureBase: string }).signatureBase;
      const headers = c.op === 'sign' ? c.expected.headers : c.input.request.headers;
      const sig = headers.find(([n]) => n.toLowerCase() === 'signature')![1];
      const bytes = new Uint8Array(Buffer.from(sig.slice('sig1=:'.length, -1), 'base64'));
      const keyid = /keyid="([^"]*)"/.exec(base)![1];
      const keyName =
        keyid === 'test-key-ed25519' ? 'rfc9421-test-key-ed25519' : 'client-a-ed25519';
      const pub = parseEd25519PublicKey(ed(keyName).public['raw-base64']);
      for (const backend of backends)
        expect(verifySignatureBase(base, bytes, pub, backend), `${c.id} ${backend.name}`).toBe(
          true,
        );
      // ...and a one-byte change of the base does not.
      expect(verifySignatureBase(`${base} `, bytes, pub, backends[0]!)).toBe(false);
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(30);
  });

  it('RFC 9421 B.2.6: the vector carries the published base, and re-signing it gives the published signature with both backends', () => {
    const c = allCases.find(({ c }) => c.id === 'rfc9421-b26-signature-base')!.c;
    const published =
      '"date": Tue, 20 Apr 2021 02:07:55 GMT\n"@method": POST\n"@path": /foo\n"@authority": example.com\n"content-type": application/json\n"content-length": 18\n"@signature-params": ("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"';
    expect((c.expected as { signatureBase: string }).signatureBase).toBe(published);
    const key = parseEd25519PrivateKey(ed('rfc9421-test-key-ed25519').private!['seed-base64']);
    for (const backend of backends) {
      expect(Buffer.from(signSignatureBase(published, key, backend)).toString('base64')).toBe(
        'wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==',
      );
    }
    const header = (
      c.input as { request: { headers: ReadonlyArray<readonly [string, string]> } }
    ).request.headers.find(([n]) => n === 'Signature')![1];
    expect(header).toBe(
      'sig-b26=:wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==:',
    );
  });

  it('RFC 9530: the vectors carry the published values, and the known defects are commented', () => {
    const byId = new Map(allCases.map(({ c }) => [c.id, c]));
    expect(byId.get('rfc9530-s2-sha512-body-with-lf')!.expected).toEqual({
      contentDigest:
        'sha-512=:YMAam51Jz/jOATT6/zvHrLVgOYTGFy1d6GJiOHTohq4yP+pgk4vf2aCsyRZOtw8MjkM7iw7yZ/WkppmM44T3qg==:',
    });
    expect(byId.get('rfc9530-appendix-d-sha256')!.expected).toEqual({
      contentDigest: 'sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:',
    });
    expect(byId.get('rfc9530-b5-over-padded-sha256')!.comment).toMatch(/defect/);
    expect(byId.get('rfc9530-s2-two-members-both-checked')!.comment).toMatch(/brotli/);
    expect(byId.get('rfc9421-b2-test-response-content-digest-published')!.comment).toMatch(
      /JlEy2b/,
    );
  });

  it('the three private-key forms sign identically (sign-post-payout, sign-key-pkcs8-pem, sign-key-pkcs8-der)', () => {
    const byId = new Map(allCases.map(({ c }) => [c.id, c]));
    const a = byId.get('sign-post-payout')!.expected;
    expect(byId.get('sign-key-pkcs8-pem')!.expected).toEqual(a);
    expect(byId.get('sign-key-pkcs8-der')!.expected).toEqual(a);
  });
});
