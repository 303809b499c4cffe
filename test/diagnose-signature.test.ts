// The signature diagnosis names each client mistake from a request signed by a deliberately mis-signing client:
// the client signs with the library, then breaks one thing in the base it signs (or two).
import { describe, expect, it } from 'vitest';
import {
  diagnoseContentDigest,
  diagnoseSignature,
  diffBases,
  type SignatureMistakeId,
} from '../conformance/signatures/diagnose-signature.js';
import { computeContentDigest } from '../src/digest/content-digest.js';
import { nodeBackend } from '../src/ed25519/node-backend.js';
import type { HttpRequest } from '../src/http/message.js';
import { applySignedHeaders, signRequest } from '../src/profile/sign-request.js';
import { signSignatureBase } from '../src/signatures/create-signature.js';
import { serializeSignature } from '../src/signatures/signature-fields.js';
import { generateEd25519PrivateKey } from '../src/keys/ed25519-keys.js';
import { loadTestKeys } from './fixtures/keys.js';

const key = loadTestKeys().clientEd25519;
const SECRET = 'test-only-secret-d1agn0se';
const credentials = {
  applicationId: '6f1c1d2e-3b4a-4c5d-8e9f-0a1b2c3d4e5f',
  applicationSecret: SECRET,
  keyId: 'test-key',
  privateKey: key.privateKey,
};
const PAYOUT = 'application/vnd.service.v1.0+json';
const body = JSON.stringify(
  { amount: 10.5, reference: 'Zoë payout', destination: { holderName: 'Jane Payee' } },
  null,
  2,
);

interface Made {
  readonly request: HttpRequest;
  readonly base: string;
}

/** A correctly signed request (the library's headers), before any mistake. */
function signed(request: HttpRequest): Made {
  const result = signRequest(request, credentials, {
    created: Math.floor(Date.now() / 1000),
    nonce: 'nonce-1',
  });
  return { request: applySignedHeaders(request, result.headers), base: result.signatureBase };
}

function post(url: string, text = body, contentType = PAYOUT): Made {
  return signed({
    method: 'POST',
    url,
    headers: [
      ['Host', new URL(url).host],
      ['Content-Type', contentType],
    ],
    body: new TextEncoder().encode(text),
  });
}

/** The client signs `mutate(base)` instead of the base, and sends the request otherwise unchanged. */
function misSign(
  made: Made,
  mutate: (base: string) => string,
  finalise: (r: HttpRequest) => HttpRequest = (r) => r,
): HttpRequest {
  const base = mutate(made.base);
  const signature = signSignatureBase(base, key.privateKey, nodeBackend);
  return finalise(
    applySignedHeaders(made.request, {
      signature: serializeSignature(new Map([['sig1', signature]])),
    }),
  );
}

const line = (base: string, name: string, value: string): string =>
  base.replace(new RegExp(`^("${name}": ).*$`, 'm'), `$1${value}`);

function expectMistake(
  request: HttpRequest,
  mistakes: readonly SignatureMistakeId[],
  requirement: string,
): void {
  const d = diagnoseSignature(request, { publicKey: key.publicKey });
  expect(d.status).toBe('found');
  if (d.status !== 'found') return;
  expect(d.mistakes).toEqual(mistakes);
  expect(d.requirement).toBe(requirement);
  expect(d.differences.length).toBeGreaterThan(0);
  expect(JSON.stringify(d)).not.toContain(SECRET);
}

