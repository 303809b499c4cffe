// RFC 9421 §2.3: the `@signature-params` value, the Inner List of covered components with the signature parameters.
import { serializeInnerList } from 'structured-headers';
import { type BareItem, type Item } from '../structured-fields/structured-fields.js';
import type { ComponentIdentifier } from './component-identifier.js';

/** The `@signature-params` value, or why it cannot be written. */
export type SerializeParamsResult =
  { readonly ok: true; readonly value: string } | { readonly ok: false; readonly message: string };

/**
 * Serialises `("c1" "c2");p1=v1;p2=v2` keeping both orders exactly as given (never a fixed order: parameter
 * order is part of the signed bytes). Decimal parameters are refused (the Integer `created` must be an integer).
 */
export function serializeSignatureParams(
  components: readonly ComponentIdentifier[],
  params: ReadonlyMap<string, BareItem>,
): SerializeParamsResult {
  for (const [key, value] of params) {
    if (typeof value === 'number' && !Number.isInteger(value)) {
      return { ok: false, message: `parameter "${key}" is not an Integer (${value})` };
    }
  }
  try {
    const items: Item[] = components.map((c) => [c.name, new Map(c.params)]);
    return { ok: true, value: serializeInnerList([items, new Map(params)]) };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}
