// The sign cases of request-signing.json: a request before signing, A's credentials and key (in each accepted
// encoding), created and nonce; expected: the header lines the signer adds and the exact signature base.
import { parseEd25519PrivateKey } from '../../../src/keys/index.js';
import type { VectorCase } from '../../format.js';
import { check, keyArgument, nonceFor } from '../common.js';
import { NON_ASCII_BODY, PAYOUT_BODY_SPACED } from '../content-digest.js';
import { APP_A } from '../keys.js';
import { BASE_URL, HOST, NOW, payoutCreate, request, sign, toWire } from '../requests.js';
import { commit, del, get, payout, S, type SignSpec, type SigningContext } from './context.js';
import { shippedBugSignSpecs } from './shipped-bugs.js';

/** Sign: the payout, bodyless GET and DELETE, an empty and a non-ASCII body, a query string in @path. */
function signMessageSpecs(): SignSpec[] {
  return [
    {
      id: 'sign-post-payout',
      description:
        'POST /api/payouts with a JSON body: Content-Digest, the two application headers, Content-Length, Signature-Input and Signature are added.',
      source: S.sign,
      flags: ['Baseline'],
      request: payout,
    },
    {
      id: 'sign-get-bodyless',
      description:
        'A GET: no Content-Digest; the three body components are covered with empty values.',
      source: S.bodyless,
      flags: ['Bodyless'],
      request: get,
    },
    {
      id: 'sign-delete-bodyless',
      description:
        'A DELETE: no Content-Digest; the three body components are covered with empty values.',
      source: S.bodyless,
      flags: ['Bodyless'],
      request: del,
    },
    {
      id: 'sign-post-empty-body',
      description:
        'POST .../commit with an empty body: the digest of zero bytes, content-length 0.',
      source: S.sign,
      flags: ['EmptyBody'],
      request: commit,
    },
    {
      id: 'sign-post-non-ascii-body',
      description:
        'A body with non-ASCII characters: the digest covers its UTF-8 bytes; content-length counts bytes.',
      source: S.sign,
      flags: ['NonAscii'],
      request: payoutCreate(NON_ASCII_BODY),
    },
    {
      id: 'sign-query-string',
      description:
        'A query string is kept in @path exactly as written (order, percent-encoding, empty value).',
      source: S.path,
      flags: ['QueryString'],
      request: payoutCreate(
        PAYOUT_BODY_SPACED,
        `${BASE_URL}/api/payouts?dryRun=true&note=a%20b&z=&a=1`,
      ),
    },
  ];
}

/** Sign: @authority's port and case, a missing Content-Type, the longest nonce, the key in other encodings. */
function signTargetAndKeySpecs(): SignSpec[] {
  return [
    {
      id: 'sign-port-443-omitted',
      description: 'https://host:443: @authority omits the default port.',
      source: S.authority,
      flags: ['Authority'],
      request: payoutCreate(PAYOUT_BODY_SPACED, `https://${HOST}:443/api/payouts`),
    },
    {
      id: 'sign-non-default-port',
      description: 'https://host:8443: @authority keeps the port.',
      source: S.authority,
      flags: ['Authority'],
      request: payoutCreate(PAYOUT_BODY_SPACED, `https://${HOST}:8443/api/payouts`),
    },
    {
      id: 'sign-uppercase-host',
      description: 'The URL host in capitals: @authority is lowercased.',
      source: S.authority,
      flags: ['Authority'],
      request: payoutCreate(PAYOUT_BODY_SPACED, `https://API.Sandbox.Payments.EXAMPLE/api/payouts`),
    },
    {
      id: 'sign-content-type-absent',
      description: 'A POST without Content-Type: the content-type line has an empty value.',
      source: 'spec: Authentication, step 2 (missing header gives an empty value)',
      flags: ['MissingHeader'],
      request: request('POST', `${BASE_URL}/api/payouts`, [], PAYOUT_BODY_SPACED),
    },
    {
      id: 'sign-nonce-50-characters',
      description: 'A nonce of exactly 50 characters (the maximum).',
      source: 'spec: Authentication, signature parameters (nonce at most 50 characters)',
      flags: ['Nonce'],
      request: payout,
      nonce: 'n'.repeat(10) + '0123456789'.repeat(4),
    },
    {
      id: 'sign-key-pkcs8-pem',
      description: 'The same payout signed with the key given as PKCS#8 PEM: identical headers.',
      source: S.keys,
      flags: ['KeyFormat'],
      request: payout,
      keyFormat: 'pkcs8-pem',
      nonce: nonceFor('sign-post-payout'),
    },
    {
      id: 'sign-key-pkcs8-der',
      description: 'The same payout signed with the key given as PKCS#8 DER: identical headers.',
      source: S.keys,
      flags: ['KeyFormat'],
      request: payout,
      keyFormat: 'pkcs8-der-base64',
      nonce: nonceFor('sign-post-payout'),
    },
  ];
}

/** One sign case: the key parsed from its encoding must be A's, and the signature is made with it. */
function signCase({ keys, vk, A }: SigningContext, spec: SignSpec): VectorCase {
  const format = spec.keyFormat ?? 'seed-base64';
  const parsed = parseEd25519PrivateKey(keyArgument(keys, { key: APP_A.key, format }));
  check(
    Buffer.from(parsed.seed).equals(Buffer.from(vk.clientA.seed)),
    spec.id,
    `the ${format} form parses to another key`,
  );
  const created = spec.created ?? NOW;
  const nonce = spec.nonce ?? nonceFor(spec.id);
  const result = sign(spec.request, { ...A, privateKey: parsed }, created, nonce);
  return {
    id: spec.id,
    op: 'sign',
    description: spec.description,
    source: spec.source,
    result: 'valid',
    flags: spec.flags,
    input: {
      request: toWire(spec.request),
      credentials: {
        applicationId: A.applicationId,
        applicationSecret: A.applicationSecret,
        keyId: A.keyId,
        privateKey: { key: APP_A.key, format },
      },
      created,
      nonce,
      now: created,
      nonceState: [],
    },
    expected: { headers: result.headers, signatureBase: result.signatureBase },
  };
}

/** Every sign case, in file order; the three key encodings must give byte-identical signatures. */
export function buildSignCases(ctx: SigningContext): VectorCase[] {
  const signCases = [
    ...signMessageSpecs(),
    ...signTargetAndKeySpecs(),
    ...shippedBugSignSpecs(),
  ].map((spec) => signCase(ctx, spec));
  const sigOf = (c: VectorCase): string => JSON.stringify(c.expected);
  const byId = (id: string): VectorCase => signCases.find((c) => c.id === id)!;
  check(
    sigOf(signCases[0]!) === sigOf(byId('sign-key-pkcs8-pem')) &&
      sigOf(signCases[0]!) === sigOf(byId('sign-key-pkcs8-der')),
    'sign-key-*',
    'key forms signed differently',
  );
  return signCases;
}
