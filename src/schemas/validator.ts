// payconform's one shared JSON Schema validator: ajv (draft 2020-12, strict mode, all errors, ajv-formats) with every
// schema of the registry added at first use and each compiled the first time it is asked for (compiling all 33 costs a
// process about 0.45 s of CPU; a command that reads one report needs one); violations come back as RFC 6901 pointers
// with readable messages. test/schemas.test.ts compiles every registered schema under strict mode and checks each
// against the 2020-12 meta-schema.
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { schemaRegistry, type RegisteredSchema } from './registry.js';

// ajv-formats is CommonJS whose module.exports is the plugin function; NodeNext types the default import as the
// module object, so name the runtime value by its real type.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/** One way a value breaks a schema. */
export interface SchemaViolation {
  /** RFC 6901 pointer into the validated value ('' is the root). For a missing or unexpected property it names
   *  that property (e.g. '/status'), not the object holding it. */
  readonly pointer: string;
  readonly message: string;
  /** The JSON Schema keyword that failed (`required`, `type`, `enum`, `pattern`, `unevaluatedProperties`, ...). */
  readonly keyword: string;
  /** `$id` of the schema file that holds the failing keyword. */
  readonly schemaId: string;
  /** Absolute location of the failing keyword: `<$id>#<pointer within that file>`. */
  readonly schemaLocation: string;
}

/** Valid, or every schema violation found. */
export type ValidationResult =
  { readonly valid: true } | { readonly valid: false; readonly errors: readonly SchemaViolation[] };

interface Registry {
  readonly ajv: Ajv2020;
  /** Every registered `$id`, in the registry's order. */
  readonly ids: readonly string[];
  /** The validators compiled so far, by `$id`. */
  readonly validators: Map<string, ValidateFunction>;
  /** Every object inside a registered schema → where it lives, to name the schema of a failing keyword. */
  readonly locations: WeakMap<object, { readonly id: string; readonly pointer: string }>;
}

let registry: Registry | undefined;

function buildRegistry(): Registry {
  const ajv = new Ajv2020({
    strict: true,
    allErrors: true,
    // `type: ["string", "null"]` is how the spec's "string or null" is written in 2020-12 and OpenAPI 3.1.
    allowUnionTypes: true,
    // verbose: errors carry the failing schema object and the data, for schema locations and readable messages.
    verbose: true,
    // Our own schemas, checked against the 2020-12 meta-schema by test/schemas.test.ts, not again by every process
    // (about 60 ms of CPU at first use: each `report fields`, `diff`, `attest verify`, `validate` and audit).
    validateSchema: false,
  });
  addFormats(ajv);
  const locations = new WeakMap<object, { id: string; pointer: string }>();
  const seen = new Set<string>();
  for (const schema of schemaRegistry) {
    if (typeof schema.$id !== 'string' || schema.$id === '')
      throw new TypeError('registered schema without "$id"');
    if (seen.has(schema.$id)) throw new TypeError(`schema "$id" registered twice: ${schema.$id}`);
    seen.add(schema.$id);
    indexLocations(schema, schema.$id, '', locations);
    ajv.addSchema(schema);
  }
  return { ajv, ids: [...seen], validators: new Map(), locations };
}

function indexLocations(
  node: unknown,
  id: string,
  pointer: string,
  into: WeakMap<object, { id: string; pointer: string }>,
): void {
  if (node === null || typeof node !== 'object' || into.has(node)) return;
  into.set(node, { id, pointer });
  for (const [key, child] of Object.entries(node))
    indexLocations(child, id, `${pointer}/${escapePointerToken(key)}`, into);
}

function getRegistry(): Registry {
  registry ??= buildRegistry();
  return registry;
}

/** The `$id` of every schema in the shared registry. */
export function registeredSchemaIds(): readonly string[] {
  return getRegistry().ids;
}

/** The registered schema document with this `$id`, or undefined. */
export function getRegisteredSchema(schemaId: string): RegisteredSchema | undefined {
  return schemaRegistry.find((s) => s.$id === schemaId);
}

/** A validator for one registered schema (compiled once, shared). Throws TypeError for an unknown `$id`. */
export function getSchemaValidator(schemaId: string): (value: unknown) => ValidationResult {
  const validate = compiled(getRegistry(), schemaId);
  return (value) =>
    validate(value)
      ? { valid: true }
      : { valid: false, errors: toViolations(validate.errors ?? [], schemaId) };
}

