// The profile's precomputed signature-base template gives exactly what the generic RFC 9421 engine gives for the
// profile's eight components: the same base for ordinary requests, the same error code and message for odd ones.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HttpRequest } from '../src/http/message.js';
import { createProfileSignatureBase } from '../src/profile/profile-signature-base.js';
import { serviceProfile } from '../src/profile/service-profile.js';
import { indexFieldLines } from '../src/signatures/field-values.js';
import {
  createSignatureBase,
  type PreparedSignatureParams,
} from '../src/signatures/signature-base.js';
import { parseSignatureInput } from '../src/signatures/signature-fields.js';

const INPUT =
  'sig1=("@method" "@path" "@authority" "content-digest" "content-type" "content-length" "x-application-id" "x-application-secret");created=1767225600;keyid="key-1";alg="ed25519";nonce="n-1"';
const parsed = parseSignatureInput(INPUT);
if (!parsed.ok) throw new Error(parsed.message);
const prepared: PreparedSignatureParams = parsed.value.get('sig1')!;

function generic(request: HttpRequest) {
  return createSignatureBase(
    request,
    serviceProfile.coveredComponents,
    prepared,
    serviceProfile.signatureBaseOptions,
    indexFieldLines(request.headers),
  );
}
/** The template's result without the bytes it may carry, after checking they are exactly the base's UTF-8 encoding. */
function template(request: HttpRequest) {
  const { bytes, ...result } = createProfileSignatureBase(
    request,
    indexFieldLines(request.headers),
    prepared,
  );
  if (bytes !== undefined) {
    expect(result.ok).toBe(true);
    if (result.ok) expect(Buffer.from(bytes).equals(Buffer.from(result.base, 'utf8'))).toBe(true);
  }
  return result;
}

const FIELDS = [
  'Content-Digest',
  'Content-Type',
  'Content-Length',
  'X-Application-Id',
  'X-Application-Secret',
  'X-Other',
];
// Values: ordinary ones mostly, then CR, LF, NUL, obs-fold, surrounding whitespace, non-ASCII.
const value = fc.oneof(
  { weight: 6, arbitrary: fc.stringMatching(/^[\x21-\x7e][\x20-\x7e]{0,30}$/) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'a\rb',
      'a\nb',
      'a\0b',
      'a\r\n b',
      '  padded\t',
      '',
      'café',
      '\u{1F600}',
    ),
  },
);
const fieldLine = fc.tuple(fc.constantFrom(...FIELDS), value);
const url = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom(
      'https://api.example.com/api/payouts',
      'http://API.example.com:8080/a/b?x=1&y=%20',
      'https://h:443/p?',
      'http://h:80/',
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'https://api.example.com/p\nq',
      'ftp://h/',
      'not a url',
      'https://u@h/',
      'https://h:99999/',
      'https://h/caf\u00e9',
      'https://[::1]:8443/x',
    ),
  },
);
const method = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('POST', 'GET', 'DELETE', 'PUT') },
  { weight: 1, arbitrary: fc.constantFrom('PO\nST', 'P\u00d6ST', '') },
);

describe('createProfileSignatureBase: equal to createSignatureBase with the profile', () => {
  it('on random requests: ordinary, missing or repeated fields, CR/LF/NUL, non-ASCII, unusable URIs', () => {
    let ok = 0;
    let failed = 0;
    fc.assert(
      fc.property(method, url, fc.array(fieldLine, { maxLength: 8 }), (m, u, headers) => {
        const request: HttpRequest = { method: m, url: u, headers, body: new Uint8Array() };
        const expected = generic(request);
        expect(template(request)).toEqual(expected);
        if (expected.ok) ok++;
        else failed++;
      }),
      { numRuns: 1500 },
    );
    expect(ok).toBeGreaterThan(100);
    expect(failed).toBeGreaterThan(50);
  });

  it('a signed-request shape: every line in order, the @signature-params line last, no trailing LF', () => {
    const request: HttpRequest = {
      method: 'POST',
      url: 'https://api.example.com:443/api/payouts?x=1',
      headers: [
        ['Content-Type', 'application/vnd.service.v1.0+json'],
        ['Content-Digest', 'sha-512=:AAAA:'],
        ['X-Application-Id', 'app-1'],
      ],
      body: new Uint8Array(),
    };
    const r = template(request);
    expect(r).toEqual(generic(request));
    expect(r.ok && r.base).toBe(
      [
        '"@method": POST',
        '"@path": /api/payouts?x=1',
        '"@authority": api.example.com',
        '"content-digest": sha-512=:AAAA:',
        '"content-type": application/vnd.service.v1.0+json',
        '"content-length": ',
        '"x-application-id": app-1',
        '"x-application-secret": ',
        `"@signature-params": ${prepared.signatureParams}`,
      ].join('\n'),
    );
  });
});
