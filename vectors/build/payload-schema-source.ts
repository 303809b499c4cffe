// Source of schemas/payload-vectors.schema.json: the file format of vectors/payloads/<kind>.json (documented in
// vectors/payloads/README.md), so another language can validate the payload vectors it vendors.

export const PAYLOAD_VECTORS_SCHEMA_ID =
  'https://payconform.dev/schemas/payload-vectors.schema.json';

const schemaId = {
  type: 'string',
  pattern: '^https://payconform\\.dev/schemas/[a-z-]+(\\.strict)?\\.schema\\.json$',
} as const;

export const payloadVectorsSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: PAYLOAD_VECTORS_SCHEMA_ID,
  title: 'payconform payload vector file (vectors/payloads/<kind>.json)',
  description:
    "Cases for one payload kind: each payload is valid or invalid against the kind's JSON Schema (or, when the case names `schema`, its strict variant). An invalid case lists the exact pointers and keywords a validator must report. Format documented in vectors/payloads/README.md.",
  type: 'object',
  additionalProperties: false,
  required: ['kind', 'schema', 'strictSchema', 'generatedBy', 'cases'],
  properties: {
    kind: { type: 'string', pattern: '^[a-z]+(-[a-z]+)*$' },
    schema: {
      ...schemaId,
      description: 'The permissive schema ($id): how other implementations are judged.',
    },
    strictSchema: {
      ...schemaId,
      description: "The strict variant ($id): payconform's own decisions where the spec is silent.",
    },
    generatedBy: { type: 'string', minLength: 1 },
    cases: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'description', 'source', 'result', 'payload'],
        properties: {
          id: {
            type: 'string',
            pattern: '^[a-z0-9]+(-[a-z0-9]+)*$',
            description: 'Stable, never renumbered or reused.',
          },
          description: { type: 'string', minLength: 1 },
          source: {
            type: 'string',
            minLength: 1,
            description: 'The spec section the case comes from.',
          },
          schema: { ...schemaId, description: 'Present when the case targets the strict variant.' },
          result: { enum: ['valid', 'invalid'] },
          payload: { description: 'The JSON value to validate.' },
          expectedErrors: {
            type: 'array',
            minItems: 1,
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['pointer', 'keyword'],
              properties: {
                pointer: {
                  type: 'string',
                  pattern: '^(/([^~/]|~[01])*)*$',
                  description: 'RFC 6901 pointer into `payload` ("" is the root).',
                },
                keyword: {
                  type: 'string',
                  minLength: 1,
                  description: 'The JSON Schema keyword that fails there.',
                },
              },
            },
          },
        },
        if: { properties: { result: { const: 'invalid' } } },
        // An invalid case must say what a validator reports; a valid one has nothing to report.
        then: { properties: { expectedErrors: true }, required: ['expectedErrors'] },
        else: { properties: { expectedErrors: false } },
      },
    },
  },
} as const;
