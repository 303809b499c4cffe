// Signed requests for the audit: a correct one through the core's `signRequest`, and one with exactly one thing
// broken (a parameter, the label, the covered components, a header, the digest, the signed path or authority)
// built with the same generic RFC 9421 layer, so everything not broken stays byte-for-byte what `signRequest` makes.
import { randomUUID } from 'node:crypto';
import { computeContentDigest } from '../../../src/digest/content-digest.js';
import { nodeBackend } from '../../../src/ed25519/node-backend.js';
import type { FieldLines, HttpRequest } from '../../../src/http/message.js';
import { serviceProfile } from '../../../src/profile/service-profile.js';
import {
  applySignedHeaders,
  signRequest,
  type SignOptions,
} from '../../../src/profile/sign-request.js';
import { componentIdentifiers } from '../../../src/signatures/component-identifier.js';
import { signSignatureBase } from '../../../src/signatures/create-signature.js';
import { createSignatureBase } from '../../../src/signatures/signature-base.js';
import { serializeSignature } from '../../../src/signatures/signature-fields.js';
import type { AuditCredentials } from './context.js';

/** What to break. Fields left out are as `signRequest` would make them. */
export interface Breakage {
  /** Unix seconds. */
  readonly created?: number;
  /** `null`: no nonce parameter. */
  readonly nonce?: string | null;
  /** `null`: no alg parameter. */
  readonly alg?: string | null;
  readonly keyId?: string;
  readonly label?: string;
  /** A second Signature-Input/Signature member with this label, carrying the same signature. */
  readonly extraLabel?: string;
  /** Covered component names, in order. */
  readonly components?: readonly string[];
  /** The x-application-id header and base value; `null`: absent (empty in the base). */
  readonly applicationId?: string | null;
  /** The x-application-secret header and base value; `null`: absent (empty in the base). */
  readonly applicationSecret?: string | null;
  /** The Content-Digest header and base value; `null`: absent (empty in the base). */
  readonly contentDigest?: string | null;
  /** The URL the signature base is computed over (path or authority other than the one the request goes to). */
  readonly signedUrl?: string;
}

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
  const nowSeconds = Math.floor(Date.now() / 1000);
  const added: Record<string, string> = {};
  const applicationId =
    breakage.applicationId === undefined ? credentials.applicationId : breakage.applicationId;
  const applicationSecret =
    breakage.applicationSecret === undefined
      ? credentials.applicationSecret
      : breakage.applicationSecret;
  const digest =
    breakage.contentDigest === undefined
      ? computeContentDigest(request.body, [serviceProfile.digestAlgorithm])
      : breakage.contentDigest;
  if (applicationId !== null) added['x-application-id'] = applicationId;
  if (applicationSecret !== null) added['x-application-secret'] = applicationSecret;
  if (digest !== null) added['content-digest'] = digest;
  if (!request.headers.some(([n]) => n.toLowerCase() === 'content-length'))
    added['content-length'] = String(request.body.length);
  const removed = new Set(['x-application-id', 'x-application-secret', 'content-digest']);
  const base: FieldLines = request.headers.filter(([n]) => !removed.has(n.toLowerCase()));
  const toSend: HttpRequest = { ...request, headers: [...base, ...Object.entries(added)] };

  const params = new Map<string, string | number>([['created', breakage.created ?? nowSeconds]]);
  params.set('keyid', breakage.keyId ?? credentials.keyId);
  const alg = breakage.alg === undefined ? serviceProfile.alg : breakage.alg;
  if (alg !== null) params.set('alg', alg);
  const nonce = breakage.nonce === undefined ? randomUUID() : breakage.nonce;
  if (nonce !== null) params.set('nonce', nonce);
  const components = componentIdentifiers(breakage.components ?? serviceProfile.componentNames);
  const signedView: HttpRequest =
    breakage.signedUrl === undefined ? toSend : { ...toSend, url: breakage.signedUrl };
  const result = createSignatureBase(
    signedView,
    components,
    params,
    serviceProfile.signatureBaseOptions,
  );
  if (!result.ok)
    throw new TypeError(`cannot build the signature base: ${result.code}: ${result.message}`);
  const signature = signSignatureBase(result.base, credentials.privateKey, nodeBackend);
  const label = breakage.label ?? serviceProfile.label;
  let signatureInput = `${label}=${result.signatureParams}`;
  let signatureField = serializeSignature(new Map([[label, signature]]));
  if (breakage.extraLabel !== undefined) {
    signatureInput += `, ${breakage.extraLabel}=${result.signatureParams}`;
    signatureField = serializeSignature(
      new Map([
        [label, signature],
        [breakage.extraLabel, signature],
      ]),
    );
  }
  return applySignedHeaders(toSend, {
    'signature-input': signatureInput,
    signature: signatureField,
  });
}

/** The request with every line of the named headers removed. */
export function withoutHeaders(request: HttpRequest, ...names: readonly string[]): HttpRequest {
  const drop = new Set(names.map((n) => n.toLowerCase()));
  return { ...request, headers: request.headers.filter(([n]) => !drop.has(n.toLowerCase())) };
}
