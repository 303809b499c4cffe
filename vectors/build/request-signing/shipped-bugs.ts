// The sign and verify cases for the bug classes other RFC 9421 implementations shipped: an empty covered list, a
// duplicated covered component, a body whose content-digest is not covered, a covered content-digest with no header,
// nonces from the whole base64 and URL-safe alphabets, an unknown parameter, a body on a method the profile's
// header table does not name. Each signature is valid over the base it claims, so only the profile's rule rejects it.
import { computeContentDigest } from '../../../src/digest/content-digest.js';
import { backends } from '../../../src/ed25519/index.js';
import type { HttpRequest } from '../../../src/http/message.js';
import { signSignatureBase } from '../../../src/signatures/create-signature.js';
import { utf8 } from '../common.js';
import { PAYOUT_BODY_SPACED } from '../content-digest.js';
import { BASE_URL, MEDIA_TYPE, request, setHeader } from '../requests.js';
import {
  C,
  n,
  payout,
  rules,
  S,
  type SignSpec,
  type SigningContext,
  type VerifySpec,
} from './context.js';

/** The nonces drawn from every character of the base64 (`+`, `/`, `=`) and base64url (`-`, `_`) alphabets. */
export const BASE64_NONCE = 'AZaz09+/AZaz09+/AZaz09+/AZaz09+/AZaz09+/AZaz09+/==';
export const BASE64URL_NONCE = 'AZaz09-_AZaz09-_AZaz09-_AZaz09-_AZaz09-_AZaz09-_';

/** A QUERY request (a method the profile's header table names in neither column) carrying a JSON body. */
export const queryWithBody = request(
  'QUERY',
  `${BASE_URL}/api/payouts`,
  [
    ['content-type', MEDIA_TYPE],
    ['accept', MEDIA_TYPE],
  ],
  '{"status":"COMMITTED"}',
);

const NO_BASE_STEP2 =
  'No signature base: step 2 refuses the covered list before step 9 would rebuild the base.';

/**
 * The request signed with a repeated covered component: RFC 9421 §2.5 makes such a base an error, so the library
 * refuses to build it; this writes the base a broken signer would (the repeated line twice) and signs it validly.
 */
function duplicatedComponent({ signed, vk }: SigningContext, id: string): HttpRequest {
  const r = signed(id);
  const input = r.headers.find(([k]) => k === 'signature-input')![1];
  const names = [...C, 'content-digest'];
  const params = input.slice(input.indexOf(')') + 1);
  const listed = `(${names.map((c) => `"${c}"`).join(' ')})${params}`;
  const value = (name: string): string =>
    r.headers.find(([k]) => k === name)?.[1] ??
    { '@method': 'POST', '@path': '/api/payouts', '@authority': new URL(r.url).host }[name]!;
  const base = [...names.map((c) => `"${c}": ${value(c)}`), `"@signature-params": ${listed}`].join(
    '\n',
  );
  const sig = Buffer.from(signSignatureBase(base, vk.clientA, backends[0]!)).toString('base64');
  return setHeader(setHeader(r, 'signature-input', `sig1=${listed}`), 'signature', `sig1=:${sig}:`);
}

/** Covered lists a shipped verifier accepted: empty (web-bot-auth#114), a component twice (Gitlawb/node#306). */
function coveredListSpecs(ctx: SigningContext): VerifySpec[] {
  const { custom, P } = ctx;
  return [
    {
      id: 'verify-components-empty-list',
      description:
        'sig1=() with the profile parameters: the signature covers only @signature-params, validly signed.',
      source: `${S.v2}; spec: step 2 (SIG-BASE-COMPONENTS-ORDER)`,
      result: 'invalid',
      flags: ['ComponentsPolicy', 'ShippedBug'],
      code: 'COMPONENTS_MISMATCH',
      comment: `${rules('fixed-components')}; requirement SIG-BASE-COMPONENTS-ORDER (cloudflare/web-bot-auth#114: an empty list verified, so nothing of the request was authenticated). ${NO_BASE_STEP2}`,
      request: custom('verify-components-empty-list', P('verify-components-empty-list'), {
        components: [],
      }),
    },
    {
      id: 'verify-components-duplicated',
      description:
        'The eight components with content-digest listed a second time at the end, validly signed over that base.',
      source: `${S.v2}; spec: step 2 (SIG-BASE-COMPONENTS-ORDER); RFC 9421 §2.5`,
      result: 'invalid',
      flags: ['ComponentsPolicy', 'ShippedBug'],
      code: 'COMPONENTS_MISMATCH',
      comment: `${rules('fixed-components')}; requirement SIG-BASE-COMPONENTS-ORDER (Gitlawb/node#306 accepted a duplicated component; RFC 9421 §2.5 makes it an error). ${NO_BASE_STEP2}`,
      request: duplicatedComponent(ctx, 'verify-components-duplicated'),
    },
  ];
}

