// Request building blocks of the generator: the pre-signing requests, signing under the profile, custom
// (deliberately off-profile) signing, wire mutations, and running verifyRequest with both backends.
import type { Ed25519PrivateKey, Ed25519PublicKey } from '../../src/ed25519/backend.js';
import { backends } from '../../src/ed25519/index.js';
import type { HttpRequest } from '../../src/http/message.js';
import { MemoryNonceStore } from '../../src/profile/nonce-store.js';
import { serviceProfile } from '../../src/profile/service-profile.js';
import {
  applySignedHeaders,
  signerHeaders,
  signRequest,
  signRequestWithOverrides,
} from '../../src/profile/sign-request.js';
import {
  verifyRequest,
  type ApplicationRecord,
  type VerifyResult,
} from '../../src/profile/verify-request.js';
import { parseEd25519PublicKey } from '../../src/keys/index.js';
import type { KeysFile, WireRequest } from '../format.js';
import { base64, check, keyArgument, utf8 } from './common.js';
import { APP_A, VERIFIER } from './keys.js';

/** The injected clock of most cases: 2026-01-01T00:00:00Z. */
export const NOW = 1767225600;
export const HOST = 'api.sandbox.payments.example';
export const BASE_URL = `https://${HOST}`;
export const MEDIA_TYPE = 'application/vnd.service.v1.0+json';
export const PAYOUT_ID = '6a1e8c2b-3d4f-4a5b-8c7d-9e0f1a2b3c4d';

export interface Caller {
  readonly applicationId: string;
  readonly applicationSecret: string;
  readonly keyId: string;
  readonly privateKey: Ed25519PrivateKey;
}

export function request(
  method: string,
  url: string,
  headers: ReadonlyArray<readonly [string, string]>,
  body: string | Uint8Array = '',
): HttpRequest {
  return { method, url, headers, body: typeof body === 'string' ? utf8(body) : body };
}

/** A request before signing: Content-Type and Accept as the spec's payout examples carry them. */
export function payoutCreate(
  body: string | Uint8Array,
  url = `${BASE_URL}/api/payouts`,
): HttpRequest {
  return request(
    'POST',
    url,
    [
      ['content-type', MEDIA_TYPE],
      ['accept', MEDIA_TYPE],
    ],
    body,
  );
}

/** Signs under the profile; returns the request with the signed headers applied, and the signer's result. */
export function sign(
  req: HttpRequest,
  caller: Caller,
  created: number,
  nonce: string,
): {
  request: HttpRequest;
  headers: ReadonlyArray<readonly [string, string]>;
  signatureBase: string;
} {
  const results = backends.map((backend) => signRequest(req, caller, { created, nonce, backend }));
  const first = results[0]!;
  for (const r of results)
    check(
      JSON.stringify(r) === JSON.stringify(first),
      nonce,
      'the two Ed25519 backends signed differently',
    );
  const headers = Object.entries(first.headers);
  return {
    request: applySignedHeaders(req, first.headers),
    headers,
    signatureBase: first.signatureBase,
  };
}

export interface CustomSignature {
  /** Label in both fields (default sig1). */
  readonly label?: string;
  /** Covered component names (default: the profile's eight). */
  readonly components?: readonly string[];
  /** Signature parameters, in order. */
  readonly params: ReadonlyArray<readonly [string, string | number]>;
  /** The Content-Digest sent and covered (default: the body's, on a body-carrying request); `null`: none sent. */
  readonly contentDigest?: string | null;
}

/**
 * Signs an unsigned request off-profile (another label, order, parameter set, covered list, or a Content-Digest
 * given as is) through the signer's overrides form: the signature itself is valid over the base it claims, so only
 * the profile can reject it. The application headers are the caller's.
 */
export function signCustom(req: HttpRequest, caller: Caller, custom: CustomSignature): HttpRequest {
  const signed = signRequestWithOverrides(req, caller, {
    params: custom.params,
    backend: backends[0]!,
    ...(custom.label !== undefined ? { label: custom.label } : {}),
    ...(custom.components !== undefined ? { components: custom.components } : {}),
    ...(custom.contentDigest !== undefined ? { contentDigest: custom.contentDigest } : {}),
  });
  return applySignedHeaders(req, signed.headers, signed.removed);
}

/** The profile's parameters in order, for custom signing. */
export function profileParams(
  created: number,
  keyId: string,
  nonce: string,
): Array<[string, string | number]> {
  return [
    ['created', created],
    ['keyid', keyId],
    ['alg', serviceProfile.alg],
    ['nonce', nonce],
  ];
}

