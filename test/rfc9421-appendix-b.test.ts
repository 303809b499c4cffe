import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { toFieldLines, type HttpRequest } from '../src/http/message.js';
import { backends } from '../src/ed25519/index.js';
import {
  componentIdentifier,
  componentIdentifiers,
} from '../src/signatures/component-identifier.js';
import { createSignatureBase } from '../src/signatures/signature-base.js';
import { signSignatureBase, verifySignatureBase } from '../src/signatures/create-signature.js';
import {
  parseSignature,
  parseSignatureInput,
  serializeSignature,
  serializeSignatureInput,
} from '../src/signatures/signature-fields.js';
import { computeContentDigest } from '../src/digest/content-digest.js';
import { loadTestKeys } from './fixtures/keys.js';
import { B26_BASE } from './fixtures/rfc9421-b26.js';

const enc = (s: string) => new TextEncoder().encode(s);

// RFC 9421 Appendix B.2 test-request (body without a trailing LF).
const testRequest: HttpRequest = {
  method: 'POST',
  url: 'https://example.com/foo?param=Value&Pet=dog',
  headers: toFieldLines({
    Host: 'example.com',
    Date: 'Tue, 20 Apr 2021 02:07:55 GMT',
    'Content-Type': 'application/json',
    'Content-Digest':
      'sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:',
    'Content-Length': '18',
  }),
  body: enc('{"hello": "world"}'),
};

const B26_INPUT =
  'sig-b26=("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"';
const B26_SIGNATURE =
  'sig-b26=:wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==:';

describe('RFC 9421 Appendix B.2.6: signing a request using ed25519', () => {
  const key = loadTestKeys().rfc9421Ed25519;
  const components = componentIdentifiers([
    'date',
    '@method',
    '@path',
    '@authority',
    'content-type',
    'content-length',
  ]);
  const params = new Map<string, string | number>([
    ['created', 1618884473],
    ['keyid', 'test-key-ed25519'],
  ]);

  it('rebuilds the signature base byte for byte (284 bytes, no trailing LF)', () => {
    expect(computeContentDigest(testRequest.body)).toBe(testRequest.headers[3]![1]);
    const r = createSignatureBase(testRequest, components, params);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.base).toBe(B26_BASE);
    expect(Buffer.byteLength(r.base)).toBe(284);
    expect(createHash('sha256').update(r.base).digest('hex')).toBe(
      'e6402577f54303accfda63dfbde1a7b8c5e5e6f3f7898637b7d78dc07ee1896a',
    );
  });

  it('serialises Signature-Input exactly', () => {
    expect(serializeSignatureInput(new Map([['sig-b26', { components, params }]]))).toBe(B26_INPUT);
  });

  for (const backend of backends) {
    it(`re-creates the deterministic signature exactly (${backend.name})`, () => {
      const signature = signSignatureBase(B26_BASE, key.privateKey, backend);
      expect(serializeSignature(new Map([['sig-b26', signature]]))).toBe(B26_SIGNATURE);
      expect(verifySignatureBase(B26_BASE, signature, key.publicKey, backend)).toBe(true);
      expect(verifySignatureBase(`${B26_BASE}\n`, signature, key.publicKey, backend)).toBe(false);
    });
  }

  it('parses the published fields and rebuilds the base from the parsed Signature-Input', () => {
    const input = parseSignatureInput(B26_INPUT);
    const sig = parseSignature(B26_SIGNATURE);
    expect(input.ok && sig.ok).toBe(true);
    if (!input.ok || !sig.ok) return;
    const member = input.value.get('sig-b26')!;
    expect(member.signatureParams).toBe(B26_INPUT.slice('sig-b26='.length));
    const r = createSignatureBase(testRequest, member.components, member.params);
    expect(r.ok && r.base).toBe(B26_BASE);
    expect(
      verifySignatureBase(B26_BASE, sig.value.get('sig-b26')!, key.publicKey, backends[0]!),
    ).toBe(true);
  });

  it('the base64url form (no padding) of the same bytes is rejected; so is any base64url character', () => {
    expect(
      parseSignature(
        'sig-b26=:wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw:',
      ),
    ).toMatchObject({ ok: false, code: 'SIGNATURE_MALFORMED' });
    expect(
      parseSignature(
        'sig-b26=:wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKR_w==:',
      ),
    ).toMatchObject({ ok: false, code: 'SIGNATURE_MALFORMED' });
  });
});

describe('RFC 9421 Appendix B.2.2: @query-param line', () => {
  it('builds the published base (minus the RSA-PSS signature, which is not deterministic)', () => {
    const input = parseSignatureInput(
      'sig-b22=("@authority" "content-digest" "@query-param";name="Pet");created=1618884473;keyid="test-key-rsa-pss";tag="header-example"',
    );
    expect(input.ok).toBe(true);
    if (!input.ok) return;
    const m = input.value.get('sig-b22')!;
    const r = createSignatureBase(testRequest, m.components, m.params);
    expect(r.ok && r.base).toBe(
      [
        '"@authority": example.com',
        '"content-digest": sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:',
        '"@query-param";name="Pet": dog',
        '"@signature-params": ("@authority" "content-digest" "@query-param";name="Pet");created=1618884473;keyid="test-key-rsa-pss";tag="header-example"',
      ].join('\n'),
    );
  });
});

