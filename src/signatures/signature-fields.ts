// RFC 9421 §4: the Signature-Input and Signature fields, parsed and serialised through structured-headers.
import { serializeDictionary, type Dictionary } from 'structured-headers';
import {
  isByteSequence,
  isByteSequenceWrittenCanonically,
  isCanonicalBase64,
  isInnerList,
  isSfInteger,
  memberParametersAsWritten,
  parseSfDictionary,
  SF_KEY_PATTERN,
  type BareItem,
  type ParameterAsWritten,
} from '../structured-fields/structured-fields.js';
import { sharedComponentIdentifier, type ComponentIdentifier } from './component-identifier.js';
import { serializeSignatureParams } from './signature-params.js';

/** One Signature-Input member: the covered components and the signature parameters, both in received order. */
export interface SignatureInput {
  readonly components: readonly ComponentIdentifier[];
  readonly params: ReadonlyMap<string, BareItem>;
  /** The strict re-serialisation of the member (RFC 9421 §3.2 step 7): the `@signature-params` value. */
  readonly signatureParams: string;
}

/** Why a Signature or Signature-Input field was refused. */
export type SignatureFieldErrorCode =
  'SIGNATURE_INPUT_MALFORMED' | 'SIGNATURE_MALFORMED' | 'LABEL_DUPLICATED';

/**
 * Which rejection a failure is, where an RFC 8941 parser would read the field all the same (or the field parses and a
 * parameter has another type): the profile's findings classify each (src/profile/finding-verdicts.ts).
 */
export type SignatureFieldProblem =
  | 'parameter-repeated'
  | 'parameter-unknown'
  | 'integer-as-decimal'
  | 'integer-leading-zeros'
  | 'parameter-type'
  | 'signature-unpadded'
  | 'signature-parameter';

/** The Signature-Input field's members by label, or why it does not parse. */
export type ParseSignatureInputResult =
  | { readonly ok: true; readonly value: ReadonlyMap<string, SignatureInput> }
  | {
      readonly ok: false;
      readonly code: 'SIGNATURE_INPUT_MALFORMED' | 'LABEL_DUPLICATED';
      readonly message: string;
      readonly problem?: SignatureFieldProblem;
    };

/** The Signature field's signature bytes by label, or why it does not parse. */
export type ParseSignatureResult =
  | { readonly ok: true; readonly value: ReadonlyMap<string, Uint8Array> }
  | {
      readonly ok: false;
      readonly code: 'SIGNATURE_MALFORMED' | 'LABEL_DUPLICATED';
      readonly message: string;
      readonly problem?: SignatureFieldProblem;
    };

/** RFC 9421 §2.3 parameter types: `created`/`expires` Integers; `keyid`, `alg`, `nonce`, `tag` Strings. */
const PARAM_TYPES: Readonly<Record<string, 'integer' | 'string'>> = {
  created: 'integer',
  expires: 'integer',
  keyid: 'string',
  alg: 'string',
  nonce: 'string',
  tag: 'string',
};

export interface ParseFieldOptions {
  /**
   * Recognise a value already in canonical RFC 8941 form (one member, plain sf-strings without escapes,
   * non-negative Integers without leading zeros) without the general parser. The result is identical to the
   * general path (a property test checks this); anything else goes through structured-headers. Default true.
   */
  readonly fastPath?: boolean;
}

/** PARAM_TYPES by name (own names only); looking up a key sliced out of the field hashes it instead of interning it. */
const KNOWN_PARAM_TYPES: ReadonlyMap<string, 'integer' | 'string'> = new Map(
  Object.entries(PARAM_TYPES),
);

