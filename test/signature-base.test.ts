import { describe, expect, it } from 'vitest';
import type { HttpRequest } from '../src/http/message.js';
import {
  componentIdentifier,
  componentIdentifiers,
} from '../src/signatures/component-identifier.js';
import {
  createSignatureBase,
  type SignatureBaseOptions,
} from '../src/signatures/signature-base.js';
import { parseSignatureInput, parseSignature } from '../src/signatures/signature-fields.js';
import { parseTargetUri, normalizeAuthority } from '../src/signatures/target-uri.js';

const PARAMS = new Map([['created', 1]]);

function req(url: string, headers: Array<[string, string]> = [], method = 'GET'): HttpRequest {
  return { method, url, headers, body: new Uint8Array() };
}

/** The value line of one component (the first line of the base). */
function line(
  request: HttpRequest,
  name: string,
  params: Record<string, string | boolean> = {},
  options?: SignatureBaseOptions,
): string {
  const r = createSignatureBase(request, [componentIdentifier(name, params)], PARAMS, options);
  if (!r.ok) throw new Error(`${r.code}: ${r.message}`);
  return r.base.split('\n')[0]!;
}

function code(
  request: HttpRequest,
  name: string,
  params: Record<string, string | boolean> = {},
  options?: SignatureBaseOptions,
): string {
  const r = createSignatureBase(request, [componentIdentifier(name, params)], PARAMS, options);
  return r.ok ? 'ok' : r.code;
}

describe('RFC 9421 §2.1: HTTP field canonicalisation', () => {
  const fields = req('https://www.example.com/', [
    ['Host', 'www.example.com'],
    ['Date', 'Tue, 20 Apr 2021 02:07:56 GMT'],
    ['X-OWS-Header', '   Leading and trailing whitespace.   '],
    ['X-Obs-Fold-Header', 'Obsolete\r\n    line folding.'],
    ['Cache-Control', 'max-age=60'],
    ['Cache-Control', '   must-revalidate'],
    ['Example-Dict', ' a=1,    b=2;x=1;y=2,   c=(a   b   c)'],
    ['X-Empty-Header', ''],
  ]);
  it.each([
    ['host', '"host": www.example.com'],
    ['date', '"date": Tue, 20 Apr 2021 02:07:56 GMT'],
    ['x-ows-header', '"x-ows-header": Leading and trailing whitespace.'],
    ['x-obs-fold-header', '"x-obs-fold-header": Obsolete line folding.'],
    ['cache-control', '"cache-control": max-age=60, must-revalidate'],
    ['example-dict', '"example-dict": a=1,    b=2;x=1;y=2,   c=(a   b   c)'],
    ['x-empty-header', '"x-empty-header": '],
  ])('%s', (name, expected) => {
    expect(line(fields, name)).toBe(expected);
  });
  it('"sf" re-serialises a known structured field', () => {
    expect(
      line(fields, 'example-dict', { sf: true }, { fieldTypes: { 'example-dict': 'dictionary' } }),
    ).toBe('"example-dict";sf: a=1, b=2;x=1;y=2, c=(a b c)');
    expect(code(fields, 'example-dict', { sf: true })).toBe('COMPONENT_PARAMETER_INVALID');
  });

  it('§2.1.2 dictionary members via "key"', () => {
    const r = req('https://e/', [['Example-Dict', '  a=1, b=2;x=1;y=2, c=(a   b    c), d']]);
    expect(line(r, 'example-dict', { key: 'a' })).toBe('"example-dict";key="a": 1');
    expect(line(r, 'example-dict', { key: 'd' })).toBe('"example-dict";key="d": ?1');
    expect(line(r, 'example-dict', { key: 'b' })).toBe('"example-dict";key="b": 2;x=1;y=2');
    expect(line(r, 'example-dict', { key: 'c' })).toBe('"example-dict";key="c": (a b c)');
    expect(code(r, 'example-dict', { key: 'zz' })).toBe('DICTIONARY_MEMBER_MISSING');
  });

  it('§2.1.3 binary-wrapped fields via "bs"', () => {
    const two = req('https://e/', [
      ['Example-Header', 'value, with, lots'],
      ['Example-Header', 'of, commas'],
    ]);
    expect(line(two, 'example-header', { bs: true })).toBe(
      '"example-header";bs: :dmFsdWUsIHdpdGgsIGxvdHM=:, :b2YsIGNvbW1hcw==:',
    );
    const one = req('https://e/', [['Example-Header', 'value, with, lots, of, commas']]);
    expect(line(one, 'example-header', { bs: true })).toBe(
      '"example-header";bs: :dmFsdWUsIHdpdGgsIGxvdHMsIG9mLCBjb21tYXM=:',
    );
    expect(code(one, 'example-header', { bs: true, sf: true })).toBe('COMPONENT_PARAMETER_INVALID');
  });

  it('a missing field is an error (RFC) or an empty value (option)', () => {
    const r = req('https://e/');
    expect(code(r, 'content-type')).toBe('FIELD_MISSING');
    expect(line(r, 'content-type', {}, { missingField: 'empty' })).toBe('"content-type": ');
  });

  it('LF, CR or NUL inside a field value is an error; non-ASCII bases are errors', () => {
    expect(code(req('https://e/', [['X-A', 'a\nb']]), 'x-a')).toBe('FIELD_VALUE_INVALID');
    expect(code(req('https://e/', [['X-A', 'a\rb']]), 'x-a')).toBe('FIELD_VALUE_INVALID');
    expect(code(req('https://e/', [['X-A', 'a\0b']]), 'x-a')).toBe('FIELD_VALUE_INVALID');
    expect(code(req('https://e/', [['X-A', 'caf\u00e9']]), 'x-a')).toBe('BASE_NOT_ASCII');
  });

  it('component names must be lowercase; unknown and misplaced parameters are errors', () => {
    const r = req('https://e/', [['X-A', '1']]);
    expect(code(r, 'X-A')).toBe('COMPONENT_NAME_INVALID');
    expect(code(r, 'x-a', { foo: true })).toBe('COMPONENT_PARAMETER_UNKNOWN');
    expect(code(r, 'x-a', { req: true })).toBe('COMPONENT_PARAMETER_INVALID');
    expect(code(r, 'x-a', { tr: true })).toBe('COMPONENT_PARAMETER_INVALID');
    expect(code(r, '@method', { sf: true })).toBe('COMPONENT_PARAMETER_INVALID');
    expect(code(r, '@method', { zz: true })).toBe('COMPONENT_PARAMETER_UNKNOWN');
    expect(code(r, '@status')).toBe('COMPONENT_UNKNOWN');
    expect(code(r, '@signature-params')).toBe('COMPONENT_UNKNOWN');
    expect(code(r, '@nonsense')).toBe('COMPONENT_UNKNOWN');
    const dup = createSignatureBase(r, componentIdentifiers(['x-a', 'x-a']), PARAMS);
    expect(dup.ok ? 'ok' : dup.code).toBe('COMPONENT_DUPLICATE');
  });

  it('a header named like a derived component never satisfies it', () => {
    expect(line(req('https://e.example/p', [['@method', 'POST']]), '@method')).toBe(
      '"@method": GET',
    );
  });

  it('several lines of a single-valued field are an error when the option lists it', () => {
    const r = req('https://e/', [
      ['Content-Type', 'a'],
      ['Content-Type', 'b'],
    ]);
    expect(line(r, 'content-type')).toBe('"content-type": a, b');
    expect(code(r, 'content-type', {}, { singleValuedFields: ['content-type'] })).toBe(
      'FIELD_DUPLICATED',
    );
  });
});

