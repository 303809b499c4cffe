// The project's error type for what a message, key or peer got wrong; a caller's misuse stays a TypeError.

/** An error with a stable, documented `code` (public API: never renamed casually). */
export class PayconformError extends Error {
  override name = 'PayconformError';
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}
