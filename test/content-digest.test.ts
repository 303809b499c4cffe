import { describe, expect, it } from 'vitest';
import {
  computeContentDigest,
  parseContentDigest,
  verifyContentDigest,
} from '../src/digest/content-digest.js';

const enc = (s: string) => new TextEncoder().encode(s);

describe('Content-Digest (RFC 9530) behaviour', () => {
  it('computes sha-512 by default and several algorithms in the order given', () => {
    expect(computeContentDigest(new Uint8Array())).toBe(
      'sha-512=:z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg==:',
    );
    expect(
      computeContentDigest(new Uint8Array(), ['sha-256', 'sha-512']).startsWith(
        'sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:, sha-512=:',
      ),
    ).toBe(true);
  });

  it('rejects misuse with TypeError', () => {
    expect(() => computeContentDigest(new Uint8Array(), [])).toThrow(TypeError);
    expect(() => computeContentDigest(new Uint8Array(), ['md5' as never])).toThrow(TypeError);
  });

  it('verifies against the exact bytes: one changed byte is a mismatch', () => {
    const body = enc('{"a":1}');
    const value = computeContentDigest(body);
    expect(verifyContentDigest(value, body)).toEqual({ ok: true, algorithms: ['sha-512'] });
    const changed = enc('{"a":2}');
    expect(verifyContentDigest(value, changed)).toMatchObject({
      ok: false,
      code: 'DIGEST_MISMATCH',
    });
    expect(verifyContentDigest(value, enc('{"a":1}\n'))).toMatchObject({
      ok: false,
      code: 'DIGEST_MISMATCH',
    });
  });

  it('ignores unknown algorithms and requires an accepted one', () => {
    const body = enc('x');
    const sha256only = computeContentDigest(body, ['sha-256']);
    expect(verifyContentDigest(sha256only, body)).toMatchObject({
      ok: false,
      code: 'DIGEST_ALGORITHM_UNSUPPORTED',
    });
    expect(verifyContentDigest(sha256only, body, { accept: ['sha-256'] }).ok).toBe(true);
    expect(verifyContentDigest(`unixsum=:GQU=:, ${computeContentDigest(body)}`, body).ok).toBe(
      true,
    );
  });

  it('every accepted member must match', () => {
    const body = enc('x');
    const good = computeContentDigest(body, ['sha-256']);
    const bad = computeContentDigest(enc('y'), ['sha-512']);
    expect(
      verifyContentDigest(`${good}, ${bad}`, body, { accept: ['sha-256', 'sha-512'] }),
    ).toMatchObject({ ok: false, code: 'DIGEST_MISMATCH' });
  });

  it('classifies malformed values', () => {
    const cases = [
      '',
      'sha-512',
      'sha-512=abc',
      'sha-512="abc"',
      'SHA-512=:AAAA:',
      'sha-512=:AAAA:',
      'sha-512=:-_AA:',
      'sha-512=:z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg:',
      'sha-512=(:AAAA:)',
      'sha-512=:z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg==:, sha-512=:AAAA:',
      Array.from({ length: 17 }, (_, i) => `x${i}=:AAAA:`).join(', '),
    ];
    for (const value of cases) {
      expect(parseContentDigest(value), value).toMatchObject({
        ok: false,
        code: 'DIGEST_MALFORMED',
      });
      expect(verifyContentDigest(value, new Uint8Array()), value).toMatchObject({
        ok: false,
        code: 'DIGEST_MALFORMED',
      });
    }
  });

  it('parses members in received order, unknown ones included', () => {
    const r = parseContentDigest(
      'unixsum=:GQU=:, sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:',
    );
    expect(r.ok && [...r.digests.keys()]).toEqual(['unixsum', 'sha-256']);
  });
});
