// The profile's rules on the signature parameters (spec: Authentication, "Signature parameters"; Server
// verification order, steps 2 to 4): alg, created, keyid, their order, the created window, the nonce's form.
import { isSfInteger, type BareItem } from '../structured-fields/structured-fields.js';
import { finding, type FindingSink } from './profile-findings.js';
import { serviceProfile } from './service-profile.js';
import type { VerificationPolicy } from './verification-policy.js';

/** The step being run, for the message of an unexpected failure. */
export interface Progress {
  step: number;
}

const ORDER = serviceProfile.parameterOrder;
const PARAMETER_RANK = new Map(ORDER.map((name, i) => [name, i]));
const ORDER_TEXT = ORDER.join(', ');
const NONCE_FORM = `nonce="<random, at most ${serviceProfile.nonceMaxLength} characters>"`;

/** The parameters the steps after read, when each was there in its form. */
export interface SignedParameters {
  readonly created: number;
  readonly keyId: string;
  readonly nonce: string;
}

/** Step 2: alg (its value), created (present), keyid (present). */
function checkRequired(
  params: ReadonlyMap<string, BareItem>,
  policy: VerificationPolicy,
  sink: FindingSink,
): boolean {
  const alg = params.get('alg');
  if (policy.enforce.alg && alg !== undefined && alg !== serviceProfile.alg) {
    const message = `"alg" is ${JSON.stringify(alg)}, only "${serviceProfile.alg}" is supported`;
    if (sink.add(finding('ALG_UNSUPPORTED', message, serviceProfile.alg, String(alg)))) return true;
  }
  if (!isSfInteger(params.get('created'))) {
    const message = 'missing "created" parameter';
    if (sink.add(finding('CREATED_INVALID', message, 'created=<UNIX_SECONDS>', '(absent)')))
      return true;
  }
  const keyId = params.get('keyid');
  if (typeof keyId !== 'string' || keyId === '') {
    const message = 'missing "keyid" parameter';
    const received = keyId === '' ? '""' : '(absent)';
    if (sink.add(finding('KEY_ID_MISSING', message, 'keyid="<KEY_ID>"', received))) return true;
  }
  return false;
}

/** Step 2 (under `enforce.parameters`): exactly the profile's parameters, in its order. */
function checkParameterSet(params: ReadonlyMap<string, BareItem>, sink: FindingSink): boolean {
  let unknown: string[] | undefined;
  let reordered = false;
  let lastRank = -1;
  for (const name of params.keys()) {
    const rank = PARAMETER_RANK.get(name);
    if (rank === undefined) (unknown ??= []).push(name);
    else if (rank < lastRank) reordered = true;
    else lastRank = rank;
  }
  const expected = ORDER_TEXT;
  if (unknown !== undefined) {
    const names = unknown.map(quoted).join(', ');
    const message = `unexpected signature parameter${unknown.length > 1 ? 's' : ''} ${names}`;
    const received = [...params.keys()].join(', ');
    const requirement = 'SIG-INPUT-HEADER';
    const f = finding(
      'PARAMETERS_MISMATCH',
      message,
      expected,
      received,
      requirement,
      'parameter-unknown',
    );
    if (sink.add(f)) return true;
  }
  if (reordered) {
    const message = `signature parameters must be in the order ${expected}`;
    const received = [...params.keys()].join(', ');
    if (sink.add(finding('PARAMETERS_MISMATCH', message, expected, received))) return true;
  }
  if (params.has('alg')) return false;
  const message = 'missing "alg" parameter';
  const alg = `alg="${serviceProfile.alg}"`;
  const f = finding('PARAMETERS_MISMATCH', message, alg, '(absent)', 'SIG-PARAM-ALG', 'alg-absent');
  return sink.add(f);
}

const quoted = (name: string): string => `"${name}"`;

/** Step 3: now - created at most maxAgeSeconds, and (profile rule) created - now at most maxFutureSkewSeconds. */
function checkCreatedWindow(
  created: number,
  now: number,
  policy: VerificationPolicy,
  sink: FindingSink,
): boolean {
  const { maxAgeSeconds, maxFutureSkewSeconds } = policy;
  if (policy.enforce.createdMaxAge && now - created > maxAgeSeconds) {
    const message = `signature created ${now - created} s ago, more than ${maxAgeSeconds} s`;
    const expected = `within ${maxAgeSeconds} s of ${now}`;
    if (sink.add(finding('CREATED_EXPIRED', message, expected, String(created)))) return true;
  }
  if (policy.enforce.createdMaxFuture && created - now > maxFutureSkewSeconds) {
    const millis =
      created > now * 100 ? ' (it looks like milliseconds: created is Unix time in seconds)' : '';
    const skew =
      maxFutureSkewSeconds % 60 === 0
        ? `${maxFutureSkewSeconds / 60} minutes`
        : `${maxFutureSkewSeconds} s`;
    const message = `signature created ${created - now} s in the future, more than ${maxFutureSkewSeconds} s${millis} (a clock skew above ${skew} fails)`;
    const expected = `within ${maxFutureSkewSeconds} s of ${now}`;
    if (sink.add(finding('CREATED_IN_FUTURE', message, expected, String(created)))) return true;
  }
  return false;
}

/** Step 4 (the nonce's form): a String, present, not empty, at most nonceMaxLength characters. */
function checkNonceForm(
  nonceParam: BareItem | undefined,
  policy: VerificationPolicy,
  sink: FindingSink,
): boolean {
  if (nonceParam !== undefined && typeof nonceParam !== 'string') {
    const message = '"nonce" is not an sf-string';
    const f = finding(
      'PARAMETERS_MISMATCH',
      message,
      NONCE_FORM,
      JSON.stringify(nonceParam),
      'SIG-PARAM-NONCE',
      'parameter-type',
    );
    if (sink.add(f)) return true;
  }
  if (!policy.enforce.nonce || (nonceParam !== undefined && typeof nonceParam !== 'string'))
    return false;
  const nonce = nonceParam ?? '';
  if (nonce === '') {
    const message = `${nonceParam === '' ? 'empty' : 'missing'} "nonce" parameter: it is required on every request`;
    const received = nonceParam === '' ? '""' : '(absent)';
    return sink.add(finding('NONCE_MISSING', message, NONCE_FORM, received));
  }
  if (nonce.length <= policy.nonceMaxLength) return false;
  const message = `nonce has ${nonce.length} characters, at most ${policy.nonceMaxLength} allowed`;
  const expected = `at most ${policy.nonceMaxLength} characters`;
  return sink.add(finding('NONCE_TOO_LONG', message, expected, `${nonce.length} characters`));
}

/** Steps 2 (parameters) to 4 (the nonce's form) into `sink`; the parameters when each was there in its form. */
export function checkSignatureParameters(
  params: ReadonlyMap<string, BareItem>,
  policy: VerificationPolicy,
  now: number,
  progress: Progress,
  sink: FindingSink,
): SignedParameters | undefined {
  if (checkRequired(params, policy, sink)) return undefined;
  if (policy.enforce.parameters && checkParameterSet(params, sink)) return undefined;
  const created = params.get('created');
  progress.step = 3;
  if (isSfInteger(created) && checkCreatedWindow(created, now, policy, sink)) return undefined;
  progress.step = 4;
  const nonceParam = params.get('nonce');
  if (checkNonceForm(nonceParam, policy, sink)) return undefined;
  const keyId = params.get('keyid');
  if (!isSfInteger(created) || typeof keyId !== 'string' || keyId === '') return undefined;
  return { created, keyId, nonce: typeof nonceParam === 'string' ? nonceParam : '' };
}
