// vectors/signature-base.json: the profile's signature base for requests whose headers are final. The first
// thing to compare when two implementations disagree (canonicalisation bugs show here before any crypto).
import type { HttpRequest } from '../../src/http/message.js';
import { computeContentDigest } from '../../src/digest/content-digest.js';
import { serviceProfile } from '../../src/profile/service-profile.js';
import { createSignatureBase } from '../../src/signatures/signature-base.js';
import type { FlagNote, VectorCase, VectorFile, VectorResult } from '../format.js';
import { check, nonceFor, vectorFile } from './common.js';
import { NON_ASCII_BODY, PAYOUT_BODY_SPACED } from './content-digest.js';
import { APP_A } from './keys.js';
import {
  BASE_URL,
  HOST,
  MEDIA_TYPE,
  NOW,
  PAYOUT_ID,
  request,
  sign,
  toWire,
  withApplicationHeaders,
  type Caller,
} from './requests.js';

const notes: Record<string, FlagNote> = {
  Baseline: {
    description:
      'The eight components in the fixed order, then @signature-params (spec: Authentication, step 2).',
  },
  Bodyless: {
    description:
      'content-digest, content-type, content-length covered with empty values: the line is the quoted name, a colon and one space.',
    effect: 'Omitting the trailing space, or the lines, gives another base.',
  },
  QueryString: {
    description:
      '@path includes "?" and the query exactly as sent; RFC 9421 would not (profile deviation).',
    effect: 'Generic RFC 9421 libraries drop the query.',
  },
  RawPath: {
    description:
      '@path is taken from the target URI as written: percent-encoding and dot segments are kept, never normalised.',
    effect: 'Deriving @path through a URL parser (WHATWG, java.net.URI.normalize) changes it.',
  },
  Authority: {
    description:
      '@authority: host lowercased; ports 80 and 443 omitted whatever the scheme (profile deviation); any other port kept.',
  },
  FieldCanonicalisation: {
    description:
      'Header values are trimmed of surrounding spaces and tabs; names match case-insensitively (RFC 9421 §2.1).',
  },
  MissingHeader: {
    description:
      'An absent covered header gives an empty value (profile deviation; RFC 9421 would fail).',
  },
  NonAscii: {
    description:
      'Non-ASCII characters in the body do not reach the base: only the digest of the bytes does.',
  },
  Fuzz: {
    description:
      'Found by differential fuzzing (npm run fuzz:diff): a minimised input on which implementations disagreed; the case keeps the right answer.',
    effect:
      'A library that drops an empty-string parameter (JavaScript truthiness) signs and verifies another @signature-params than the one sent.',
  },
  Error: {
    description:
      'No base can be built: the expected output is the error code of createSignatureBase.',
  },
};

interface BaseSpec {
  readonly id: string;
  readonly description: string;
  readonly source: string;
  readonly flags: readonly string[];
  readonly request: HttpRequest;
  readonly result?: VectorResult;
  readonly error?: string;
  /** Also check that signRequest on the request minus its signer-added headers builds the same base. */
  readonly crossCheckSigner?: HttpRequest;
  /** The nonce parameter (default: the case id's). */
  readonly nonce?: string;
}

const KEY_ID = APP_A.keyId;
const S2 = 'spec: Authentication, step 2 (signature base)';

/** The headers a signer would have added, so that the base sees a request as sent. */
function withSignerHeaders(req: HttpRequest, digest: boolean): HttpRequest {
  return withApplicationHeaders(
    req,
    APP_A.applicationId,
    APP_A.applicationSecret,
    digest ? computeContentDigest(req.body) : undefined,
  );
}

/** One signature-base case: the base built from the row's request, checked against the signer's own. */
function baseCase(signer: Caller, spec: BaseSpec): VectorCase {
  const nonce = spec.nonce ?? nonceFor(spec.id);
  const params = new Map<string, string | number>([
    ['created', NOW],
    ['keyid', KEY_ID],
    ['alg', 'ed25519'],
    ['nonce', nonce],
  ]);
  const r = createSignatureBase(
    spec.request,
    serviceProfile.coveredComponents,
    params,
    serviceProfile.signatureBaseOptions,
  );
  if (spec.error)
    check(
      !r.ok && r.code === spec.error,
      spec.id,
      `declared error ${spec.error}, library says ${r.ok ? 'ok' : r.code}`,
    );
  else check(r.ok, spec.id, `library could not build the base: ${r.ok ? '' : r.message}`);
  if (r.ok && spec.crossCheckSigner) {
    const viaSigner = sign(spec.crossCheckSigner, signer, NOW, nonce).signatureBase;
    check(viaSigner === r.base, spec.id, 'signRequest built another base than createSignatureBase');
  }
  return {
    id: spec.id,
    op: 'signature-base',
    description: spec.description,
    source: spec.source,
    result: spec.result ?? (spec.error ? 'invalid' : 'valid'),
    flags: spec.flags,
    input: { request: toWire(spec.request), parameters: { created: NOW, keyid: KEY_ID, nonce } },
    expected: r.ok ? { signatureBase: r.base } : { error: r.code },
  };
}

