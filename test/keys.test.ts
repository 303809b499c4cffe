// Proves strict base64 and Ed25519 key parsing: every accepted form, every rejected form, RFC 9421 B.1.4.

import { generateKeyPairSync } from 'node:crypto';
import { inspect } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeStrictBase64,
  ed25519PrivateKeyFromSeed,
  encodeBase64,
  exportEd25519PrivateKeyDer,
  exportEd25519PrivateKeyPem,
  exportEd25519PublicKeyBase64,
  exportEd25519PublicKeyDer,
  exportEd25519PublicKeyPem,
  exportEd25519SeedBase64,
  generateEd25519PrivateKey,
  KeyFormatError,
  parseEd25519PrivateKey,
  parseEd25519PublicKey,
} from '../src/keys/index.js';
import { loadTestKeys } from './fixtures/keys.js';

const RFC_SEED_HEX = '9f8362f87a484a954e6e740c5b4c0e84229139a20aa8ab56ff66586f6a7d29c5';
const RFC_PUBLIC_HEX = '26b40b8f93fff3d897112f7ebc582b232dbd72517d082fe83cfb30ddce43d1bb';
const RFC_SEED_B64 = Buffer.from(RFC_SEED_HEX, 'hex').toString('base64');
const RFC_PUBLIC_B64 = Buffer.from(RFC_PUBLIC_HEX, 'hex').toString('base64');
const RFC_PRIVATE_PEM_BODY = 'MC4CAQAwBQYDK2VwBCIEIJ+DYvh6SEqVTm50DFtMDoQikTmiCqirVv9mWG9qfSnF';
const RFC_PUBLIC_PEM_BODY = 'MCowBQYDK2VwAyEAJrQLj5P/89iXES9+vFgrIy29clF9CC/oPPsw3c5D0bs=';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

/** Runs `fn`, expects a KeyFormatError, returns it. */
function keyError(fn: () => unknown): KeyFormatError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(KeyFormatError);
    return e as KeyFormatError;
  }
  throw new Error('expected a KeyFormatError, nothing was thrown');
}

function otherKeyPems() {
  const pem = (type: 'rsa' | 'ec' | 'x25519' | 'ed448') => {
    const { privateKey, publicKey } =
      type === 'rsa'
        ? generateKeyPairSync('rsa', { modulusLength: 1024 })
        : type === 'ec'
          ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
          : type === 'x25519'
            ? generateKeyPairSync('x25519')
            : generateKeyPairSync('ed448');
    return {
      privatePem: privateKey.export({ format: 'pem', type: 'pkcs8' }) as string,
      publicPem: publicKey.export({ format: 'pem', type: 'spki' }) as string,
      pkcs1:
        type === 'rsa'
          ? (privateKey.export({ format: 'pem', type: 'pkcs1' }) as string)
          : undefined,
      sec1:
        type === 'ec' ? (privateKey.export({ format: 'pem', type: 'sec1' }) as string) : undefined,
    };
  };
  return { rsa: pem('rsa'), ec: pem('ec'), x25519: pem('x25519'), ed448: pem('ed448') };
}
const others = otherKeyPems();

