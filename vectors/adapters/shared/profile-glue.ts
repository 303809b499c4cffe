// What every implementer writes around a generic RFC 9421 library, whichever library it is: the wire form of a
// vector request, Ed25519 keys in the formats the service hands out, the application credentials, the nonce
// bookkeeping, (for libraries without RFC 9530) the SHA-512 Content-Digest, and the frame of each profile op
// (sign, signature-base, verify) around the one call an adapter makes to its library. Only node:crypto; never
// payconform's src/, so a row of the interop matrix measures the library, not payconform.
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  sign as cryptoSign,
  type KeyObject,
} from 'node:crypto';
import { CannotExpress, type Handler, type Json } from './protocol.js';

export interface WireRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly bodyUtf8?: string;
  readonly bodyBase64?: string;
}

export interface KeyMaterial {
  readonly format: string;
  readonly value: string;
}

export interface VerifierRegistry {
  readonly applications: ReadonlyArray<{
    readonly applicationId: string;
    readonly applicationSecret: string;
    readonly keys: ReadonlyArray<{ readonly keyId: string; readonly publicKey: KeyMaterial }>;
  }>;
}

/** The service profile (spec: Authentication, Signed requests). */
export const PROFILE = {
  label: 'sig1',
  components: [
    '@method',
    '@path',
    '@authority',
    'content-digest',
    'content-type',
    'content-length',
    'x-application-id',
    'x-application-secret',
  ],
  parameters: ['created', 'keyid', 'alg', 'nonce'],
  alg: 'ed25519',
  maxAgeSeconds: 300,
  nonceMaxLength: 50,
  bodyMethods: ['POST', 'PUT', 'PATCH'],
  bodylessMethods: ['GET', 'DELETE'],
} as const;

/**
 * The headers' table names its columns' methods as examples: any other method is body-carrying when it has body
 * bytes (spec: "Body-carrying request"; Step 1 digests the exact body bytes), bodyless when it has none.
 */
export function bodyCarrying(method: string, body: Uint8Array): boolean {
  const named = (list: readonly string[]): boolean => list.includes(method);
  return named(PROFILE.bodyMethods) || (!named(PROFILE.bodylessMethods) && body.length > 0);
}

export function bodyBytes(request: WireRequest): Buffer {
  return request.bodyBase64 !== undefined
    ? Buffer.from(request.bodyBase64, 'base64')
    : Buffer.from(request.bodyUtf8 ?? '', 'utf8');
}

/**
 * Every value sent for `name` (case-insensitive), in order, without the leading and trailing spaces and tabs that
 * are not part of a field value (RFC 9110 §5.5; RFC 9421 §2.1 trims them for the base too).
 */
export function headerValues(request: WireRequest, name: string): string[] {
  const lower = name.toLowerCase();
  return request.headers
    .filter(([n]) => n.toLowerCase() === lower)
    .map(([, v]) => v.replace(/^[ \t]+|[ \t]+$/g, ''));
}

/** RFC 9530 §2: `sha-512=:<base64>:` over the exact body bytes. */
export function contentDigestSha512(body: Uint8Array): string {
  return `sha-512=:${createHash('sha512').update(body).digest('base64')}:`;
}