const post = (
  url: string,
  headers: ReadonlyArray<readonly [string, string]> = [['content-type', MEDIA_TYPE]],
  body = PAYOUT_BODY_SPACED,
): HttpRequest => request('POST', url, headers, body);

const payoutPre = post(`${BASE_URL}/api/payouts`);
const getPre = request('GET', `${BASE_URL}/api/payouts/${PAYOUT_ID}`, [['accept', MEDIA_TYPE]]);
const deletePre = request('DELETE', `${BASE_URL}/api/payouts/${PAYOUT_ID}`, []);
const at = (url: string): { request: HttpRequest; crossCheckSigner: HttpRequest } => {
  const pre = post(url);
  return { request: withSignerHeaders(pre, true), crossCheckSigner: pre };
};

/** The signature-base cases, in file order (spec: Signed requests, steps 2-4; the profile's components). */
const BASE_CASES: readonly BaseSpec[] = [
  {
    id: 'base-post-payout',
    description: 'POST /api/payouts with a JSON body.',
    source: S2,
    flags: ['Baseline'],
    request: withSignerHeaders(payoutPre, true),
    crossCheckSigner: payoutPre,
  },
  {
    id: 'base-get-bodyless',
    description: 'A GET: three empty lines for the body components.',
    source: 'spec: Authentication, Bodyless requests',
    flags: ['Bodyless'],
    request: withSignerHeaders(getPre, false),
    crossCheckSigner: getPre,
  },
  {
    id: 'base-delete-bodyless',
    description: 'A DELETE without Accept or Content-Type: three empty lines.',
    source: 'spec: Authentication, Bodyless requests',
    flags: ['Bodyless'],
    request: withSignerHeaders(deletePre, false),
    crossCheckSigner: deletePre,
  },
  {
    id: 'base-query-string',
    description:
      'A query string kept as written: order, percent-encoding, an empty value, a bare name.',
    source: `${S2}, row 2`,
    flags: ['QueryString'],
    ...at(`${BASE_URL}/api/payouts?b=2&a=1%20x&empty=&flag`),
  },
  {
    id: 'base-query-question-mark-only',
    description: 'A "?" with an empty query: @path ends with "?".',
    source: `${S2}, row 2`,
    flags: ['QueryString'],
    ...at(`${BASE_URL}/api/payouts?`),
  },
  {
    id: 'base-fragment-ignored',
    description: 'A fragment in the target URI is not part of @path (it is never sent).',
    source: `${S2}, row 2; RFC 9110 §7.1`,
    flags: ['QueryString'],
    ...at(`${BASE_URL}/api/payouts?x=1#frag`),
  },
  {
    id: 'base-percent-encoding-and-dot-segments-kept',
    description: 'Percent-encoding (%2F, %7e) and dot segments are kept as written.',
    source: `${S2}, row 2 ("unmodified")`,
    flags: ['RawPath'],
    ...at(`${BASE_URL}/api/./payouts/a%2Fb/../%7e`),
  },
  {
    id: 'base-empty-path',
    description: 'A target URI without a path: @path is "/".',
    source: 'RFC 9421 §2.2.6',
    flags: ['RawPath'],
    ...at(`https://${HOST}`),
  },
  {
    id: 'base-port-443-omitted',
    description: 'https://host:443: the port is omitted.',
    source: `${S2}, row 3`,
    flags: ['Authority'],
    ...at(`https://${HOST}:443/api/payouts`),
  },
  {
    id: 'base-port-80-omitted-http',
    description: 'http://host:80: the port is omitted.',
    source: `${S2}, row 3`,
    flags: ['Authority'],
    ...at(`http://${HOST}:80/api/payouts`),
  },
  {
    id: 'base-port-80-omitted-https',
    description:
      'https://host:80: the profile omits 80 whatever the scheme (RFC 9421 would keep ":80").',
    source: `${S2}, row 3 (profile deviation)`,
    flags: ['Authority'],
    ...at(`https://${HOST}:80/api/payouts`),
  },
  {
    id: 'base-port-443-omitted-http',
    description:
      'http://host:443: the profile omits 443 whatever the scheme (RFC 9421 would keep ":443").',
    source: `${S2}, row 3 (profile deviation)`,
    flags: ['Authority'],
    ...at(`http://${HOST}:443/api/payouts`),
  },
  {
    id: 'base-port-8443-kept',
    description: 'https://host:8443: the port is kept.',
    source: `${S2}, row 3`,
    flags: ['Authority'],
    ...at(`https://${HOST}:8443/api/payouts`),
  },
  {
    id: 'base-uppercase-host',
    description: 'Host written in capitals, with a non-default port: lowercased, port kept.',
    source: `${S2}, row 3; RFC 9110 §4.2.3`,
    flags: ['Authority'],
    ...at('https://API.Sandbox.Payments.EXAMPLE:8443/api/payouts'),
  },
  {
    id: 'base-ipv6-authority',
    description: 'An IPv6 literal host with a port: brackets kept, hex lowercased.',
    source: `${S2}, row 3; RFC 3986 §3.2.2`,
    flags: ['Authority'],
    ...at('https://[2001:DB8::1]:8443/api/payouts'),
  },
  {
    id: 'base-content-type-absent',
    description: 'No Content-Type on a POST: the content-type line is empty.',
    source: `${S2} (missing header gives an empty value)`,
    flags: ['MissingHeader'],
    request: withSignerHeaders(post(`${BASE_URL}/api/payouts`, []), true),
    crossCheckSigner: post(`${BASE_URL}/api/payouts`, []),
  },
  {
    id: 'base-header-values-trimmed',
    description:
      'Header values with surrounding spaces and tabs: trimmed in the base; inner spaces kept.',
    source: 'RFC 9421 §2.1',
    flags: ['FieldCanonicalisation'],
    request: withSignerHeaders(
      post(`${BASE_URL}/api/payouts`, [['content-type', ` \t${MEDIA_TYPE};  charset=utf-8 \t`]]),
      true,
    ),
  },
  {
    id: 'base-header-names-mixed-case',
    description:
      'Header names in mixed case on the wire: matched case-insensitively, written lowercase in the base.',
    source: 'RFC 9421 §2.1; spec: step 2 (names in lowercase)',
    flags: ['FieldCanonicalisation'],
    request: ((r: HttpRequest) => ({
      ...r,
      headers: r.headers.map(([k, v]) => [k.toUpperCase(), v] as const),
    }))(withSignerHeaders(payoutPre, true)),
  },
  {
    id: 'base-non-ascii-body',
    description: 'A non-ASCII body: only its digest reaches the base; content-length counts bytes.',
    source: S2,
    flags: ['NonAscii'],
    ...(() => {
      const pre = post(`${BASE_URL}/api/payouts`, [['content-type', MEDIA_TYPE]], NON_ASCII_BODY);
      return { request: withSignerHeaders(pre, true), crossCheckSigner: pre };
    })(),
  },
  {
    id: 'base-non-ascii-header-error',
    description:
      'A covered header value with a non-ASCII character: the base must be ASCII, so there is none.',
    source: 'RFC 9421 §2.5',
    flags: ['Error'],
    error: 'BASE_NOT_ASCII',
    request: withSignerHeaders(
      post(`${BASE_URL}/api/payouts`, [['content-type', 'application/jsön']]),
      true,
    ),
  },
  {
    id: 'base-duplicated-header-error',
    description:
      'Content-Type on two lines: a single-valued covered header cannot be combined unambiguously.',
    source: 'spec: step 2; RFC 9421 §7.5.6',
    flags: ['Error'],
    error: 'FIELD_DUPLICATED',
    request: withSignerHeaders(
      post(`${BASE_URL}/api/payouts`, [
        ['content-type', MEDIA_TYPE],
        ['content-type', 'application/json'],
      ]),
      true,
    ),
  },
  {
    id: 'base-nonce-empty-string',
    description:
      'The nonce parameter is the empty sf-string: @signature-params still carries ;nonce="" (a verifier then refuses it: NONCE_MISSING).',
    source: 'RFC 9421 §2.3; RFC 8941 §3.3.3',
    flags: ['Fuzz'],
    request: withSignerHeaders(payoutPre, true),
    nonce: '',
  },
];

export function buildSignatureBaseFile(signer: Caller): VectorFile {
  const cases = BASE_CASES.map((row) => baseCase(signer, row));
  return vectorFile(
    'signature-base',
    "The profile's signature base",
    'Input: a request as sent (its Content-Digest, Content-Length and application headers already present) and the signature parameters created, keyid and nonce (alg is always "ed25519"). Expected: the exact signature base (lines joined by LF, no trailing LF), or the error code when none can be built.',
    notes,
    cases,
  );
}
