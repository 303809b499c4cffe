// Glue over `structured-headers` (RFC 8941): typed results instead of exceptions, RFC 8941-only bare items,
// and duplicate Dictionary keys detected (the library keeps the last value silently).
import {
  parseDictionary,
  parseItem,
  parseList,
  serializeInnerList,
  serializeItem,
  serializeList,
  serializeDictionary,
  Token,
  DisplayString,
  type BareItem,
  type Dictionary,
  type InnerList,
  type Item,
  type List,
  type Parameters,
} from 'structured-headers';

export { Token };
export type { BareItem, Dictionary, InnerList, Item, List, Parameters };

export type SfKind = 'item' | 'list' | 'dictionary';

export type SfResult<T> =
  | { readonly ok: true; readonly value: T }
  | {
      readonly ok: false;
      readonly code: 'SF_PARSE_ERROR' | 'SF_TYPE_UNSUPPORTED' | 'SF_DUPLICATE_KEY';
      readonly message: string;
    };

/** True for an Inner List (`[items, params]` whose first element is an array). */
export function isInnerList(member: Item | InnerList): member is InnerList {
  return Array.isArray(member[0]);
}

/** True when `value` is an RFC 8941 Integer (the library returns Integers and Decimals as numbers). */
export function isSfInteger(value: unknown): value is number {
  return (
    typeof value === 'number' && Number.isInteger(value) && Math.abs(value) <= 999_999_999_999_999
  );
}

/** A byte sequence as bytes (the library returns an ArrayBuffer). */
export function isByteSequence(value: unknown): value is ArrayBuffer {
  return value instanceof ArrayBuffer;
}

/**
 * The canonical (padded, zero pad bits) standard base64 text, as `Buffer#toString('base64')` writes it: whole
 * groups of four, then at most one final group with one or two `=` whose last data character carries no stray bits.
 * A source fragment for the canonical-form fast paths (no anchors, no capture groups).
 */
export const CANONICAL_BASE64_PATTERN =
  '(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/][AQgw]==|[A-Za-z0-9+/]{2}[AEIMQUYcgkosw048]=)?';

/** RFC 8941 §3.2 key grammar (`key = ( lcalpha / "*" ) *( lcalpha / DIGIT / "_" / "-" / "." / "*" )`): a source fragment. */
export const SF_KEY_PATTERN = '[a-z*][a-z0-9_\\-.*]*';

/**
 * A one-member Dictionary `key=:<canonical base64>:` (key in group 1, base64 in group 2): the form the Signature and
 * Content-Digest fast paths recognise without the general parser. No `g`/`y` flag, so sharing it is safe.
 */
export const CANONICAL_BYTE_SEQUENCE_MEMBER = new RegExp(
  `^(${SF_KEY_PATTERN})=:(${CANONICAL_BASE64_PATTERN}):$`,
);

/** The standard base64 alphabet's values by character code (-1: not in the alphabet). */
const BASE64_VALUE = (() => {
  const table = new Int8Array(128).fill(-1);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  for (let i = 0; i < alphabet.length; i++) table[alphabet.charCodeAt(i)] = i;
  return table;
})();

/**
 * True when `text` is canonical padded standard base64 (what CANONICAL_BASE64_PATTERN matches, checked in one pass):
 * whole groups of four alphabet characters, `=` only as one or two final pad characters, and no stray bits in the
 * last data character before them.
 */
export function isCanonicalBase64(text: string): boolean {
  const length = text.length;
  if (length % 4 !== 0) return false;
  const pad =
    length === 0
      ? 0
      : text.charCodeAt(length - 1) !== 0x3d
        ? 0
        : text.charCodeAt(length - 2) !== 0x3d
          ? 1
          : 2;
  const data = length - pad;
  for (let i = 0; i < data; i++) {
    const code = text.charCodeAt(i);
    if (code >= 128 || BASE64_VALUE[code]! < 0) return false;
  }
  if (pad === 0) return true;
  // The last data character carries 4 (two pads) or 2 (one pad) bits past the last byte: they must be zero.
  const last = BASE64_VALUE[text.charCodeAt(data - 1)]!;
  return (last & (pad === 2 ? 0x0f : 0x03)) === 0;
}

