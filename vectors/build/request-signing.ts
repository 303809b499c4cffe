// vectors/request-signing.json: signing (exact headers and base) and verification (exact error code) under the profile.
import type { HttpRequest } from '../../src/http/message.js';
import { computeContentDigest } from '../../src/digest/content-digest.js';
import { parseEd25519PrivateKey } from '../../src/keys/index.js';
import { serviceProfile } from '../../src/profile/service-profile.js';
import type {
  FlagNote,
  KeyEncoding,
  KeysFile,
  VectorCase,
  VectorFile,
  VectorResult,
} from '../format.js';
import { check, checkDeclared, keyArgument, nonceFor, utf8, vectorFile } from './common.js';
import { NON_ASCII_BODY, PAYOUT_BODY_COMPACT, PAYOUT_BODY_SPACED } from './content-digest.js';
import { APP_A, APP_B, VERIFIER, type VectorKeys } from './keys.js';
import {
  addHeaderLine,
  BASE_URL,
  callerA,
  HOST,
  mapHeader,
  MEDIA_TYPE,
  NOW,
  payoutCreate,
  PAYOUT_ID,
  profileParams,
  request,
  setHeader,
  sign,
  signCustom,
  toWire,
  verifyWithBothBackends,
  withApplicationHeaders,
  type Caller,
} from './requests.js';

const notes: Record<string, FlagNote> = {
  Baseline: { description: 'A correctly signed request as the spec describes it.' },
  Bodyless: {
    description:
      'GET or DELETE: no Content-Digest is sent, but content-digest, content-type and content-length stay covered with empty values (spec: Bodyless requests).',
    effect: 'Dropping the three lines, or sending a digest of the empty body, gives another base.',
  },
  EmptyBody: {
    description:
      'A POST with an empty body (commit, cancel): the digest of zero bytes and content-length 0.',
  },
  NonAscii: {
    description: 'The body holds non-ASCII UTF-8.',
    effect: 'Hashing a re-encoded string instead of the bytes fails here.',
  },
  QueryString: {
    description:
      '@path carries the query string, unmodified (spec: Step 2, row 2; RFC 9421 would put it in @query).',
    effect: 'Implementations built on a generic RFC 9421 library drop the query from @path.',
  },
  Authority: {
    description:
      '@authority: lowercase host, ports 80 and 443 omitted, any other port kept (spec: Step 2, row 3).',
    effect: 'Keeping ":443", dropping ":8443" or keeping the host\'s case gives another base.',
  },
  KeyFormat: {
    description:
      'The private or public key in another accepted encoding; the signature is identical.',
  },
  HeaderCase: {
    description:
      "Header names on the wire in another capitalisation or order: names are case-insensitive, and the base follows the profile's fixed order, not the wire order.",
  },
  MissingHeader: {
    description:
      'A covered header that is absent gives an empty value (content-type); a required one is rejected.',
  },
  ClockWindow: {
    description:
      "now - created at most 300 s; created - now at most 300 s (the future bound is this toolkit's rule: see vectors/README.md).",
    effect:
      'An off-by-one at the boundary, or no future bound, lets stale or pre-dated signatures through.',
  },
  Nonce: {
    description:
      'The nonce is required, at most 50 characters, and never accepted twice within the window.',
    effect: 'Replays of a captured request move money twice.',
  },
  Replay: {
    description: 'The nonce is already in `nonceState` (a previous request used it).',
    effect: 'Replays of a captured request move money twice.',
  },
  SignatureHeaders: {
    description:
      'Signature or Signature-Input missing, malformed, or not padded standard base64 of 64 bytes.',
  },
  Label: {
    description:
      'The label is always "sig1" (spec: Step 4); any other, a second one or a duplicate is rejected.',
    effect:
      'A verifier that picks "any" label, or lets the last duplicate win, can be steered to an attacker\'s signature.',
  },
  ComponentsPolicy: {
    description:
      'The covered components must be exactly the eight of the profile, in order. The signature is cryptographically valid over what it claims: only the policy rejects it.',
    effect:
      'A verifier that accepts any covered list accepts signatures that do not cover the body or the secret.',
  },
  ParametersPolicy: {
    description:
      'The parameters must be exactly created, keyid, alg, nonce, in this order, with alg="ed25519". The signature is valid over what it claims.',
    effect: 'Accepting another order or extra parameters means two bases for one request.',
  },
  ApplicationCredentials: {
    description:
      'x-application-id and x-application-secret must be present, known and matching (spec: steps 5 and 6).',
  },
  KeyResolution: {
    description:
      'The public key is found from keyid and the application id together (spec: step 7).',
    effect: 'Resolving keyid alone lets one application sign as another.',
  },
  WrongKey: { description: 'Signed with a key other than the one registered under the keyid.' },
  ContentDigest: {
    description:
      'Content-Digest required on body methods, checked against the exact body bytes, sha-512 only, forbidden on GET/DELETE (spec: step 1 and step 8).',
    effect:
      'Skipping the digest check leaves the body unauthenticated: the signature covers only the digest header.',
  },
  ExactBytes: {
    description: 'The body was re-serialised or given a trailing newline after signing.',
    effect: 'Verifying a re-serialised body rejects honest requests or accepts altered ones.',
  },
  Tampered: {
    description:
      'A covered part of the request changed after signing; the Ed25519 signature fails.',
  },
  Syntax: {
    description: 'A header is not valid RFC 8941 for its type (parameter types, tokens, decimals).',
  },
  DuplicateHeader: {
    description: 'A covered single-valued header is sent on two lines.',
    effect:
      'Frameworks keep the first or the last line, or join them: the verifier and the application read different values.',
  },
  NonAsciiHeader: {
    description:
      'A covered header holds non-ASCII: the signature base must be ASCII, so no valid signature exists.',
  },
  Base64Padding: {
    description:
      'RFC 8941 §4.2.7: parsers SHOULD accept a byte sequence without padding; the spec shows the 88-character padded form and this toolkit requires it. Either answer conforms.',
  },
  Strictness: {
    description:
      'Issue 15: a form RFC 8941 parsing would accept as the same signature (a repeated parameter keeps its last value; created written as a Decimal with ".0"). The profile refuses it, as it refuses a duplicated label.',
    effect:
      'One signature verifying under several header texts: a downstream reader may take the other value.',
  },
  NonCanonicalInteger: {
    description:
      'created with a leading zero: RFC 8941 reads the same Integer and @signature-params re-serialises it, so the signature verifies; this toolkit refuses a header that differs from the text signed. Either answer conforms.',
  },
  SignatureMemberParameters: {
    description:
      'A parameter on the Signature member: RFC 9421 §4.2 defines none and the spec shows none; RFC 8941 lets a field ignore unknown parameters. This toolkit refuses it. Either answer conforms.',
  },
  HostAsWritten: {
    description:
      '@authority takes the host as written, lowercased (RFC 9421 §2.2.3, RFC 9110 §4.2.3). A host that is not an RFC 3986 host, or that WHATWG URL parsing would read as another IPv4 address, is refused; it never verifies as 127.0.0.1.',
    effect: 'A verifier that normalises through WHATWG accepts one signature for several hosts.',
  },
  MultipleDigests: {
    description:
      'A correct sha-256 member next to the correct sha-512 member: RFC 9530 allows several; the profile sends sha-512 only. This toolkit ignores the extra member; rejecting it also conforms.',
  },
};