describe('RFC 9421 §2.2: derived components', () => {
  const r = req('https://www.example.com/path?param=value', [], 'POST');
  it.each([
    ['@method', '"@method": POST'],
    ['@target-uri', '"@target-uri": https://www.example.com/path?param=value'],
    ['@authority', '"@authority": www.example.com'],
    ['@scheme', '"@scheme": https'],
    ['@request-target', '"@request-target": /path?param=value'],
    ['@path', '"@path": /path'],
    ['@query', '"@query": ?param=value'],
  ])('%s', (name, expected) => expect(line(r, name)).toBe(expected));

  it('@scheme http; @query variants; @method case kept', () => {
    expect(line(req('http://www.example.com/'), '@scheme')).toBe('"@scheme": http');
    expect(line(req('https://e/path?param=value&foo=bar&baz=bat%2Dman'), '@query')).toBe(
      '"@query": ?param=value&foo=bar&baz=bat%2Dman',
    );
    expect(line(req('https://e/path?queryString'), '@query')).toBe('"@query": ?queryString');
    expect(line(req('https://e/path'), '@query')).toBe('"@query": ?');
    expect(line(req('https://e/p', [], 'patch'), '@method')).toBe('"@method": patch');
  });

  it('@path is read from the raw URL: dot segments and percent-encoding kept, empty path is /', () => {
    expect(line(req('https://e/a/./b/../c%7e'), '@path')).toBe('"@path": /a/./b/../c%7e');
    expect(line(req('https://e'), '@path')).toBe('"@path": /');
    expect(line(req('https://e?x=1'), '@path')).toBe('"@path": /');
    expect(line(req('https://e/p#frag'), '@target-uri')).toBe('"@target-uri": https://e/p');
  });

  it('@authority lowercases, drops the scheme default port, keeps others and IPv6 brackets', () => {
    expect(line(req('https://Example.COM:443/'), '@authority')).toBe('"@authority": example.com');
    expect(line(req('http://example.com:80/'), '@authority')).toBe('"@authority": example.com');
    expect(line(req('https://example.com:80/'), '@authority')).toBe('"@authority": example.com:80');
    expect(line(req('https://example.com:8443/'), '@authority')).toBe(
      '"@authority": example.com:8443',
    );
    expect(line(req('http://[2001:DB8::1]:80/'), '@authority')).toBe('"@authority": [2001:db8::1]');
    expect(
      line(req('https://example.com:80/'), '@authority', {}, { authorityPorts: 'omit-80-and-443' }),
    ).toBe('"@authority": example.com');
  });

  it('rejects malformed target URIs', () => {
    for (const url of [
      '/relative',
      'ftp://e/',
      'https://user@e/',
      'https://:443/',
      'https://e:99999/',
      'https://exa mple/',
      'https://bücher.example/',
      'not a url',
    ]) {
      expect(code(req(url), '@method'), url).toBe('TARGET_URI_INVALID');
    }
    const parts = parseTargetUri('https://E.example:0443/x');
    expect(parts.ok && normalizeAuthority(parts.value)).toBe('e.example');
  });

  it('§2.2.8 @query-param', () => {
    const q = req('https://e/path?param=value&foo=bar&baz=batman&qux=');
    expect(line(q, '@query-param', { name: 'baz' })).toBe('"@query-param";name="baz": batman');
    expect(line(q, '@query-param', { name: 'qux' })).toBe('"@query-param";name="qux": ');
    expect(line(q, '@query-param', { name: 'param' })).toBe('"@query-param";name="param": value');
    const enc = req(
      'https://e/p?var=this%20is%20a%20big%0Amultiline%20value&bar=with+plus+whitespace&fa%C3%A7ade%22%3A%20=something',
    );
    expect(line(enc, '@query-param', { name: 'var' })).toBe(
      '"@query-param";name="var": this%20is%20a%20big%0Amultiline%20value',
    );
    expect(line(enc, '@query-param', { name: 'bar' })).toBe(
      '"@query-param";name="bar": with%20plus%20whitespace',
    );
    expect(line(enc, '@query-param', { name: 'fa%C3%A7ade%22%3A%20' })).toBe(
      '"@query-param";name="fa%C3%A7ade%22%3A%20": something',
    );
    expect(code(q, '@query-param', { name: 'nope' })).toBe('QUERY_PARAM_MISSING');
    expect(code(req('https://e/p?a=1&a=2'), '@query-param', { name: 'a' })).toBe(
      'QUERY_PARAM_REPEATED',
    );
    expect(code(q, '@query-param')).toBe('COMPONENT_PARAMETER_INVALID');
    expect(line(req("https://e/p?x=!'()~*"), '@query-param', { name: 'x' })).toBe(
      '"@query-param";name="x": %21%27%28%29%7E*',
    );
  });
});