/** The body left unauthenticated: content-digest not covered (open-payments-node#38) or covered as "" (Gitlawb). */
function bodySpecs({ custom, P, A, signA }: SigningContext): VerifySpec[] {
  const swapped = PAYOUT_BODY_SPACED.replace('125.5', '925.5');
  const uncovered = custom(
    'verify-body-swapped-digest-not-covered',
    P('verify-body-swapped-digest-not-covered'),
    {
      components: C.filter((c) => c !== 'content-digest'),
    },
  );
  return [
    {
      id: 'verify-body-swapped-digest-not-covered',
      description:
        'Signed without content-digest covered; the body then swapped and its Content-Digest recomputed to match.',
      source: `${S.v2}; spec: step 2 (SIG-BASE-COMPONENTS-ORDER, DIGEST-EXACT-BYTES)`,
      result: 'invalid',
      flags: ['ComponentsPolicy', 'ContentDigest', 'ShippedBug'],
      code: 'COMPONENTS_MISMATCH',
      comment: `${rules('fixed-components')}; requirements SIG-BASE-COMPONENTS-ORDER and DIGEST-EXACT-BYTES (interledger/open-payments-node#38: the body could be swapped). The digest matches the new body and the signature is valid over what it covers. ${NO_BASE_STEP2}`,
      request: setHeader(
        { ...uncovered, body: utf8(swapped) },
        'content-digest',
        computeContentDigest(utf8(swapped)),
      ),
    },
    {
      id: 'verify-content-digest-covered-absent-signed-empty',
      description:
        'A POST with a body, content-digest covered, no Content-Digest sent, validly signed with the empty value "" in the base.',
      source: `${S.v8}; spec: headers' table (SIG-HEADERS-BODY)`,
      result: 'invalid',
      flags: ['ContentDigest', 'MissingHeader', 'ShippedBug'],
      code: 'DIGEST_MISSING',
      comment: `${rules('absent-field-empty', 'content-digest-profile')}; requirement SIG-HEADERS-BODY (Gitlawb/node#306: both sides read the absent header as "" and the signature verified). The signature is valid over a base with the line \`"content-digest": \`; a body-carrying request must send the header, so step 8 rejects it before step 9 builds a base.`,
      request: custom(
        'verify-content-digest-covered-absent-signed-empty',
        P('verify-content-digest-covered-absent-signed-empty'),
        { digest: null },
      ),
    },
    {
      id: 'verify-query-method-body-digest-missing',
      description:
        'A QUERY request with a body, no Content-Digest sent (content-digest covered as ""), validly signed.',
      source: `${S.v8}; spec: headers' table (SIG-HEADERS-BODY: body-carrying request)`,
      result: 'invalid',
      flags: ['ContentDigest', 'OtherMethod', 'ShippedBug'],
      code: 'DIGEST_MISSING',
      comment: `${rules('content-digest-profile')}; requirement SIG-HEADERS-BODY. QUERY is in neither column of the table; a request with body bytes is body-carrying, so Content-Digest is required. Step 8 rejects it before step 9 builds a base.`,
      request: custom(
        'verify-query-method-body-digest-missing',
        P('verify-query-method-body-digest-missing'),
        {
          req: queryWithBody,
          digest: null,
        },
      ),
    },
    {
      id: 'verify-query-method-with-body-valid',
      description:
        'A QUERY request with a body, signed as the profile says: Content-Digest sent and covered.',
      source: `${S.sign}; spec: headers' table (SIG-HEADERS-BODY: body-carrying request)`,
      result: 'valid',
      flags: ['ContentDigest', 'OtherMethod', 'ShippedBug'],
      comment: `${rules('content-digest-profile')}; requirement SIG-HEADERS-BODY: Content-Digest on any request that carries body bytes, whatever its method. The base is expected.signatureBase.`,
      request: signA(queryWithBody, n('verify-query-method-with-body-valid'), undefined, A),
    },
  ];
}