const S = {
  sign: 'spec: Authentication, Signed requests, steps 1-5',
  bodyless: 'spec: Authentication, Bodyless requests',
  path: 'spec: Authentication, step 2 (@path)',
  authority: 'spec: Authentication, step 2 (@authority)',
  keys: 'spec: Authentication, credentials held by the caller',
  v1: 'spec: Server verification order, step 1',
  v2: 'spec: Server verification order, step 2',
  v3: 'spec: Server verification order, step 3; Limits',
  v4: 'spec: Server verification order, step 4; Limits',
  v5: 'spec: Server verification order, step 5',
  v6: 'spec: Server verification order, step 6',
  v7: 'spec: Server verification order, step 7',
  v8: 'spec: Server verification order, step 8; step 1 (content digest)',
  v9: 'spec: Server verification order, step 9; RFC 9421 §2.5',
  v10: 'spec: Server verification order, step 10',
  label: 'spec: Authentication, steps 4-5 (label sig1)',
} as const;

interface SignSpec {
  readonly id: string;
  readonly description: string;
  readonly source: string;
  readonly flags: readonly string[];
  readonly request: HttpRequest;
  readonly keyFormat?: KeyEncoding;
  readonly created?: number;
  readonly nonce?: string;
}

interface VerifySpec {
  readonly id: string;
  readonly description: string;
  readonly source: string;
  readonly result: VectorResult;
  readonly flags: readonly string[];
  readonly request: HttpRequest;
  readonly now?: number;
  readonly nonceState?: readonly string[];
  readonly verifier?: string;
  readonly code?: string;
  readonly comment?: string;
}