describe('RFC 9421 Appendix B.4: HTTP message transformations', () => {
  const key = loadTestKeys().rfc9421Ed25519;
  const INPUT =
    'transform=("@method" "@path" "@authority" "accept");created=1618884473;keyid="test-key-ed25519"';
  const SIGNATURE =
    'transform=:ZT1kooQsEHpZ0I1IjCqtQppOmIqlJPeo7DHR3SoMn0s5JZ1eRGS0A+vyYP9t/LXlh5QMFFQ6cpLt2m0pmj3NDA==:';
  const original: HttpRequest = {
    method: 'GET',
    url: 'https://example.org/demo?name1=Value1&Name2=value2',
    headers: [
      ['Host', 'example.org'],
      ['Date', 'Fri, 15 Jul 2022 14:24:55 GMT'],
      ['Accept', 'application/json'],
      ['Accept', '*/*'],
    ],
    body: new Uint8Array(),
  };
  const verify = (request: HttpRequest): boolean => {
    const input = parseSignatureInput(INPUT);
    const sig = parseSignature(SIGNATURE);
    if (!input.ok || !sig.ok) throw new Error('published fields must parse');
    const m = input.value.get('transform')!;
    const r = createSignatureBase(request, m.components, m.params);
    if (!r.ok) return false;
    return verifySignatureBase(r.base, sig.value.get('transform')!, key.publicKey, backends[0]!);
  };

  it('builds the published base and re-creates the signature', () => {
    const input = parseSignatureInput(INPUT);
    if (!input.ok) throw new Error(input.message);
    const m = input.value.get('transform')!;
    const r = createSignatureBase(original, m.components, m.params);
    expect(r.ok && r.base).toBe(
      '"@method": GET\n"@path": /demo\n"@authority": example.org\n"accept": application/json, */*\n"@signature-params": ("@method" "@path" "@authority" "accept");created=1618884473;keyid="test-key-ed25519"',
    );
    if (!r.ok) return;
    for (const backend of backends) {
      expect(
        serializeSignature(
          new Map([['transform', signSignatureBase(r.base, key.privateKey, backend)]]),
        ),
      ).toBe(SIGNATURE);
    }
  });

  it('valid: uncovered query parameter and Accept-Language added', () => {
    expect(
      verify({
        ...original,
        url: `${original.url}&param=added`,
        headers: [...original.headers, ['Accept-Language', 'en-US,en;q=0.5']],
      }),
    ).toBe(true);
  });
  it('valid: Date dropped, Referer added, Accept on one line', () => {
    expect(
      verify({
        ...original,
        headers: [
          ['Host', 'example.org'],
          ['Referer', 'https://developer.example.org/demo'],
          ['Accept', 'application/json, */*'],
        ],
      }),
    ).toBe(true);
  });
  it('valid: field lines reordered, the two Accept lines keeping their order', () => {
    expect(
      verify({
        ...original,
        headers: [
          ['Accept', 'application/json'],
          ['Date', 'Fri, 15 Jul 2022 14:24:55 GMT'],
          ['Accept', '*/*'],
          ['Host', 'example.org'],
        ],
      }),
    ).toBe(true);
  });
  it('invalid: POST and Host example.com', () => {
    expect(
      verify({
        ...original,
        method: 'POST',
        url: 'https://example.com/demo?name1=Value1&Name2=value2',
        headers: [
          ['Host', 'example.com'],
          ['Accept', 'application/json'],
          ['Accept', '*/*'],
        ],
      }),
    ).toBe(false);
  });
  it('invalid: the two Accept lines swapped', () => {
    expect(
      verify({
        ...original,
        headers: [
          ['Host', 'example.org'],
          ['Accept', '*/*'],
          ['Accept', 'application/json'],
        ],
      }),
    ).toBe(false);
  });
});

describe('RFC 9421 §2.4-style extra Ed25519 vector (pyauth B27: B.2.6 plus tag)', () => {
  it('re-creates the deterministic signature', () => {
    const key = loadTestKeys().rfc9421Ed25519;
    const input = parseSignatureInput(
      'sig-b27=("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519";tag="tag-b27"',
    );
    if (!input.ok) throw new Error(input.message);
    const m = input.value.get('sig-b27')!;
    const r = createSignatureBase(testRequest, m.components, m.params);
    if (!r.ok) throw new Error(r.message);
    expect(
      serializeSignature(
        new Map([['sig-b27', signSignatureBase(r.base, key.privateKey, backends[0]!)]]),
      ),
    ).toBe(
      'sig-b27=:pDPhW4vxi28JZfogrM4NLeYhZKW+TYDko8KtzCFoTOFeGCCSivD0iVcIuT9gqM6AtGfgzqQU/GaoLqh8sC6bCg==:',
    );
  });
  it('componentIdentifier serialises parameters', () => {
    expect(componentIdentifier('@query-param', { name: 'Pet' }).serialized).toBe(
      '"@query-param";name="Pet"',
    );
  });
});