/** Nonces from the whole base64 and base64url alphabets (web-bot-auth#3); a parameter nobody defined (#126). */
function parameterSpecs({ custom, P, signA }: SigningContext): VerifySpec[] {
  return [
    {
      id: 'verify-nonce-base64-alphabet-valid',
      description: `A 50-character nonce with "+", "/" and "=" (${BASE64_NONCE}).`,
      source: `${S.v4} (SIG-PARAM-NONCE)`,
      result: 'valid',
      flags: ['Nonce', 'ShippedBug'],
      comment: `${rules('nonce-rules')}; requirement SIG-PARAM-NONCE: any string of at most 50 characters (cloudflare/web-bot-auth#3: a hand-written parser broke on "+", "/" and "="). The base is expected.signatureBase.`,
      request: signA(payout, BASE64_NONCE),
    },
    {
      id: 'verify-nonce-base64url-alphabet-valid',
      description: `A nonce with "-" and "_" (${BASE64URL_NONCE}).`,
      source: `${S.v4} (SIG-PARAM-NONCE)`,
      result: 'valid',
      flags: ['Nonce', 'ShippedBug'],
      comment: `${rules('nonce-rules')}; requirement SIG-PARAM-NONCE (cloudflare/web-bot-auth#3). The base is expected.signatureBase.`,
      request: signA(payout, BASE64URL_NONCE),
    },
    {
      id: 'verify-parameters-unknown',
      description:
        'The four profile parameters followed by an unknown one (x-ignored="1"), validly signed over it.',
      source: `${S.v2}; spec: step 2 (SIG-INPUT-HEADER)`,
      result: 'acceptable',
      flags: ['ParametersPolicy', 'ShippedBug'],
      code: 'PARAMETERS_MISMATCH',
      comment: `${rules('fixed-parameters')}; requirement SIG-INPUT-HEADER: the parameters are exactly created, keyid, alg, nonce. RFC 9421 §2.3 lets a verifier ignore a parameter it does not know (cloudflare/web-bot-auth#126: accepted and silently ignored); the profile refuses it. ${NO_BASE_STEP2}`,
      request: custom('verify-parameters-unknown', [
        ...P('verify-parameters-unknown'),
        ['x-ignored', '1'],
      ]),
    },
  ];
}

/** Sign: the same nonces and the QUERY request with a body, for signers. */
export function shippedBugSignSpecs(): SignSpec[] {
  return [
    {
      id: 'sign-nonce-base64-alphabet',
      description: 'A 50-character nonce with "+", "/" and "=": written as is in the sf-string.',
      source: 'spec: Authentication, signature parameters (SIG-PARAM-NONCE)',
      flags: ['Nonce', 'ShippedBug'],
      request: payout,
      nonce: BASE64_NONCE,
    },
    {
      id: 'sign-nonce-base64url-alphabet',
      description: 'A nonce with "-" and "_": written as is in the sf-string.',
      source: 'spec: Authentication, signature parameters (SIG-PARAM-NONCE)',
      flags: ['Nonce', 'ShippedBug'],
      request: payout,
      nonce: BASE64URL_NONCE,
    },
    {
      id: 'sign-query-method-with-body',
      description:
        "A QUERY request (in neither column of the headers' table) with a body: Content-Digest and Content-Length are added, as on any request that carries body bytes (SIG-HEADERS-BODY).",
      source: "spec: Authentication, headers' table (Body-carrying request)",
      flags: ['ContentDigest', 'OtherMethod', 'ShippedBug'],
      request: queryWithBody,
    },
  ];
}

export const shippedBugGroups = [coveredListSpecs, bodySpecs, parameterSpecs];
