// The spec's error body (Errors: statusCode, statusName, errorMessage, traceId, source): one shape for every error the
// reference service and the verification middleware (payconform/node) answer with.
import { HttpError, STATUS_NAMES } from './http-error.js';

/** The spec's error body (Errors: statusCode, statusName, errorMessage, traceId, source). */
export interface ErrorBody {
  readonly statusCode: number;
  readonly statusName: string;
  readonly errorMessage: string;
  readonly traceId: string;
  /** `MERCHANT` (the value the spec shows) for 4xx; `SERVICE` for 5xx (this project's choice). */
  readonly source: 'MERCHANT' | 'SERVICE';
}

export function createErrorBody(error: HttpError, traceId: string): ErrorBody {
  return {
    statusCode: error.status,
    statusName: STATUS_NAMES[error.status],
    errorMessage: error.message,
    traceId,
    source: error.status >= 500 ? 'SERVICE' : 'MERCHANT',
  };
}
