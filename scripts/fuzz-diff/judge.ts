// How the differential fuzzer judges one input: payconform's verify answer against each other implementation's, and
// payconform's RFC 8941 reading of Signature-Input and Signature against the `structured-headers` library's. A
// disagreement is "stated" when the one table of departures explains it for that implementation (the interop matrix
// already lists the deviation for it); any other is a finding, printed as a candidate vector.
import { parseDictionary, serializeDictionary } from 'structured-headers';
import { parseSfDictionary } from '../../src/structured-fields/structured-fields.js';
import type { DeviationId } from '../../vectors/adapters/deviations.js';
import type { FuzzCase } from './generate.js';
import type { Implementation, Verdict } from './implementations.js';

export interface Disagreement {
  /** One per kind of disagreement: who, and the two answers in short (a finding is printed once per key). */
  readonly key: string;
  readonly implementation: string;
  readonly payconform: string;
  readonly other: string;
  /** The departure that explains it, when the implementation's row states it. */
  readonly stated?: DeviationId;
}

/**
 * The departures behind each code with which payconform refuses what a generic RFC 9421 library may accept (a
 * library that accepts such a request departs there; it is stated when its interop row lists one of them).
 */
const DEPARTURES_OF_CODE: Readonly<Record<string, readonly DeviationId[]>> = {
  LABEL_DUPLICATED: ['single-label'],
  LABEL_UNSUPPORTED: ['single-label'],
  COMPONENTS_MISMATCH: ['fixed-components', 'duplicate-component'],
  PARAMETERS_MISMATCH: ['fixed-parameters'],
  ALG_UNSUPPORTED: ['fixed-parameters'],
  CREATED_INVALID: ['fixed-parameters'],
  KEY_ID_MISSING: ['fixed-parameters'],
  SIGNATURE_INPUT_MALFORMED: ['strict-parameters'],
  SIGNATURE_MALFORMED: ['byte-sequence', 'strict-parameters'],
  HEADER_DUPLICATED: ['duplicate-header'],
  SIGNATURE_BASE_INVALID: ['host-as-written', 'non-ascii-base'],
};

/** The departure of the field reading: payconform's parser refuses what `structured-headers` returns. */
const DEPARTURES_OF_SF_CODE: Readonly<Record<string, DeviationId>> = {
  SF_DUPLICATE_KEY: 'single-label',
  SF_TYPE_UNSUPPORTED: 'rfc8941-types',
};

/**
 * Where the vectors' `acceptable` cases say either answer conforms, and which departure's rule it is: a parameter on
 * the Signature member or an Integer parameter with a leading zero (strict-parameters), an unpadded Signature (byte-sequence),
 * a second Content-Digest member (content-digest-profile). Any disagreement on such an input is stated.
 */
export function eitherAnswerConforms(c: FuzzCase): DeviationId | undefined {
  const field = (name: string): string => fieldValue(c, name) ?? '';
  if (
    /:[^:]*:\s*;/.test(field('signature')) ||
    /;(?:created|expires)=-?0\d/.test(field('signature-input'))
  )
    return 'strict-parameters';
  if (/=:(?:[A-Za-z0-9+/]{4})*[A-Za-z0-9+/]{1,3}:/.test(field('signature'))) return 'byte-sequence';
  if (field('content-digest').includes(',')) return 'content-digest-profile';
  return undefined;
}

function short(result: Record<string, unknown>): string {
  return result.ok === true ? 'ok' : `${String(result.code)}@${String(result.step)}`;
}

/** payconform's answer against one other implementation's. */
function compareVerdicts(
  impl: Implementation,
  ours: Record<string, unknown>,
  theirs: Verdict,
): Disagreement | undefined {
  if (theirs.kind === 'skip') return undefined;
  const base = { implementation: impl.id, payconform: short(ours) };
  if (theirs.kind === 'error')
    return { ...base, key: `${impl.id}:error`, other: `error: ${theirs.message}` };
  const same = impl.compareCodes
    ? JSON.stringify(ours) === JSON.stringify(theirs.result)
    : ours.ok === theirs.result.ok;
  if (same) return undefined;
  const other = impl.compareCodes ? short(theirs.result) : theirs.result.ok ? 'ok' : 'refused';
  const key = `${impl.id}:${base.payconform}:${other}`;
  if (impl.compareCodes || ours.ok === true) return { ...base, key, other };
  const stated = (DEPARTURES_OF_CODE[String(ours.code)] ?? []).find((d) => impl.stated.has(d));
  return { ...base, key, other, ...(stated ? { stated } : {}) };
}

