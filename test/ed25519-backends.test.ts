// Proves both Ed25519 backends: RFC 9421 B.2.6 re-signed byte for byte, cross-checked, negative controls; verifyAsync
// answers as verify does (node: as a job on libuv's thread pool).

import { createHook } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Ed25519PublicKey } from '../src/ed25519/backend.js';
import {
  backends,
  defaultBackend,
  isSmallOrderEncoding,
  nobleBackend,
  nodeBackend,
} from '../src/ed25519/index.js';
import { ed25519PrivateKeyFromSeed, parseEd25519PublicKey } from '../src/keys/index.js';
import { loadTestKeys } from './fixtures/keys.js';
import { B26_BASE } from './fixtures/rfc9421-b26.js';

// RFC 9421 Appendix B.2.6: the signature (the literal base is in fixtures/rfc9421-b26.ts).
const B26_SIGNATURE_HEX =
  'c2a700a9b9982768e2da095f00c691cb882bb98627c769c414dd8737a8eb9c39d008ad6ed3619bd38bfd10383050f8aee00d30eafb90bf9948a7958fa412910b';
const B26_SIGNATURE_B64 =
  'wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==';

const enc = new TextEncoder();
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

describe('RFC 9421 B.2.6 literal signature base', () => {
  it('is 284 bytes with the published SHA-256', () => {
    const bytes = enc.encode(B26_BASE);
    expect(bytes).toHaveLength(284);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(
      'e6402577f54303accfda63dfbde1a7b8c5e5e6f3f7898637b7d78dc07ee1896a',
    );
    expect(Buffer.from(B26_SIGNATURE_B64, 'base64').toString('hex')).toBe(B26_SIGNATURE_HEX);
  });
});

describe.each(backends.map((b) => [b.name, b] as const))(
  'Ed25519 backend "%s"',
  (_name, backend) => {
    const { privateKey, publicKey } = loadTestKeys().rfc9421Ed25519;
    const base = enc.encode(B26_BASE);
    const published = new Uint8Array(Buffer.from(B26_SIGNATURE_HEX, 'hex'));

    it('RFC 9421 B.2.6: re-signing the base gives the published signature byte for byte', () => {
      const sig = backend.sign(base, privateKey);
      expect(sig).toBeInstanceOf(Uint8Array);
      expect(hex(sig)).toBe(B26_SIGNATURE_HEX);
      expect(Buffer.from(sig).toString('base64')).toBe(B26_SIGNATURE_B64);
    });

    it('RFC 9421 B.2.6: the published signature verifies with the published public key', () => {
      expect(backend.verify(published, base, publicKey)).toBe(true);
      // Repeated use of the same key object (cached KeyObject in the node backend) stays correct.
      expect(backend.verify(published, base, publicKey)).toBe(true);
    });

    it('negative control: the base plus a trailing LF fails', () => {
      expect(backend.verify(published, enc.encode(`${B26_BASE}\n`), publicKey)).toBe(false);
    });

    it('negative control: any flipped bit in the signature or base fails', () => {
      for (const bit of [0, 7, 255, 256, 511]) {
        const sig = published.slice();
        sig[bit >> 3] = (sig[bit >> 3] as number) ^ (1 << (bit & 7));
        expect(backend.verify(sig, base, publicKey)).toBe(false);
      }
      const msg = base.slice();
      msg[100] = (msg[100] as number) ^ 1;
      expect(backend.verify(published, msg, publicKey)).toBe(false);
    });

    it('negative control: 0, 63 and 65-byte signatures give false, not an exception', () => {
      expect(backend.verify(new Uint8Array(0), base, publicKey)).toBe(false);
      expect(backend.verify(published.subarray(0, 63), base, publicKey)).toBe(false);
      expect(backend.verify(new Uint8Array([...published, 0]), base, publicKey)).toBe(false);
    });

    it('negative control: another key, and malformed keys, give false', () => {
      const other = ed25519PrivateKeyFromSeed(new Uint8Array(32).fill(7));
      expect(backend.verify(published, base, other.publicKey)).toBe(false);
      const bad = (raw: Uint8Array): Ed25519PublicKey => ({ kind: 'ed25519-public', raw });
      expect(backend.verify(published, base, bad(new Uint8Array(31)))).toBe(false);
      expect(backend.verify(published, base, bad(new Uint8Array(33)))).toBe(false);
      expect(backend.verify(published, base, bad(new Uint8Array(32).fill(0xff)))).toBe(false); // not a canonical point
      expect(backend.verify(published, base, bad(new Uint8Array(32)))).toBe(false); // small-order point
    });

    it('negative control: a signature with S >= L (non-canonical, malleable) is rejected', () => {
      // S + L, where L is the group order: same equation, rejected by RFC 8032 §5.1.7.
      const L = (1n << 252n) + 27742317777372353535851937790883648493n;
      let s = 0n;
      for (let i = 31; i >= 0; i--) s = (s << 8n) | BigInt(published[32 + i] as number);
      const s2 = s + L;
      const sig = published.slice();
      let v = s2;
      for (let i = 0; i < 32; i++) {
        sig[32 + i] = Number(v & 0xffn);
        v >>= 8n;
      }
      expect(v).toBe(0n); // still fits in 32 bytes
      expect(backend.verify(sig, base, publicKey)).toBe(false);
    });
  },
);

