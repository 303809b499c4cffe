// Typed error for key material that is not in an accepted form; messages never echo key bytes.

import { PayconformError, type KeyFormatErrorCode } from '../errors.js';

/** Stable codes carried by {@link KeyFormatError} (public API). */
export type { KeyFormatErrorCode };

/**
 * The key text or bytes are not an accepted encoding (`KEY_FORMAT_INVALID`), or they hold a
 * well-formed key of another type, such as RSA, EC or X25519 where Ed25519 was expected
 * (`KEY_TYPE_UNSUPPORTED`). The message says what was expected and what was found, by shape only
 * (length, label, offset), never by content.
 */
export class KeyFormatError extends PayconformError {
  override name = 'KeyFormatError';
  declare readonly code: KeyFormatErrorCode;

  constructor(code: KeyFormatErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}
