// RFC 9421 §2.5: the signature base for any covered component list, with the profile's deviations as options.
import type { HttpRequest } from '../http/message.js';
import { arrayBufferToBase64 } from 'structured-headers';
import {
  parseSfDictionary,
  parseSfItem,
  parseSfList,
  serializeSf,
  serializeSfMember,
  type BareItem,
  type SfKind,
} from '../structured-fields/structured-fields.js';
import type { ComponentIdentifier } from './component-identifier.js';
import { fieldLineValues, hasForbiddenFieldCharacter, type FieldIndex } from './field-values.js';
import { serializeSignatureParams } from './signature-params.js';
import {
  normalizeAuthority,
  parseTargetUri,
  type AuthorityPortRule,
  type TargetUriParts,
} from './target-uri.js';

/** How the base is built where a profile departs from RFC 9421 (data, not code paths scattered in callers). */
export interface SignatureBaseOptions {
  /** A covered field that is absent: RFC 9421 `'error'`; `'empty'` gives the line `"name": ` (empty value). */
  readonly missingField?: 'error' | 'empty';
  /** `@path`: RFC 9421 `'path'` (no query); `'path-and-query'` appends `?query` as written when a `?` is present. */
  readonly pathValue?: 'path' | 'path-and-query';
  /** Which ports `@authority` omits. */
  readonly authorityPorts?: AuthorityPortRule;
  /** Field names whose values are Structured Fields, for the `sf` parameter (RFC 9421 §2.1.1). */
  readonly fieldTypes?: Readonly<Record<string, SfKind>>;
  /** Fields that must appear at most once; several lines are an error (combining them would be ambiguous). */
  readonly singleValuedFields?: readonly string[];
}

/** Why a signature base could not be built. */
export type SignatureBaseErrorCode =
  | 'TARGET_URI_INVALID'
  | 'COMPONENT_UNKNOWN'
  | 'COMPONENT_NAME_INVALID'
  | 'COMPONENT_DUPLICATE'
  | 'COMPONENT_PARAMETER_UNKNOWN'
  | 'COMPONENT_PARAMETER_INVALID'
  | 'FIELD_MISSING'
  | 'FIELD_DUPLICATED'
  | 'FIELD_VALUE_INVALID'
  | 'DICTIONARY_MEMBER_MISSING'
  | 'QUERY_PARAM_MISSING'
  | 'QUERY_PARAM_REPEATED'
  | 'SIGNATURE_PARAMS_INVALID'
  | 'BASE_NOT_ASCII';

/** The signature base's exact text, or why it could not be built. */
export type SignatureBaseResult =
  | {
      readonly ok: true;
      readonly base: string;
      /** the `@signature-params` value */ readonly signatureParams: string;
    }
  | { readonly ok: false; readonly code: SignatureBaseErrorCode; readonly message: string };

type ValueResult =
  { ok: true; value: string } | { ok: false; code: SignatureBaseErrorCode; message: string };

const DEFAULT_FIELD_TYPES: Readonly<Record<string, SfKind>> = {
  'signature-input': 'dictionary',
  signature: 'dictionary',
  'accept-signature': 'dictionary',
  'content-digest': 'dictionary',
  'repr-digest': 'dictionary',
  'want-content-digest': 'dictionary',
  'want-repr-digest': 'dictionary',
  priority: 'dictionary',
  'cache-status': 'list',
  'proxy-status': 'list',
  'client-cert': 'item',
};

