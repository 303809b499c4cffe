// Which members of a resource the spec defines, read from the JSON Schemas (the one statement of the spec's
// tables): a member the spec does not define is one "receivers must ignore", and what an SDK does with it is the
// SDK's choice (recorded, never failed; docs/verdicts.md, "Readings the spec does not state").
import { schemaRegistry, type RegisteredSchema } from '../../src/schemas/registry.js';
import { payloadSchemaId, type PayloadKind } from '../../src/schemas/payload-kinds.js';

type Schema = Readonly<Record<string, unknown>>;

const byId = new Map<string, RegisteredSchema>(schemaRegistry.map((s) => [s.$id, s]));

/** A `$ref` resolved: another schema by relative `$id`, or a `#/$defs/...` pointer inside `doc`. */
function resolve(ref: string, doc: RegisteredSchema): { schema: Schema; doc: RegisteredSchema } {
  const [file, pointer] = ref.split('#') as [string, string | undefined];
  const target = file === '' ? doc : byId.get(new URL(file, doc.$id).href);
  if (target === undefined) return { schema: {}, doc };
  const schema = (pointer ?? '')
    .split('/')
    .filter((p) => p !== '')
    .reduce<Schema>((s, key) => (s[key] ?? {}) as Schema, target);
  return { schema, doc: target };
}

/** The member `key` of an object schema (through `$ref`, `allOf`, `anyOf`, `oneOf`), or undefined. */
function member(
  schema: Schema,
  doc: RegisteredSchema,
  key: string,
  depth = 0,
): { schema: Schema; doc: RegisteredSchema } | undefined {
  if (depth > 16) return undefined;
  if (typeof schema['$ref'] === 'string') {
    const r = resolve(schema['$ref'], doc);
    return member(r.schema, r.doc, key, depth + 1);
  }
  const properties = schema['properties'] as Record<string, Schema> | undefined;
  const own = properties?.[key];
  if (own !== undefined) return { schema: own, doc };
  for (const combinator of ['allOf', 'anyOf', 'oneOf'])
    for (const sub of (schema[combinator] as Schema[] | undefined) ?? []) {
      const found = member(sub, doc, key, depth + 1);
      if (found !== undefined) return found;
    }
  return undefined;
}

/** True when every member named along the RFC 6901-like `path` (`/destination/name`) is one the spec defines. */
export function specDefines(kind: PayloadKind, path: string): boolean {
  const doc = byId.get(payloadSchemaId(kind));
  if (doc === undefined) return false;
  let at: { schema: Schema; doc: RegisteredSchema } | undefined = { schema: doc, doc };
  for (const key of path.split('/').slice(1)) {
    at = member(at.schema, at.doc, key);
    if (at === undefined) return false;
  }
  return true;
}

/** `value` with only the members the spec defines (what a typed SDK hands its caller). */
export function specMembersOf(kind: PayloadKind, value: unknown, path = ''): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => specDefines(kind, `${path}/${k}`))
      .map(([k, v]) => [k, specMembersOf(kind, v, `${path}/${k}`)]),
  );
}
