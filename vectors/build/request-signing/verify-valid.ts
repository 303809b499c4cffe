// The valid verify cases of request-signing.json: what a conforming verifier must accept.
import { NON_ASCII_BODY, PAYOUT_BODY_SPACED } from '../content-digest.js';
import { BASE_URL, HOST, NOW, payoutCreate, request } from '../requests.js';
import {
  commit,
  del,
  get,
  n,
  payout,
  S,
  titleCase,
  type SigningContext,
  type VerifySpec,
} from './context.js';

/** Valid: the payout, bodyless GET and DELETE, an empty and a non-ASCII body, a query string. */
function validBodySpecs({ signed }: SigningContext): VerifySpec[] {
  return [
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
  ];
}

/** Valid: @authority with and without a port, in capitals; a POST without Content-Type. */
function validTargetSpecs({ signed }: SigningContext): VerifySpec[] {
  return [
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
  ];
}

/** Valid: header names and lines as sent, the clock window's edges, the longest nonce, other nonces recorded. */
function validWireSpecs({ signA, signed }: SigningContext): VerifySpec[] {
  return [
    {
      id: 'verify-header-names-capitalised-valid',
      description:
        'The same signed request with every header name capitalised on the wire (Signature-Input, X-Application-Id, ...).',
      source: 'RFC 9110 §5.1 (field names are case-insensitive)',
      result: 'valid',
      flags: ['HeaderCase'],
      change: (r) => titleCase(r),
    },
    {
      id: 'verify-header-lines-reordered-valid',
      description: 'The signed request with its header lines in reverse order.',
      source: 'spec: Authentication, step 2 (fixed component order)',
      result: 'valid',
      flags: ['HeaderCase'],
      change: (r) => ({ ...r, headers: [...r.headers].reverse() }),
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
  ];
}

/** Valid: application B, and keys registered in other accepted forms. */
function validKeySpecs({ callerB, signA, signed }: SigningContext): VerifySpec[] {
  return [
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
  ];
}

/** This file's groups of verify specs, in file order. */
export const validGroups = [validBodySpecs, validTargetSpecs, validWireSpecs, validKeySpecs];
