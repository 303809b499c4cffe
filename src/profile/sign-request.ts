// Signs a request under the service profile (spec, Authentication, Steps 1-5): the headers to add and the base.
import { randomUUID } from 'node:crypto';
import type { Ed25519Backend, Ed25519PrivateKey } from '../ed25519/backend.js';
import { nodeBackend } from '../ed25519/node-backend.js';
import { PayconformError } from '../errors.js';
import type { HttpRequest } from '../http/message.js';
import { computeContentDigest } from '../digest/content-digest.js';
import { signSignatureBase } from '../signatures/create-signature.js';
import {
  componentIdentifiers,
  type ComponentIdentifier,
} from '../signatures/component-identifier.js';
import { createSignatureBase } from '../signatures/signature-base.js';
import { serializeSignature } from '../signatures/signature-fields.js';
import { applicationSecretProblem } from './application-secret.js';
import { bodyKindOf } from './body-kind.js';
import { serviceProfile } from './service-profile.js';

/** What a signer holds: the application id and secret, the key id and the Ed25519 private key. */
export interface SigningCredentials {
  readonly applicationId: string;
  readonly applicationSecret: string;
  readonly keyId: string;
  readonly privateKey: Ed25519PrivateKey;
}

/** What a signer may set: `created`, the nonce, and the Ed25519 backend. */
export interface SignOptions {
  /** Unix seconds (Integer); default now. */
  readonly created?: number;
  /** At most 50 printable ASCII characters; default a UUIDv4. */
  readonly nonce?: string;
  readonly backend?: Ed25519Backend;
}

