// The error an HTTP handler throws for the reader to turn into a response: a status, a stable machine-readable code and
// a message. Request I/O (net/http-io.ts) throws it for framing errors; the reference service for everything else.

// HTTP status names, as the spec's error body spells them (statusName).
/**
 * The `statusName` of each status code the error body uses (the spec shows UNPROCESSABLE_ENTITY).
 */
export const STATUS_NAMES = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  406: 'NOT_ACCEPTABLE',
  408: 'REQUEST_TIMEOUT',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'UNPROCESSABLE_ENTITY',
  431: 'REQUEST_HEADER_FIELDS_TOO_LARGE',
  500: 'INTERNAL_SERVER_ERROR',
  503: 'SERVICE_UNAVAILABLE',
  507: 'INSUFFICIENT_STORAGE',
} as const;

export type ErrorStatus = keyof typeof STATUS_NAMES;

/** An error the routes throw or return; the app turns it into the error body. `code` is a stable machine-readable reason. */
export class HttpError extends Error {
  override name = 'HttpError';
  constructor(
    readonly status: ErrorStatus,
    readonly code: string,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}
