// The spec's error body (Errors: statusCode, statusName, errorMessage, traceId, source), used for every error this service returns.

export { HttpError, STATUS_NAMES, type ErrorStatus } from '../net/http-error.js';
import { HttpError, STATUS_NAMES } from '../net/http-error.js';

export interface ErrorBody {
  readonly statusCode: number;
  readonly statusName: string;
  readonly errorMessage: string;
  readonly traceId: string;
  /** `MERCHANT` (the value the spec shows) for 4xx; `SERVICE` for 5xx (this service's choice). */
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
