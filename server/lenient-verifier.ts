// Variant lenient's signed-request check: what a server written by others from the spec alone might do. Signature-
// Input, Signature and Content-Digest are parsed by the `structured-headers` library directly (RFC 8941: a key
// written twice keeps its last value, a Decimal is read as the number it is, parameters and labels the spec does not
// name are ignored), and the base is rebuilt from what was parsed, on a path that does not go through the profile's
// rules (src/profile/profile-rules.ts). Everything the spec states is still enforced: the two headers, label sig1,
// the eight components in order, alg ed25519, created at most 300 s old, a nonce present, at most 50 characters and
// unused, the application id and secret, the key from keyid, the Content-Digest of the exact body in SHA-512, and
// the Ed25519 signature. Where the spec is silent this path accepts (created in the future, other labels beside sig1).
import { createHash } from 'node:crypto';
import {
  parseDictionary,
  serializeInnerList,
  type BareItem,
  type Dictionary,
  type InnerList,
  type Item,
} from 'structured-headers';
import { nodeBackend } from '../src/ed25519/node-backend.js';
import { getFieldValues, type HttpRequest } from '../src/http/message.js';
import type { Ed25519PublicKey } from '../src/ed25519/backend.js';
import { applicationSecretMatches } from '../src/profile/application-secret.js';
import { bodyKindOf } from '../src/profile/body-kind.js';
import type { NonceStore } from '../src/profile/nonce-store.js';
import { serviceProfile as P } from '../src/profile/service-profile.js';
import type { VerifyErrorCode } from '../src/profile/verify-error-codes.js';
import type { SignatureOutcome, SignatureVerifier } from './authentication.js';
import type { Application, ServiceState } from './state.js';

type Refusal = Extract<SignatureOutcome, { ok: false }>;
const refuse = (code: VerifyErrorCode, step: number, message: string): Refusal => ({
  ok: false,
  code,
  step,
  message,
});

/** A field's lines combined as RFC 9110 §5.3 combines them. */
const fieldOf = (request: HttpRequest, name: string): string | undefined => {
  const lines = getFieldValues(request.headers, name);
  return lines.length === 0 ? undefined : lines.join(', ');
};

/** The field parsed as an RFC 8941 Dictionary by the library; undefined when it does not parse. */
function dictionaryOf(text: string): Dictionary | undefined {
  try {
    return parseDictionary(text);
  } catch {
    return undefined;
  }
}

const isInnerList = (member: Item | InnerList): member is InnerList => Array.isArray(member[0]);
const bytesOf = (value: BareItem): Uint8Array | undefined =>
  value instanceof ArrayBuffer ? new Uint8Array(value) : undefined;

/** What the sig1 members give the steps after parsing. */
interface Sig1 {
  readonly member: InnerList;
  readonly signature: Uint8Array;
  readonly created: number;
  readonly keyId: string;
  readonly nonce: string;
}

/** Steps 1 and 2: both fields, the sig1 member of each, the components and the parameters' values. */
function readSig1(request: HttpRequest): Sig1 | Refusal {
  const inputText = fieldOf(request, 'signature-input');
  const signatureText = fieldOf(request, 'signature');
  if (inputText === undefined) return refuse('SIGNATURE_INPUT_MISSING', 1, 'no Signature-Input');
  if (signatureText === undefined) return refuse('SIGNATURE_MISSING', 1, 'no Signature');
  const member = dictionaryOf(inputText)?.get(P.label);
  const signed = dictionaryOf(signatureText)?.get(P.label);
  if (member === undefined || !isInnerList(member))
    return refuse('SIGNATURE_INPUT_MALFORMED', 2, `Signature-Input has no ${P.label} Inner List`);
  const signature = signed === undefined || isInnerList(signed) ? undefined : bytesOf(signed[0]);
  if (signature === undefined)
    return refuse('SIGNATURE_MALFORMED', 2, `Signature has no ${P.label} byte sequence`);
  const names = member[0].map(([name, params]) => (params.size === 0 ? name : undefined));
  if (names.length !== P.componentNames.length || names.some((n, i) => n !== P.componentNames[i]))
    return refuse('COMPONENTS_MISMATCH', 2, `the components are not the ${names.length} in order`);
  const params = member[1];
  const [created, keyId, alg, nonce] = ['created', 'keyid', 'alg', 'nonce'].map((k) =>
    params.get(k),
  );
  if (alg !== P.alg) return refuse('ALG_UNSUPPORTED', 2, `alg is not "${P.alg}"`);
  if (typeof created !== 'number' || !Number.isInteger(created))
    return refuse('CREATED_INVALID', 2, 'created is not a whole number of seconds');
  if (typeof keyId !== 'string' || keyId === '') return refuse('KEY_ID_MISSING', 2, 'no keyid');
  if (typeof nonce !== 'string' || nonce === '') return refuse('NONCE_MISSING', 4, 'no nonce');
  if (nonce.length > P.nonceMaxLength)
    return refuse('NONCE_TOO_LONG', 4, `the nonce is over ${P.nonceMaxLength} characters`);
  return { member, signature, created, keyId, nonce };
}