/** The bytes of base64 text already known canonical (e.g. matched by CANONICAL_BASE64_PATTERN): a view, no copy. */
export function decodeCanonicalBase64(text: string): Uint8Array {
  const bytes = Buffer.from(text, 'base64');
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * True when `raw` contains the canonical form `:<padded base64>:` of `bytes`. RFC 8941 lets parsers accept
 * missing padding and non-zero pad bits; this profile's fields are strict, so a value written any other way fails.
 */
export function isByteSequenceWrittenCanonically(raw: string, bytes: Uint8Array): boolean {
  return raw.includes(
    `:${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')}:`,
  );
}

function bareItemProblem(value: BareItem): string | undefined {
  // RFC 9651 added Date (@...) and Display String (%"..."); an RFC 8941 field must reject them.
  if (value instanceof Date) return 'an RFC 9651 Date is not an RFC 8941 type';
  if (value instanceof DisplayString) return 'an RFC 9651 Display String is not an RFC 8941 type';
  return undefined;
}

function paramsProblem(params: Parameters): string | undefined {
  for (const [key, value] of params) {
    const problem = bareItemProblem(value);
    if (problem) return `parameter "${key}": ${problem}`;
  }
  return undefined;
}

function memberProblem(member: Item | InnerList): string | undefined {
  if (isInnerList(member)) {
    for (const item of member[0]) {
      const problem = bareItemProblem(item[0]) ?? paramsProblem(item[1]);
      if (problem) return problem;
    }
    return paramsProblem(member[1]);
  }
  return bareItemProblem(member[0]) ?? paramsProblem(member[1]);
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

const KEY_AT_START = new RegExp(`^${SF_KEY_PATTERN}`);

/**
 * Top-level member keys of a Dictionary as written, in order (lexical scan: commas inside sf-strings and
 * Display Strings are skipped). Only meaningful once the value parsed as a Dictionary.
 */
function dictionaryKeysAsWritten(input: string): string[] {
  const keys: string[] = [];
  let start = 0;
  let inString = false;
  for (let i = 0; i <= input.length; i++) {
    const c = input[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === ',' || c === undefined) {
      const segment = input.slice(start, i).replace(/^[ \t]+/, '');
      const match = KEY_AT_START.exec(segment);
      if (match) keys.push(match[0]);
      start = i + 1;
    }
  }
  return keys;
}

/** One member-level parameter as written: its key and its value text (empty for a bare `;key`). */
export interface ParameterAsWritten {
  readonly key: string;
  readonly raw: string;
}

/**
 * The member-level parameters of each top-level Dictionary member, as written and in order, duplicates included
 * (RFC 8941 §4.2.3.2 keeps only the last value of a repeated key, and the library gives no way to see the text of
 * an Integer or Decimal). sf-strings, byte sequences and inner lists are skipped, so only the parameters that follow
 * a member's value are listed. Only meaningful once the value parsed as a Dictionary.
 */
export function memberParametersAsWritten(input: string): Map<string, ParameterAsWritten[]> {
  const out = new Map<string, ParameterAsWritten[]>();
  // Blank out what may contain ";" "," or "(": sf-strings, byte sequences, inner lists (same length: offsets hold).
  const blank = (m: string): string => ' '.repeat(m.length);
  const masked = input
    .replace(/"(?:[^"\\]|\\.)*"/g, blank)
    .replace(/:[A-Za-z0-9+/=]*:/g, blank)
    .replace(/\([^)]*\)/g, blank);
  let start = 0;
  for (let i = 0; i <= masked.length; i++) {
    if (i < masked.length && masked[i] !== ',') continue;
    const segment = masked.slice(start, i);
    const key = KEY_AT_START.exec(segment.replace(/^[ \t]+/, ''))?.[0];
    if (key !== undefined) {
      const params: ParameterAsWritten[] = [];
      for (const m of segment.matchAll(new RegExp(`;[ ]*(${SF_KEY_PATTERN})(?:=([^;]*))?`, 'g'))) {
        const at = start + m.index + m[0].length - (m[2]?.length ?? 0);
        params.push({
          key: m[1]!,
          raw: m[2] === undefined ? '' : input.slice(at, at + m[2].length).trim(),
        });
      }
      out.set(key, params);
    }
    start = i + 1;
  }
  return out;
}

/** The first key that occurs more than once in a Dictionary value, if any. */
export function findDuplicateDictionaryKey(input: string): string | undefined {
  const seen = new Set<string>();
  for (const key of dictionaryKeysAsWritten(input)) {
    if (seen.has(key)) return key;
    seen.add(key);
  }
  return undefined;
}

/** Runs one structured-headers parser, its exception turned into `SF_PARSE_ERROR`. */
/**
 * True when the text, outside sf-strings, starts a Date (`@`) or a Display String (`%"`): RFC 9651 syntax that no
 * RFC 8941 field holds (`@` is no tchar; a token never starts with `%`). Found by text, because a member or
 * parameter replaced by a later one with the same key ("last wins") is no longer in the parsed value.
 */
