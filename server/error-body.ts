// The spec's error body (Errors: statusCode, statusName, errorMessage, traceId, source), used for every error this
// service returns; defined in net/error-body.ts, which the verification middleware shares.

export { HttpError, STATUS_NAMES, type ErrorStatus } from '../net/http-error.js';
export { createErrorBody, type ServiceErrorBody } from '../net/error-body.js';
