import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CANONICAL_BASE64_PATTERN,
  isCanonicalBase64,
  findDuplicateDictionaryKey,
  isSfInteger,
  parseSfDictionary,
  parseSfItem,
  parseSfList,
  serializeSf,
  Token,
} from '../src/structured-fields/structured-fields.js';

describe('RFC 8941 glue over structured-headers', () => {
  it('parses a Signature-Input-like Dictionary keeping member and parameter order', () => {
    const r = parseSfDictionary(
      'sig1=("@method" "@path");created=1;keyid="k";alg="ed25519";nonce="n"',
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const member = r.value.get('sig1');
    expect(member).toBeDefined();
    expect([...member![1].keys()]).toEqual(['created', 'keyid', 'alg', 'nonce']);
  });

  it('returns Token objects for tokens and numbers for integers and decimals', () => {
    const r = parseSfItem('abc;x=1;y=1.5');
    expect(r.ok && r.value[0] instanceof Token).toBe(true);
    if (!r.ok) return;
    expect(isSfInteger(r.value[1].get('x'))).toBe(true);
    expect(isSfInteger(r.value[1].get('y'))).toBe(false);
  });

  it('rejects RFC 9651 Dates and Display Strings where an RFC 8941 type is expected', () => {
    const date = parseSfDictionary('a=@1659578233');
    expect(date.ok ? 'ok' : date.code).toBe('SF_TYPE_UNSUPPORTED');
    const display = parseSfItem('%"f%c3%bc%c3%bc"');
    expect(display.ok ? 'ok' : display.code).toBe('SF_TYPE_UNSUPPORTED');
    const param = parseSfList('a;d=@1');
    expect(param.ok ? 'ok' : param.code).toBe('SF_TYPE_UNSUPPORTED');
  });

  it('rejects an RFC 9651 type that a later member or parameter with the same key hid (fuzz:diff finding)', () => {
    const hidden = 'a=(1);x=%"caf%c3%a9", a=(1)';
    expect(parseSfDictionary(hidden)).toMatchObject({ ok: false, code: 'SF_TYPE_UNSUPPORTED' });
    expect(parseSfDictionary(hidden, { allowDuplicateKeys: true }).ok).toBe(false);
    expect(parseSfDictionary('a=1;x=@1767225600;x=2', { allowDuplicateKeys: true }).ok).toBe(false);
    // Inside an sf-string the same characters are text.
    expect(parseSfDictionary('a="@ and %\\"";x="%\\"x"').ok).toBe(true);
  });

  it('detects duplicate Dictionary keys that the library would silently merge (last wins)', () => {
    expect(findDuplicateDictionaryKey('a=1,b=2,a=3')).toBe('a');
    expect(findDuplicateDictionaryKey('a="x,a=1", b=2')).toBeUndefined();
    expect(findDuplicateDictionaryKey('a="x\\",a", a=2')).toBe('a');
    const r = parseSfDictionary('sig1=:AAAA:, sig1=:BBBB:');
    expect(r.ok ? 'ok' : r.code).toBe('SF_DUPLICATE_KEY');
    expect(parseSfDictionary('a=1,b=2,a=3', { allowDuplicateKeys: true }).ok).toBe(true);
  });

  it('fails (typed result, no throw) on malformed input from structured-field-tests', () => {
    for (const bad of [
      'a =1',
      'a=1, b= 2',
      'a=1,',
      'A=1',
      'a=:_-Ah:',
      'a=:aGVsb G8=:',
      'a=:=aGVsbG8=:',
      'a="\u00e9"',
    ]) {
      const r = parseSfDictionary(bad);
      expect(r.ok, bad).toBe(false);
    }
    expect(parseSfItem(' \t 1').ok).toBe(false);
    expect(parseSfList('text/plain ;q=0.5').ok).toBe(false);
  });

  it('parses the lenient byte-sequence forms RFC 8941 allows and rejects over-padding', () => {
    expect(parseSfItem(':aGVsbG8:').ok).toBe(true);
    expect(parseSfItem(':aGVsbG8==:').ok).toBe(false);
  });

  it('refuses to serialise Decimals (the library serialiser is not conformant)', () => {
    const r = parseSfItem('1.5');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(serializeSf('item', r.value).ok).toBe(false);
    const d = parseSfDictionary('a=1,    b=2;x=1;y=2,   c=(a   b   c)');
    expect(d.ok && serializeSf('dictionary', d.value)).toEqual({
      ok: true,
      value: 'a=1, b=2;x=1;y=2, c=(a b c)',
    });
  });
});

describe('isCanonicalBase64: the one-pass check the Signature fast path uses', () => {
  const pattern = new RegExp(`^${CANONICAL_BASE64_PATTERN}$`);
  it('agrees with CANONICAL_BASE64_PATTERN on encodings, their near misses and random text', () => {
    const alphabet = fc.constantFrom(...'AQgwBb09+/=-_ :'.split(''));
    const nearMiss = fc
      .tuple(
        fc.uint8Array({ maxLength: 70 }),
        fc.nat(),
        alphabet,
        fc.constantFrom('insert', 'replace', 'delete'),
      )
      .map(([bytes, at, ch, op]) => {
        const text = Buffer.from(bytes).toString('base64');
        const i = text.length === 0 ? 0 : at % text.length;
        return op === 'insert'
          ? text.slice(0, i) + ch + text.slice(i)
          : op === 'replace'
            ? text.slice(0, i) + ch + text.slice(i + 1)
            : text.slice(0, i) + text.slice(i + 1);
      });
    fc.assert(
      fc.property(
        fc.oneof(
          nearMiss,
          fc.string({ maxLength: 12 }),
          fc.uint8Array({ maxLength: 70 }).map((b) => Buffer.from(b).toString('base64')),
        ),
        (text) => {
          expect(isCanonicalBase64(text), JSON.stringify(text)).toBe(pattern.test(text));
        },
      ),
      { seed: 12, numRuns: 3000 },
    );
    for (const text of [
      '',
      'AA==',
      'AB==',
      'AAA=',
      'AAB=',
      'A===',
      '====',
      'AAAA',
      'AAA',
      'AA=A',
      'é===',
    ]) {
      expect(isCanonicalBase64(text), text).toBe(pattern.test(text));
    }
  });
});