describe('decodeStrictBase64 (RFC 4648 §4, strict)', () => {
  it.each([
    ['', ''],
    ['aGVsbG8=', 'hello'],
    ['aGVsbA==', 'hell'],
    ['aGVs', 'hel'],
    ['+/+/', Buffer.from('+/+/', 'base64').toString('latin1')],
  ])('decodes %j', (text, expected) => {
    expect(Buffer.from(decodeStrictBase64(text, 'x')).toString('latin1')).toBe(expected);
  });

  it.each([
    ['base64url characters', '_-Ah'],
    ['inner whitespace', 'aGVs bG8='],
    ['inner line break', 'aGVs\nbG8='],
    ['outer whitespace', ' aGVsbG8='],
    ['trailing newline', 'aGVsbG8=\n'],
    ['missing padding', 'aGVsbG8'],
    ['missing double padding', 'aGVsbA'],
    ['extra padding', 'aGVsbG8=='],
    ['over-padding', 'aGVs===='],
    ['padding in the middle', 'aG=sbG8='],
    ['non-zero pad bits', 'aGVsbG9='],
    ['non-zero pad bits (==)', 'aGVsbB=='],
    ['a dot', 'aGVsbG8.'],
    ['only padding', '===='],
    ['one character', 'a'],
  ])('rejects %s', (_name, text) => {
    // Node's decoder is lenient with most of these: that is why the check exists.
    const err = keyError(() => decodeStrictBase64(text, 'test value'));
    expect(err.code).toBe('KEY_FORMAT_INVALID');
    expect(err.message).toContain('test value');
  });

  it('names the offending character by class and offset, not by value', () => {
    const err = keyError(() => decodeStrictBase64('abcd_fgh', 'seed'));
    expect(err.message).toMatch(/base64url character .* at offset 4/);
    expect(err.message).not.toContain('abcd');
  });

  it('round-trips any bytes and agrees with Node on every string it accepts', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), (bytes) => {
        expect(hex(decodeStrictBase64(encodeBase64(bytes), 'x'))).toBe(hex(bytes));
      }),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(...'AQgw+/=_- \nab'.split('')), maxLength: 16 }),
        (text) => {
          let decoded: Uint8Array;
          try {
            decoded = decodeStrictBase64(text, 'x');
          } catch (e) {
            expect(e).toBeInstanceOf(KeyFormatError);
            return;
          }
          // Accepted text is canonical: it re-encodes to itself.
          expect(encodeBase64(decoded)).toBe(text);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('parseEd25519PrivateKey: accepted forms (RFC 9421 B.1.4 test-key-ed25519)', () => {
  const keys = loadTestKeys();
  const pem = keys.rfc9421Ed25519.privatePem;
  const der = Buffer.from(RFC_PRIVATE_PEM_BODY, 'base64');

  it.each<[string, string | Uint8Array]>([
    ['PKCS#8 PEM', pem],
    ['PKCS#8 PEM with CRLF line ends', pem.replace(/\n/g, '\r\n')],
    ['PKCS#8 PEM with surrounding whitespace', `\n  ${pem}\n\n`],
    ['base64 32-byte seed', RFC_SEED_B64],
    ['base64 seed with a trailing newline (file or env)', `${RFC_SEED_B64}\n`],
    ['base64 of the PKCS#8 DER (PEM body alone)', RFC_PRIVATE_PEM_BODY],
    ['PKCS#8 DER bytes', new Uint8Array(der)],
    ['the 32 seed bytes', new Uint8Array(Buffer.from(RFC_SEED_HEX, 'hex'))],
  ])('%s gives seed 9f8362f8… and public key 26b40b8f…', (_name, input) => {
    const key = parseEd25519PrivateKey(input);
    expect(key.kind).toBe('ed25519-private');
    expect(hex(key.seed)).toBe(RFC_SEED_HEX);
    expect(hex(key.publicKey.raw)).toBe(RFC_PUBLIC_HEX);
  });

  it('the spec rule holds for the v1 DER: the seed is its last 32 bytes', () => {
    expect(der.length).toBe(48);
    expect(hex(der.subarray(16))).toBe(RFC_SEED_HEX);
  });

  it('parses the project test key in all three committed forms to the same key', () => {
    const { seedBase64, privatePem, publicPem } = keys.clientEd25519;
    const a = parseEd25519PrivateKey(seedBase64);
    const b = parseEd25519PrivateKey(privatePem);
    expect(hex(a.seed)).toBe(hex(b.seed));
    expect(hex(a.publicKey.raw)).toBe(hex(parseEd25519PublicKey(publicPem).raw));
  });
});

describe('parseEd25519PrivateKey: rejected forms', () => {
  const seed = Buffer.from(RFC_SEED_HEX, 'hex');
  it.each<[string, string | Uint8Array, string]>([
    ['empty', '', 'KEY_FORMAT_INVALID'],
    ['whitespace only', ' \n\t', 'KEY_FORMAT_INVALID'],
    [
      'base64url seed (JWK "d")',
      'n4Ni-HpISpVObnQMW0wOhCKROaIKqKtW_2ZYb2p9KcU',
      'KEY_FORMAT_INVALID',
    ],
    ['seed without padding', RFC_SEED_B64.replace(/=+$/, ''), 'KEY_FORMAT_INVALID'],
    [
      'seed with an inner space',
      `${RFC_SEED_B64.slice(0, 10)} ${RFC_SEED_B64.slice(10)}`,
      'KEY_FORMAT_INVALID',
    ],
    ['seed with extra padding', `${RFC_SEED_B64}=`, 'KEY_FORMAT_INVALID'],
    ['31-byte seed', seed.subarray(0, 31).toString('base64'), 'KEY_FORMAT_INVALID'],
    [
      '33-byte seed',
      Buffer.concat([seed, Buffer.from([1])]).toString('base64'),
      'KEY_FORMAT_INVALID',
    ],
    [
      '64-byte libsodium secret key',
      Buffer.concat([seed, Buffer.from(RFC_PUBLIC_HEX, 'hex')]).toString('base64'),
      'KEY_FORMAT_INVALID',
    ],
    ['hex seed', RFC_SEED_HEX, 'KEY_FORMAT_INVALID'],
    ['RSA PKCS#8 PEM', others.rsa.privatePem, 'KEY_TYPE_UNSUPPORTED'],
    ['RSA PKCS#1 PEM', others.rsa.pkcs1 as string, 'KEY_TYPE_UNSUPPORTED'],
    ['EC PKCS#8 PEM', others.ec.privatePem, 'KEY_TYPE_UNSUPPORTED'],
    ['EC SEC1 PEM', others.ec.sec1 as string, 'KEY_TYPE_UNSUPPORTED'],
    ['X25519 PKCS#8 PEM (same size as Ed25519)', others.x25519.privatePem, 'KEY_TYPE_UNSUPPORTED'],
    ['Ed448 PKCS#8 PEM', others.ed448.privatePem, 'KEY_TYPE_UNSUPPORTED'],
    ['a public key PEM', loadTestKeys().rfc9421Ed25519.publicPem, 'KEY_FORMAT_INVALID'],
    [
      'garbage PEM body',
      '-----BEGIN PRIVATE KEY-----\nnot base64 at all!\n-----END PRIVATE KEY-----',
      'KEY_FORMAT_INVALID',
    ],
    [
      'valid base64, not DER',
      '-----BEGIN PRIVATE KEY-----\naGVsbG8gd29ybGQ=\n-----END PRIVATE KEY-----',
      'KEY_FORMAT_INVALID',
    ],
    [
      'PEM without END line',
      `-----BEGIN PRIVATE KEY-----\n${RFC_PRIVATE_PEM_BODY}\n`,
      'KEY_FORMAT_INVALID',
    ],
    [
      'PEM with mismatched END label',
      `-----BEGIN PRIVATE KEY-----\n${RFC_PRIVATE_PEM_BODY}\n-----END PUBLIC KEY-----`,
      'KEY_FORMAT_INVALID',
    ],
    [
      'PEM with an empty body',
      '-----BEGIN PRIVATE KEY-----\n-----END PRIVATE KEY-----',
      'KEY_FORMAT_INVALID',
    ],
    [
      'encrypted PKCS#8 PEM',
      '-----BEGIN ENCRYPTED PRIVATE KEY-----\naGVsbG8=\n-----END ENCRYPTED PRIVATE KEY-----',
      'KEY_FORMAT_INVALID',
    ],
    [
      'PKCS#8 DER with a trailing byte',
      new Uint8Array([...Buffer.from(RFC_PRIVATE_PEM_BODY, 'base64'), 0]),
      'KEY_FORMAT_INVALID',
    ],
    [
      'truncated PKCS#8 DER',
      new Uint8Array(Buffer.from(RFC_PRIVATE_PEM_BODY, 'base64').subarray(0, 40)),
      'KEY_FORMAT_INVALID',
    ],
    ['empty bytes', new Uint8Array(0), 'KEY_FORMAT_INVALID'],
  ])('%s → %s', (_name, input, code) => {
    const err = keyError(() => parseEd25519PrivateKey(input));
    expect(err.code).toBe(code);
    expect(err.message.length).toBeGreaterThan(20);
    // Never echoes key material.
    expect(err.message).not.toContain(RFC_SEED_B64.slice(0, 12));
    expect(err.message).not.toContain(RFC_PRIVATE_PEM_BODY.slice(20, 40));
  });

  it('says what was found for a wrong key type', () => {
    expect(keyError(() => parseEd25519PrivateKey(others.x25519.privatePem)).message).toMatch(
      /expected an Ed25519.*found an X25519/,
    );
    expect(keyError(() => parseEd25519PrivateKey(others.rsa.privatePem)).message).toMatch(
      /found an RSA key/,
    );
  });

  it('throws TypeError for an argument of the wrong type (caller misuse)', () => {
    expect(() => parseEd25519PrivateKey(42 as unknown as string)).toThrow(TypeError);
  });

  it('never throws anything but KeyFormatError on arbitrary text or bytes', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ maxLength: 120 }), fc.uint8Array({ maxLength: 120 })),
        (input) => {
          try {
            parseEd25519PrivateKey(input);
            parseEd25519PublicKey(input);
          } catch (e) {
            expect(e).toBeInstanceOf(KeyFormatError);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('parseEd25519PublicKey', () => {
  const pem = loadTestKeys().rfc9421Ed25519.publicPem;
  const spkiDer = Buffer.from(RFC_PUBLIC_PEM_BODY, 'base64');

  it.each<[string, string | Uint8Array]>([
    ['SPKI PEM', pem],
    ['raw base64 (32 bytes)', RFC_PUBLIC_B64],
    ['trimmed PEM body on one line', RFC_PUBLIC_PEM_BODY],
    [
      'trimmed PEM body with line breaks',
      `${RFC_PUBLIC_PEM_BODY.slice(0, 30)}\n${RFC_PUBLIC_PEM_BODY.slice(30)}\n`,
    ],
    [
      'trimmed PEM body with CRLF line breaks',
      `${RFC_PUBLIC_PEM_BODY.slice(0, 30)}\r\n${RFC_PUBLIC_PEM_BODY.slice(30)}`,
    ],
    ['SPKI DER bytes', new Uint8Array(spkiDer)],
    ['raw 32 bytes', new Uint8Array(Buffer.from(RFC_PUBLIC_HEX, 'hex'))],
  ])('%s gives 26b40b8f…', (_name, input) => {
    const key = parseEd25519PublicKey(input);
    expect(key.kind).toBe('ed25519-public');
    expect(hex(key.raw)).toBe(RFC_PUBLIC_HEX);
  });

  it.each<[string, string | Uint8Array, string]>([
    ['empty', '', 'KEY_FORMAT_INVALID'],
    [
      'base64url raw key (JWK "x")',
      'JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs',
      'KEY_FORMAT_INVALID',
    ],
    ['raw key without padding', RFC_PUBLIC_B64.replace(/=+$/, ''), 'KEY_FORMAT_INVALID'],
    [
      'raw key with an inner space',
      `${RFC_PUBLIC_B64.slice(0, 8)} ${RFC_PUBLIC_B64.slice(8)}`,
      'KEY_FORMAT_INVALID',
    ],
    [
      '31 bytes',
      Buffer.from(RFC_PUBLIC_HEX, 'hex').subarray(0, 31).toString('base64'),
      'KEY_FORMAT_INVALID',
    ],
    ['RSA SPKI PEM', others.rsa.publicPem, 'KEY_TYPE_UNSUPPORTED'],
    ['X25519 SPKI PEM', others.x25519.publicPem, 'KEY_TYPE_UNSUPPORTED'],
    ['EC SPKI PEM', others.ec.publicPem, 'KEY_TYPE_UNSUPPORTED'],
    [
      'trimmed body of an RSA key',
      others.rsa.publicPem.replace(/-----[A-Z ]+-----/g, '').trim(),
      'KEY_TYPE_UNSUPPORTED',
    ],
    ['a private key PEM', loadTestKeys().rfc9421Ed25519.privatePem, 'KEY_FORMAT_INVALID'],
    [
      'garbage PEM',
      '-----BEGIN PUBLIC KEY-----\n%%%%\n-----END PUBLIC KEY-----\n',
      'KEY_FORMAT_INVALID',
    ],
    ['SPKI DER with a trailing byte', new Uint8Array([...spkiDer, 0]), 'KEY_FORMAT_INVALID'],
  ])('rejects %s → %s', (_name, input, code) => {
    expect(keyError(() => parseEd25519PublicKey(input)).code).toBe(code);
  });
});

describe('export and generation', () => {
  const keys = loadTestKeys();
  const key = keys.rfc9421Ed25519.privateKey;

  it('exports exactly the RFC 9421 B.1.4 PEMs and the spec credential forms', () => {
    expect(exportEd25519PrivateKeyPem(key)).toBe(keys.rfc9421Ed25519.privatePem);
    expect(exportEd25519PublicKeyPem(key)).toBe(keys.rfc9421Ed25519.publicPem);
    expect(exportEd25519PublicKeyPem(key.publicKey)).toBe(keys.rfc9421Ed25519.publicPem);
    expect(exportEd25519PublicKeyBase64(key)).toBe(RFC_PUBLIC_B64);
    expect(exportEd25519SeedBase64(key)).toBe(RFC_SEED_B64);
    expect(exportEd25519SeedBase64(key)).toHaveLength(44);
    expect(hex(exportEd25519PrivateKeyDer(key).subarray(-32))).toBe(RFC_SEED_HEX);
    expect(exportEd25519PublicKeyDer(key)).toHaveLength(44);
  });

  it('generates distinct keys that round-trip through every export form', () => {
    const a = generateEd25519PrivateKey();
    const b = generateEd25519PrivateKey();
    expect(hex(a.seed)).not.toBe(hex(b.seed));
    for (const text of [exportEd25519PrivateKeyPem(a), exportEd25519SeedBase64(a)]) {
      const back = parseEd25519PrivateKey(text);
      expect(hex(back.seed)).toBe(hex(a.seed));
      expect(hex(back.publicKey.raw)).toBe(hex(a.publicKey.raw));
    }
    expect(hex(parseEd25519PublicKey(exportEd25519PublicKeyPem(a)).raw)).toBe(hex(a.publicKey.raw));
    expect(hex(parseEd25519PublicKey(exportEd25519PublicKeyBase64(a)).raw)).toBe(
      hex(a.publicKey.raw),
    );
  });

  it('ed25519PrivateKeyFromSeed rejects a seed of the wrong length', () => {
    expect(keyError(() => ed25519PrivateKeyFromSeed(new Uint8Array(31))).code).toBe(
      'KEY_FORMAT_INVALID',
    );
  });

  it("copies its input: later changes to the caller's bytes do not change the key", () => {
    const seed = new Uint8Array(Buffer.from(RFC_SEED_HEX, 'hex'));
    const k = ed25519PrivateKeyFromSeed(seed);
    seed.fill(0);
    expect(hex(k.seed)).toBe(RFC_SEED_HEX);
  });

  it('a private key object does not print its seed (inspect, JSON)', () => {
    const shown = inspect(key, { depth: 5 });
    expect(shown).toContain('publicKey');
    expect(shown).not.toContain('seed');
    expect(JSON.stringify(key)).not.toContain('seed');
    expect(Object.keys(key)).not.toContain('seed');
    expect(key.seed).toHaveLength(32); // still readable on purpose
  });
});