describe('backends cross-check (fast-check)', () => {
  it("node and noble produce identical signatures, and each verifies the other's", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.uint8Array({ maxLength: 512 }),
        (seed, message) => {
          const key = ed25519PrivateKeyFromSeed(seed);
          const a = nodeBackend.sign(message, key);
          const b = nobleBackend.sign(message, key);
          expect(hex(a)).toBe(hex(b));
          expect(nobleBackend.verify(a, message, key.publicKey)).toBe(true);
          expect(nodeBackend.verify(b, message, key.publicKey)).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('both backends reject the same random signatures', () => {
    const { publicKey } = loadTestKeys().clientEd25519;
    const pk = parseEd25519PublicKey(publicKey.raw);
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 64, maxLength: 64 }),
        fc.uint8Array({ maxLength: 64 }),
        (sig, message) => {
          expect(nodeBackend.verify(sig, message, pk)).toBe(false);
          expect(nobleBackend.verify(sig, message, pk)).toBe(false);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('the default backend is node:crypto', () => {
    expect(defaultBackend).toBe(nodeBackend);
    expect(backends.map((b) => b.name)).toEqual(['node', 'noble']);
  });
});

// The eight torsion-point encodings (orders 1, 2, 4, 8) plus non-canonical encodings of y = 0, 1, p - 1.
const SMALL_ORDER = [
  '0100000000000000000000000000000000000000000000000000000000000000',
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  '0000000000000000000000000000000000000000000000000000000000000000',
  '0000000000000000000000000000000000000000000000000000000000000080',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85',
];
const NON_CANONICAL_SMALL = [
  '0100000000000000000000000000000000000000000000000000000000000080',
  'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff',
];

describe.each(backends.map((b) => [b.name, b] as const))(
  'Ed25519 backend "%s": verifyAsync answers as verify',
  (_name, backend) => {
    const { privateKey, publicKey } = loadTestKeys().rfc9421Ed25519;
    const base = enc.encode(B26_BASE);
    const published = new Uint8Array(Buffer.from(B26_SIGNATURE_HEX, 'hex'));
    const flipped = (bytes: Uint8Array, bit: number): Uint8Array => {
      const copy = bytes.slice();
      copy[bit >> 3] = (copy[bit >> 3] as number) ^ (1 << (bit & 7));
      return copy;
    };
    const key = (raw: Uint8Array): Ed25519PublicKey => ({ kind: 'ed25519-public', raw });
    const cases: ReadonlyArray<readonly [string, Uint8Array, Uint8Array, Ed25519PublicKey]> = [
      ['published', published, base, publicKey],
      ['signature bit 0', flipped(published, 0), base, publicKey],
      ['signature bit 511', flipped(published, 511), base, publicKey],
      ['base bit 800', published, flipped(base, 800), publicKey],
      ['63-byte signature', published.subarray(0, 63), base, publicKey],
      ['empty signature', new Uint8Array(0), base, publicKey],
      [
        'other key',
        published,
        base,
        ed25519PrivateKeyFromSeed(new Uint8Array(32).fill(7)).publicKey,
      ],
      ['31-byte key', published, base, key(new Uint8Array(31))],
      ['non-canonical point', published, base, key(new Uint8Array(32).fill(0xff))],
      ['small-order key, S = 0', new Uint8Array(64), base, key(new Uint8Array(32))],
    ];

    it('on the published signature and every negative control', async () => {
      for (const [name, sig, message, pk] of cases)
        expect(await backend.verifyAsync(sig, message, pk), name).toBe(
          backend.verify(sig, message, pk),
        );
      expect(await backend.verifyAsync(published, base, publicKey)).toBe(true);
    });

    it('on random messages, signed and then tampered (fast-check)', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.uint8Array({ maxLength: 512 }),
          fc.nat(511),
          fc.boolean(),
          async (message, bit, tamper) => {
            const sig = backend.sign(message, privateKey);
            const checked = tamper ? flipped(sig, bit) : sig;
            expect(await backend.verifyAsync(checked, message, publicKey)).toBe(!tamper);
          },
        ),
        { numRuns: 40 },
      );
    });

    it('misuse (a signature that is not a Uint8Array) rejects with a TypeError, as verify throws one', async () => {
      expect(() => backend.verify('sig' as unknown as Uint8Array, base, publicKey)).toThrow(
        TypeError,
      );
      await expect(
        backend.verifyAsync('sig' as unknown as Uint8Array, base, publicKey),
      ).rejects.toThrow(TypeError);
    });
  },
);

