// The verify cases of steps 8 to 10 of the server verification order: the Content-Digest, the signature base, the signature.
import { computeContentDigest } from '../../../src/digest/content-digest.js';
import type { HttpRequest } from '../../../src/http/message.js';
import { utf8 } from '../common.js';
import { PAYOUT_BODY_COMPACT, PAYOUT_BODY_SPACED } from '../content-digest.js';
import {
  addHeaderLine,
  BASE_URL,
  HOST,
  mapHeader,
  MEDIA_TYPE,
  NOW,
  payoutCreate,
  PAYOUT_ID,
  request,
  setHeader,
} from '../requests.js';
import {
  flipFirstSignatureChar,
  get,
  n,
  payout,
  S,
  type SigningContext,
  type VerifySpec,
} from './context.js';

/** Step 8: Content-Digest present and matching the exact body bytes. */
function contentDigestSpecs({ custom, P, signed }: SigningContext): VerifySpec[] {
  return [
    {
      id: 'verify-content-digest-missing',
      description: 'A POST without Content-Digest (removed after signing).',
      source: S.v8,
      result: 'invalid',
      flags: ['ContentDigest'],
      code: 'DIGEST_MISSING',
      change: (r) => setHeader(r, 'content-digest', undefined),
    },
    {
      id: 'verify-body-changed',
      description: 'The amount in the body changed after signing.',
      source: S.v8,
      result: 'invalid',
      flags: ['ContentDigest', 'Tampered'],
      code: 'DIGEST_MISMATCH',
      change: (r) => ({
        ...r,
        body: utf8(PAYOUT_BODY_SPACED.replace('125.5', '925.5')),
      }),
    },
    {
      id: 'verify-body-reserialised',
      description: 'The body re-serialised without spaces after signing (same JSON value).',
      source: S.v8,
      result: 'invalid',
      flags: ['ContentDigest', 'ExactBytes'],
      code: 'DIGEST_MISMATCH',
      change: (r) => ({ ...r, body: utf8(PAYOUT_BODY_COMPACT) }),
    },
    {
      id: 'verify-body-trailing-newline-added',
      description: 'A trailing LF added to the body after signing.',
      source: S.v8,
      result: 'invalid',
      flags: ['ContentDigest', 'ExactBytes'],
      code: 'DIGEST_MISMATCH',
      change: (r) => ({ ...r, body: utf8(`${PAYOUT_BODY_SPACED}\n`) }),
    },
    {
      id: 'verify-content-digest-sha256-only',
      description: 'Validly signed with a correct sha-256 Content-Digest and no sha-512 member.',
      source: `${S.v8}; spec: Algorithms (SHA-512)`,
      result: 'invalid',
      flags: ['ContentDigest'],
      code: 'DIGEST_ALGORITHM_UNSUPPORTED',
      request: custom('verify-content-digest-sha256-only', P('verify-content-digest-sha256-only'), {
        digest: computeContentDigest(utf8(PAYOUT_BODY_SPACED), ['sha-256']),
      }),
    },
  ];
}

/** Step 8: the Content-Digest's form (its key, on bodyless methods, extra members). */
function digestFormSpecs({ custom, P, signed }: SigningContext): VerifySpec[] {
  return [
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
          digest: computeContentDigest(utf8(PAYOUT_BODY_SPACED)).replace('sha-512', 'SHA-512'),
        },
      ),
    },
    {
      id: 'verify-content-digest-on-get',
      description:
        'A GET validly signed with a Content-Digest of the empty body: must not be sent.',
      source: `${S.v8}; spec: Bodyless requests`,
      result: 'acceptable',
      flags: ['ContentDigest', 'Bodyless'],
      code: 'DIGEST_UNEXPECTED',
      request: custom('verify-content-digest-on-get', P('verify-content-digest-on-get'), {
        req: get,
        digest: computeContentDigest(new Uint8Array()),
      }),
    },
    {
      id: 'verify-body-on-get',
      description: 'A signed GET that carries a body (not covered by any digest).',
      source: `${S.v8}; spec: Bodyless requests`,
      result: 'acceptable',
      flags: ['ContentDigest', 'Bodyless'],
      code: 'BODY_UNEXPECTED',
      signedRequest: get,
      change: (r) => ({ ...r, body: utf8('{"amount": 1}') }),
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
          digest: computeContentDigest(utf8(PAYOUT_BODY_SPACED), ['sha-256', 'sha-512']),
        },
      ),
    },
  ];
}

/** Step 9: a signature base that cannot be built (a host not as written, non-ASCII). */
function signatureBaseSpecs({ signed }: SigningContext): VerifySpec[] {
  return [
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
      change: (r) => setHeader(r, 'content-type', 'application/json; charset=utf-8; q=é'),
    },
  ];
}

