// Request bodies against the strict schemas (payconform's decisions where the spec is silent): 400 with the violations.
import { validatePayload, type PayloadKind } from '../src/schemas/index.js';
import { HttpError } from './error-body.js';

/** Returns the value typed as `T` when it matches the strict schema of `kind`; else a 400 naming the first violations. */
export function validateRequestBody<T>(kind: PayloadKind, value: unknown): T {
  const result = validatePayload(kind, value, { strict: true });
  if (result.valid) return value as T;
  const details = result.errors
    .slice(0, 5)
    .map((e) => `${e.pointer === '' ? '(body)' : e.pointer}: ${e.message}`)
    .join('; ');
  throw new HttpError(
    400,
    'invalid_body',
    `request body does not match the ${kind} schema: ${details}`,
  );
}
