// RFC 9421 §2: component identifiers (a name plus ordered parameters) and their serialised form.
import { serializeItem } from 'structured-headers';
import type { BareItem } from '../structured-fields/structured-fields.js';

/** A covered component: its name and its parameters (RFC 9421 §2). */
export interface ComponentIdentifier {
  /** A lowercase field name, or a derived component name starting with `@`. */
  readonly name: string;
  /** Component parameters in received order (`sf`, `key`, `bs`, `req`, `tr`, `name`). */
  readonly params: ReadonlyMap<string, BareItem>;
  /** The identifier as it appears in a signature base line and in `@signature-params`, e.g. `"@query-param";name="Pet"`. */
  readonly serialized: string;
}

/** Builds a component identifier; `serialized` is computed once here (it is reused on every base). */
export function componentIdentifier(
  name: string,
  params: ReadonlyMap<string, BareItem> | Readonly<Record<string, BareItem>> = new Map(),
): ComponentIdentifier {
  if (typeof name !== 'string') throw new TypeError('component name must be a string');
  const map = params instanceof Map ? new Map(params) : new Map(Object.entries(params));
  return Object.freeze({ name, params: map, serialized: serializeItem([name, map]) });
}

const plainCache = new Map<string, ComponentIdentifier>();
const PLAIN_CACHE_MAX = 256;

/**
 * Like componentIdentifier, but identifiers without parameters are shared (bounded cache): parsing the same
 * Signature-Input on every request then costs no re-serialisation.
 */
export function sharedComponentIdentifier(
  name: string,
  params: ReadonlyMap<string, BareItem>,
): ComponentIdentifier {
  if (params.size !== 0 || name.length > 64) return componentIdentifier(name, params);
  let id = plainCache.get(name);
  if (id === undefined) {
    id = componentIdentifier(name);
    if (plainCache.size < PLAIN_CACHE_MAX) plainCache.set(name, id);
  }
  return id;
}

/** `componentIdentifier` for each name (no parameters). */
export function componentIdentifiers(names: readonly string[]): readonly ComponentIdentifier[] {
  return Object.freeze(names.map((name) => componentIdentifier(name)));
}

/** RFC 9421 §2.2: the derived components this library knows (request side). */
export const DERIVED_COMPONENTS = [
  '@method',
  '@target-uri',
  '@authority',
  '@scheme',
  '@request-target',
  '@path',
  '@query',
  '@query-param',
] as const;

/** One of `DERIVED_COMPONENTS`. */
export type DerivedComponentName = (typeof DERIVED_COMPONENTS)[number];

/** True for a derived component name of RFC 9421 §2.2. */
export function isDerivedComponentName(name: string): name is DerivedComponentName {
  return (DERIVED_COMPONENTS as readonly string[]).includes(name);
}