describe('RFC 9421 §2.3 and §4: Signature-Input and Signature parsing', () => {
  it('keeps parameter order as received and re-serialises strictly', () => {
    const r = parseSignatureInput(
      'sig1=( "@method"   "@path" );keyid="k";created=1;alg="ed25519";x=tok',
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const m = r.value.get('sig1')!;
    expect([...m.params.keys()]).toEqual(['keyid', 'created', 'alg', 'x']);
    expect(m.signatureParams).toBe('("@method" "@path");keyid="k";created=1;alg="ed25519";x=tok');
  });
  it('types are enforced', () => {
    expect(parseSignatureInput('sig1=("@method");created=1.5')).toMatchObject({
      ok: false,
      code: 'SIGNATURE_INPUT_MALFORMED',
    });
    expect(parseSignatureInput('sig1=("@method");keyid=abc')).toMatchObject({
      ok: false,
      code: 'SIGNATURE_INPUT_MALFORMED',
    });
    expect(parseSignatureInput('sig1=("@method");created="1"')).toMatchObject({
      ok: false,
      code: 'SIGNATURE_INPUT_MALFORMED',
    });
    expect(parseSignatureInput('sig1=(@method)')).toMatchObject({
      ok: false,
      code: 'SIGNATURE_INPUT_MALFORMED',
    });
    expect(parseSignatureInput('sig1="@method"')).toMatchObject({
      ok: false,
      code: 'SIGNATURE_INPUT_MALFORMED',
    });
    expect(parseSignatureInput('sig1=("@method");created=@1618884473')).toMatchObject({
      ok: false,
      code: 'SIGNATURE_INPUT_MALFORMED',
    });
    expect(parseSignature('sig1=("a")')).toMatchObject({ ok: false, code: 'SIGNATURE_MALFORMED' });
    expect(parseSignature('sig1="abc"')).toMatchObject({ ok: false, code: 'SIGNATURE_MALFORMED' });
  });
  it('a duplicated label is reported, not silently merged', () => {
    expect(
      parseSignatureInput('sig1=("@method");created=1, sig1=("@path");created=2'),
    ).toMatchObject({ ok: false, code: 'LABEL_DUPLICATED' });
    expect(parseSignature('sig1=:AAAA:, sig1=:BBBB:')).toMatchObject({
      ok: false,
      code: 'LABEL_DUPLICATED',
    });
  });
});
