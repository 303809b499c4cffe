// The payload kinds payconform validates, and the schema `$id` of each (public API: ids never change).

/** Every payload the JSON Schemas describe (requests, resources, webhooks, the error body). */
export const payloadKinds = [
  'payout-create-request',
  'payout-destination',
  'payout',
  'account',
  'refund-request',
  'refund',
  'error',
  'payment-webhook',
  'payout-webhook',
  'refund-webhook',
] as const;
/** One of `payloadKinds`. */
export type PayloadKind = (typeof payloadKinds)[number];

/** The base of every schema's `$id`. */
export const SCHEMA_BASE = 'https://payconform.dev/schemas/';

/** True when `value` names a payload kind. */
export function isPayloadKind(value: unknown): value is PayloadKind {
  return typeof value === 'string' && (payloadKinds as readonly string[]).includes(value);
}

/** The `$id` of a kind's schema: `<base><kind>.schema.json`, or `<base><kind>.strict.schema.json` when strict. */
export function payloadSchemaId(
  kind: PayloadKind,
  options: { readonly strict?: boolean } = {},
): string {
  if (!isPayloadKind(kind)) throw new TypeError(`unknown payload kind ${JSON.stringify(kind)}`);
  return `${SCHEMA_BASE}${kind}${options.strict === true ? '.strict' : ''}.schema.json`;
}