/** Steps 5 to 7: the application by id, its secret, the key by keyid. */
function resolve(
  state: ServiceState,
  request: HttpRequest,
  keyId: string,
): { readonly app: Application; readonly key: Ed25519PublicKey } | Refusal {
  const id = fieldOf(request, 'x-application-id');
  const app = id === undefined ? undefined : state.applications.get(id);
  if (app === undefined)
    return refuse(
      id ? 'APPLICATION_ID_UNKNOWN' : 'APPLICATION_ID_MISSING',
      5,
      'no such application',
    );
  const secret = fieldOf(request, 'x-application-secret');
  if (secret === undefined || secret === '')
    return refuse('APPLICATION_SECRET_MISSING', 6, 'no application secret');
  if (!applicationSecretMatches(secret, app.applicationSecret))
    return refuse('APPLICATION_SECRET_INVALID', 6, 'the application secret does not match');
  const key = app.publicKeys.get(keyId);
  if (key === undefined) return refuse('KEY_UNKNOWN', 7, 'keyid names no key of this application');
  return { app, key };
}

/**
 * Step 8: a sha-512 member of Content-Digest that is the digest of the exact body (other members ignored); required
 * on a body-carrying request, checked "when present" on a bodyless one.
 */
function digestProblem(request: HttpRequest): Refusal | undefined {
  const text = fieldOf(request, 'content-digest');
  if (text === undefined)
    return bodyKindOf(request.method, request.body.length) === 'bodyless'
      ? undefined
      : refuse('DIGEST_MISSING', 8, 'no Content-Digest');
  const member = dictionaryOf(text)?.get(P.digestAlgorithm);
  const sent = member === undefined || isInnerList(member) ? undefined : bytesOf(member[0]);
  if (sent === undefined)
    return refuse('DIGEST_ALGORITHM_UNSUPPORTED', 8, `no ${P.digestAlgorithm} byte sequence`);
  const body = createHash('sha512').update(request.body).digest();
  return body.equals(sent) ? undefined : refuse('DIGEST_MISMATCH', 8, 'digest of other bytes');
}

/** What no line of a base may hold (RFC 9421 §2.1: one line per component, ASCII). */
const NOT_IN_A_LINE = /[^\x20-\x7e\t]/;

/**
 * Step 9: the spec's base, each line from the request, the last the parsed sig1 member serialised again; undefined
 * when the request gives none (no target URI, a value with a control or non-ASCII character).
 */
function baseOf(request: HttpRequest, member: InnerList): string | undefined {
  try {
    const url = new URL(request.url);
    const derived: Readonly<Record<string, string>> = {
      '@method': request.method.toUpperCase(),
      '@path': `${url.pathname}${url.search}`,
      '@authority': url.host,
    };
    const values = P.componentNames.map((name) => derived[name] ?? fieldOf(request, name) ?? '');
    if (values.some((v) => NOT_IN_A_LINE.test(v))) return undefined;
    const lines = P.componentNames.map((name, i) => `"${name}": ${values[i]!}`);
    return [...lines, `"@signature-params": ${serializeInnerList(member)}`].join('\n');
  } catch {
    return undefined;
  }
}

/** Variant lenient's verifier over the service's applications; `store` is the service's nonce store. */
export function createLenientVerifier(
  state: ServiceState,
  now: () => number,
  store: NonceStore,
): SignatureVerifier {
  return async (request): Promise<SignatureOutcome> => {
    const at = Math.floor(now() / 1000);
    const sig1 = readSig1(request);
    if ('ok' in sig1) return sig1;
    if (at - sig1.created > P.maxAgeSeconds)
      return refuse('CREATED_EXPIRED', 3, `created more than ${P.maxAgeSeconds} s ago`);
    const found = resolve(state, request, sig1.keyId);
    if ('ok' in found) return found;
    const digest = digestProblem(request);
    if (digest !== undefined) return digest;
    const base = baseOf(request, sig1.member);
    if (base === undefined) return refuse('SIGNATURE_BASE_INVALID', 9, 'the request gives no base');
    if (!nodeBackend.verify(sig1.signature, Buffer.from(base, 'utf8'), found.key))
      return refuse('SIGNATURE_INVALID', 10, 'the Ed25519 signature does not verify');
    const owner = { applicationId: found.app.applicationId, keyId: sig1.keyId };
    const expires = Math.max(sig1.created + P.maxAgeSeconds, at);
    let fresh: boolean;
    try {
      fresh = await store.checkAndRecord(sig1.nonce, at, expires, owner);
    } catch (error) {
      return refuse(
        'NONCE_STORE_UNAVAILABLE',
        11,
        error instanceof Error ? error.message : 'store failed',
      );
    }
    if (!fresh) return refuse('NONCE_REPLAYED', 11, 'the nonce was used before');
    return { ok: true, applicationId: found.app.applicationId, keyId: sig1.keyId };
  };
}