/**
 * The headers a caller adds before signing (what the signer adds: `signerHeaders`), without signing; a given
 * Content-Digest replaces the body's.
 */
export function withApplicationHeaders(
  req: HttpRequest,
  applicationId: string,
  secret: string,
  contentDigest?: string,
): HttpRequest {
  return applySignedHeaders(
    req,
    signerHeaders(req, {
      applicationId,
      applicationSecret: secret,
      ...(contentDigest !== undefined ? { contentDigest } : {}),
    }),
  );
}

// ---- wire mutations ----

export function setHeader(req: HttpRequest, name: string, value: string | undefined): HttpRequest {
  const lower = name.toLowerCase();
  const at = req.headers.findIndex(([n]) => n.toLowerCase() === lower);
  const kept = req.headers.filter(([n]) => n.toLowerCase() !== lower);
  if (value === undefined) return { ...req, headers: kept };
  const lines = [...kept];
  lines.splice(at === -1 ? lines.length : at, 0, [at === -1 ? name : req.headers[at]![0], value]);
  return { ...req, headers: lines };
}

export function addHeaderLine(req: HttpRequest, name: string, value: string): HttpRequest {
  return { ...req, headers: [...req.headers, [name, value]] };
}

export function headerValue(req: HttpRequest, name: string): string {
  const line = req.headers.find(([n]) => n.toLowerCase() === name.toLowerCase());
  if (!line) throw new Error(`no header ${name}`);
  return line[1];
}

export function mapHeader(
  req: HttpRequest,
  name: string,
  f: (value: string) => string,
): HttpRequest {
  return setHeader(req, name, f(headerValue(req, name)));
}

// ---- wire form ----

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

export function toWire(req: HttpRequest): WireRequest {
  const headers = req.headers.map(([n, v]) => [n, v] as const);
  let text: string | undefined;
  try {
    text = strictUtf8.decode(req.body);
  } catch {
    text = undefined;
  }
  return text !== undefined && !text.startsWith('\uFEFF')
    ? { method: req.method, url: req.url, headers, bodyUtf8: text }
    : { method: req.method, url: req.url, headers, bodyBase64: base64(req.body) };
}

// ---- verification ----

/** The verifier registry of keys.json as verifyRequest's resolver. */
export function resolverFor(
  keys: KeysFile,
  verifier = VERIFIER,
): (id: string) => ApplicationRecord | undefined {
  const apps = keys.verifiers[verifier];
  if (!apps) throw new Error(`no verifier ${verifier}`);
  const records = new Map<string, ApplicationRecord>();
  for (const app of apps) {
    const publicKeys = new Map<string, Ed25519PublicKey>();
    for (const k of app.keys)
      publicKeys.set(k.keyId, parseEd25519PublicKey(keyArgument(keys, k.publicKey)));
    records.set(app.applicationId, { secret: app.applicationSecret, publicKeys });
  }
  return (id) => records.get(id);
}

/** Runs verifyRequest with each backend on a fresh nonce store preloaded with `nonceState`; the results must agree. */
export async function verifyWithBothBackends(
  keys: KeysFile,
  req: HttpRequest,
  now: number,
  nonceState: readonly string[],
  verifier = VERIFIER,
): Promise<VerifyResult> {
  const resolveApplication = resolverFor(keys, verifier);
  const results: VerifyResult[] = [];
  for (const backend of backends) {
    const nonceStore = new MemoryNonceStore();
    for (const n of nonceState)
      nonceStore.checkAndRecord(n, now, now + serviceProfile.maxAgeSeconds);
    results.push(await verifyRequest(req, { now, nonceStore, resolveApplication, backend }));
  }
  const [a, b] = results;
  const strip = (r: VerifyResult | undefined): string =>
    JSON.stringify(r && !r.ok ? { code: r.code, step: r.step } : r);
  check(
    strip(a) === strip(b),
    `verify@${now}`,
    `the backends disagree: ${strip(a)} vs ${strip(b)}`,
  );
  return a!;
}

/** Application A as a signer, with its private key. */
export function callerA(privateKey: Ed25519PrivateKey): Caller {
  return {
    applicationId: APP_A.applicationId,
    applicationSecret: APP_A.applicationSecret,
    keyId: APP_A.keyId,
    privateKey,
  };
}
