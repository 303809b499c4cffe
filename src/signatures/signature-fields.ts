// RFC 9421 §4: the Signature-Input and Signature fields, parsed and serialised through structured-headers.
import { serializeDictionary, type Dictionary } from 'structured-headers';
import {
  isByteSequence,
  isByteSequenceWrittenCanonically,
  isInnerList,
  isSfInteger,
  parseSfDictionary,
  type BareItem,
} from '../structured-fields/structured-fields.js';
import { componentIdentifier, type ComponentIdentifier } from './component-identifier.js';
import { serializeSignatureParams } from './signature-params.js';

/** One Signature-Input member: the covered components and the signature parameters, both in received order. */
export interface SignatureInput {
  readonly components: readonly ComponentIdentifier[];
  readonly params: ReadonlyMap<string, BareItem>;
  /** The strict re-serialisation of the member (RFC 9421 §3.2 step 7): the `@signature-params` value. */
  readonly signatureParams: string;
}

export type SignatureFieldErrorCode = 'SIGNATURE_INPUT_MALFORMED' | 'SIGNATURE_MALFORMED' | 'LABEL_DUPLICATED';

export type ParseSignatureInputResult =
  | { readonly ok: true; readonly value: ReadonlyMap<string, SignatureInput> }
  | { readonly ok: false; readonly code: 'SIGNATURE_INPUT_MALFORMED' | 'LABEL_DUPLICATED'; readonly message: string };

export type ParseSignatureResult =
  | { readonly ok: true; readonly value: ReadonlyMap<string, Uint8Array> }
  | { readonly ok: false; readonly code: 'SIGNATURE_MALFORMED' | 'LABEL_DUPLICATED'; readonly message: string };

/** RFC 9421 §2.3 parameter types: `created`/`expires` Integers; `keyid`, `alg`, `nonce`, `tag` Strings. */
const PARAM_TYPES: Readonly<Record<string, 'integer' | 'string'>> = {
  created: 'integer',
  expires: 'integer',
  keyid: 'string',
  alg: 'string',
  nonce: 'string',
  tag: 'string',
};

/**
 * Parses a Signature-Input value (field lines already combined with ", "). Every member must be an Inner List
 * of sf-strings; known parameters must have their RFC types; unknown parameters are kept in order.
 * A label that appears twice is `LABEL_DUPLICATED` (the SF rule "last wins" would silently replace a signature).
 */
export function parseSignatureInput(value: string): ParseSignatureInputResult {
  const parsed = parseSfDictionary(value);
  if (!parsed.ok) {
    return { ok: false, code: parsed.code === 'SF_DUPLICATE_KEY' ? 'LABEL_DUPLICATED' : 'SIGNATURE_INPUT_MALFORMED', message: `Signature-Input: ${parsed.message}` };
  }
  const result = new Map<string, SignatureInput>();
  for (const [label, member] of parsed.value) {
    const bad = (message: string): ParseSignatureInputResult => ({ ok: false, code: 'SIGNATURE_INPUT_MALFORMED', message: `Signature-Input "${label}": ${message}` });
    if (!isInnerList(member)) return bad('member is not an Inner List');
    const components: ComponentIdentifier[] = [];
    for (const [bare, params] of member[0]) {
      if (typeof bare !== 'string') return bad('a component identifier is not an sf-string');
      components.push(componentIdentifier(bare, params));
    }
    for (const [key, v] of member[1]) {
      const type = PARAM_TYPES[key];
      if (type === 'integer' && !isSfInteger(v)) return bad(`parameter "${key}" is not an Integer`);
      if (type === 'string' && typeof v !== 'string') return bad(`parameter "${key}" is not an sf-string`);
    }
    const serialized = serializeSignatureParams(components, member[1]);
    if (!serialized.ok) return bad(serialized.message);
    result.set(label, { components, params: member[1], signatureParams: serialized.value });
  }
  return { ok: true, value: result };
}

/** Parses a Signature value: every member must be a byte sequence written as padded standard base64. */
export function parseSignature(value: string): ParseSignatureResult {
  const parsed = parseSfDictionary(value);
  if (!parsed.ok) {
    return { ok: false, code: parsed.code === 'SF_DUPLICATE_KEY' ? 'LABEL_DUPLICATED' : 'SIGNATURE_MALFORMED', message: `Signature: ${parsed.message}` };
  }
  const result = new Map<string, Uint8Array>();
  for (const [label, member] of parsed.value) {
    if (isInnerList(member) || !isByteSequence(member[0])) {
      return { ok: false, code: 'SIGNATURE_MALFORMED', message: `Signature "${label}": member is not a byte sequence` };
    }
    const bytes = new Uint8Array(member[0]);
    if (!isByteSequenceWrittenCanonically(value, bytes)) {
      return { ok: false, code: 'SIGNATURE_MALFORMED', message: `Signature "${label}": byte sequence is not padded standard base64` };
    }
    result.set(label, bytes);
  }
  return { ok: true, value: result };
}

/** Serialises Signature-Input members (`label=(...);params`), in the map's order. */
export function serializeSignatureInput(
  members: ReadonlyMap<string, { readonly components: readonly ComponentIdentifier[]; readonly params: ReadonlyMap<string, BareItem> }>,
): string {
  const parts: string[] = [];
  for (const [label, member] of members) {
    const serialized = serializeSignatureParams(member.components, member.params);
    if (!serialized.ok) throw new TypeError(`cannot serialise Signature-Input "${label}": ${serialized.message}`);
    if (!/^[a-z*][a-z0-9_\-.*]*$/.test(label)) throw new TypeError(`invalid signature label "${label}"`);
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