const FIELD_PARAMS = new Set(['sf', 'key', 'bs', 'req', 'tr']);
const NAME_RE = /^[a-z0-9!#$%&'*+\-.^_`|~]+$/;

/** RFC 9421 §2.2.8: re-encode with the urlencoded percent-encode set, a space as `%20`. */
export function encodeQueryParamComponent(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()~]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

function fail(code: SignatureBaseErrorCode, message: string): ValueResult {
  return { ok: false, code, message };
}

function derivedValue(
  component: ComponentIdentifier,
  request: HttpRequest,
  uri: TargetUriParts,
  options: SignatureBaseOptions,
): ValueResult {
  const paramsFailure = checkDerivedParams(component);
  if (paramsFailure !== undefined) return paramsFailure;
  switch (component.name) {
    case '@method':
      return { ok: true, value: request.method };
    case '@target-uri':
      return { ok: true, value: uri.withoutFragment };
    case '@authority':
      return { ok: true, value: normalizeAuthority(uri, options.authorityPorts) };
    case '@scheme':
      return { ok: true, value: uri.scheme };
    case '@request-target':
      return { ok: true, value: uri.query === undefined ? uri.path : `${uri.path}?${uri.query}` };
    case '@path':
      return {
        ok: true,
        value:
          options.pathValue === 'path-and-query' && uri.query !== undefined
            ? `${uri.path}?${uri.query}`
            : uri.path,
      };
    case '@query':
      return { ok: true, value: `?${uri.query ?? ''}` };
    case '@query-param':
      return queryParamValue(component, uri);
    case '@status':
      return fail('COMPONENT_UNKNOWN', '"@status" is a response component');
    case '@signature-params':
      return fail(
        'COMPONENT_UNKNOWN',
        '"@signature-params" must not be listed as a covered component',
      );
    default:
      return fail('COMPONENT_UNKNOWN', `unknown derived component "${component.name}"`);
  }
}

/** A derived component takes no parameter, except `name` on `@query-param`. */
function checkDerivedParams(component: ComponentIdentifier): ValueResult | undefined {
  const allowed = component.name === '@query-param' ? 'name' : undefined;
  for (const key of component.params.keys()) {
    if (key !== allowed) {
      return FIELD_PARAMS.has(key) || key === 'name'
        ? fail(
            'COMPONENT_PARAMETER_INVALID',
            `parameter "${key}" is not allowed on ${component.serialized}`,
          )
        : fail(
            'COMPONENT_PARAMETER_UNKNOWN',
            `unknown parameter "${key}" on ${component.serialized}`,
          );
    }
  }
  return undefined;
}

/** RFC 9421 §2.2.8: the one value of the named query parameter, re-encoded. */
function queryParamValue(component: ComponentIdentifier, uri: TargetUriParts): ValueResult {
  const name = component.params.get('name');
  if (typeof name !== 'string')
    return fail('COMPONENT_PARAMETER_INVALID', '"@query-param" needs a string "name" parameter');
  const found: string[] = [];
  for (const [n, v] of new URLSearchParams(uri.query ?? ''))
    if (encodeQueryParamComponent(n) === name) found.push(v);
  if (found.length === 0) return fail('QUERY_PARAM_MISSING', `query parameter "${name}" is absent`);
  if (found.length > 1)
    return fail('QUERY_PARAM_REPEATED', `query parameter "${name}" appears ${found.length} times`);
  return { ok: true, value: encodeQueryParamComponent(found[0]!) };
}

/** RFC 9421 §2.1: a field's value, after its name and parameters are checked, by its parameters (bs, key, sf). */
function fieldValue(
  component: ComponentIdentifier,
  request: HttpRequest,
  options: SignatureBaseOptions,
  fields?: FieldIndex,
): ValueResult {
  const { name, params } = component;
  const paramsFailure = checkFieldParams(component);
  if (paramsFailure !== undefined) return paramsFailure;
  const lines = fields ? (fields.get(name) ?? []) : fieldLineValues(request.headers, name);
  for (const line of lines) {
    if (hasForbiddenFieldCharacter(line))
      return fail('FIELD_VALUE_INVALID', `field "${name}" contains CR, LF or NUL`);
  }
  if (lines.length === 0) {
    if (options.missingField === 'empty' && params.size === 0) return { ok: true, value: '' };
    return fail('FIELD_MISSING', `covered field "${name}" is absent`);
  }
  if (params.size === 0 && lines.length === 1) return { ok: true, value: lines[0]! }; // the common case: one plain line
  if (lines.length > 1 && options.singleValuedFields?.includes(name)) {
    return fail(
      'FIELD_DUPLICATED',
      `field "${name}" must appear once, found ${lines.length} lines`,
    );
  }
  if (params.has('bs')) return byteSequenceValue(lines);
  const combined = lines.join(', ');
  const key = params.get('key');
  if (key !== undefined) return dictionaryMemberValue(name, combined, key as string);
  if (params.has('sf')) return structuredValue(name, combined, options);
  return { ok: true, value: combined };
}

/** The field's name and parameters: a lowercase name; sf, key (a string), bs; no req or tr; bs alone, sf or key. */
function checkFieldParams(component: ComponentIdentifier): ValueResult | undefined {
  const { name, params } = component;
  if (!NAME_RE.test(name))
    return fail(
      'COMPONENT_NAME_INVALID',
      `component name "${name}" must be a lowercase field name`,
    );
  for (const [key, value] of params) {
    if (!FIELD_PARAMS.has(key))
      return fail(
        'COMPONENT_PARAMETER_UNKNOWN',
        `unknown parameter "${key}" on ${component.serialized}`,
      );
    if (key === 'req')
      return fail('COMPONENT_PARAMETER_INVALID', '"req" is not allowed when signing a request');
    if (key === 'tr')
      return fail('COMPONENT_PARAMETER_INVALID', 'trailer fields ("tr") are not supported');
    if (key === 'key' ? typeof value !== 'string' : value !== true) {
      return fail(
        'COMPONENT_PARAMETER_INVALID',
        `parameter "${key}" has the wrong type on ${component.serialized}`,
      );
    }
  }
  const sf = params.has('sf');
  const key = params.get('key');
  if (params.has('bs') && (sf || key !== undefined))
    return fail('COMPONENT_PARAMETER_INVALID', '"bs" cannot be combined with "sf" or "key"');
  if (sf && key !== undefined)
    return fail('COMPONENT_PARAMETER_INVALID', '"sf" and "key" cannot be combined');
  return undefined;
}

/** RFC 9421 §2.1.3 (`bs`): each line wrapped as a Byte Sequence, joined with ", ". */
function byteSequenceValue(lines: readonly string[]): ValueResult {
  return {
    ok: true,
    value: lines
      .map((line) => `:${arrayBufferToBase64(new TextEncoder().encode(line))}:`)
      .join(', '),
  };
}

/** RFC 9421 §2.1.2 (`key`): one member of the field parsed as a Dictionary, re-serialised. */
function dictionaryMemberValue(name: string, combined: string, key: string): ValueResult {
  const dict = parseSfDictionary(combined, { allowDuplicateKeys: true });
  if (!dict.ok)
    return fail('FIELD_VALUE_INVALID', `field "${name}" is not a Dictionary: ${dict.message}`);
  const member = dict.value.get(key);
  if (member === undefined)
    return fail('DICTIONARY_MEMBER_MISSING', `field "${name}" has no member "${String(key)}"`);
  const serialized = serializeSfMember(member);
  return serialized.ok
    ? { ok: true, value: serialized.value }
    : fail('FIELD_VALUE_INVALID', serialized.message);
}

/** RFC 9421 §2.1.1 (`sf`): the field parsed as its known Structured Field type, re-serialised. */
function structuredValue(
  name: string,
  combined: string,
  options: SignatureBaseOptions,
): ValueResult {
  const kind = options.fieldTypes?.[name] ?? DEFAULT_FIELD_TYPES[name];
  if (kind === undefined)
    return fail(
      'COMPONENT_PARAMETER_INVALID',
      `"sf" needs a known structured type for field "${name}"`,
    );
  const parsed =
    kind === 'dictionary'
      ? parseSfDictionary(combined, { allowDuplicateKeys: true })
      : kind === 'list'
        ? parseSfList(combined)
        : parseSfItem(combined);
  if (!parsed.ok)
    return fail('FIELD_VALUE_INVALID', `field "${name}" is not a valid ${kind}: ${parsed.message}`);
  const serialized = serializeSf(kind, parsed.value);
  return serialized.ok
    ? { ok: true, value: serialized.value }
    : fail('FIELD_VALUE_INVALID', serialized.message);
}

/** One component's value, or why it has none. */
export function componentValue(
  component: ComponentIdentifier,
  request: HttpRequest,
  uri: TargetUriParts,
  options: SignatureBaseOptions = {},
  fields?: FieldIndex,
): ValueResult {
  return component.name.startsWith('@')
    ? derivedValue(component, request, uri, options)
    : fieldValue(component, request, options, fields);
}

/** Signature parameters with their `@signature-params` serialisation already computed (e.g. a parsed Signature-Input member). */
export interface PreparedSignatureParams {
  readonly params: ReadonlyMap<string, BareItem>;
  /** Must be the serialisation of the covered components with `params` (as parseSignatureInput produces). */
  readonly signatureParams: string;
}

/**
 * Creates the signature base (RFC 9421 §2.5): one line per covered component in the given order, then the
 * `@signature-params` line; lines joined with LF and no trailing LF. The base must be ASCII.
 * `fields` (from indexFieldLines) avoids re-scanning the field lines when the caller already indexed them.
 */
export function createSignatureBase(
  request: HttpRequest,
  coveredComponents: readonly ComponentIdentifier[],
  signatureParams: ReadonlyMap<string, BareItem> | PreparedSignatureParams,
  options: SignatureBaseOptions = {},
  fields?: FieldIndex,
): SignatureBaseResult {
  const uriResult = parseTargetUri(request.url);
  if (!uriResult.ok) return { ok: false, code: 'TARGET_URI_INVALID', message: uriResult.message };
  const paramsValue =
    signatureParams instanceof Map
      ? serializeSignatureParams(coveredComponents, signatureParams)
      : { ok: true as const, value: (signatureParams as PreparedSignatureParams).signatureParams };
  if (!paramsValue.ok)
    return { ok: false, code: 'SIGNATURE_PARAMS_INVALID', message: paramsValue.message };
  let base = '';
  const seen = new Set<string>();
  for (const component of coveredComponents) {
    if (seen.has(component.serialized)) {
      return {
        ok: false,
        code: 'COMPONENT_DUPLICATE',
        message: `component ${component.serialized} is listed twice`,
      };
    }
    seen.add(component.serialized);
    const value = componentValue(component, request, uriResult.value, options, fields);
    if (!value.ok) return value;
    // A field value was checked line by line in fieldValue (joining with ", " or re-serialising adds no CR, LF or
    // NUL); a derived value is checked here.
    if (component.name.startsWith('@') && hasForbiddenFieldCharacter(value.value)) {
      return {
        ok: false,
        code: 'FIELD_VALUE_INVALID',
        message: `value of ${component.serialized} contains CR, LF or NUL`,
      };
    }
    base += `${component.serialized}: ${value.value}\n`;
  }
  base += `"@signature-params": ${paramsValue.value}`;
  // ASCII exactly when no UTF-16 unit needs more than one UTF-8 byte (a native count, cheaper than a regex scan).
  if (Buffer.byteLength(base, 'utf8') !== base.length) {
    return {
      ok: false,
      code: 'BASE_NOT_ASCII',
      message: 'the signature base contains non-ASCII characters',
    };
  }
  return { ok: true, base, signatureParams: paramsValue.value };
}