const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** An Ed25519 private key in the forms keys.json hands out (the spec's 32-byte seed in base64, PKCS#8 PEM or DER). */
export function ed25519PrivateKey(material: KeyMaterial): KeyObject {
  switch (material.format) {
    case 'seed-base64':
    case 'raw-base64':
      return createPrivateKey({
        key: Buffer.concat([PKCS8_ED25519_PREFIX, Buffer.from(material.value, 'base64')]),
        format: 'der',
        type: 'pkcs8',
      });
    case 'pkcs8-der-base64':
      return createPrivateKey({
        key: Buffer.from(material.value, 'base64'),
        format: 'der',
        type: 'pkcs8',
      });
    default:
      return createPrivateKey(material.value);
  }
}

/** An Ed25519 public key: raw 32 bytes in base64, SPKI PEM, the trimmed PEM body the service serves, or SPKI DER. */
export function ed25519PublicKey(material: KeyMaterial): KeyObject {
  switch (material.format) {
    case 'raw-base64':
      return createPublicKey({
        key: Buffer.concat([SPKI_ED25519_PREFIX, Buffer.from(material.value, 'base64')]),
        format: 'der',
        type: 'spki',
      });
    case 'trimmed-pem':
    case 'spki-der-base64':
      return createPublicKey({
        key: Buffer.from(material.value.replace(/\s+/g, ''), 'base64'),
        format: 'der',
        type: 'spki',
      });
    default:
      return createPublicKey(material.value);
  }
}

/** Why the application part of verification refused a request (steps 5-7 and 8 of the spec's order). */
export class ProfileRejection extends Error {
  constructor(readonly code: string) {
    super(code);
    this.name = 'ProfileRejection';
  }
}

/**
 * Steps 5 and 6 of the spec's verification order: `x-application-id` names a registered application and
 * `x-application-secret` is its secret. Returns the application's keys by keyid (step 7 is the library's key lookup).
 */
export function checkApplication(
  request: WireRequest,
  registry: VerifierRegistry,
): Map<string, KeyMaterial> {
  const ids = headerValues(request, 'x-application-id');
  if (ids.length === 0 || ids[0] === '') throw new ProfileRejection('APPLICATION_ID_MISSING');
  const app = registry.applications.find((a) => a.applicationId === ids[0]);
  if (!app) throw new ProfileRejection('APPLICATION_ID_UNKNOWN');
  const secrets = headerValues(request, 'x-application-secret');
  if (secrets.length === 0 || secrets[0] === '')
    throw new ProfileRejection('APPLICATION_SECRET_MISSING');
  if (secrets[0] !== app.applicationSecret)
    throw new ProfileRejection('APPLICATION_SECRET_INVALID');
  return new Map(app.keys.map((k) => [k.keyId, k.publicKey]));
}

/** Step 4: the nonce is present, at most 50 characters, and not among those already recorded. */
export function checkNonce(nonce: unknown, nonceState: readonly string[]): void {
  if (typeof nonce !== 'string' || nonce === '') throw new ProfileRejection('NONCE_MISSING');
  if (nonce.length > PROFILE.nonceMaxLength) throw new ProfileRejection('NONCE_TOO_LONG');
  if (nonceState.includes(nonce)) throw new ProfileRejection('NONCE_REPLAYED');
}

/**
 * Step 8 for libraries without RFC 9530: a body-carrying request has exactly one Content-Digest with a matching
 * `sha-512` member; a GET or DELETE has neither a Content-Digest nor a body. A deliberately small parser: the member
 * syntax is RFC 8941's `key=:base64:`.
 */
export function checkContentDigest(request: WireRequest): void {
  const digests = headerValues(request, 'content-digest');
  const body = bodyBytes(request);
  if (!bodyCarrying(request.method, body)) {
    if (digests.length > 0) throw new ProfileRejection('DIGEST_UNEXPECTED');
    if (body.length > 0) throw new ProfileRejection('BODY_UNEXPECTED');
    return;
  }
  if (digests.length === 0) throw new ProfileRejection('DIGEST_MISSING');
  const members = new Map<string, string>();
  for (const member of digests.join(', ').split(',')) {
    const m = /^\s*([a-z][a-z0-9_\-.*]*)=:([A-Za-z0-9+/]*={0,2}):\s*$/.exec(member);
    if (!m) throw new ProfileRejection('DIGEST_MALFORMED');
    members.set(m[1]!, m[2]!);
  }
  const sha512 = members.get('sha-512');
  if (sha512 === undefined) throw new ProfileRejection('DIGEST_ALGORITHM_UNSUPPORTED');
  if (`sha-512=:${sha512}:` !== contentDigestSha512(body))
    throw new ProfileRejection('DIGEST_MISMATCH');
}

/** The verify answer for a rejection the glue or the library produced. */
export function rejected(error: unknown): { ok: false; code?: string; reason: string } {
  if (error instanceof ProfileRejection)
    return { ok: false, code: error.code, reason: error.message };
  return {
    ok: false,
    reason: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
  };
}

/** Splits an absolute URI as written, without a URL parser (which would remove dot segments and re-encode). */
function splitTarget(url: string): { authority: string; pathAndQuery: string } {
  const m = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#]*)([^#]*)/.exec(url);
  if (!m) throw new Error(`not an absolute URI: ${JSON.stringify(url)}`);
  return { authority: m[1]!.replace(/^.*@/, ''), pathAndQuery: m[2]! };
}

/** The profile's `@path`: the path and the query as written, `/` for an empty path (spec: Step 2, component 2). */
export function profilePath(url: string): string {
  const { pathAndQuery } = splitTarget(url);
  return pathAndQuery === '' || pathAndQuery.startsWith('?') ? `/${pathAndQuery}` : pathAndQuery;
}

/** The profile's `@authority`: the host in lowercase, ports 80 and 443 omitted whatever the scheme (component 3). */
export function profileAuthority(url: string): string {
  const authority = splitTarget(url).authority.toLowerCase();
  return authority.replace(/:(80|443)$/, '');
}

/** True when the URI has a query: generic RFC 9421 `@path` drops it (§2.2.6), the profile keeps it. */
export function hasQuery(url: string): boolean {
  return splitTarget(url).pathAndQuery.includes('?');
}

/**
 * Runs `fn` with `Date.now()` reading `seconds`: the vectors fix the clock (`now`), and some libraries read the
 * system clock for freshness with no way to pass one in (the same thing fake timers do in a test suite).
 */
export async function atTime<T>(seconds: number, fn: () => Promise<T>): Promise<T> {
  const real = Date.now;
  Date.now = () => seconds * 1000;
  try {
    return await fn();
  } finally {
    Date.now = real;
  }
}

/** The signature parameters a `signature-base` or `sign` case fixes (keyid: the credentials' key id). */
export interface ProfileParams {
  readonly created: number;
  readonly keyid: string;
  readonly nonce: string;
}

/** The credentials of a `sign` case (the private key by reference to keys.json, resolved by the harness). */
export interface SignCredentials {
  readonly applicationId: string;
  readonly applicationSecret: string;
  readonly keyId: string;
  readonly privateKey: KeyMaterial;
}

/** What a library's signing call gives back: the base it signed and the two header values. */
export interface LibrarySignature {
  readonly base: string;
  readonly signatureInput: string;
  readonly signature: string;
}

/**
 * The `sign` op (spec: Authentication, steps 1-5): the application headers, then for a body method the
 * Content-Digest (`digest`: SHA-512 by node:crypto unless the library has RFC 9530) and Content-Length, then the
 * library signs the request carrying them with the Ed25519 key parsed from the credentials.
 */
export function profileSignHandler(
  signWithLibrary: (
    request: WireRequest,
    params: ProfileParams,
    sign: (data: Uint8Array) => Buffer,
  ) => LibrarySignature | Promise<LibrarySignature>,
  digest: (body: Buffer) => string | Promise<string> = contentDigestSha512,
): Handler {
  return async (input) => {
    const wire = input.request as WireRequest;
    const c = input.credentials as SignCredentials;
    const added: Array<[string, string]> = [
      ['x-application-id', c.applicationId],
      ['x-application-secret', c.applicationSecret],
    ];
    const body = bodyBytes(wire);
    if (bodyCarrying(wire.method, body)) {
      added.push(['content-digest', await digest(body)], ['content-length', String(body.length)]);
    }
    const key = ed25519PrivateKey(c.privateKey);
    const signed = await signWithLibrary(
      { ...wire, headers: [...wire.headers, ...added] },
      { created: input.created as number, keyid: c.keyId, nonce: input.nonce as string },
      (data) => cryptoSign(null, data, key),
    );
    added.push(['signature-input', signed.signatureInput], ['signature', signed.signature]);
    return { headers: added, signatureBase: signed.base };
  };
}

/** The `signature-base` op: the base the library builds for the profile, or its refusal as the case's error. */
export function profileSignatureBaseHandler(
  build: (request: WireRequest, params: ProfileParams) => string | Promise<string>,
): Handler {
  return async (input) => {
    try {
      return {
        signatureBase: await build(input.request as WireRequest, input.parameters as ProfileParams),
      };
    } catch (error) {
      if (error instanceof CannotExpress) throw error;
      return { error: `library refused: ${(error as Error).message}` };
    }
  };
}

/** What a `verify` case gives the library call besides the request: the application's keys, the clock, the nonces. */
export interface VerifyContext {
  readonly keys: Map<string, KeyMaterial>;
  readonly now: number;
  readonly nonceState: readonly string[];
}

/**
 * The `verify` op: steps 5-6 (the application) and 8 (the Content-Digest) by this glue, the rest by the library
 * (whose hooks call checkNonce and look the key up in `keys`); a rejection becomes the answer's code.
 */
export function profileVerifyHandler(
  verifyWithLibrary: (request: WireRequest, context: VerifyContext) => Promise<Json>,
): Handler {
  return async (input) => {
    const wire = input.request as WireRequest;
    try {
      const keys = checkApplication(wire, input.verifier as VerifierRegistry);
      checkContentDigest(wire);
      return await verifyWithLibrary(wire, {
        keys,
        now: input.now as number,
        nonceState: input.nonceState as string[],
      });
    } catch (error) {
      if (error instanceof CannotExpress) throw error;
      return rejected(error);
    }
  };
}

/**
 * The `rfc9421-signature-base` op for a library that builds the base only on its way to verifying: `verify` runs
 * it with a verifier that records the base and answers "no" (the library's refusal that follows is expected).
 */
export async function capturedSignatureBase(
  verify: (capture: (base: string) => void) => Promise<unknown>,
): Promise<Json> {
  let base: string | undefined;
  await verify((b) => (base = b)).catch((error: unknown) => {
    if (base === undefined) throw error;
  });
  if (base === undefined) throw new Error('the library built no signature base');
  return { signatureBase: base };
}
