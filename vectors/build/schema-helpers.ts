// The pieces schemas/vectors.schema.json is written from (vectors/build/schema-source.ts): its id, the common
// member types, closed objects, a request body's two forms and one operation's case.

export const id = 'https://payconform.dev/schemas/vectors.schema.json';

export const str = { type: 'string' } as const;
export const nonEmpty = { type: 'string', minLength: 1 } as const;
export const base64 = {
  type: 'string',
  pattern: '^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$',
} as const;
export const unixSeconds = { type: 'integer', minimum: 0, maximum: 253402300799 } as const;
export const closed = (
  properties: Record<string, unknown>,
  required: readonly string[],
  extra: Record<string, unknown> = {},
): Record<string, unknown> => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
  ...extra,
});

/** Either `bodyUtf8` or `bodyBase64`, never both. */
export const bodyProps = { bodyUtf8: str, bodyBase64: base64 };
export const bodyChoice = {
  oneOf: [
    { properties: { bodyUtf8: str }, required: ['bodyUtf8'] },
    { properties: { bodyBase64: base64 }, required: ['bodyBase64'] },
  ],
};

export const opCase = (op: string, input: string, expected: string): Record<string, unknown> => ({
  if: { properties: { op: { const: op } } },
  then: {
    properties: { input: { $ref: `#/$defs/${input}` }, expected: { $ref: `#/$defs/${expected}` } },
  },
});
