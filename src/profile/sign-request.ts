// Signs a request under the service profile (spec, Authentication, Steps 1-5): the headers to add and the base.
import { randomUUID } from 'node:crypto';
import type { Ed25519Backend, Ed25519PrivateKey } from '../ed25519/backend.js';
import { nodeBackend } from '../ed25519/node-backend.js';
import { PayconformError } from '../errors.js';
import type { HttpRequest } from '../http/message.js';
import { computeContentDigest } from '../digest/content-digest.js';
import { signSignatureBase } from '../signatures/create-signature.js';
import { createSignatureBase } from '../signatures/signature-base.js';
import { serializeSignature } from '../signatures/signature-fields.js';
import { applicationSecretProblem } from './application-secret.js';
import { serviceProfile } from './service-profile.js';

export interface SigningCredentials {
  readonly applicationId: string;
  readonly applicationSecret: string;
  readonly keyId: string;
  readonly privateKey: Ed25519PrivateKey;
}

export interface SignOptions {
  /** Unix seconds (Integer); default now. */
  readonly created?: number;
  /** At most 50 printable ASCII characters; default a UUIDv4. */
  readonly nonce?: string;
  readonly backend?: Ed25519Backend;
}

export interface SignResult {
  /**
   * Lowercase header names to add to (or replace on) the request: x-application-id, x-application-secret,
   * content-digest (POST/PUT/PATCH), content-length (when the request lacks one and has a body or a body method),
   * signature-input, signature.
   */
  readonly headers: Readonly<Record<string, string>>;
  /** The exact signature base that was signed (it contains the application secret: never log it). */
  readonly signatureBase: string;
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

/** The request with `headers` set: existing lines of those names (any case) are removed, new lines appended. */
export function applySignedHeaders(
  request: HttpRequest,
  headers: Readonly<Record<string, string>>,
): HttpRequest {
  const names = new Set(Object.keys(headers).map((n) => n.toLowerCase()));
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
  const isBodyMethod = serviceProfile.bodyMethods.includes(request.method);
  if (serviceProfile.bodylessMethods.includes(request.method) && request.body.length > 0) {
    throw new TypeError(`a ${request.method} request must not have a body`);
  }

  const added: Record<string, string> = {
    'x-application-id': applicationId,
    'x-application-secret': applicationSecret,
  };
  if (isBodyMethod)
    added['content-digest'] = computeContentDigest(request.body, [serviceProfile.digestAlgorithm]);
  const hasLength = request.headers.some(([name]) => name.toLowerCase() === 'content-length');
  if (!hasLength && (isBodyMethod || request.body.length > 0))
    added['content-length'] = String(request.body.length);
  const toSign = applySignedHeaders(request, added);

  const params = new Map<string, string | number>([
    ['created', created],
    ['keyid', keyId],
    ['alg', serviceProfile.alg],
    ['nonce', nonce],
  ]);
  const base = createSignatureBase(
    toSign,
    serviceProfile.coveredComponents,
    params,
    serviceProfile.signatureBaseOptions,
  );
  if (!base.ok) throw new PayconformError(base.code, `cannot sign the request: ${base.message}`);
  const signature = signSignatureBase(
    base.base,
    credentials.privateKey,
    options.backend ?? nodeBackend,
  );
  return {
    headers: Object.freeze({
      ...added,
      'signature-input': `${serviceProfile.label}=${base.signatureParams}`,
      signature: serializeSignature(new Map([[serviceProfile.label, signature]])),
    }),
    signatureBase: base.base,
  };
}
