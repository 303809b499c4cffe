// Signs a webhook body: `Authorization: SHA256withRSA <base64>` over the exact body bytes.

import { constants, sign } from 'node:crypto';
import { encodeBase64 } from '../keys/base64.js';
import {
  parseRsaPrivateKey,
  type ParsedRsaPrivateKey,
  type RsaPrivateKeyInput,
} from './rsa-keys.js';

/** The algorithm name the spec shows in the webhook `Authorization` header. */
export const WEBHOOK_SIGNATURE_ALGORITHM = 'SHA256withRSA';

function toParsedPrivateKey(key: RsaPrivateKeyInput): ParsedRsaPrivateKey {
  if (typeof key === 'string' || key instanceof Uint8Array) return parseRsaPrivateKey(key);
  if (typeof key === 'object' && key !== null && key.kind === 'rsa-private') return key;
  throw new TypeError('signWebhook: expected a PEM string, DER bytes or a parsed RSA private key');
}

/**
 * Returns the full `Authorization` header value, `SHA256withRSA <base64>`: RSASSA-PKCS1-v1_5 with
 * SHA-256 (RFC 8017 §8.2) over exactly `rawBody`. Send those same bytes as the body. Throws
 * KeyFormatError for an unusable key, TypeError when the body is not bytes.
 * @example
 * const body = Buffer.from(JSON.stringify(payload));
 * await fetch(url, { method: 'POST', headers: { authorization: signWebhook(body, privateKeyPem) }, body });
 */
export function signWebhook(rawBody: Uint8Array, privateKey: RsaPrivateKeyInput): string {
  if (!(rawBody instanceof Uint8Array)) {
    throw new TypeError(
      'signWebhook: rawBody must be the exact body bytes (Uint8Array), not a parsed or re-serialised value',
    );
  }
  const key = toParsedPrivateKey(privateKey);
  const signature = sign('sha256', rawBody, {
    key: key.keyObject,
    padding: constants.RSA_PKCS1_PADDING,
  });
  return `${WEBHOOK_SIGNATURE_ALGORITHM} ${encodeBase64(new Uint8Array(signature))}`;
}