/** The headers a signed request carries, and the signature base that was signed. */
export interface SignResult {
  /**
   * Lowercase header names to add to (or replace on) the request: x-application-id, x-application-secret,
   * content-digest and content-length (when the request lacks one) on a body-carrying request (`bodyKindOf`),
   * signature-input, signature.
   */
  readonly headers: Readonly<Record<string, string>>;
  /** The exact signature base that was signed (it contains the application secret: never log it). */
  readonly signatureBase: string;
  /** Lowercase header names to remove from the request (only where an override left a header out). */
  readonly removed?: readonly string[];
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

function checkHeaderText(value: unknown, what: string): string {
  if (typeof value !== 'string' || value === '')
    throw new TypeError(`${what} must be a non-empty string`);
  if (!PRINTABLE_ASCII.test(value) || value !== value.trim()) {
    throw new TypeError(`${what} must be printable ASCII without leading or trailing spaces`);
  }
  return value;
}

/**
 * The request with `headers` set: existing lines of those names (any case) are removed, new lines appended; lines of
 * the `removed` names (a SignResult's) are removed too.
 */
export function applySignedHeaders(
  request: HttpRequest,
  headers: Readonly<Record<string, string>>,
  removed: readonly string[] = [],
): HttpRequest {
  const names = new Set([...Object.keys(headers), ...removed].map((n) => n.toLowerCase()));
  const kept = request.headers.filter(([name]) => !names.has(name.toLowerCase()));
  return { ...request, headers: [...kept, ...Object.entries(headers)] };
}

/**
 * Signs `request` for the payments service. Pure and deterministic when `created` and `nonce` are given.
 * Throws TypeError on misuse (bad credentials or options, a body on GET/DELETE) and PayconformError when the
 * request cannot be signed (e.g. a non-ASCII covered header, a bad URL).
 * @example
 * const { request: signed } = signRequest(request, { applicationId, applicationSecret, keyId, privateKey });
 * await fetch(signed.url, { method: signed.method, headers: signed.headers, body: signed.body });
 */
export function signRequest(
  request: HttpRequest,
  credentials: SigningCredentials,
  options: SignOptions = {},
): SignResult {
  if (
    !request ||
    typeof request.method !== 'string' ||
    typeof request.url !== 'string' ||
    !Array.isArray(request.headers) ||
    !(request.body instanceof Uint8Array)
  ) {
    throw new TypeError(
      'request must be an HttpRequest { method, url, headers, body: Uint8Array }',
    );
  }
  const applicationId = checkHeaderText(credentials?.applicationId, 'applicationId');
  const secretProblem = applicationSecretProblem(credentials?.applicationSecret as string);
  if (secretProblem !== undefined) throw new TypeError(`applicationSecret ${secretProblem}`);
  const applicationSecret = credentials.applicationSecret;
  const keyId = checkHeaderText(credentials.keyId, 'keyId');
  if (credentials.privateKey?.kind !== 'ed25519-private')
    throw new TypeError('privateKey must be an Ed25519PrivateKey');
  const created = options.created ?? Math.floor(Date.now() / 1000);
  if (!Number.isSafeInteger(created) || created < 0)
    throw new TypeError('created must be a non-negative integer (unix seconds)');
  const nonce = options.nonce ?? randomUUID();
  if (
    typeof nonce !== 'string' ||
    nonce === '' ||
    nonce.length > serviceProfile.nonceMaxLength ||
    !PRINTABLE_ASCII.test(nonce)
  ) {
    throw new TypeError(
      `nonce must be 1 to ${serviceProfile.nonceMaxLength} printable ASCII characters`,
    );
  }
  if (serviceProfile.bodylessMethods.includes(request.method) && request.body.length > 0) {
    throw new TypeError(`a ${request.method} request must not have a body`);
  }
  const result = signWithPlan(request, {
    added: signerHeaders(request, { applicationId, applicationSecret }),
    removed: [],
    params: profileParams(created, keyId, serviceProfile.alg, nonce),
    components: serviceProfile.coveredComponents,
    label: serviceProfile.label,
    privateKey: credentials.privateKey,
    backend: options.backend ?? nodeBackend,
  });
  if (!result.ok)
    throw new PayconformError(result.code, `cannot sign the request: ${result.message}`);
  return result.signed;
}

/** What the application headers and Content-Digest of `signerHeaders` are: the caller's, or (`null`) not sent. */
export interface SignerHeaderValues {
  readonly applicationId: string | null;
  readonly applicationSecret: string | null;
  /** Default: the profile's digest of the body on a body-carrying request, none on a bodyless one. */
  readonly contentDigest?: string | null;
}

/**
 * The headers a signer adds before building the base: x-application-id, x-application-secret, then for a
 * body-carrying request (`bodyKindOf`) Content-Digest and, unless the request has one, Content-Length.
 */
export function signerHeaders(
  request: HttpRequest,
  values: SignerHeaderValues,
): Record<string, string> {
  const bodyCarrying = bodyKindOf(request.method, request.body.length) === 'body-carrying';
  const added: Record<string, string> = {};
  if (values.applicationId !== null) added['x-application-id'] = values.applicationId;
  if (values.applicationSecret !== null) added['x-application-secret'] = values.applicationSecret;
  const digest =
    values.contentDigest !== undefined
      ? values.contentDigest
      : bodyCarrying
        ? computeContentDigest(request.body, [serviceProfile.digestAlgorithm])
        : null;
  if (digest !== null) added['content-digest'] = digest;
  const hasLength = request.headers.some(([name]) => name.toLowerCase() === 'content-length');
  if (bodyCarrying && !hasLength) added['content-length'] = String(request.body.length);
  return added;
}

/** The profile's signature parameters in its order; a `null` alg or nonce is left out. */
function profileParams(
  created: number,
  keyId: string,
  alg: string | null,
  nonce: string | null,
): Map<string, string | number> {
  const params = new Map<string, string | number>([
    ['created', created],
    ['keyid', keyId],
  ]);
  if (alg !== null) params.set('alg', alg);
  if (nonce !== null) params.set('nonce', nonce);
  return params;
}

/** Everything the one signing path needs, decided by `signRequest` or `signRequestWithOverrides`. */
interface SigningPlan {
  readonly added: Readonly<Record<string, string>>;
  /** Header names whose lines are removed and not sent (an override of `null`). */
  readonly removed: readonly string[];
  readonly params: ReadonlyMap<string, string | number>;
  readonly components: readonly ComponentIdentifier[];
  readonly label: string;
  readonly extraLabel?: string;
  readonly signedUrl?: string;
  readonly privateKey: Ed25519PrivateKey;
  readonly backend: Ed25519Backend;
}

type PlanResult =
  | { readonly ok: true; readonly signed: SignResult }
  | { readonly ok: false; readonly code: string; readonly message: string };

/** The only code that writes Signature-Input and Signature. */
function signWithPlan(request: HttpRequest, plan: SigningPlan): PlanResult {
  const removed = new Set(plan.removed);
  const kept = request.headers.filter(([name]) => !removed.has(name.toLowerCase()));
  const toSign = applySignedHeaders({ ...request, headers: kept }, plan.added);
  const view = plan.signedUrl === undefined ? toSign : { ...toSign, url: plan.signedUrl };
  const base = createSignatureBase(
    view,
    plan.components,
    plan.params,
    serviceProfile.signatureBaseOptions,
  );
  if (!base.ok) return base;
  const signature = signSignatureBase(base.base, plan.privateKey, plan.backend);
  const members = new Map([[plan.label, signature]]);
  let signatureInput = `${plan.label}=${base.signatureParams}`;
  if (plan.extraLabel !== undefined) {
    signatureInput += `, ${plan.extraLabel}=${base.signatureParams}`;
    members.set(plan.extraLabel, signature);
  }
  return {
    ok: true,
    signed: {
      headers: Object.freeze({
        ...plan.added,
        'signature-input': signatureInput,
        signature: serializeSignature(members),
      }),
      signatureBase: base.base,
      ...(plan.removed.length > 0 ? { removed: plan.removed } : {}),
    },
  };
}

/** What `signRequestWithOverrides` changes; every field left out is as `signRequest` makes it. */
export interface SignOverrides {
  /** Unix seconds; default now. */
  readonly created?: number;
  /** Default a UUIDv4; `null`: no nonce parameter. */
  readonly nonce?: string | null;
  /** Default the profile's; `null`: no alg parameter. */
  readonly alg?: string | null;
  /** Default the credentials' key id. */
  readonly keyId?: string;
  /** The signature parameters exactly, in this order (instead of created, keyid, alg, nonce). */
  readonly params?: ReadonlyArray<readonly [string, string | number]>;
  /** The label of both fields (default the profile's). */
  readonly label?: string;
  /** A second member with this label in both fields, carrying the same parameters and signature. */
  readonly extraLabel?: string;
  /** Covered component names, in order (default the profile's eight). */
  readonly components?: readonly string[];
  /** The header and its base value; `null`: not sent (empty in the base). */
  readonly applicationId?: string | null;
  readonly applicationSecret?: string | null;
  /** Default the body's digest on a body-carrying request, none on a bodyless one; `null`: not sent. */
  readonly contentDigest?: string | null;
  /** The URL the base is computed over, when it is to differ from the one the request goes to. */
  readonly signedUrl?: string;
  readonly backend?: Ed25519Backend;
}

/**
 * `signRequest` for deliberately broken requests (the server audit's forgeries, the test vectors): the overridden
 * parts are written as given, unchecked, and everything else exactly as `signRequest` writes it. The result's
 * `removed` names the headers to drop from the request (`applySignedHeaders` does it). Throws TypeError when no
 * base can be built.
 */
export function signRequestWithOverrides(
  request: HttpRequest,
  credentials: Partial<SigningCredentials> & Pick<SigningCredentials, 'privateKey'>,
  overrides: SignOverrides,
): SignResult {
  const pick = <T>(value: T | undefined, fallback: T | undefined, what: string): T => {
    if (value !== undefined) return value;
    if (fallback === undefined) throw new TypeError(`${what} is needed (credentials or overrides)`);
    return fallback;
  };
  const applicationId = pick(overrides.applicationId, credentials.applicationId, 'applicationId');
  const applicationSecret = pick(
    overrides.applicationSecret,
    credentials.applicationSecret,
    'applicationSecret',
  );
  const params =
    overrides.params !== undefined
      ? new Map(overrides.params)
      : profileParams(
          overrides.created ?? Math.floor(Date.now() / 1000),
          pick(overrides.keyId, credentials.keyId, 'keyId'),
          overrides.alg === undefined ? serviceProfile.alg : overrides.alg,
          overrides.nonce === undefined ? randomUUID() : overrides.nonce,
        );
  const values = { applicationId, applicationSecret, contentDigest: overrides.contentDigest };
  const result = signWithPlan(request, {
    added: signerHeaders(request, values),
    removed: Object.entries(OVERRIDDEN_HEADERS)
      .filter(([key]) => overrides[key as keyof typeof OVERRIDDEN_HEADERS] === null)
      .map(([, name]) => name),
    params,
    components: componentIdentifiers(overrides.components ?? serviceProfile.componentNames),
    label: overrides.label ?? serviceProfile.label,
    ...(overrides.extraLabel !== undefined ? { extraLabel: overrides.extraLabel } : {}),
    ...(overrides.signedUrl !== undefined ? { signedUrl: overrides.signedUrl } : {}),
    privateKey: credentials.privateKey,
    backend: overrides.backend ?? nodeBackend,
  });
  if (!result.ok)
    throw new TypeError(`cannot build the signature base: ${result.code}: ${result.message}`);
  return result.signed;
}

/** The overrides whose `null` removes a header, and the header each names. */
const OVERRIDDEN_HEADERS = {
  applicationId: 'x-application-id',
  applicationSecret: 'x-application-secret',
  contentDigest: 'content-digest',
} as const;