/** The compiled validator of a registered `$id` (compiled on the first ask); TypeError for an unknown one. */
function compiled(registry: Registry, schemaId: string): ValidateFunction {
  const known = registry.validators.get(schemaId);
  if (known !== undefined) return known;
  if (!registry.ids.includes(schemaId))
    throw new TypeError(`no schema registered with "$id" ${JSON.stringify(schemaId)}`);
  // ajv compiles the schema and those it refers to; one that breaks strict mode throws here.
  const validate = registry.ajv.getSchema(schemaId);
  if (!validate) throw new TypeError(`schema did not compile: ${schemaId}`);
  registry.validators.set(schemaId, validate);
  return validate;
}

/** Validates a value against a registered schema by its `$id`. */
export function validateAgainst(schemaId: string, value: unknown): ValidationResult {
  return getSchemaValidator(schemaId)(value);
}

/** Escapes one RFC 6901 reference token. */
export function escapePointerToken(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}

function toViolations(errors: readonly ErrorObject[], rootId: string): SchemaViolation[] {
  const { locations } = getRegistry();
  const out: SchemaViolation[] = [];
  const keys = new Set<string>();
  for (const error of errors) {
    const where =
      typeof error.parentSchema === 'object' && error.parentSchema !== null
        ? locations.get(error.parentSchema)
        : undefined;
    const schemaId = where?.id ?? rootId;
    const schemaLocation = `${schemaId}#${where ? `${where.pointer}/${error.keyword}` : error.schemaPath.replace(/^#/, '')}`;
    const property = propertyNamed(error);
    const pointer =
      property === undefined
        ? error.instancePath
        : `${error.instancePath}/${escapePointerToken(property)}`;
    const key = `${pointer}\u0000${error.keyword}\u0000${schemaLocation}`;
    // A value reached through two paths (a strict variant also applies its permissive base) fails twice: report once.
    if (keys.has(key)) continue;
    keys.add(key);
    out.push({
      pointer,
      keyword: error.keyword,
      message: describe(error),
      schemaId,
      schemaLocation,
    });
  }
  // Timestamps and UUIDs carry both `pattern` (enforced everywhere) and `format` (annotation): one message is enough.
  // A strict variant that narrows a field its base also constrains can fail with the very same message: keep one.
  const patternAt = new Set(out.filter((v) => v.keyword === 'pattern').map((v) => v.pointer));
  const messages = new Set<string>();
  return out.filter((v) => {
    if (v.keyword === 'format' && patternAt.has(v.pointer)) return false;
    const key = `${v.pointer}\u0000${v.message}`;
    if (messages.has(key)) return false;
    messages.add(key);
    return true;
  });
}

function propertyNamed(error: ErrorObject): string | undefined {
  const p = error.params as Record<string, unknown>;
  const name =
    error.keyword === 'required'
      ? p['missingProperty']
      : error.keyword === 'additionalProperties'
        ? p['additionalProperty']
        : error.keyword === 'unevaluatedProperties'
          ? p['unevaluatedProperty']
          : undefined;
  return typeof name === 'string' ? name : undefined;
}

function describe(error: ErrorObject): string {
  const p = error.params as Record<string, unknown>;
  const parent = (typeof error.parentSchema === 'object' ? error.parentSchema : undefined) as
    Record<string, unknown> | undefined;
  const title = typeof parent?.['title'] === 'string' ? parent['title'] : undefined;
  const got = `got ${show(error.data)}`;
  switch (error.keyword) {
    case 'required':
      return `missing required property ${JSON.stringify(p['missingProperty'])}`;
    case 'additionalProperties':
      return `unexpected property ${JSON.stringify(p['additionalProperty'])}`;
    case 'unevaluatedProperties':
      return `unexpected property ${JSON.stringify(p['unevaluatedProperty'])}`;
    case 'type':
      return `must be ${String(p['type']).split(',').map(article).join(' or ')}, ${got}`;
    case 'enum':
      return `must be one of ${(p['allowedValues'] as unknown[]).map((v) => JSON.stringify(v)).join(', ')}; ${got}`;
    case 'const':
      return `must be ${JSON.stringify(p['allowedValue'])}, ${got}`;
    case 'pattern':
    case 'format':
      return title
        ? `must be ${title}, ${got}`
        : `must match ${error.keyword} ${JSON.stringify(p[error.keyword])}, ${got}`;
    default:
      return `${error.message ?? `fails "${error.keyword}"`}, ${got}`;
  }
}

function article(type: string): string {
  if (type === 'null') return 'null';
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function show(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') {
    const text = JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
    return `string ${text}`;
  }
  if (typeof value === 'number') return `number ${String(value)}`;
  if (typeof value === 'boolean') return `boolean ${String(value)}`;
  return typeof value;
}
