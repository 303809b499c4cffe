// The spec's error body (Errors: statusCode, statusName, errorMessage, traceId, source): one shape for every error the
// reference service and the verification middleware (payconform/node) answer with.
import type { ErrorBody } from '../src/schemas/types.js';
import { HttpError, STATUS_NAMES } from './http-error.js';

/**
 * The error body payconform answers with: the spec's `ErrorBody`, its `source` one of the two values it writes.
 * (`ErrorBody` is what any service may send: its `source` any string.)
 */
export interface ServiceErrorBody extends ErrorBody {
  /** `MERCHANT` (the value the spec shows) for 4xx; `SERVICE` for 5xx (this project's choice). */
  readonly source: 'MERCHANT' | 'SERVICE';
}

export function createErrorBody(error: HttpError, traceId: string): ServiceErrorBody {
  return {
    statusCode: error.status,
    statusName: STATUS_NAMES[error.status],
    errorMessage: error.message,
    traceId,
    source: error.status >= 500 ? 'SERVICE' : 'MERCHANT',
  };
}
