// The case families every payload kind with the field shares, each written once as a function of the kind, the
// field's JSON pointer and the kind's base payload: an added property, a status list, a UUID, an amount sent as a
// string, the forms of a timestamp. A kind's table spreads a family's rows where its cases stand (ids are public API).
import type { PayloadKind } from '../../src/schemas/index.js';
import type { CaseRow } from './cases.js';
import { edit, kebab, valueAt, type Json } from './fixtures.js';

/** Who sends a kind: what the spec says of a property it does not list depends on it. */
type Sender = 'client' | 'service' | 'webhook';
const SENDER = {
  'payout-create-request': 'client',
  'payout-destination': 'client',
  payout: 'service',
  account: 'service',
  'refund-request': 'client',
  refund: 'service',
  error: 'service',
  'payment-webhook': 'webhook',
  'payout-webhook': 'webhook',
  'refund-webhook': 'webhook',
} as const satisfies Record<PayloadKind, Sender>;

/**
 * An added property, by sender: the permissive schema's reading, the strict variant's, and the keyword the strict
 * variant fails (a request body's strict schema is one closed object, `additionalProperties`; the others compose
 * `$ref`s, so they close with `unevaluatedProperties`).
 */
const ADDED_PROPERTY = {
  client: {
    accepted:
      'whether unknown request properties are rejected is not shown: the permissive schema accepts them',
    rejected: 'the strict variant rejects unknown properties',
    keyword: 'additionalProperties',
  },
  service: {
    accepted: 'an added property is accepted (the service may add fields)',
    rejected: 'the strict variant rejects unknown properties',
    keyword: 'unevaluatedProperties',
  },
  webhook: {
    accepted: 'receivers must ignore unknown properties, at every level',
    rejected: 'the strict variant (what the reference service sends) has no unknown properties',
    keyword: 'unevaluatedProperties',
  },
} as const satisfies Record<Sender, { accepted: string; rejected: string; keyword: string }>;

/** A request body with no field: which request fields are required is not shown, so the permissive schema accepts it. */
export const REQUIRES_NONE: CaseRow = {
  valid: 'empty-object',
  description: 'required-ness of request fields is not shown: the permissive schema requires none',
  payload: {},
};

/** The permissive schema accepts `base` with each `[pointer, value]` added (webhooks add one at the top and one nested). */
export function acceptsAddedProperties(
  kind: PayloadKind,
  base: Json,
  additions: readonly (readonly [string, Json])[],
): CaseRow {
  return {
    valid: additions.length === 1 ? 'unknown-property' : 'unknown-properties',
    description: ADDED_PROPERTY[SENDER[kind]].accepted,
    payload: additions.reduce((payload, [pointer, value]) => edit(payload, pointer, value), base),
  };
}

/** The strict variant rejects `base` with `value` added at `pointer`, reported at that pointer. */
export function rejectsAddedProperty(
  kind: PayloadKind,
  base: Json,
  pointer: string,
  value: Json,
  named: { readonly slug: string; readonly description: string } = {
    slug: 'unknown-property',
    description: ADDED_PROPERTY[SENDER[kind]].rejected,
  },
): CaseRow {
  return {
    invalid: named.slug,
    description: named.description,
    payload: edit(base, pointer, value),
    errors: [[pointer, ADDED_PROPERTY[SENDER[kind]].keyword]],
    strict: true,
  };
}

/** One valid case per status at `pointer` (`<field> <STATUS>`), with what else each status sets. */
export function statusCases(
  base: Json,
  pointer: string,
  statuses: readonly string[],
  options: { readonly source?: string; readonly alongside?: (status: string) => object } = {},
): CaseRow[] {
  return statuses.map((status) => ({
    valid: `status-${kebab(status)}`,
    description: `${fieldName(pointer)} ${status}`,
    payload: { ...(edit(base, pointer, status) as object), ...options.alongside?.(status) },
    ...(options.source !== undefined ? { source: options.source } : {}),
  }));
}

/** An identifier that is not a UUID: `pattern` at `pointer`. */
export function notUuid(base: Json, pointer: string, value: string): CaseRow {
  return {
    wrong: `${fieldSlug(pointer)}-not-uuid`,
    description: `${fieldName(pointer)} is a UUID`,
    base,
    pointer,
    value,
    keyword: 'pattern',
  };
}

/** A number field sent as its two-decimal string (125.5 as "125.50"): `type` at `pointer`. */
export function amountAsString(
  base: Json,
  pointer: string,
  description = 'string where the spec has a number',
): CaseRow {
  return {
    wrong: 'amount-string',
    description,
    base,
    pointer,
    value: (valueAt(base, pointer) as number).toFixed(2),
    keyword: 'type',
  };
}

/** The forms of a timestamp, each derived from the base payload's value (the spec's example form). */
const TIMESTAMP_FORMS: Readonly<Record<string, (timestamp: string) => Json>> = {
  'no-fraction': (t) => t.replace(/\.\d+/, ''),
  'no-zone': (t) => t.replace(/Z$/, ''),
  'with-z': (t) => `${t}Z`,
  offset: (t) => t.replace(/Z$/, '+00:00'),
  'date-only': (t) => t.slice(0, 10),
  /** Unix time in milliseconds. */
  number: (t) => Date.parse(t),
  'seven-digits': (t) => t.replace(/\.\d+/, '.1234567'),
  'three-digits': (t) => t.replace(/\.\d+/, '.123'),
};

/**
 * One case of a timestamp field: the form (a key of TIMESTAMP_FORMS, or any slug with its own `value`), whether
 * the schema accepts it and why. A rejected string fails `pattern`, a rejected number `type`.
 */
export type TimestampCase = {
  readonly description: string;
  readonly value?: Json;
  readonly strict?: boolean;
} & ({ readonly valid: string } | { readonly invalid: string });

/** The rows of a timestamp field's cases, in order: `<field>-<form>` (createdAtUtc and eventTimeUtc drop "Utc"). */
export function timestampCases(
  base: Json,
  pointer: string,
  cases: readonly TimestampCase[],
): CaseRow[] {
  return cases.map((c) => {
    const form = 'valid' in c ? c.valid : c.invalid;
    const slug = `${fieldSlug(pointer).replace(/-utc$/, '')}-${form}`;
    const value = c.value ?? timestampForm(form)(valueAt(base, pointer) as string);
    const strict = c.strict === true ? { strict: true } : {};
    if ('valid' in c)
      return {
        valid: slug,
        description: c.description,
        payload: edit(base, pointer, value),
        ...strict,
      };
    const keyword = typeof value === 'number' ? 'type' : 'pattern';
    return { wrong: slug, description: c.description, base, pointer, value, keyword, ...strict };
  });
}

function timestampForm(form: string): (timestamp: string) => Json {
  const derive = TIMESTAMP_FORMS[form];
  if (derive === undefined) throw new TypeError(`timestamp form "${form}" needs its own value`);
  return derive;
}

/** The property a pointer names (its last token). */
function fieldName(pointer: string): string {
  return pointer.slice(pointer.lastIndexOf('/') + 1);
}

/** The property a pointer names, in kebab case (`refundPaymentId` → `refund-payment-id`). */
function fieldSlug(pointer: string): string {
  return fieldName(pointer).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}