describe('node backend: verifyAsync is a crypto job that comes back through the event loop (libuv thread pool)', () => {
  it('a SIGNREQUEST resource whose callback runs asynchronously; verify runs none', async () => {
    const { publicKey, privateKey } = loadTestKeys().clientEd25519;
    const message = enc.encode('thread pool');
    const sig = nodeBackend.sign(message, privateKey);
    const signJobs = new Set<number>();
    const calledBack = new Set<number>();
    const hook = createHook({
      init: (id, type) => void (type === 'SIGNREQUEST' && signJobs.add(id)),
      before: (id) => void (signJobs.has(id) && calledBack.add(id)),
    });
    hook.enable();
    try {
      expect(nodeBackend.verify(sig, message, publicKey)).toBe(true);
      expect(calledBack.size).toBe(0);
      expect(await nodeBackend.verifyAsync(sig, message, publicKey)).toBe(true);
    } finally {
      hook.disable();
    }
    expect(calledBack.size).toBe(1);
  });
});

describe('small-order public keys (OpenSSL alone would accept S = 0 forgeries)', () => {
  const msg = enc.encode('any message at all');

  it('the blocklist recognises every small-order encoding and no real key', () => {
    for (const h of [...SMALL_ORDER, ...NON_CANONICAL_SMALL])
      expect(isSmallOrderEncoding(Buffer.from(h, 'hex'))).toBe(true);
    expect(isSmallOrderEncoding(loadTestKeys().rfc9421Ed25519.publicKey.raw)).toBe(false);
    expect(isSmallOrderEncoding(loadTestKeys().clientEd25519.publicKey.raw)).toBe(false);
  });

  it('both backends reject every (small-order A, small-order R, S = 0) signature, so they agree', () => {
    let checked = 0;
    for (const a of [...SMALL_ORDER, ...NON_CANONICAL_SMALL]) {
      for (const r of SMALL_ORDER) {
        const pk: Ed25519PublicKey = {
          kind: 'ed25519-public',
          raw: new Uint8Array(Buffer.from(a, 'hex')),
        };
        const sig = new Uint8Array(64);
        sig.set(Buffer.from(r, 'hex'), 0);
        expect(nodeBackend.verify(sig, msg, pk)).toBe(false);
        expect(nobleBackend.verify(sig, msg, pk)).toBe(false);
        checked++;
      }
    }
    expect(checked).toBe(96);
  });

  it('parseEd25519PublicKey refuses a small-order key in raw and SPKI form', () => {
    for (const h of SMALL_ORDER) {
      const raw = Buffer.from(h, 'hex');
      expect(() => parseEd25519PublicKey(raw.toString('base64'))).toThrow(/small-order/);
      const spki = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), raw]);
      expect(() => parseEd25519PublicKey(new Uint8Array(spki))).toThrow(/small-order/);
    }
  });
});
