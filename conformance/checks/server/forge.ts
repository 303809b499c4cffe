// Signed requests for the audit: a correct one through the core's `signRequest`, and one with exactly one thing
// broken (a parameter, the label, the covered components, a header, the digest, the signed path or authority)
// through its overrides form, so everything not broken stays byte-for-byte what `signRequest` makes.
import type { HttpRequest } from '../../../src/http/message.js';
import {
  applySignedHeaders,
  signRequest,
  signRequestWithOverrides,
  type SignOptions,
  type SignOverrides,
} from '../../../src/profile/sign-request.js';
import type { AuditCredentials } from './context.js';

/** What to break. Fields left out are as `signRequest` would make them (see `SignOverrides`). */
export type Breakage = Pick<
  SignOverrides,
  | 'created'
  | 'nonce'
  | 'alg'
  | 'keyId'
  | 'label'
  | 'extraLabel'
  | 'components'
  | 'applicationId'
  | 'applicationSecret'
  | 'contentDigest'
  | 'signedUrl'
>;

/** `request` signed by the core (`signRequest`): the correct request every fault starts from. */
export function signCorrectly(
  request: HttpRequest,
  credentials: AuditCredentials,
  options: SignOptions = {},
): HttpRequest {
  const signed = signRequest(request, credentials, options);
  return applySignedHeaders(request, signed.headers);
}

/**
 * `request` signed with one thing broken: the headers sent agree with the signature base (so only the broken
 * rule can make a verifier reject it), except for `signedUrl`, whose point is that they disagree.
 */
export function signBroken(
  request: HttpRequest,
  credentials: AuditCredentials,
  breakage: Breakage,
): HttpRequest {
  const signed = signRequestWithOverrides(request, credentials, breakage);
  return applySignedHeaders(request, signed.headers, signed.removed);
}

/** The request with every line of the named headers removed. */
export function withoutHeaders(request: HttpRequest, ...names: readonly string[]): HttpRequest {
  const drop = new Set(names.map((n) => n.toLowerCase()));
  return { ...request, headers: request.headers.filter(([n]) => !drop.has(n.toLowerCase())) };
}