const CANONICAL_LABEL = new RegExp(`^${SF_KEY_PATTERN}$`);
/** Space-separated plain sf-strings (no escapes, no parameters), possibly none. */
const CANONICAL_COMPONENT_LIST = /^(?:"[a-z0-9@!#$%&'*+\-.^_`|~]+"(?: (?=")|$))*$/;

/**
 * Canonical covered-component lists by their text (inside the parentheses). A client sends the same list on every
 * request, so it is checked and turned into identifiers once; the last one seen is compared first (no hash).
 * Bounded: cleared when full.
 */
const componentLists = new Map<string, readonly ComponentIdentifier[]>();
const COMPONENT_LISTS_MAX = 64;
let lastComponentText = '';
let lastComponents: readonly ComponentIdentifier[] | undefined;

/** The component list written in `value` from `start` to `end` (the text inside the parentheses), when canonical. */
function canonicalComponentList(
  value: string,
  start: number,
  end: number,
): readonly ComponentIdentifier[] | undefined {
  const text = value.slice(start, end);
  // slice and === compare in one fast pass; startsWith(text, position) is several times slower in V8.
  if (lastComponents !== undefined && text === lastComponentText) return lastComponents;
  let components = componentLists.get(text);
  if (components === undefined) {
    if (!CANONICAL_COMPONENT_LIST.test(text)) return undefined;
    const names = text === '' ? [] : text.split(' ').map((quoted) => quoted.slice(1, -1));
    components = Object.freeze(names.map((name) => sharedComponentIdentifier(name, new Map())));
    if (componentLists.size >= COMPONENT_LISTS_MAX) componentLists.clear();
    componentLists.set(text, components);
  }
  lastComponentText = text;
  lastComponents = components;
  return components;
}

const isDigit = (code: number): boolean => code >= 0x30 && code <= 0x39;
/** A character a plain sf-string (no escapes) cannot hold: outside visible ASCII and space, or `\` (`"` ends it). */
const NOT_PLAIN_STRING = /[^\x20-\x21\x23-\x5b\x5d-\x7e]/;

/**
 * The canonical parameters `;key=value...` from `at` to the end of `value`: each value an Integer without leading
 * zeros (at most 15 digits) or a plain sf-string, of its RFC 9421 type when it has one; undefined when anything else is
 * written, including a parameter written twice or of the wrong type (left to the general parser, which reports it).
 */
function canonicalParameters(value: string, at: number): Map<string, BareItem> | undefined {
  const params = new Map<string, BareItem>();
  const length = value.length;
  while (at < length) {
    if (value.charCodeAt(at) !== 0x3b) return undefined; // ;
    const equals = value.indexOf('=', at + 1);
    if (equals === -1) return undefined;
    const key = value.slice(at + 1, equals);
    // A known parameter's name is a valid key: only another name needs the key grammar.
    const type = KNOWN_PARAM_TYPES.get(key);
    if ((type === undefined && !CANONICAL_LABEL.test(key)) || params.has(key)) return undefined;
    const first = value.charCodeAt(equals + 1);
    let end = equals + 1;
    if (first === 0x22) {
      if (type === 'integer') return undefined; // the general parser reports the type
      end = value.indexOf('"', equals + 2);
      if (end === -1) return undefined;
      const text = value.slice(equals + 2, end);
      if (NOT_PLAIN_STRING.test(text)) return undefined;
      params.set(key, text);
      end++;
    } else {
      while (end < length && isDigit(value.charCodeAt(end))) end++;
      const digits = end - equals - 1;
      if (digits === 0 || digits > 15 || (digits > 1 && first === 0x30) || type === 'string')
        return undefined;
      params.set(key, Number(value.slice(equals + 1, end)));
    }
    at = end;
  }
  return params;
}

/**
 * The canonical single-member form `label=("c1" "c2");p1=v1;...`, parsed without the general parser; undefined
 * when not canonical. The label has no `=` and the plain sf-strings no `)`, so the first `=(` and the next `)`
 * delimit the parts; each part is then checked against its canonical grammar.
 */
function parseCanonicalSignatureInput(value: string):
  | {
      label: string;
      components: readonly ComponentIdentifier[];
      params: Map<string, BareItem>;
      signatureParams: string;
    }
  | undefined {
  const open = value.indexOf('=(');
  const close = open === -1 ? -1 : value.indexOf(')', open + 2);
  if (close === -1) return undefined;
  const label = value.slice(0, open);
  if (!CANONICAL_LABEL.test(label)) return undefined;
  const components = canonicalComponentList(value, open + 2, close);
  if (components === undefined) return undefined;
  const params = canonicalParameters(value, close + 1);
  if (params === undefined) return undefined;
  return { label, components, params, signatureParams: value.slice(open + 1) };
}

/**
 * A parameter written as a Decimal, classified for the profile's findings: an Integer parameter with a zero fraction
 * is the same Integer to RFC 8941 (`integer-as-decimal`), with a fraction another value (`parameter-type`); a parameter
 * the profile does not know is the unknown parameter's case (`parameter-unknown`); a String parameter is a type error.
 */
function decimalProblem(
  key: string,
  raw: string,
): { readonly message: string; readonly problem: SignatureFieldProblem } {
  const type = PARAM_TYPES[key];
  if (type === 'integer') {
    const message = `parameter "${key}" is a Decimal (${raw}), not an Integer`;
    // `….0` is the Integer written as a Decimal; a fraction is another value (another type, as a String is).
    return { message, problem: /\.0*$/.test(raw) ? 'integer-as-decimal' : 'parameter-type' };
  }
  const message = `parameter "${key}" is a Decimal (${raw})`;
  return { message, problem: type === undefined ? 'parameter-unknown' : 'parameter-type' };
}

/**
 * What the parsed parameters cannot show: a parameter written twice (RFC 8941 §4.2.3.2 would silently keep the last
 * value, as with a duplicated label), any parameter written as a Decimal (`1767225600.0` parses to the
 * same JavaScript number as the Integer) or with leading zeros (`01767225600`: RFC 8941 reads the same Integer, but
 * `@signature-params` re-serialises it, so the text received is not the text signed; this profile is strict).
 */
function parametersTextProblem(
  params: readonly ParameterAsWritten[],
): { readonly message: string; readonly problem: SignatureFieldProblem } | undefined {
  const seen = new Set<string>();
  for (const { key, raw } of params) {
    if (seen.has(key)) {
      const message = `parameter "${key}" appears more than once (RFC 8941 would silently keep the last value)`;
      return { message, problem: 'parameter-repeated' };
    }
    seen.add(key);
    // Any Decimal, known parameter or not: `1767225600.0` parses to an integral JavaScript number, which
    // @signature-params would write back without its fraction (fuzz:diff: verify-parameter-unknown-decimal-zero-fraction).
    if (/^-?[0-9]+\.[0-9]*$/.test(raw)) return decimalProblem(key, raw);
    if (PARAM_TYPES[key] === 'integer') {
      if (/^-?0[0-9]/.test(raw)) {
        const message = `parameter "${key}" is written with leading zeros (${raw}); write ${raw.replace(/^(-?)0+(?=[0-9])/, '$1')}`;
        return { message, problem: 'integer-leading-zeros' };
      }
    }
  }
  return undefined;
}

function typeProblem(params: ReadonlyMap<string, BareItem>): string | undefined {
  for (const [key, v] of params) {
    const type = PARAM_TYPES[key];
    if (type === 'integer' && !isSfInteger(v)) return `parameter "${key}" is not an Integer`;
    if (type === 'string' && typeof v !== 'string') return `parameter "${key}" is not an sf-string`;
  }
  return undefined;
}

/**
 * Parses a Signature-Input value (field lines already combined with ", "). Every member must be an Inner List
 * of sf-strings; known parameters must have their RFC types; unknown parameters are kept in order.
 * A label that appears twice is `LABEL_DUPLICATED` (the SF rule "last wins" would silently replace a signature).
 */
export function parseSignatureInput(
  value: string,
  options: ParseFieldOptions = {},
): ParseSignatureInputResult {
  if (options.fastPath !== false) {
    const canonical = parseCanonicalSignatureInput(value);
    if (canonical !== undefined) {
      const { label, components, params, signatureParams } = canonical;
      return {
        ok: true,
        value: new Map<string, SignatureInput>().set(label, {
          components,
          params,
          signatureParams,
        }),
      };
    }
  }
  const parsed = parseSfDictionary(value);
  if (!parsed.ok) {
    return {
      ok: false,
      code: parsed.code === 'SF_DUPLICATE_KEY' ? 'LABEL_DUPLICATED' : 'SIGNATURE_INPUT_MALFORMED',
      message: `Signature-Input: ${parsed.message}`,
    };
  }
  const result = new Map<string, SignatureInput>();
  const written = memberParametersAsWritten(value);
  for (const [label, member] of parsed.value) {
    const bad = (message: string, problem?: SignatureFieldProblem): ParseSignatureInputResult => ({
      ok: false,
      code: 'SIGNATURE_INPUT_MALFORMED',
      message: `Signature-Input "${label}": ${message}`,
      ...(problem !== undefined ? { problem } : {}),
    });
    if (!isInnerList(member)) return bad('member is not an Inner List');
    const textProblem = parametersTextProblem(written.get(label) ?? []);
    if (textProblem) return bad(textProblem.message, textProblem.problem);
    const components: ComponentIdentifier[] = [];
    for (const [bare, params] of member[0]) {
      if (typeof bare !== 'string') return bad('a component identifier is not an sf-string');
      components.push(sharedComponentIdentifier(bare, params));
    }
    const problem = typeProblem(member[1]);
    if (problem) return bad(problem, 'parameter-type');
    const serialized = serializeSignatureParams(components, member[1]);
    if (!serialized.ok) return bad(serialized.message);
    result.set(label, { components, params: member[1], signatureParams: serialized.value });
  }
  return { ok: true, value: result };
}

/** Parses a Signature value: every member must be a byte sequence written as padded standard base64. */
export function parseSignature(
  value: string,
  options: ParseFieldOptions = {},
): ParseSignatureResult {
  if (options.fastPath !== false) {
    // Only one member in canonical form (`label=:<padded base64>:`) takes the fast path; the general path judges the
    // rest.
    const open = value.indexOf('=:');
    if (open > 0 && value.charCodeAt(value.length - 1) === 0x3a && value.length > open + 2) {
      const label = value.slice(0, open);
      const text = value.slice(open + 2, -1);
      if (isCanonicalBase64(text) && CANONICAL_LABEL.test(label)) {
        const bytes = Buffer.from(text, 'base64');
        return {
          ok: true,
          value: new Map<string, Uint8Array>().set(
            label,
            new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength),
          ),
        };
      }
    }
  }
  const parsed = parseSfDictionary(value);
  if (!parsed.ok) {
    return {
      ok: false,
      code: parsed.code === 'SF_DUPLICATE_KEY' ? 'LABEL_DUPLICATED' : 'SIGNATURE_MALFORMED',
      message: `Signature: ${parsed.message}`,
    };
  }
  const result = new Map<string, Uint8Array>();
  for (const [label, member] of parsed.value) {
    if (isInnerList(member) || !isByteSequence(member[0])) {
      return {
        ok: false,
        code: 'SIGNATURE_MALFORMED',
        message: `Signature "${label}": member is not a byte sequence`,
      };
    }
    // RFC 9421 §4.2 defines no parameters on a signature, and the spec's step 5 shows none.
    if (member[1].size > 0) {
      return {
        ok: false,
        code: 'SIGNATURE_MALFORMED',
        message: `Signature "${label}": parameters on the signature (${[...member[1].keys()].map((k) => `"${k}"`).join(', ')}) are not allowed`,
        problem: 'signature-parameter',
      };
    }
    const bytes = new Uint8Array(member[0]);
    if (!isByteSequenceWrittenCanonically(value, bytes)) {
      return {
        ok: false,
        code: 'SIGNATURE_MALFORMED',
        message: `Signature "${label}": byte sequence is not padded standard base64`,
        problem: 'signature-unpadded',
      };
    }
    result.set(label, bytes);
  }
  return { ok: true, value: result };
}

/** Serialises Signature-Input members (`label=(...);params`), in the map's order. */
export function serializeSignatureInput(
  members: ReadonlyMap<
    string,
    {
      readonly components: readonly ComponentIdentifier[];
      readonly params: ReadonlyMap<string, BareItem>;
    }
  >,
): string {
  const parts: string[] = [];
  for (const [label, member] of members) {
    const serialized = serializeSignatureParams(member.components, member.params);
    if (!serialized.ok)
      throw new TypeError(`cannot serialise Signature-Input "${label}": ${serialized.message}`);
    if (!CANONICAL_LABEL.test(label)) throw new TypeError(`invalid signature label "${label}"`);
    parts.push(`${label}=${serialized.value}`);
  }
  return parts.join(', ');
}

/** Serialises Signature members (`label=:base64:`), in the map's order. */
export function serializeSignature(members: ReadonlyMap<string, Uint8Array>): string {
  const dict: Dictionary = new Map();
  for (const [label, bytes] of members) dict.set(label, [bytes, new Map()]);
  return serializeDictionary(dict);
}
