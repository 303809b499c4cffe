// The project's error type for what a message, key or peer got wrong; a caller's misuse stays a TypeError.
// Codes are a closed union built from the catalogues that own them, so a caller can `switch (error.code)`.
import type { SignatureBaseErrorCode } from './signatures/signature-base.js';

/** Stable codes carried by `KeyFormatError` (keys/errors.ts), here so that this union needs no import back. */
export type KeyFormatErrorCode = 'KEY_FORMAT_INVALID' | 'KEY_TYPE_UNSUPPORTED';

/** Every code a {@link PayconformError} can carry (public API: never renamed casually). */
export type PayconformErrorCode =
  /** A key is not in an accepted form, or is of another type (keys/). */
  | KeyFormatErrorCode
  /** signRequest could not build the signature base of the request given (signatures/). */
  | SignatureBaseErrorCode
  /** A decimal amount is not a decimal (rules/money). */
  | 'DECIMAL_INVALID'
  /** MemoryNonceStore holds its maximum of unexpired nonces, in all or for one application. */
  | 'NONCE_STORE_FULL'
  | 'NONCE_SHARE_FULL'
  /** A NonceStore that lost its data refuses a signature created before it noticed (verifyRequest's code of the same name). */
  | 'CREATED_BEFORE_NONCE_STORE_RESET';

/**
 * An error with a stable, documented `code`. Layers above the core narrow it to their own codes
 * (`ConformanceSetupError` is a `PayconformError<'CONFORMANCE_SETUP'>`).
 * @example
 * try { toDecimal('1,5') } catch (e) { if (e instanceof PayconformError && e.code === 'DECIMAL_INVALID') … }
 */
export class PayconformError<Code extends string = PayconformErrorCode> extends Error {
  override name = 'PayconformError';
  readonly code: Code;

  constructor(code: Code, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}