function hasRfc9651OnlySyntax(input: string): boolean {
  let inString = false;
  for (let i = 0; i < input.length; i++) {
    const c = input[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '@' || (c === '%' && input[i + 1] === '"')) return true;
  }
  return false;
}

function parseWith<T>(parse: (input: string) => T, input: string): SfResult<T> {
  let value: T;
  try {
    value = parse(input);
  } catch (error) {
    return { ok: false, code: 'SF_PARSE_ERROR', message: errorMessage(error) };
  }
  if (hasRfc9651OnlySyntax(input))
    return unsupported('an RFC 9651 Date or Display String is not an RFC 8941 type');
  return { ok: true, value };
}

function unsupported(message: string): SfResult<never> {
  return { ok: false, code: 'SF_TYPE_UNSUPPORTED', message };
}

/** Parses an RFC 8941 Dictionary; duplicate keys and RFC 9651-only types are errors. */
export function parseSfDictionary(
  input: string,
  options: { allowDuplicateKeys?: boolean } = {},
): SfResult<Dictionary> {
  const parsed = parseWith(parseDictionary, input);
  if (!parsed.ok) return parsed;
  for (const [key, member] of parsed.value) {
    const problem = memberProblem(member);
    if (problem) return unsupported(`member "${key}": ${problem}`);
  }
  if (!options.allowDuplicateKeys) {
    const duplicate = findDuplicateDictionaryKey(input);
    if (duplicate !== undefined) {
      return {
        ok: false,
        code: 'SF_DUPLICATE_KEY',
        message: `dictionary key "${duplicate}" appears more than once`,
      };
    }
  }
  return parsed;
}

/** Parses an RFC 8941 List; RFC 9651-only types are errors. */
export function parseSfList(input: string): SfResult<List> {
  const parsed = parseWith(parseList, input);
  if (!parsed.ok) return parsed;
  for (const member of parsed.value) {
    const problem = memberProblem(member);
    if (problem) return unsupported(problem);
  }
  return parsed;
}

/** Parses an RFC 8941 Item; RFC 9651-only types are errors. */
export function parseSfItem(input: string): SfResult<Item> {
  const parsed = parseWith(parseItem, input);
  if (!parsed.ok) return parsed;
  const problem = memberProblem(parsed.value);
  return problem ? unsupported(problem) : parsed;
}

function containsDecimal(member: Item | InnerList): boolean {
  const items = isInnerList(member) ? member[0] : [member];
  const paramSets = isInnerList(member) ? [member[1], ...member[0].map((i) => i[1])] : [member[1]];
  for (const item of items)
    if (typeof item[0] === 'number' && !Number.isInteger(item[0])) return true;
  for (const params of paramSets)
    for (const v of params.values()) if (typeof v === 'number' && !Number.isInteger(v)) return true;
  return false;
}

export type SerializeResult =
  { readonly ok: true; readonly value: string } | { readonly ok: false; readonly message: string };

/**
 * Serialises a parsed structure. Decimals are refused: the library's Decimal serialiser is not RFC 8941
 * conformant (it can emit `10.` and does not round half-even), so nothing here ever serialises one.
 */
export function serializeSf(kind: SfKind, value: Dictionary | List | Item): SerializeResult {
  try {
    if (kind === 'dictionary') {
      for (const member of (value as Dictionary).values())
        if (containsDecimal(member))
          return { ok: false, message: 'Decimal serialisation is not supported' };
      return { ok: true, value: serializeDictionary(value as Dictionary) };
    }
    if (kind === 'list') {
      for (const member of value as List)
        if (containsDecimal(member))
          return { ok: false, message: 'Decimal serialisation is not supported' };
      return { ok: true, value: serializeList(value as List) };
    }
    if (containsDecimal(value as Item))
      return { ok: false, message: 'Decimal serialisation is not supported' };
    return { ok: true, value: serializeItem(value as Item) };
  } catch (error) {
    return { ok: false, message: errorMessage(error) };
  }
}

/** Serialises one Dictionary member value (an Item or an Inner List), as `;key=` needs. */
export function serializeSfMember(member: Item | InnerList): SerializeResult {
  if (containsDecimal(member))
    return { ok: false, message: 'Decimal serialisation is not supported' };
  try {
    return {
      ok: true,
      value: isInnerList(member) ? serializeInnerList(member) : serializeItem(member),
    };
  } catch (error) {
    return { ok: false, message: errorMessage(error) };
  }
}
