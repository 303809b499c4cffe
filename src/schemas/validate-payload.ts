// Validates a payment-service payload (a parsed value or JSON text) against the schema of its kind.
import { parseJsonText } from './json-text.js';
import { isPayloadKind, payloadKinds, payloadSchemaId, type PayloadKind } from './payload-kinds.js';
import { getSchemaValidator, type SchemaViolation, type ValidationResult } from './validator.js';

/** How a payload is validated: the permissive schema (the default) or payconform's strict one. */
export interface ValidatePayloadOptions {
  /** Use the strict variant (`<kind>.strict.schema.json`): payconform's decisions where the spec is silent, for the
   *  reference service. The default is the permissive schema that judges other implementations. */
  readonly strict?: boolean;
}

/** An unreadable JSON text: the offset (UTF-16 code units) of the first syntax error. */
export interface JsonParseError {
  readonly offset: number;
  readonly message: string;
}

/** A payload text parsed and validated, or the parse error. */
export type TextValidationResult =
  | (ValidationResult & { readonly parseError?: undefined })
  | {
      readonly valid: false;
      readonly errors: readonly SchemaViolation[];
      readonly parseError: JsonParseError;
    };

function checkKind(kind: PayloadKind): void {
  if (!isPayloadKind(kind)) {
    throw new TypeError(
      `unknown payload kind ${JSON.stringify(kind)}; kinds: ${payloadKinds.join(', ')}`,
    );
  }
}

/**
 * Validates a parsed payload. Throws TypeError only for an unknown kind (a caller's mistake).
 * @example
 * const result = validatePayload('payout-create-request', JSON.parse(text));
 * if (!result.valid) console.log(result.errors);
 */
export function validatePayload(
  kind: PayloadKind,
  value: unknown,
  options: ValidatePayloadOptions = {},
): ValidationResult {
  checkKind(kind);
  return getSchemaValidator(payloadSchemaId(kind, options))(value);
}

/** Parses JSON text, then validates it. Unreadable JSON gives `parseError` and one violation with keyword "json". */
export function validatePayloadText(
  kind: PayloadKind,
  text: string,
  options: ValidatePayloadOptions = {},
): TextValidationResult {
  checkKind(kind);
  if (typeof text !== 'string') throw new TypeError('validatePayloadText: text must be a string');
  const parsed = parseJsonText(text);
  if (!parsed.ok) {
    const schemaId = payloadSchemaId(kind, options);
    return {
      valid: false,
      parseError: { offset: parsed.offset, message: parsed.message },
      errors: [
        {
          pointer: '',
          keyword: 'json',
          message: parsed.message,
          schemaId,
          schemaLocation: schemaId,
        },
      ],
    };
  }
  return validatePayload(kind, parsed.value, options);
}