/** Step 10: a signature that is not the registered key's over this request. */
function wrongSignatureSpecs({ A, b, signA, signed, vk }: SigningContext): VerifySpec[] {
  return [
    {
      id: 'verify-signature-bit-flipped',
      description: 'The first base64 character of the signature changed.',
      source: S.v10,
      result: 'invalid',
      flags: ['Tampered'],
      code: 'SIGNATURE_INVALID',
      change: (r) => mapHeader(r, 'signature', flipFirstSignatureChar),
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
  ];
}

/** A request signed by A (the payout unless `signedRequest`), then changed: step 10 rejects it. */
interface TamperRow {
  readonly id: string;
  readonly description: string;
  readonly source: string;
  readonly flags: readonly string[];
  readonly signedRequest?: HttpRequest;
  /** What changes after signing. */
  readonly change: (signed: HttpRequest) => HttpRequest;
}

/** Step 10: the method, the target, a covered header or a signature parameter changed after signing. */
const TAMPERED_AFTER_SIGNING: readonly TamperRow[] = [
  {
    id: 'verify-method-changed',
    description: 'Signed as POST, sent as PUT.',
    source: S.v10,
    flags: ['Tampered'],
    change: (r) => ({ ...r, method: 'PUT' }),
  },
  {
    id: 'verify-path-changed',
    description: 'Signed for /api/payouts, sent to /api/payouts/{id}/commit.',
    source: S.v10,
    flags: ['Tampered'],
    change: (r) => ({ ...r, url: `${BASE_URL}/api/payouts/${PAYOUT_ID}/commit` }),
  },
  {
    id: 'verify-query-added',
    description: 'A query string added to the signed URL.',
    source: `${S.v10}; ${S.path}`,
    flags: ['Tampered', 'QueryString'],
    change: (r) => ({ ...r, url: `${BASE_URL}/api/payouts?dryRun=false` }),
  },
  {
    id: 'verify-query-changed',
    description: 'One query value changed after signing.',
    source: `${S.v10}; ${S.path}`,
    flags: ['Tampered', 'QueryString'],
    signedRequest: payoutCreate(PAYOUT_BODY_SPACED, `${BASE_URL}/api/payouts?dryRun=true`),
    change: (r) => ({ ...r, url: r.url.replace('dryRun=true', 'dryRun=false') }),
  },
  {
    id: 'verify-authority-changed',
    description: 'Signed for the sandbox host, sent to another host.',
    source: `${S.v10}; ${S.authority}`,
    flags: ['Tampered', 'Authority'],
    change: (r) => ({ ...r, url: 'https://api.payments.example/api/payouts' }),
  },
  {
    id: 'verify-port-changed',
    description: 'Signed for port 8443, sent to port 9443.',
    source: `${S.v10}; ${S.authority}`,
    flags: ['Tampered', 'Authority'],
    signedRequest: payoutCreate(PAYOUT_BODY_SPACED, `https://${HOST}:8443/api/payouts`),
    change: (r) => ({ ...r, url: r.url.replace(':8443', ':9443') }),
  },
  {
    id: 'verify-content-type-changed',
    description: 'Content-Type changed to application/json after signing.',
    source: S.v10,
    flags: ['Tampered'],
    change: (r) => setHeader(r, 'content-type', 'application/json'),
  },
  {
    id: 'verify-content-type-added',
    description: 'Signed without Content-Type (empty value), Content-Type added afterwards.',
    source: S.v10,
    flags: ['Tampered', 'MissingHeader'],
    signedRequest: request('POST', `${BASE_URL}/api/payouts`, [], PAYOUT_BODY_SPACED),
    change: (r) => addHeaderLine(r, 'content-type', MEDIA_TYPE),
  },
  {
    id: 'verify-content-length-changed',
    description: 'Content-Length changed after signing.',
    source: S.v10,
    flags: ['Tampered'],
    change: (r) => mapHeader(r, 'content-length', (v) => String(Number(v) + 1)),
  },
  {
    id: 'verify-created-changed',
    description: 'created moved 60 s later in Signature-Input after signing.',
    source: S.v10,
    flags: ['Tampered'],
    change: (r) =>
      mapHeader(r, 'signature-input', (v) => v.replace(`created=${NOW}`, `created=${NOW + 60}`)),
  },
  {
    id: 'verify-nonce-changed',
    description: 'The nonce replaced in Signature-Input after signing (to dodge replay detection).',
    source: S.v10,
    flags: ['Tampered', 'Replay'],
    change: (r) =>
      mapHeader(r, 'signature-input', (v) =>
        v.replace(n('verify-nonce-changed'), n('verify-nonce-changed-2')),
      ),
  },
];

function tamperedSpecs(): VerifySpec[] {
  return TAMPERED_AFTER_SIGNING.map((row) => ({
    ...row,
    result: 'invalid',
    code: 'SIGNATURE_INVALID',
  }));
}

/** This file's groups of verify specs, in file order. */
export const bodyAndSignatureGroups = [
  contentDigestSpecs,
  digestFormSpecs,
  signatureBaseSpecs,
  wrongSignatureSpecs,
  tamperedSpecs,
];