describe('diagnoseSignature (spec: Authentication, Step 2 signature base)', () => {
  it('a correct signature verifies at the first attempt', () => {
    const made = post('http://127.0.0.1:8080/api/payouts');
    expect(diagnoseSignature(made.request, { publicKey: key.publicKey })).toEqual({
      status: 'verified',
      attempts: 1,
    });
  });

  it('@path signed without the query: names the mistake and shows the @path lines', () => {
    const made = post('http://127.0.0.1:8080/api/payouts?dryRun=true&x=1');
    const d = diagnoseSignature(
      misSign(made, (b) => line(b, '@path', '/api/payouts')),
      { publicKey: key.publicKey },
    );
    expect(d.status === 'found' && d.mistakes).toEqual(['path-without-query']);
    expect(d.status === 'found' && d.differences).toEqual([
      {
        line: 2,
        expected: '"@path": /api/payouts?dryRun=true&x=1',
        signed: '"@path": /api/payouts',
      },
    ]);
    expect(d.status === 'found' && d.requirement).toBe('SIG-BASE-PATH');
  });

  it('@authority signed without the port, and with a default port', () => {
    expectMistake(
      misSign(post('http://127.0.0.1:8080/api/payouts'), (b) => line(b, '@authority', '127.0.0.1')),
      ['authority-without-port'],
      'SIG-BASE-AUTHORITY',
    );
    expectMistake(
      misSign(post('https://api.example.com/api/payouts'), (b) =>
        line(b, '@authority', 'api.example.com:443'),
      ),
      ['authority-with-port'],
      'SIG-BASE-AUTHORITY',
    );
  });

  it('content-length signed as the UTF-16 length of the text instead of the byte length', () => {
    expect(body.length).not.toBe(Buffer.byteLength(body)); // the body carries a non-ASCII character
    expectMistake(
      misSign(post('http://127.0.0.1:8080/api/payouts'), (b) =>
        line(b, 'content-length', String(body.length)),
      ),
      ['content-length-differs'],
      'SIG-BASE-CONTENT-TYPE-LENGTH',
    );
  });

  it('content-type signed before the HTTP library added "; charset=utf-8"', () => {
    const made = post('http://127.0.0.1:8080/api/payouts');
    const request = misSign(
      made,
      (b) => b,
      (r) => ({
        ...r,
        headers: r.headers.map(
          ([n, v]) => [n, n === 'Content-Type' ? `${v}; charset=utf-8` : v] as const,
        ),
      }),
    );
    expectMistake(request, ['content-type-differs'], 'SIG-BASE-CONTENT-TYPE-LENGTH');
  });

  it('body re-serialised: the signed content-digest is of the compact JSON, the bytes sent are indented', () => {
    const made = post('http://127.0.0.1:8080/api/payouts');
    const compact = JSON.stringify(JSON.parse(body));
    const request = misSign(made, (b) =>
      line(b, 'content-digest', computeContentDigest(new TextEncoder().encode(compact))),
    );
    const d = diagnoseSignature(request, { publicKey: key.publicKey });
    expect(d.status === 'found' && d.mistakes).toEqual(['body-reserialised']);
    expect(d.status === 'found' && d.message).toContain('compact JSON');
    expect(d.status === 'found' && d.requirement).toBe('DIGEST-EXACT-BYTES');
  });

  it('parameters signed in another order than Signature-Input sends them', () => {
    const made = post('http://127.0.0.1:8080/api/payouts');
    const reorder = (b: string): string =>
      b.replace(
        /;created=(\d+);keyid="([^"]*)";alg="ed25519";nonce="([^"]*)"$/,
        ';alg="ed25519";created=$1;nonce="$3";keyid="$2"',
      );
    expectMistake(misSign(made, reorder), ['parameters-reordered'], 'SIG-BASE-PARAMS-LINE');
  });

  it('@signature-params signed with the "sig1=" label', () => {
    expectMistake(
      misSign(post('http://127.0.0.1:8080/api/payouts'), (b) =>
        b.replace('"@signature-params": ', '"@signature-params": sig1='),
      ),
      ['signature-params-with-label'],
      'SIG-BASE-PARAMS-LINE',
    );
  });

  it('CRLF line ends, and a trailing newline', () => {
    expectMistake(
      misSign(post('http://127.0.0.1:8080/api/payouts'), (b) => b.replace(/\n/g, '\r\n')),
      ['crlf-line-endings'],
      'SIG-BASE-LINE-FORMAT',
    );
    const d = diagnoseSignature(
      misSign(post('http://127.0.0.1:8080/api/payouts'), (b) => `${b}\n`),
      { publicKey: key.publicKey },
    );
    expect(d.status === 'found' && d.mistakes).toEqual(['trailing-newline']);
    expect(d.status === 'found' && d.differences).toEqual([{ line: 10, signed: '""' }]);
  });

  it('header names in the base written as sent (Title-Case)', () => {
    const titled = (b: string): string =>
      b.replace(
        /^"(content-[a-z]+|x-application-[a-z]+)"/gm,
        (_m, n: string) =>
          `"${n.replace(/(^|-)([a-z])/g, (_x, d: string, c: string) => d + c.toUpperCase())}"`,
      );
    expectMistake(
      misSign(post('http://127.0.0.1:8080/api/payouts'), titled),
      ['uppercase-header-names'],
      'SIG-BASE-LINE-FORMAT',
    );
  });

  it('a missing header line without its trailing space, or left out (bodyless GET)', () => {
    const made = signed({
      method: 'GET',
      url: 'http://127.0.0.1:8080/api/payouts/1',
      headers: [['Host', '127.0.0.1:8080']],
      body: new Uint8Array(),
    });
    expect(made.base).toContain('"content-digest": \n');
    expectMistake(
      misSign(made, (b) => b.replace(/": \n/g, '":\n')),
      ['empty-value-without-space'],
      'SIG-BASE-LINE-FORMAT',
    );
    expectMistake(
      misSign(made, (b) => b.replace(/^"content-(digest|type|length)": \n/gm, '')),
      ['empty-lines-omitted'],
      'SIG-BASE-LINE-FORMAT',
    );
  });

  it('@method signed in lower case', () => {
    expectMistake(
      misSign(post('http://127.0.0.1:8080/api/payouts'), (b) =>
        b.replace('"@method": POST', '"@method": post'),
      ),
      ['method-lowercase'],
      'SIG-BASE-METHOD',
    );
  });

  it('two mistakes at once: @path without the query and a trailing newline', () => {
    const made = post('http://127.0.0.1:8080/api/payouts?a=1');
    const d = diagnoseSignature(
      misSign(made, (b) => `${line(b, '@path', '/api/payouts')}\n`),
      { publicKey: key.publicKey },
    );
    expect(d.status).toBe('found');
    expect(d.status === 'found' && [...d.mistakes].sort()).toEqual([
      'path-without-query',
      'trailing-newline',
    ]);
  });

  it('a signature by another key is not explained by any mistake, within the attempt bound', () => {
    const made = post('http://127.0.0.1:8080/api/payouts?a=1');
    const other = signSignatureBase(made.base, generateEd25519PrivateKey(), nodeBackend);
    const request = applySignedHeaders(made.request, {
      signature: serializeSignature(new Map([['sig1', other]])),
    });
    const d = diagnoseSignature(request, { publicKey: key.publicKey });
    expect(d.status).toBe('unknown');
    expect(d.status === 'unknown' && d.attempts).toBeLessThanOrEqual(4000);
    expect(
      diagnoseSignature(request, { publicKey: key.publicKey, maxAttempts: 10 }).status ===
        'unknown',
    ).toBe(true);
  });

  it('hostile or unsigned requests are not diagnosable, never a throw', () => {
    const bare: HttpRequest = {
      method: 'POST',
      url: 'http://127.0.0.1/api/payouts',
      headers: [],
      body: new Uint8Array(),
    };
    expect(diagnoseSignature(bare, { publicKey: key.publicKey }).status).toBe('not-diagnosable');
    const junk: HttpRequest = {
      ...bare,
      headers: [
        ['Signature-Input', 'sig1=(("'],
        ['Signature', 'sig1=:AAAA:'],
      ],
    };
    expect(diagnoseSignature(junk, { publicKey: key.publicKey }).status).toBe('not-diagnosable');
    const badUrl = { ...post('http://127.0.0.1:8080/api/payouts').request, url: 'not a url' };
    expect(diagnoseSignature(badUrl, { publicKey: key.publicKey }).status).toBe('not-diagnosable');
  });

  it('masks the application secret in every base line it shows', () => {
    const diff = diffBases(
      `"x-application-secret": ${SECRET}\n"@signature-params": ()`,
      `"X-Application-Secret": ${SECRET}\n"@signature-params": ()`,
    );
    expect(JSON.stringify(diff)).not.toContain(SECRET);
    expect(diff).toHaveLength(1);
  });
});

describe('diagnoseContentDigest (spec: Authentication, Step 1)', () => {
  const bytes = new TextEncoder().encode(body);
  it('names the serialisation the digest was taken over', () => {
    const compact = computeContentDigest(
      new TextEncoder().encode(JSON.stringify(JSON.parse(body))),
    );
    const d = diagnoseContentDigest(compact, bytes);
    expect(d.status === 'found' && d.how).toBe('compact JSON (JSON.stringify)');
    expect(
      diagnoseContentDigest(computeContentDigest(new TextEncoder().encode(`${body}\n`)), bytes)
        .status,
    ).toBe('found');
  });
  it('matches, unknown, and malformed values', () => {
    expect(diagnoseContentDigest(computeContentDigest(bytes), bytes)).toEqual({
      status: 'matches',
    });
    expect(
      diagnoseContentDigest(computeContentDigest(new TextEncoder().encode('{"other":1}')), bytes)
        .status,
    ).toBe('unknown');
    expect(diagnoseContentDigest('sha-512=:not base64:', bytes).status).toBe('unknown');
  });
});