export function judgeVerify(
  c: FuzzCase,
  impls: readonly Implementation[],
  ours: Record<string, unknown>,
  answers: readonly Verdict[],
): Disagreement[] {
  const found = impls.flatMap((impl, i) => compareVerdicts(impl, ours, answers[i]!) ?? []);
  const either = eitherAnswerConforms(c);
  return either ? found.map((d) => ({ ...d, stated: d.stated ?? either })) : found;
}

/** The departure behind each error with which payconform refuses to build a base a library builds. */
const DEPARTURES_OF_BASE_ERROR: Readonly<Record<string, DeviationId>> = {
  FIELD_DUPLICATED: 'duplicate-header',
  BASE_NOT_ASCII: 'non-ascii-base',
  TARGET_URI_INVALID: 'host-as-written',
};

/** Two bases that differ only in the `@signature-params` line (base-nonce-empty-string: a parameter left out). */
function onlyParamsDiffer(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const withoutParams = (r: Record<string, unknown>): string =>
    String(r.signatureBase).replace(/\n"@signature-params": .*$/, '');
  return withoutParams(a) === withoutParams(b);
}

function shortBase(result: Record<string, unknown>): string {
  return typeof result.signatureBase === 'string' ? 'base' : `error ${String(result.error)}`;
}

/** payconform's `signature-base` answer against another implementation's: the same bytes, or both an error. */
function compareBases(
  impl: Implementation,
  ours: Record<string, unknown>,
  theirs: Verdict,
): Disagreement | undefined {
  if (theirs.kind === 'skip') return undefined;
  const base = { implementation: impl.id, payconform: shortBase(ours) };
  if (theirs.kind === 'error')
    return { ...base, key: `${impl.id}:base:error`, other: `error: ${theirs.message}` };
  const bothErrors = ours.error !== undefined && theirs.result.error !== undefined;
  const same = impl.compareCodes
    ? JSON.stringify(ours) === JSON.stringify(theirs.result)
    : ours.signatureBase === theirs.result.signatureBase || bothErrors;
  if (same) return undefined;
  const other =
    typeof theirs.result.signatureBase === 'string' && ours.signatureBase !== undefined
      ? 'another base'
      : shortBase(theirs.result);
  const departure =
    other === 'another base' && onlyParamsDiffer(ours, theirs.result)
      ? 'fixed-parameters'
      : DEPARTURES_OF_BASE_ERROR[String(ours.error)];
  const stated = departure !== undefined && impl.stated.has(departure) ? departure : undefined;
  return {
    ...base,
    key: `${impl.id}:base:${base.payconform}:${other}`,
    other: other === 'another base' ? JSON.stringify(theirs.result.signatureBase) : other,
    ...(stated ? { stated } : {}),
  };
}

export function judgeBase(
  impls: readonly Implementation[],
  ours: Record<string, unknown>,
  answers: readonly Verdict[],
): Disagreement[] {
  return impls.flatMap((impl, i) => compareBases(impl, ours, answers[i]!) ?? []);
}

/** The field's lines as one value (RFC 9110 §5.3), or undefined when it is not sent. */
function fieldValue(c: FuzzCase, name: string): string | undefined {
  const lines = c.request.headers.filter(([n]) => n.toLowerCase() === name).map(([, v]) => v);
  return lines.length > 0 ? lines.join(', ') : undefined;
}

function libraryReading(value: string): string | undefined {
  try {
    return serializeDictionary(parseDictionary(value));
  } catch {
    return undefined;
  }
}

/** payconform's RFC 8941 Dictionary reading of both signature fields against `structured-headers`. */
export function judgeFields(c: FuzzCase): Disagreement[] {
  const found: Disagreement[] = [];
  for (const name of ['signature-input', 'signature']) {
    const value = fieldValue(c, name);
    if (value === undefined) continue;
    const theirs = libraryReading(value);
    const ours = parseSfDictionary(value);
    const oursText = ours.ok ? libraryReading(serializeDictionary(ours.value)) : ours.code;
    if (ours.ok ? oursText === theirs : theirs === undefined) continue;
    const stated = ours.ok ? undefined : DEPARTURES_OF_SF_CODE[ours.code];
    found.push({
      key: `structured-headers:${name}:${ours.ok ? 'parsed' : ours.code}:${theirs === undefined ? 'refused' : 'parsed'}`,
      implementation: 'structured-headers',
      payconform: oursText ?? 'parsed',
      other: theirs ?? 'refused',
      ...(stated ? { stated } : {}),
    });
  }
  return found;
}
