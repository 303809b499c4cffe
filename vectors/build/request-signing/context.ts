// What the request-signing cases share: the spec sources they cite, the case shapes, the requests before signing,
// and the signing helpers bound to application A's keys (createSigningContext).
import { computeContentDigest } from '../../../src/digest/content-digest.js';
import type { HttpRequest } from '../../../src/http/message.js';
import { PROFILE_DEPARTURES, type DepartureId } from '../../../src/profile/departures.js';
import { serviceProfile } from '../../../src/profile/service-profile.js';
import type { KeyEncoding, KeysFile, VectorResult } from '../../format.js';
import { nonceFor, utf8 } from '../common.js';
import { PAYOUT_BODY_SPACED } from '../content-digest.js';
import { APP_B, type VectorKeys } from '../keys.js';
import {
  BASE_URL,
  callerA,
  MEDIA_TYPE,
  NOW,
  payoutCreate,
  PAYOUT_ID,
  profileParams,
  request,
  setHeader,
  sign,
  signCustom,
  withApplicationHeaders,
  type Caller,
} from '../requests.js';

/** The spec sections the cases cite. */
export const S = {
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

export interface SignSpec {
  readonly id: string;
  readonly description: string;
  readonly source: string;
  readonly flags: readonly string[];
  readonly request: HttpRequest;
  readonly keyFormat?: KeyEncoding;
  readonly created?: number;
  readonly nonce?: string;
}

/**
 * A verify case. Its request is either written out (`request`) or A's request signed with the case id's nonce (the
 * payout unless `signedRequest`) and changed afterwards (`change`), so a case that alters a signed request names
 * only the alteration.
 */
export type VerifySpec = {
  readonly id: string;
  readonly description: string;
  readonly source: string;
  readonly result: VectorResult;
  readonly flags: readonly string[];
  readonly now?: number;
  readonly nonceState?: readonly string[];
  readonly verifier?: string;
  readonly code?: string;
  readonly comment?: string;
} & (
  | { readonly request: HttpRequest }
  | {
      readonly signedRequest?: HttpRequest;
      readonly change: (signed: HttpRequest) => HttpRequest;
    }
);

/** The request a verify spec sends. */
export function verifySpecRequest(ctx: SigningContext, spec: VerifySpec): HttpRequest {
  return 'request' in spec ? spec.request : spec.change(ctx.signed(spec.id, spec.signedRequest));
}

/** The requests before signing that most cases start from. */
export const payout = payoutCreate(PAYOUT_BODY_SPACED);
export const get = request('GET', `${BASE_URL}/api/payouts/${PAYOUT_ID}`, [['accept', MEDIA_TYPE]]);
export const del = request('DELETE', `${BASE_URL}/api/payouts/${PAYOUT_ID}`, [
  ['accept', MEDIA_TYPE],
]);
export const commit = request('POST', `${BASE_URL}/api/payouts/${PAYOUT_ID}/commit`, [
  ['content-type', MEDIA_TYPE],
  ['accept', MEDIA_TYPE],
]);

/** The profile rules (the one table of departures) a case exercises, named in its comment. */
export function rules(...ids: DepartureId[]): string {
  const named = ids.map((id) => `${id} (${PROFILE_DEPARTURES[id].title})`);
  return `Profile rule${ids.length > 1 ? 's' : ''} ${named.join(' and ')}`;
}

/** The deterministic nonce of a case id. */
export const n = (id: string): string => nonceFor(id);
/** The profile's eight covered components, in order. */
export const C = serviceProfile.componentNames;

/** Every header name capitalised per dash-separated part (`Signature-Input`), as some stacks send them. */
export function titleCase(req: HttpRequest): HttpRequest {
  return {
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
  };
}

export function sigValue(req: HttpRequest): string {
  return req.headers.find(([k]) => k === 'signature')![1];
}

export function flipFirstSignatureChar(v: string): string {
  return v.replace(/=:(.)/, (_, c: string) => `=:${c === 'A' ? 'B' : 'A'}`);
}

/** The request with its signature's bytes cut (delta < 0) or padded with 0x2a (delta > 0). */
export function resized(r: HttpRequest, delta: number): HttpRequest {
  const bytes = Buffer.from(sigValue(r).slice('sig1=:'.length, -1), 'base64');
  const changed =
    delta < 0
      ? bytes.subarray(0, bytes.length + delta)
      : Buffer.concat([bytes, Buffer.alloc(delta, 0x2a)]);
  return setHeader(r, 'signature', `sig1=:${changed.toString('base64')}:`);
}

/** Off-profile signing options of `custom`: another label, covered list, Content-Digest or request (unsigned). */
export interface CustomOptions {
  readonly label?: string;
  readonly components?: readonly string[];
  /** The Content-Digest sent and covered, instead of the body's; `null`: none sent (covered as empty). */
  readonly digest?: string | null;
  /** The request before signing (default the payout). */
  readonly req?: HttpRequest;
}

/** The signing helpers bound to the vector keys (application A unless a case says otherwise). */
export interface SigningContext {
  readonly keys: KeysFile;
  readonly vk: VectorKeys;
  readonly A: Caller;
  readonly callerB: Caller;
  /** Application B's Ed25519 key (RFC 9421 B.1.4's test key). */
  readonly b: VectorKeys['rfc9421'];
  readonly signA: (
    req: HttpRequest,
    nonce: string,
    created?: number,
    caller?: Caller,
  ) => HttpRequest;
  /** The request (the payout by default) signed by A with the case id's nonce. */
  readonly signed: (id: string, req?: HttpRequest) => HttpRequest;
  /** The payout with A's application headers and a Content-Digest (the body's by default), unsigned. */
  readonly payoutHeaders: (digest?: string) => HttpRequest;
  /** The payout headers signed off-profile with these parameters. */
  readonly custom: (
    id: string,
    params: Array<[string, string | number]>,
    extra?: CustomOptions,
  ) => HttpRequest;
  /** The profile's parameters for a case id: created=NOW, A's keyid, the case's nonce. */
  readonly P: (id: string) => Array<[string, string | number]>;
  /** A payout whose signature is written base64url (searched for one with "+" or "/"). */
  readonly base64urlSigned: () => HttpRequest;
}

export function createSigningContext(keys: KeysFile, vk: VectorKeys): SigningContext {
  const A = callerA(vk.clientA);
  const signA = (req: HttpRequest, nonce: string, created = NOW, caller: Caller = A): HttpRequest =>
    sign(req, caller, created, nonce).request;
  const payoutHeaders = (digest = computeContentDigest(utf8(PAYOUT_BODY_SPACED))): HttpRequest =>
    withApplicationHeaders(payout, A.applicationId, A.applicationSecret, digest);
  const custom = (
    id: string,
    params: Array<[string, string | number]>,
    extra: CustomOptions = {},
  ): HttpRequest =>
    signCustom(extra.req ?? payout, A, {
      params,
      ...(extra.label ? { label: extra.label } : {}),
      ...(extra.components ? { components: extra.components } : {}),
      ...(extra.digest !== undefined ? { contentDigest: extra.digest } : {}),
    });
  const b = vk.rfc9421;
  const callerB: Caller = {
    applicationId: APP_B.applicationId,
    applicationSecret: APP_B.applicationSecret,
    keyId: APP_B.keyId,
    privateKey: b,
  };
  const base64urlSigned = (): HttpRequest => {
    // Search deterministically for a nonce whose signature contains "+" or "/", so base64url differs from base64.
    for (let i = 0; i < 64; i++) {
      const r = signA(payout, n(`verify-signature-base64url-${i}`));
      const v = sigValue(r);
      if (/[+/]/.test(v))
        return setHeader(r, 'signature', v.replace(/\+/g, '-').replace(/\//g, '_'));
    }
    throw new Error('no signature with "+" or "/" in 64 tries');
  };
  return {
    keys,
    vk,
    A,
    callerB,
    b,
    signA,
    payoutHeaders,
    custom,
    base64urlSigned,
    signed: (id, req = payout) => signA(req, n(id)),
    P: (id) => profileParams(NOW, A.keyId, n(id)),
  };
}
