// What every implementer writes around a generic RFC 9421 library, whichever library it is: the wire form of a
// vector request, Ed25519 keys in the formats the service hands out, the application credentials, the nonce
// bookkeeping and (for libraries without RFC 9530) the SHA-512 Content-Digest. Only node:crypto; never payconform's
// src/, so a row of the interop matrix measures the library, not payconform.
import { createHash, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';

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
} as const;

export function bodyBytes(request: WireRequest): Buffer {
  return request.bodyBase64 !== undefined
    ? Buffer.from(request.bodyBase64, 'base64')
    : Buffer.from(request.bodyUtf8 ?? '', 'utf8');
}

/** Every value sent for `name` (case-insensitive), in order. */
export function headerValues(request: WireRequest, name: string): string[] {
  const lower = name.toLowerCase();
  return request.headers.filter(([n]) => n.toLowerCase() === lower).map(([, v]) => v);
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
  if (!PROFILE.bodyMethods.includes(request.method as (typeof PROFILE.bodyMethods)[number])) {
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