export async function buildRequestSigningFile(keys: KeysFile, vk: VectorKeys): Promise<VectorFile> {
  const A = callerA(vk.clientA);
  const signA = (req: HttpRequest, nonce: string, created = NOW, caller: Caller = A): HttpRequest =>
    sign(req, caller, created, nonce).request;
  const payout = payoutCreate(PAYOUT_BODY_SPACED);
  const get = request('GET', `${BASE_URL}/api/payouts/${PAYOUT_ID}`, [['accept', MEDIA_TYPE]]);
  const del = request('DELETE', `${BASE_URL}/api/payouts/${PAYOUT_ID}`, [['accept', MEDIA_TYPE]]);
  const commit = request('POST', `${BASE_URL}/api/payouts/${PAYOUT_ID}/commit`, [
    ['content-type', MEDIA_TYPE],
    ['accept', MEDIA_TYPE],
  ]);

  // ---- sign cases ----
  const signCase = (spec: SignSpec): VectorCase => {
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
  };

  const signCases: VectorCase[] = [
    signCase({
      id: 'sign-post-payout',
      description:
        'POST /api/payouts with a JSON body: Content-Digest, the two application headers, Content-Length, Signature-Input and Signature are added.',
      source: S.sign,
      flags: ['Baseline'],
      request: payout,
    }),
    signCase({
      id: 'sign-get-bodyless',
      description:
        'A GET: no Content-Digest; the three body components are covered with empty values.',
      source: S.bodyless,
      flags: ['Bodyless'],
      request: get,
    }),
    signCase({
      id: 'sign-delete-bodyless',
      description:
        'A DELETE: no Content-Digest; the three body components are covered with empty values.',
      source: S.bodyless,
      flags: ['Bodyless'],
      request: del,
    }),
    signCase({
      id: 'sign-post-empty-body',
      description:
        'POST .../commit with an empty body: the digest of zero bytes, content-length 0.',
      source: S.sign,
      flags: ['EmptyBody'],
      request: commit,
    }),
    signCase({
      id: 'sign-post-non-ascii-body',
      description:
        'A body with non-ASCII characters: the digest covers its UTF-8 bytes; content-length counts bytes.',
      source: S.sign,
      flags: ['NonAscii'],
      request: payoutCreate(NON_ASCII_BODY),
    }),
    signCase({
      id: 'sign-query-string',
      description:
        'A query string is kept in @path exactly as written (order, percent-encoding, empty value).',
      source: S.path,
      flags: ['QueryString'],
      request: payoutCreate(
        PAYOUT_BODY_SPACED,
        `${BASE_URL}/api/payouts?dryRun=true&note=a%20b&z=&a=1`,
      ),
    }),
    signCase({
      id: 'sign-port-443-omitted',
      description: 'https://host:443: @authority omits the default port.',
      source: S.authority,
      flags: ['Authority'],
      request: payoutCreate(PAYOUT_BODY_SPACED, `https://${HOST}:443/api/payouts`),
    }),
    signCase({
      id: 'sign-non-default-port',
      description: 'https://host:8443: @authority keeps the port.',
      source: S.authority,
      flags: ['Authority'],
      request: payoutCreate(PAYOUT_BODY_SPACED, `https://${HOST}:8443/api/payouts`),
    }),
    signCase({
      id: 'sign-uppercase-host',
      description: 'The URL host in capitals: @authority is lowercased.',
      source: S.authority,
      flags: ['Authority'],
      request: payoutCreate(PAYOUT_BODY_SPACED, `https://API.Sandbox.Payments.EXAMPLE/api/payouts`),
    }),
    signCase({
      id: 'sign-content-type-absent',
      description: 'A POST without Content-Type: the content-type line has an empty value.',
      source: 'spec: Authentication, step 2 (missing header gives an empty value)',
      flags: ['MissingHeader'],
      request: request('POST', `${BASE_URL}/api/payouts`, [], PAYOUT_BODY_SPACED),
    }),
    signCase({
      id: 'sign-nonce-50-characters',
      description: 'A nonce of exactly 50 characters (the maximum).',
      source: 'spec: Authentication, signature parameters (nonce at most 50 characters)',
      flags: ['Nonce'],
      request: payout,
      nonce: 'n'.repeat(10) + '0123456789'.repeat(4),
    }),
    signCase({
      id: 'sign-key-pkcs8-pem',
      description: 'The same payout signed with the key given as PKCS#8 PEM: identical headers.',
      source: S.keys,
      flags: ['KeyFormat'],
      request: payout,
      keyFormat: 'pkcs8-pem',
      nonce: nonceFor('sign-post-payout'),
    }),
    signCase({
      id: 'sign-key-pkcs8-der',
      description: 'The same payout signed with the key given as PKCS#8 DER: identical headers.',
      source: S.keys,
      flags: ['KeyFormat'],
      request: payout,
      keyFormat: 'pkcs8-der-base64',
      nonce: nonceFor('sign-post-payout'),
    }),
  ];
  // The three key forms must give byte-identical signatures.
  const sigOf = (c: VectorCase): string => JSON.stringify(c.expected);
  check(
    sigOf(signCases[0]!) === sigOf(signCases[11]!) &&
      sigOf(signCases[0]!) === sigOf(signCases[12]!),
    'sign-key-*',
    'key forms signed differently',
  );

  // ---- verify cases ----
  const verifyCase = async (spec: VerifySpec): Promise<VectorCase> => {
    const now = spec.now ?? NOW;
    const nonceState = spec.nonceState ?? [];
    const verifier = spec.verifier ?? VERIFIER;
    const outcome = await verifyWithBothBackends(keys, spec.request, now, nonceState, verifier);
    const { id } = spec;
    checkDeclared(id, spec.result, outcome, spec.code);
    return {
      id,
      op: 'verify',
      description: spec.description,
      source: spec.source,
      result: spec.result,
      flags: spec.flags,
      ...(spec.comment ? { comment: spec.comment } : {}),
      input: { request: toWire(spec.request), now, nonceState, verifier },
      expected: outcome.ok
        ? { ok: true, signatureBase: outcome.signatureBase }
        : { ok: false, code: outcome.code, step: outcome.step },
    };
  };

  const n = (id: string): string => nonceFor(id);
  const signed = (id: string, req: HttpRequest = payout): HttpRequest => signA(req, n(id));
  const payoutHeaders = (digest = computeContentDigest(utf8(PAYOUT_BODY_SPACED))): HttpRequest =>
    withApplicationHeaders(payout, A.applicationId, A.applicationSecret, digest);
  const custom = (
    id: string,
    params: Array<[string, string | number]>,
    extra: {
      label?: string;
      components?: readonly string[];
      req?: HttpRequest;
      key?: typeof vk.clientA;
    } = {},
  ): HttpRequest =>
    signCustom(extra.req ?? payoutHeaders(), {
      params,
      privateKey: extra.key ?? vk.clientA,
      ...(extra.label ? { label: extra.label } : {}),
      ...(extra.components ? { components: extra.components } : {}),
    });
  const P = (id: string): Array<[string, string | number]> => profileParams(NOW, A.keyId, n(id));
  const C = serviceProfile.componentNames;
  const b = vk.rfc9421;
  const callerB: Caller = {
    applicationId: APP_B.applicationId,
    applicationSecret: APP_B.applicationSecret,
    keyId: APP_B.keyId,
    privateKey: b,
  };
  const titleCase = (req: HttpRequest): HttpRequest => ({
    ...req,
    headers: req.headers.map(
      ([name, value]) =>
        [
          name
            .split('-')
            .map((p) => p[0]!.toUpperCase() + p.slice(1))
            .join('-'),
          value,
        ] as const,
    ),
  });
  const sigValue = (req: HttpRequest): string => req.headers.find(([k]) => k === 'signature')![1];
  const flipFirstSignatureChar = (v: string): string =>
    v.replace(/=:(.)/, (_, c: string) => `=:${c === 'A' ? 'B' : 'A'}`);

  const specs: VerifySpec[] = [
    // valid
    {
      id: 'verify-post-payout-valid',
      description: 'The signed payout request, unchanged.',
      source: S.sign,
      result: 'valid',
      flags: ['Baseline'],
      request: signed('verify-post-payout-valid'),
    },
    {
      id: 'verify-get-bodyless-valid',
      description: 'A signed GET without Content-Digest.',
      source: S.bodyless,
      result: 'valid',
      flags: ['Bodyless'],
      request: signed('verify-get-bodyless-valid', get),
    },
    {
      id: 'verify-delete-bodyless-valid',
      description: 'A signed DELETE without Content-Digest.',
      source: S.bodyless,
      result: 'valid',
      flags: ['Bodyless'],
      request: signed('verify-delete-bodyless-valid', del),
    },
    {
      id: 'verify-post-empty-body-valid',
      description: 'A signed POST .../commit with an empty body.',
      source: S.sign,
      result: 'valid',
      flags: ['EmptyBody'],
      request: signed('verify-post-empty-body-valid', commit),
    },
    {
      id: 'verify-non-ascii-body-valid',
      description: 'A signed POST whose body holds non-ASCII UTF-8.',
      source: S.sign,
      result: 'valid',
      flags: ['NonAscii'],
      request: signed('verify-non-ascii-body-valid', payoutCreate(NON_ASCII_BODY)),
    },
    {
      id: 'verify-query-string-valid',
      description: 'A signed POST with a query string kept in @path.',
      source: S.path,
      result: 'valid',
      flags: ['QueryString'],
      request: signed(
        'verify-query-string-valid',
        payoutCreate(PAYOUT_BODY_SPACED, `${BASE_URL}/api/payouts?dryRun=true&note=a%20b&z=&a=1`),
      ),
    },
    {
      id: 'verify-port-443-omitted-valid',
      description: 'Target https://host:443: @authority without the port.',
      source: S.authority,
      result: 'valid',
      flags: ['Authority'],
      request: signed(
        'verify-port-443-omitted-valid',
        payoutCreate(PAYOUT_BODY_SPACED, `https://${HOST}:443/api/payouts`),
      ),
    },
    {
      id: 'verify-non-default-port-valid',
      description: 'Target https://host:8443: @authority keeps the port.',
      source: S.authority,
      result: 'valid',
      flags: ['Authority'],
      request: signed(
        'verify-non-default-port-valid',
        payoutCreate(PAYOUT_BODY_SPACED, `https://${HOST}:8443/api/payouts`),
      ),
    },
    {
      id: 'verify-uppercase-host-valid',
      description: 'The target URI host in capitals: @authority lowercased on both sides.',
      source: S.authority,
      result: 'valid',
      flags: ['Authority'],
      request: signed(
        'verify-uppercase-host-valid',
        payoutCreate(PAYOUT_BODY_SPACED, 'https://API.Sandbox.Payments.EXAMPLE/api/payouts'),
      ),
    },
    {
      id: 'verify-content-type-absent-valid',
      description: 'A signed POST without Content-Type (covered with an empty value).',
      source: 'spec: Authentication, step 2 (missing header gives an empty value)',
      result: 'valid',
      flags: ['MissingHeader'],
      request: signed(
        'verify-content-type-absent-valid',
        request('POST', `${BASE_URL}/api/payouts`, [], PAYOUT_BODY_SPACED),
      ),
    },
    {
      id: 'verify-header-names-capitalised-valid',
      description:
        'The same signed request with every header name capitalised on the wire (Signature-Input, X-Application-Id, ...).',
      source: 'RFC 9110 §5.1 (field names are case-insensitive)',
      result: 'valid',
      flags: ['HeaderCase'],
      request: titleCase(signed('verify-header-names-capitalised-valid')),
    },
    {
      id: 'verify-header-lines-reordered-valid',
      description: 'The signed request with its header lines in reverse order.',
      source: 'spec: Authentication, step 2 (fixed component order)',
      result: 'valid',
      flags: ['HeaderCase'],
      request: ((r: HttpRequest) => ({ ...r, headers: [...r.headers].reverse() }))(
        signed('verify-header-lines-reordered-valid'),
      ),
    },
    {
      id: 'verify-created-300s-old-valid',
      description: 'created is exactly 300 s before now: still valid.',
      source: S.v3,
      result: 'valid',
      flags: ['ClockWindow'],
      request: signed('verify-created-300s-old-valid'),
      now: NOW + 300,
    },
    {
      id: 'verify-created-300s-in-future-valid',
      description: 'created is exactly 300 s after now: still valid.',
      source: S.v3,
      result: 'valid',
      flags: ['ClockWindow'],
      request: signed('verify-created-300s-in-future-valid'),
      now: NOW - 300,
    },
    {
      id: 'verify-nonce-50-characters-valid',
      description: 'A nonce of exactly 50 characters.',
      source: S.v4,
      result: 'valid',
      flags: ['Nonce'],
      request: signA(payout, 'v'.repeat(10) + '0123456789'.repeat(4)),
    },
    {
      id: 'verify-other-nonces-recorded-valid',
      description: 'Other nonces are already recorded; this one is new.',
      source: S.v4,
      result: 'valid',
      flags: ['Replay'],
      request: signed('verify-other-nonces-recorded-valid'),
      nonceState: [n('verify-post-payout-valid'), n('verify-get-bodyless-valid')],
    },
    {
      id: 'verify-application-b-valid',
      description: 'Application B signing with its own key and keyid.',
      source: S.v7,
      result: 'valid',
      flags: ['KeyResolution'],
      request: signA(payout, n('verify-application-b-valid'), NOW, callerB),
    },
    {
      id: 'verify-key-registered-as-trimmed-pem-valid',
      description:
        "The verifier holds application A's public key as the trimmed SPKI PEM body: same result.",
      source: 'spec: Endpoints, 5 (trimmed PEM)',
      result: 'valid',
      flags: ['KeyFormat'],
      request: signed('verify-key-registered-as-trimmed-pem-valid'),
      verifier: 'trimmed-pem',
    },
    {
      id: 'verify-key-registered-as-spki-pem-valid',
      description: "The verifier holds application A's public key as an SPKI PEM: same result.",
      source: S.v7,
      result: 'valid',
      flags: ['KeyFormat'],
      request: signed('verify-key-registered-as-spki-pem-valid'),
      verifier: 'spki-pem',
    },

    // step 1
    {
      id: 'verify-signature-header-missing',
      description: 'Signature-Input present, Signature absent.',
      source: S.v1,
      result: 'invalid',
      flags: ['SignatureHeaders'],
      code: 'SIGNATURE_MISSING',
      request: setHeader(signed('verify-signature-header-missing'), 'signature', undefined),
    },
    {
      id: 'verify-signature-input-header-missing',
      description: 'Signature present, Signature-Input absent.',
      source: S.v1,
      result: 'invalid',
      flags: ['SignatureHeaders'],
      code: 'SIGNATURE_INPUT_MISSING',
      request: setHeader(
        signed('verify-signature-input-header-missing'),
        'signature-input',
        undefined,
      ),
    },
    {
      id: 'verify-both-signature-headers-missing',
      description: 'An unsigned request carrying only the application headers.',
      source: S.v1,
      result: 'invalid',
      flags: ['SignatureHeaders'],
      code: 'SIGNATURE_MISSING',
      request: payoutHeaders(),
    },
    {
      id: 'verify-content-digest-duplicated',
      description: 'Two Content-Digest lines: the signed one and a second one.',
      source: S.v1,
      result: 'invalid',
      flags: ['DuplicateHeader'],
      code: 'HEADER_DUPLICATED',
      request: addHeaderLine(
        signed('verify-content-digest-duplicated'),
        'content-digest',
        computeContentDigest(utf8('{}')),
      ),
    },
    {
      id: 'verify-application-id-duplicated',
      description: 'Two x-application-id lines (application A, then B).',
      source: S.v1,
      result: 'invalid',
      flags: ['DuplicateHeader'],
      code: 'HEADER_DUPLICATED',
      request: addHeaderLine(
        signed('verify-application-id-duplicated'),
        'x-application-id',
        APP_B.applicationId,
      ),
    },

    // step 2: syntax
    {
      id: 'verify-signature-input-not-a-dictionary',
      description: 'Signature-Input is not an RFC 8941 Dictionary.',
      source: S.v2,
      result: 'invalid',
      flags: ['Syntax'],
      code: 'SIGNATURE_INPUT_MALFORMED',
      request: setHeader(
        signed('verify-signature-input-not-a-dictionary'),
        'signature-input',
        'sig1 = ("@method")',
      ),
    },
    {
      id: 'verify-keyid-token-not-string',
      description: 'keyid written as a token (keyid=abc) instead of an sf-string.',
      source: `${S.v2}; RFC 9421 §2.3`,
      result: 'invalid',
      flags: ['Syntax'],
      code: 'SIGNATURE_INPUT_MALFORMED',
      request: mapHeader(signed('verify-keyid-token-not-string'), 'signature-input', (v) =>
        v.replace(`keyid="${A.keyId}"`, `keyid=${A.keyId}`),
      ),
    },
    {
      id: 'verify-created-decimal',
      description: 'created written as a Decimal (1767225600.5).',
      source: `${S.v2}; RFC 9421 §2.3`,
      result: 'invalid',
      flags: ['Syntax'],
      code: 'SIGNATURE_INPUT_MALFORMED',
      request: mapHeader(signed('verify-created-decimal'), 'signature-input', (v) =>
        v.replace(`created=${NOW}`, `created=${NOW}.5`),
      ),
    },
    {
      id: 'verify-created-string',
      description: 'created written as an sf-string ("1767225600").',
      source: `${S.v2}; RFC 9421 §2.3`,
      result: 'invalid',
      flags: ['Syntax'],
      code: 'SIGNATURE_INPUT_MALFORMED',
      request: mapHeader(signed('verify-created-string'), 'signature-input', (v) =>
        v.replace(`created=${NOW}`, `created="${NOW}"`),
      ),
    },
    {
      id: 'verify-signature-not-byte-sequence',
      description: 'Signature holds a token instead of a byte sequence.',
      source: S.v2,
      result: 'invalid',
      flags: ['SignatureHeaders'],
      code: 'SIGNATURE_MALFORMED',
      request: setHeader(signed('verify-signature-not-byte-sequence'), 'signature', 'sig1=abc'),
    },
    {
      id: 'verify-signature-base64url',
      description:
        'The right signature bytes written in base64url inside ":...:" (not an RFC 8941 byte sequence).',
      source: `${S.v2}; RFC 8941 §3.3.5`,
      result: 'invalid',
      flags: ['SignatureHeaders'],
      code: 'SIGNATURE_MALFORMED',
      request: base64urlSigned(),
    },
    {
      id: 'verify-signature-missing-padding',
      description: 'The right signature without its "==" padding (86 characters).',
      source: 'RFC 8941 §4.2.7; spec: step 3 (88-character base64)',
      result: 'acceptable',
      flags: ['Base64Padding'],
      request: mapHeader(signed('verify-signature-missing-padding'), 'signature', (v) =>
        v.replace('==:', ':'),
      ),
    },
    {
      id: 'verify-signature-63-bytes',
      description: 'A 63-byte signature (the last byte cut off).',
      source: `${S.v2}; spec: step 3 (64-byte signature)`,
      result: 'invalid',
      flags: ['SignatureHeaders'],
      code: 'SIGNATURE_MALFORMED',
      request: resized(signed('verify-signature-63-bytes'), -1),
    },
    {
      id: 'verify-signature-65-bytes',
      description: 'A 65-byte signature (one byte appended).',
      source: `${S.v2}; spec: step 3 (64-byte signature)`,
      result: 'invalid',
      flags: ['SignatureHeaders'],
      code: 'SIGNATURE_MALFORMED',
      request: resized(signed('verify-signature-65-bytes'), 1),
    },

    {
      id: 'verify-nonce-parameter-duplicated',
      description:
        'Signature-Input carries nonce twice (;nonce="x";nonce=<the signed nonce>): RFC 8941 would keep the last and verify.',
      source: `${S.v2}; RFC 8941 §4.2.3.2`,
      result: 'invalid',
      flags: ['Strictness'],
      code: 'SIGNATURE_INPUT_MALFORMED',
      request: mapHeader(signed('verify-nonce-parameter-duplicated'), 'signature-input', (v) =>
        v.replace(
          `;nonce="${n('verify-nonce-parameter-duplicated')}"`,
          `;nonce="x";nonce="${n('verify-nonce-parameter-duplicated')}"`,
        ),
      ),
    },
    {
      id: 'verify-keyid-parameter-duplicated',
      description: 'Signature-Input carries keyid twice (;keyid="nokey";keyid=<the real keyid>).',
      source: `${S.v2}; RFC 8941 §4.2.3.2`,
      result: 'invalid',
      flags: ['Strictness'],
      code: 'SIGNATURE_INPUT_MALFORMED',
      request: mapHeader(signed('verify-keyid-parameter-duplicated'), 'signature-input', (v) =>
        v.replace(`;keyid="${A.keyId}"`, `;keyid="nokey";keyid="${A.keyId}"`),
      ),
    },
    {
      id: 'verify-created-decimal-zero-fraction',
      description:
        'created written as the Decimal 1767225600.0 (a JavaScript parser reads the same number).',
      source: `${S.v2}; RFC 9421 §2.3`,
      result: 'invalid',
      flags: ['Strictness'],
      code: 'SIGNATURE_INPUT_MALFORMED',
      request: mapHeader(signed('verify-created-decimal-zero-fraction'), 'signature-input', (v) =>
        v.replace(`created=${NOW}`, `created=${NOW}.0`),
      ),
    },
    {
      id: 'verify-created-leading-zero',
      description: 'created written with a leading zero (01767225600).',
      source: `${S.v2}; RFC 8941 §3.3.1`,
      result: 'acceptable',
      flags: ['NonCanonicalInteger'],
      code: 'SIGNATURE_INPUT_MALFORMED',
      request: mapHeader(signed('verify-created-leading-zero'), 'signature-input', (v) =>
        v.replace(`created=${NOW}`, `created=0${NOW}`),
      ),
    },
    {
      id: 'verify-signature-member-parameter',
      description: 'The right signature with a parameter on its member (sig1=:...:;x=1).',
      source: `${S.v2}; RFC 9421 §4.2`,
      result: 'acceptable',
      flags: ['SignatureMemberParameters'],
      code: 'SIGNATURE_MALFORMED',
      request: mapHeader(
        signed('verify-signature-member-parameter'),
        'signature',
        (v) => `${v};x=1`,
      ),
    },

    // step 2: label
    {
      id: 'verify-label-not-sig1',
      description: 'Correctly signed under the label "sig2" in both fields.',
      source: S.label,
      result: 'invalid',
      flags: ['Label'],
      code: 'LABEL_UNSUPPORTED',
      request: custom('verify-label-not-sig1', P('verify-label-not-sig1'), { label: 'sig2' }),
    },
    {
      id: 'verify-label-extra-member',
      description: 'A valid sig1 plus a second member "proxy" in both fields.',
      source: S.label,
      result: 'invalid',
      flags: ['Label'],
      code: 'LABEL_UNSUPPORTED',
      request: ((r: HttpRequest) =>
        mapHeader(
          mapHeader(r, 'signature-input', (v) => `${v}, proxy=("@method");created=${NOW}`),
          'signature',
          (v) => `${v}, proxy=:${Buffer.alloc(64, 1).toString('base64')}:`,
        ))(signed('verify-label-extra-member')),
    },
    {
      id: 'verify-label-duplicated',
      description:
        'Signature-Input carries "sig1" twice (on two lines): the second would silently win in a plain RFC 8941 parser.',
      source: `${S.label}; RFC 8941 §4.2.2`,
      result: 'invalid',
      flags: ['Label'],
      code: 'LABEL_DUPLICATED',
      request: ((r: HttpRequest) =>
        addHeaderLine(
          r,
          'signature-input',
          `sig1=("@method");created=${NOW};keyid="${A.keyId}";alg="ed25519";nonce="x"`,
        ))(signed('verify-label-duplicated')),
    },
    {
      id: 'verify-signature-label-differs',
      description:
        'Signature-Input under "sig1", Signature under "sig2": Signature has no "sig1" member.',
      source: S.label,
      result: 'invalid',
      flags: ['Label'],
      code: 'SIGNATURE_MALFORMED',
      request: mapHeader(signed('verify-signature-label-differs'), 'signature', (v) =>
        v.replace(/^sig1=/, 'sig2='),
      ),
    },

    // step 2: components
    {
      id: 'verify-components-reordered',
      description:
        'The eight components with @path and @method swapped, validly signed over that order.',
      source: `${S.v2}; spec: step 2 (fixed order)`,
      result: 'invalid',
      flags: ['ComponentsPolicy'],
      code: 'COMPONENTS_MISMATCH',
      request: custom('verify-components-reordered', P('verify-components-reordered'), {
        components: [C[1]!, C[0]!, ...C.slice(2)],
      }),
    },
    {
      id: 'verify-components-secret-missing',
      description: 'x-application-secret not covered (seven components), validly signed.',
      source: `${S.v2}; spec: step 2`,
      result: 'invalid',
      flags: ['ComponentsPolicy'],
      code: 'COMPONENTS_MISMATCH',
      request: custom('verify-components-secret-missing', P('verify-components-secret-missing'), {
        components: C.slice(0, 7),
      }),
    },
    {
      id: 'verify-components-digest-missing',
      description: 'content-digest not covered, validly signed: the body would be unauthenticated.',
      source: `${S.v2}; spec: step 2`,
      result: 'invalid',
      flags: ['ComponentsPolicy'],
      code: 'COMPONENTS_MISMATCH',
      request: custom('verify-components-digest-missing', P('verify-components-digest-missing'), {
        components: C.filter((c) => c !== 'content-digest'),
      }),
    },
    {
      id: 'verify-components-extra',
      description: 'The eight components plus "accept", validly signed.',
      source: `${S.v2}; spec: step 2`,
      result: 'invalid',
      flags: ['ComponentsPolicy'],
      code: 'COMPONENTS_MISMATCH',
      request: custom('verify-components-extra', P('verify-components-extra'), {
        components: [...C, 'accept'],
      }),
    },
    {
      id: 'verify-components-query-split-rfc-style',
      description:
        "A generic RFC 9421 signer's reading: @path without the query plus @query, validly signed.",
      source: `${S.path}; RFC 9421 §2.2.6-2.2.7`,
      result: 'invalid',
      flags: ['ComponentsPolicy', 'QueryString'],
      code: 'COMPONENTS_MISMATCH',
      request: custom(
        'verify-components-query-split-rfc-style',
        P('verify-components-query-split-rfc-style'),
        {
          components: [C[0]!, C[1]!, '@query', ...C.slice(2)],
          req: withApplicationHeaders(
            payoutCreate(PAYOUT_BODY_SPACED, `${BASE_URL}/api/payouts?dryRun=true`),
            A.applicationId,
            A.applicationSecret,
            computeContentDigest(utf8(PAYOUT_BODY_SPACED)),
          ),
        },
      ),
    },
    {
      id: 'verify-components-uppercase-name',
      description:
        'A component named "Content-Digest" instead of "content-digest" (Signature-Input edited after signing).',
      source: `${S.v2}; RFC 9421 §2.1 (lowercase names)`,
      result: 'invalid',
      flags: ['ComponentsPolicy'],
      code: 'COMPONENTS_MISMATCH',
      request: mapHeader(signed('verify-components-uppercase-name'), 'signature-input', (v) =>
        v.replace('"content-digest"', '"Content-Digest"'),
      ),
    },

    // step 2: parameters
    {
      id: 'verify-parameters-reordered',
      description:
        'Parameters in the order nonce, created, keyid, alg, validly signed over that order.',
      source: `${S.v2}; spec: step 2 (@signature-params)`,
      result: 'invalid',
      flags: ['ParametersPolicy'],
      code: 'PARAMETERS_MISMATCH',
      request: custom('verify-parameters-reordered', [
        ['nonce', n('verify-parameters-reordered')],
        ['created', NOW],
        ['keyid', A.keyId],
        ['alg', 'ed25519'],
      ]),
    },
    {
      id: 'verify-parameters-extra-expires',
      description: 'An extra expires parameter after nonce, validly signed.',
      source: `${S.v2}; spec: step 2`,
      result: 'invalid',
      flags: ['ParametersPolicy'],
      code: 'PARAMETERS_MISMATCH',
      request: custom('verify-parameters-extra-expires', [
        ...P('verify-parameters-extra-expires'),
        ['expires', NOW + 300],
      ]),
    },
    {
      id: 'verify-alg-missing',
      description: 'No alg parameter (created, keyid, nonce), validly signed.',
      source: `${S.v2}; spec: step 2 (alg is always ed25519)`,
      result: 'invalid',
      flags: ['ParametersPolicy'],
      code: 'PARAMETERS_MISMATCH',
      request: custom(
        'verify-alg-missing',
        P('verify-alg-missing').filter(([k]) => k !== 'alg'),
      ),
    },
    {
      id: 'verify-alg-rsa',
      description: 'alg="rsa-v1_5-sha256" (the signature is still Ed25519 over that base).',
      source: `${S.v2}; spec: Algorithms`,
      result: 'invalid',
      flags: ['ParametersPolicy'],
      code: 'ALG_UNSUPPORTED',
      request: custom(
        'verify-alg-rsa',
        P('verify-alg-rsa').map(
          ([k, v]) => [k, k === 'alg' ? 'rsa-v1_5-sha256' : v] as [string, string | number],
        ),
      ),
    },
    {
      id: 'verify-alg-uppercase',
      description: 'alg="ED25519": algorithm names are case-sensitive (RFC 9421 §6.2).',
      source: `${S.v2}; RFC 9421 §6.2`,
      result: 'invalid',
      flags: ['ParametersPolicy'],
      code: 'ALG_UNSUPPORTED',
      request: custom(
        'verify-alg-uppercase',
        P('verify-alg-uppercase').map(
          ([k, v]) => [k, k === 'alg' ? 'ED25519' : v] as [string, string | number],
        ),
      ),
    },
    {
      id: 'verify-created-missing',
      description: 'No created parameter (keyid, alg, nonce), validly signed.',
      source: `${S.v2}; spec: step 2`,
      result: 'invalid',
      flags: ['ParametersPolicy'],
      code: 'CREATED_INVALID',
      request: custom(
        'verify-created-missing',
        P('verify-created-missing').filter(([k]) => k !== 'created'),
      ),
    },
    {
      id: 'verify-keyid-missing',
      description: 'No keyid parameter, validly signed.',
      source: `${S.v2}; spec: step 2`,
      result: 'invalid',
      flags: ['ParametersPolicy'],
      code: 'KEY_ID_MISSING',
      request: custom(
        'verify-keyid-missing',
        P('verify-keyid-missing').filter(([k]) => k !== 'keyid'),
      ),
    },

    // step 3
    {
      id: 'verify-created-301s-old',
      description: 'created is 301 s before now.',
      source: S.v3,
      result: 'invalid',
      flags: ['ClockWindow'],
      code: 'CREATED_EXPIRED',
      request: signed('verify-created-301s-old'),
      now: NOW + 301,
    },
    {
      id: 'verify-created-301s-in-future',
      description: 'created is 301 s after now (beyond the 300 s skew).',
      source: `${S.v3}; toolkit rule: future bound`,
      result: 'invalid',
      flags: ['ClockWindow'],
      code: 'CREATED_IN_FUTURE',
      request: signed('verify-created-301s-in-future'),
      now: NOW - 301,
      comment:
        'The spec states only the past bound. This toolkit also rejects created more than 300 s ahead: a future-dated signature would outlive its nonce in the replay window.',
    },
    {
      id: 'verify-created-one-day-old',
      description: 'A request captured a day ago and sent again.',
      source: S.v3,
      result: 'invalid',
      flags: ['ClockWindow'],
      code: 'CREATED_EXPIRED',
      request: signed('verify-created-one-day-old'),
      now: NOW + 86400,
    },

    // step 4
    {
      id: 'verify-nonce-51-characters',
      description: 'A nonce of 51 characters, validly signed.',
      source: S.v4,
      result: 'invalid',
      flags: ['Nonce'],
      code: 'NONCE_TOO_LONG',
      request: custom(
        'verify-nonce-51-characters',
        profileParams(NOW, A.keyId, 'w'.repeat(11) + '0123456789'.repeat(4)),
      ),
    },
    {
      id: 'verify-nonce-missing',
      description: 'No nonce parameter (created, keyid, alg), validly signed.',
      source: S.v4,
      result: 'invalid',
      flags: ['Nonce'],
      code: 'NONCE_MISSING',
      request: custom(
        'verify-nonce-missing',
        P('verify-nonce-missing').filter(([k]) => k !== 'nonce'),
      ),
    },
    {
      id: 'verify-nonce-empty',
      description: 'nonce="" (empty), validly signed.',
      source: S.v4,
      result: 'invalid',
      flags: ['Nonce'],
      code: 'NONCE_MISSING',
      request: custom('verify-nonce-empty', profileParams(NOW, A.keyId, '')),
    },
    {
      id: 'verify-nonce-replayed',
      description: 'The exact valid request again: its nonce is already recorded.',
      source: `${S.v4}; step 11`,
      result: 'invalid',
      flags: ['Replay'],
      code: 'NONCE_REPLAYED',
      request: signed('verify-post-payout-valid'),
      nonceState: [n('verify-post-payout-valid')],
    },
    {
      id: 'verify-nonce-replayed-other-request',
      description: 'A new, validly signed request reusing a recorded nonce.',
      source: S.v4,
      result: 'invalid',
      flags: ['Replay'],
      code: 'NONCE_REPLAYED',
      request: signA(commit, n('verify-get-bodyless-valid')),
      nonceState: [n('verify-get-bodyless-valid')],
    },

    // step 5
    {
      id: 'verify-application-id-missing',
      description: 'x-application-id absent (it is covered, so it was removed after signing).',
      source: S.v5,
      result: 'invalid',
      flags: ['ApplicationCredentials'],
      code: 'APPLICATION_ID_MISSING',
      request: setHeader(signed('verify-application-id-missing'), 'x-application-id', undefined),
    },
    {
      id: 'verify-application-id-empty',
      description: 'x-application-id present and empty.',
      source: S.v5,
      result: 'invalid',
      flags: ['ApplicationCredentials'],
      code: 'APPLICATION_ID_MISSING',
      request: setHeader(signed('verify-application-id-empty'), 'x-application-id', ''),
    },
    {
      id: 'verify-application-id-unknown',
      description: 'Validly signed with an application id the verifier does not know.',
      source: S.v5,
      result: 'invalid',
      flags: ['ApplicationCredentials'],
      code: 'APPLICATION_ID_UNKNOWN',
      request: signA(payout, n('verify-application-id-unknown'), NOW, {
        ...A,
        applicationId: '00000000-0000-4000-8000-000000000000',
      }),
    },

    // step 6
    {
      id: 'verify-application-secret-missing',
      description: 'x-application-secret absent.',
      source: S.v6,
      result: 'invalid',
      flags: ['ApplicationCredentials'],
      code: 'APPLICATION_SECRET_MISSING',
      request: setHeader(
        signed('verify-application-secret-missing'),
        'x-application-secret',
        undefined,
      ),
    },
    {
      id: 'verify-application-secret-empty',
      description: 'x-application-secret present and empty.',
      source: S.v6,
      result: 'invalid',
      flags: ['ApplicationCredentials'],
      code: 'APPLICATION_SECRET_MISSING',
      request: setHeader(signed('verify-application-secret-empty'), 'x-application-secret', ''),
    },
    {
      id: 'verify-application-secret-wrong',
      description: 'Validly signed with a wrong application secret.',
      source: S.v6,
      result: 'invalid',
      flags: ['ApplicationCredentials'],
      code: 'APPLICATION_SECRET_INVALID',
      request: signA(payout, n('verify-application-secret-wrong'), NOW, {
        ...A,
        applicationSecret: 'test-only-wrong-secret',
      }),
    },
    {
      id: 'verify-application-secret-of-other-application',
      description: "Application A's id with application B's secret, validly signed with A's key.",
      source: S.v6,
      result: 'invalid',
      flags: ['ApplicationCredentials'],
      code: 'APPLICATION_SECRET_INVALID',
      request: signA(payout, n('verify-application-secret-of-other-application'), NOW, {
        ...A,
        applicationSecret: APP_B.applicationSecret,
      }),
    },

    // step 7
    {
      id: 'verify-keyid-unknown',
      description: "Validly signed with A's key under a keyid nobody registered.",
      source: S.v7,
      result: 'invalid',
      flags: ['KeyResolution'],
      code: 'KEY_UNKNOWN',
      request: signA(payout, n('verify-keyid-unknown'), NOW, {
        ...A,
        keyId: 'test-only-key-a-2019',
      }),
    },
    {
      id: 'verify-keyid-of-other-application',
      description:
        "Application A's id and secret with application B's keyid, signed with B's key: the key belongs to another application.",
      source: S.v7,
      result: 'invalid',
      flags: ['KeyResolution'],
      code: 'KEY_UNKNOWN',
      request: signA(payout, n('verify-keyid-of-other-application'), NOW, {
        ...A,
        keyId: APP_B.keyId,
        privateKey: b,
      }),
    },

    // step 8
    {
      id: 'verify-content-digest-missing',
      description: 'A POST without Content-Digest (removed after signing).',
      source: S.v8,
      result: 'invalid',
      flags: ['ContentDigest'],
      code: 'DIGEST_MISSING',
      request: setHeader(signed('verify-content-digest-missing'), 'content-digest', undefined),
    },
    {
      id: 'verify-body-changed',
      description: 'The amount in the body changed after signing.',
      source: S.v8,
      result: 'invalid',
      flags: ['ContentDigest', 'Tampered'],
      code: 'DIGEST_MISMATCH',
      request: ((r: HttpRequest) => ({
        ...r,
        body: utf8(PAYOUT_BODY_SPACED.replace('125.5', '925.5')),
      }))(signed('verify-body-changed')),
    },
    {
      id: 'verify-body-reserialised',
      description: 'The body re-serialised without spaces after signing (same JSON value).',
      source: S.v8,
      result: 'invalid',
      flags: ['ContentDigest', 'ExactBytes'],
      code: 'DIGEST_MISMATCH',
      request: ((r: HttpRequest) => ({ ...r, body: utf8(PAYOUT_BODY_COMPACT) }))(
        signed('verify-body-reserialised'),
      ),
    },
    {
      id: 'verify-body-trailing-newline-added',
      description: 'A trailing LF added to the body after signing.',
      source: S.v8,
      result: 'invalid',
      flags: ['ContentDigest', 'ExactBytes'],
      code: 'DIGEST_MISMATCH',
      request: ((r: HttpRequest) => ({ ...r, body: utf8(`${PAYOUT_BODY_SPACED}\n`) }))(
        signed('verify-body-trailing-newline-added'),
      ),
    },
    {
      id: 'verify-content-digest-sha256-only',
      description: 'Validly signed with a correct sha-256 Content-Digest and no sha-512 member.',
      source: `${S.v8}; spec: Algorithms (SHA-512)`,
      result: 'invalid',
      flags: ['ContentDigest'],
      code: 'DIGEST_ALGORITHM_UNSUPPORTED',
      request: custom('verify-content-digest-sha256-only', P('verify-content-digest-sha256-only'), {
        req: payoutHeaders(computeContentDigest(utf8(PAYOUT_BODY_SPACED), ['sha-256'])),
      }),
    },
    {
      id: 'verify-content-digest-uppercase-key',
      description:
        'Validly signed with Content-Digest "SHA-512=:...:" (uppercase key: not an RFC 8941 Dictionary).',
      source: `${S.v8}; RFC 8941 §3.2`,
      result: 'invalid',
      flags: ['ContentDigest', 'Syntax'],
      code: 'DIGEST_MALFORMED',
      request: custom(
        'verify-content-digest-uppercase-key',
        P('verify-content-digest-uppercase-key'),
        {
          req: payoutHeaders(
            computeContentDigest(utf8(PAYOUT_BODY_SPACED)).replace('sha-512', 'SHA-512'),
          ),
        },
      ),
    },
    {
      id: 'verify-content-digest-on-get',
      description:
        'A GET validly signed with a Content-Digest of the empty body: must not be sent.',
      source: `${S.v8}; spec: Bodyless requests`,
      result: 'invalid',
      flags: ['ContentDigest', 'Bodyless'],
      code: 'DIGEST_UNEXPECTED',
      request: custom('verify-content-digest-on-get', P('verify-content-digest-on-get'), {
        req: withApplicationHeaders(
          get,
          A.applicationId,
          A.applicationSecret,
          computeContentDigest(new Uint8Array()),
        ),
      }),
    },
    {
      id: 'verify-body-on-get',
      description: 'A signed GET that carries a body (not covered by any digest).',
      source: `${S.v8}; spec: Bodyless requests`,
      result: 'invalid',
      flags: ['ContentDigest', 'Bodyless'],
      code: 'BODY_UNEXPECTED',
      request: ((r: HttpRequest) => ({ ...r, body: utf8('{"amount": 1}') }))(
        signed('verify-body-on-get', get),
      ),
    },
    {
      id: 'verify-content-digest-extra-sha256-member',
      description:
        'Validly signed with Content-Digest holding correct sha-256 and sha-512 members.',
      source: 'RFC 9530 §2; spec: step 1',
      result: 'acceptable',
      flags: ['MultipleDigests'],
      request: custom(
        'verify-content-digest-extra-sha256-member',
        P('verify-content-digest-extra-sha256-member'),
        {
          req: payoutHeaders(
            computeContentDigest(utf8(PAYOUT_BODY_SPACED), ['sha-256', 'sha-512']),
          ),
        },
      ),
    },

    // step 9
    ...(['127.0.01', '0x7f.1', '2130706433', '\\127.0.0.1'] as const).map((host, i): VerifySpec => {
      const id = `verify-host-non-canonical-${['octet-leading-zero', 'hex-short', 'integer', 'backslash'][i]}`;
      const req = signed(id, payoutCreate(PAYOUT_BODY_SPACED, 'https://127.0.0.1/api/payouts'));
      return {
        id,
        description: `Signed for https://127.0.0.1, received with the host written ${JSON.stringify(host)} (WHATWG URL parsing reads 127.0.0.1).`,
        source: `${S.authority}; RFC 9421 §2.2.3; RFC 3986 §3.2.2`,
        result: 'invalid',
        flags: ['HostAsWritten'],
        code: 'SIGNATURE_BASE_INVALID',
        request: { ...req, url: req.url.replace('127.0.0.1', host) },
      };
    }),
    {
      id: 'verify-non-ascii-covered-header',
      description:
        'Content-Type changed to a value with a non-ASCII character: no signature base can be built.',
      source: S.v9,
      result: 'invalid',
      flags: ['NonAsciiHeader'],
      code: 'SIGNATURE_BASE_INVALID',
      request: setHeader(
        signed('verify-non-ascii-covered-header'),
        'content-type',
        'application/json; charset=utf-8; q=é',
      ),
    },

    // step 10
    {
      id: 'verify-signature-bit-flipped',
      description: 'The first base64 character of the signature changed.',
      source: S.v10,
      result: 'invalid',
      flags: ['Tampered'],
      code: 'SIGNATURE_INVALID',
      request: mapHeader(
        signed('verify-signature-bit-flipped'),
        'signature',
        flipFirstSignatureChar,
      ),
    },
    {
      id: 'verify-signed-by-unregistered-key',
      description: "A's id, secret and keyid, but signed with a key registered nowhere.",
      source: S.v10,
      result: 'invalid',
      flags: ['WrongKey'],
      code: 'SIGNATURE_INVALID',
      request: signA(payout, n('verify-signed-by-unregistered-key'), NOW, {
        ...A,
        privateKey: vk.rogue,
      }),
    },
    {
      id: 'verify-signed-by-other-application-key',
      description: "A's id, secret and keyid, but signed with application B's key.",
      source: S.v10,
      result: 'invalid',
      flags: ['WrongKey'],
      code: 'SIGNATURE_INVALID',
      request: signA(payout, n('verify-signed-by-other-application-key'), NOW, {
        ...A,
        privateKey: b,
      }),
    },
    {
      id: 'verify-method-changed',
      description: 'Signed as POST, sent as PUT.',
      source: S.v10,
      result: 'invalid',
      flags: ['Tampered'],
      code: 'SIGNATURE_INVALID',
      request: { ...signed('verify-method-changed'), method: 'PUT' },
    },
    {
      id: 'verify-path-changed',
      description: 'Signed for /api/payouts, sent to /api/payouts/{id}/commit.',
      source: S.v10,
      result: 'invalid',
      flags: ['Tampered'],
      code: 'SIGNATURE_INVALID',
      request: {
        ...signed('verify-path-changed'),
        url: `${BASE_URL}/api/payouts/${PAYOUT_ID}/commit`,
      },
    },
    {
      id: 'verify-query-added',
      description: 'A query string added to the signed URL.',
      source: `${S.v10}; ${S.path}`,
      result: 'invalid',
      flags: ['Tampered', 'QueryString'],
      code: 'SIGNATURE_INVALID',
      request: { ...signed('verify-query-added'), url: `${BASE_URL}/api/payouts?dryRun=false` },
    },
    {
      id: 'verify-query-changed',
      description: 'One query value changed after signing.',
      source: `${S.v10}; ${S.path}`,
      result: 'invalid',
      flags: ['Tampered', 'QueryString'],
      code: 'SIGNATURE_INVALID',
      request: ((r: HttpRequest) => ({ ...r, url: r.url.replace('dryRun=true', 'dryRun=false') }))(
        signed(
          'verify-query-changed',
          payoutCreate(PAYOUT_BODY_SPACED, `${BASE_URL}/api/payouts?dryRun=true`),
        ),
      ),
    },
    {
      id: 'verify-authority-changed',
      description: 'Signed for the sandbox host, sent to another host.',
      source: `${S.v10}; ${S.authority}`,
      result: 'invalid',
      flags: ['Tampered', 'Authority'],
      code: 'SIGNATURE_INVALID',
      request: {
        ...signed('verify-authority-changed'),
        url: 'https://api.payments.example/api/payouts',
      },
    },
    {
      id: 'verify-port-changed',
      description: 'Signed for port 8443, sent to port 9443.',
      source: `${S.v10}; ${S.authority}`,
      result: 'invalid',
      flags: ['Tampered', 'Authority'],
      code: 'SIGNATURE_INVALID',
      request: ((r: HttpRequest) => ({ ...r, url: r.url.replace(':8443', ':9443') }))(
        signed(
          'verify-port-changed',
          payoutCreate(PAYOUT_BODY_SPACED, `https://${HOST}:8443/api/payouts`),
        ),
      ),
    },
    {
      id: 'verify-content-type-changed',
      description: 'Content-Type changed to application/json after signing.',
      source: S.v10,
      result: 'invalid',
      flags: ['Tampered'],
      code: 'SIGNATURE_INVALID',
      request: setHeader(signed('verify-content-type-changed'), 'content-type', 'application/json'),
    },
    {
      id: 'verify-content-type-added',
      description: 'Signed without Content-Type (empty value), Content-Type added afterwards.',
      source: S.v10,
      result: 'invalid',
      flags: ['Tampered', 'MissingHeader'],
      code: 'SIGNATURE_INVALID',
      request: addHeaderLine(
        signed(
          'verify-content-type-added',
          request('POST', `${BASE_URL}/api/payouts`, [], PAYOUT_BODY_SPACED),
        ),
        'content-type',
        MEDIA_TYPE,
      ),
    },
    {
      id: 'verify-content-length-changed',
      description: 'Content-Length changed after signing.',
      source: S.v10,
      result: 'invalid',
      flags: ['Tampered'],
      code: 'SIGNATURE_INVALID',
      request: mapHeader(signed('verify-content-length-changed'), 'content-length', (v) =>
        String(Number(v) + 1),
      ),
    },
    {
      id: 'verify-created-changed',
      description: 'created moved 60 s later in Signature-Input after signing.',
      source: S.v10,
      result: 'invalid',
      flags: ['Tampered'],
      code: 'SIGNATURE_INVALID',
      request: mapHeader(signed('verify-created-changed'), 'signature-input', (v) =>
        v.replace(`created=${NOW}`, `created=${NOW + 60}`),
      ),
    },
    {
      id: 'verify-nonce-changed',
      description:
        'The nonce replaced in Signature-Input after signing (to dodge replay detection).',
      source: S.v10,
      result: 'invalid',
      flags: ['Tampered', 'Replay'],
      code: 'SIGNATURE_INVALID',
      request: mapHeader(signed('verify-nonce-changed'), 'signature-input', (v) =>
        v.replace(n('verify-nonce-changed'), n('verify-nonce-changed-2')),
      ),
    },
  ];

  function base64urlSigned(): HttpRequest {
    // Search deterministically for a nonce whose signature contains "+" or "/", so base64url differs from base64.
    for (let i = 0; i < 64; i++) {
      const r = signA(payout, n(`verify-signature-base64url-${i}`));
      const v = sigValue(r);
      if (/[+/]/.test(v))
        return setHeader(r, 'signature', v.replace(/\+/g, '-').replace(/\//g, '_'));
    }
    throw new Error('no signature with "+" or "/" in 64 tries');
  }
  function resized(r: HttpRequest, delta: number): HttpRequest {
    const bytes = Buffer.from(sigValue(r).slice('sig1=:'.length, -1), 'base64');
    const changed =
      delta < 0
        ? bytes.subarray(0, bytes.length + delta)
        : Buffer.concat([bytes, Buffer.alloc(delta, 0x2a)]);
    return setHeader(r, 'signature', `sig1=:${changed.toString('base64')}:`);
  }

  const verifyCases: VectorCase[] = [];
  for (const spec of specs) verifyCases.push(await verifyCase(spec));

  return vectorFile(
    'request-signing',
    'Request signing under the service profile (RFC 9421, Ed25519): sign and verify',
    'Sign: the request before signing, the credentials (key by reference to keys.json), created and nonce; expected: the header lines the signer adds and the exact signature base. Verify: the request as received, the clock, the nonces already recorded and the verifier registry (keys.json `verifiers`); expected: ok, or the exact error code and the spec step that rejects it.',
    notes,
    [...signCases, ...verifyCases],
  );
}
