// The faults at the edges of the profile's rules (faults.ts, `how: 'drawn'`): a verifier that is right on the one
// forgery per rule the fixed checks send and wrong just beside it (an empty nonce, created 0, a parameter of another
// type or written twice, a label in another case, a Signature member under another label, a loosely read digest).
// Each is a rewrite of the request before the strict verifier sees it, or one rule relaxed for this request only.
import { createHash } from 'node:crypto';
import { getFieldValues, type HttpRequest } from '../src/http/message.js';
import type { PolicyEnforcement } from '../src/profile/verification-policy.js';
import { serviceProfile } from '../src/profile/service-profile.js';
import type { FaultSet } from './faults.js';

const LABEL = serviceProfile.label;
/** A one-member Signature-Input: label, the Inner List, the parameters' text. */
const ONE_MEMBER = /^([A-Za-z*][A-Za-z0-9_.*-]*)=(\([^)]*\))((?:;[^,]*)?)$/;
const PARAMETER = /;([^=;]+)=("(?:[^"\\]|\\.)*"|[^;]*)/g;
/** The signature parameters the profile types as Integers; the others it types as Strings. */
const INTEGER_PARAMETERS: ReadonlySet<string> = new Set(['created', 'expires']);

/** Rewrites the parameters of a one-member Signature-Input with `edit` (name, value text, index) → text or null. */
function editParameters(
  request: HttpRequest,
  edit: (params: Array<[string, string]>) => Array<[string, string]>,
): HttpRequest {
  return withField(request, 'signature-input', (value) => {
    const m = ONE_MEMBER.exec(value.trim());
    if (m === null) return value;
    const params = [...m[3]!.matchAll(PARAMETER)].map((p): [string, string] => [p[1]!, p[2]!]);
    return `${m[1]}=${m[2]}${edit(params)
      .map(([k, v]) => `;${k}=${v}`)
      .join('')}`;
  });
}

/** The request with each line of `name` rewritten. */
function withField(request: HttpRequest, name: string, edit: (v: string) => string): HttpRequest {
  return {
    ...request,
    headers: request.headers.map(([n, v]) => [n, n.toLowerCase() === name ? edit(v) : v] as const),
  };
}

/** Fault parameter-types-coerced: each parameter read as the profile's type ("123" and 123.0 as 123, a Token as a String). */
function coerceTypes(params: Array<[string, string]>): Array<[string, string]> {
  return params.map(([k, v]) => {
    if (INTEGER_PARAMETERS.has(k)) {
      const n = /^"?(-?[0-9]+)(?:\.0*)?"?$/.exec(v);
      return [k, n !== null ? n[1]! : v];
    }
    return [k, v.startsWith('"') ? v : `"${v}"`];
  });
}

/** Fault label-case-insensitive: the member labels of both fields lowercased before parsing. */
function lowercaseLabel(request: HttpRequest): HttpRequest {
  const lower = (v: string): string =>
    v.replace(/^\s*([A-Za-z*][A-Za-z0-9_.*-]*)=/, (l) => l.toLowerCase());
  return withField(withField(request, 'signature-input', lower), 'signature', lower);
}

/** Fault signature-member-any-label: Signature's only member taken as the label's, whatever it is labelled. */
function anySignatureLabel(request: HttpRequest): HttpRequest {
  const inputs = getFieldValues(request.headers, 'signature-input');
  const sigs = getFieldValues(request.headers, 'signature');
  if (inputs.length !== 1 || sigs.length !== 1 || !inputs[0]!.startsWith(`${LABEL}=`))
    return request;
  if (!/^[a-z*][a-z0-9_.*-]*=:[^:,]*:$/.test(sigs[0]!.trim())) return request;
  return withField(request, 'signature', (v) => v.trim().replace(/^[^=]+=/, `${LABEL}=`));
}

/** The request as the faulty verifier reads it (the faults that rewrite before verifying). */
export function rewriteForEdgeFaults(faults: FaultSet, request: HttpRequest): HttpRequest {
  let r = request;
  if (faults.has('label-case-insensitive')) r = lowercaseLabel(r);
  if (faults.has('signature-member-any-label')) r = anySignatureLabel(r);
  if (faults.has('parameter-types-coerced')) r = editParameters(r, coerceTypes);
  return r;
}

/** Fault digest-parsed-loosely: the digest found by a case-insensitive pattern and decoded as lenient base64. */
function looseDigestMatches(request: HttpRequest): boolean {
  const lines = getFieldValues(request.headers, 'content-digest');
  const m = lines.length === 1 ? /^\s*sha-512=:([A-Za-z0-9+/_-]*=*):\s*$/i.exec(lines[0]!) : null;
  if (m === null) return false;
  const sent = Buffer.from(m[1]!, 'base64');
  return sent.equals(createHash('sha512').update(request.body).digest());
}

/**
 * The rules the edge faults switch off for this request (`member`: the label's parsed parameters), or undefined.
 * nonce-empty-accepted: presence read as "not undefined", so "" passes, and is never recorded; created-zero-unchecked:
 * the window read as `created && now - created > max`, so 0 passes; digest-parsed-loosely: see `looseDigestMatches`.
 */
export function edgeFaultRelaxation(
  faults: FaultSet,
  request: HttpRequest,
  params: ReadonlyMap<string, unknown> | undefined,
): Partial<PolicyEnforcement> | undefined {
  const relax: { -readonly [K in keyof PolicyEnforcement]?: boolean } = {};
  if (faults.has('nonce-empty-accepted') && params?.get('nonce') === '') {
    relax.nonce = false;
    relax.replay = false;
  }
  if (faults.has('created-zero-unchecked') && params?.get('created') === 0)
    relax.createdMaxAge = false;
  if (faults.has('digest-parsed-loosely') && looseDigestMatches(request)) relax.digest = false;
  return Object.keys(relax).length > 0 ? relax : undefined;
}
