// The stable failure codes of webhook signature verification, as data (public API: never renamed).

import type { ErrorCatalogue } from '../error-catalogue.js';

/** Every code a webhook verification can fail with, and its description. */
export const webhookErrorCodes = {
  AUTHORIZATION_MISSING: {
    title: 'Authorization header missing',
    description: 'No `Authorization` header, or an empty one: the webhook carries no signature.',
  },
  AUTHORIZATION_MALFORMED: {
    title: 'Authorization header malformed',
    description:
      'The value is not `<ALGORITHM> <SIGNATURE>`: no space-separated second part, a separator other than spaces, a name that is not an RFC 9110 token, or longer than 8192 characters.',
  },
  ALGORITHM_UNSUPPORTED: {
    title: 'Signature algorithm unsupported',
    description:
      'The algorithm name is not exactly `SHA256withRSA` (matched case-sensitively, as the spec shows it).',
  },
  SIGNATURE_MALFORMED: {
    title: 'Signature encoding malformed',
    description:
      'The signature is not strict standard base64 with padding, or does not decode to exactly the modulus length of the key (256 bytes for RSA 2048).',
  },
  SIGNATURE_INVALID: {
    title: 'Signature does not verify',
    description:
      'RSASSA-PKCS1-v1_5 with SHA-256 over the exact received body bytes fails with the configured public key: the body was changed (including re-serialised JSON), or it was signed by another key.',
  },
  KEY_INVALID: {
    title: 'Verification key invalid',
    description:
      'The configured public key is not an accepted RSA public key form (trimmed PEM body, PEM or DER), is not RSA, or its modulus is outside 2048 to 16384 bits. Checked before the header.',
  },
} as const satisfies ErrorCatalogue;

/** A stable code of a failed webhook verification, one of `webhookErrorCodes`. */
export type WebhookErrorCode = keyof typeof webhookErrorCodes;
