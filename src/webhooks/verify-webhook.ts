// Verifies a webhook's `Authorization: SHA256withRSA <base64>` over the exact bytes received; never throws on hostile input.

import { constants, verify } from 'node:crypto';
import { decodeStrictBase64 } from '../keys/base64.js';
import { parseRsaPublicKey, type ParsedRsaPublicKey, type RsaPublicKeyInput } from './rsa-keys.js';
import { WEBHOOK_SIGNATURE_ALGORITHM } from './sign-webhook.js';
import type { WebhookErrorCode } from './webhook-error-codes.js';

/** A webhook's signature verified, or why not. */
export type WebhookVerifyResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly code: WebhookErrorCode; readonly message: string };

/** Longest `Authorization` value examined (an RSA 16384 signature is 2732 base64 characters). */
export const MAX_AUTHORIZATION_LENGTH = 8192;

// RFC 9110 §5.6.2 token, used for the algorithm name.
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const fail = (code: WebhookErrorCode, message: string): WebhookVerifyResult => ({
  ok: false,
  code,
  message,
});

function resolveKey(
  publicKey: RsaPublicKeyInput | ParsedRsaPublicKey,
): ParsedRsaPublicKey | WebhookVerifyResult {
  if (typeof publicKey === 'object' && publicKey !== null && !(publicKey instanceof Uint8Array)) {
    if ((publicKey as { kind?: unknown }).kind === 'rsa-public') return publicKey;
    return fail(
      'KEY_INVALID',
      'webhook public key: expected a parsed RSA public key, PEM text or DER bytes; found another object',
    );
  }
  try {
    return parseRsaPublicKey(publicKey);
  } catch (e) {
    return fail(
      'KEY_INVALID',
      e instanceof Error ? e.message : 'webhook public key: not an accepted RSA public key',
    );
  }
}

/**
 * Verifies a webhook signature, in this order: the key (`KEY_INVALID`), the header's presence
 * (`AUTHORIZATION_MISSING`), its shape `<ALGORITHM> 1*SP <SIGNATURE>` after trimming outer
 * spaces and tabs (`AUTHORIZATION_MALFORMED`), the algorithm, exactly `SHA256withRSA`
 * (`ALGORITHM_UNSUPPORTED`), the signature's strict base64 and its length, equal to the modulus
 * length (`SIGNATURE_MALFORMED`), then RSASSA-PKCS1-v1_5 with SHA-256 over exactly `rawBody`
 * (`SIGNATURE_INVALID`). `rawBody` must be the bytes as received: re-serialised JSON fails.
 * Returns a result; throws only a TypeError when `rawBody` is not a Uint8Array (caller misuse).
 * @example
 * const result = verifyWebhook(rawBody, req.headers.authorization, servicePublicKeyPem);
 * if (!result.ok) return res.writeHead(401).end(); // result.code says why
 */
export function verifyWebhook(
  rawBody: Uint8Array,
  authorization: string | undefined,
  publicKey: RsaPublicKeyInput | ParsedRsaPublicKey,
): WebhookVerifyResult {
  if (!(rawBody instanceof Uint8Array)) {
    throw new TypeError(
      'verifyWebhook: rawBody must be the exact body bytes received (Uint8Array), not a parsed or re-serialised value',
    );
  }
  const key = resolveKey(publicKey);
  if ('ok' in key) return key;
  const header = readAuthorization(authorization);
  if ('ok' in header) return header;
  const algorithmFailure = checkAlgorithm(header.algorithm);
  if (algorithmFailure !== undefined) return algorithmFailure;
  const signature = decodeSignature(header.signatureText, key);
  if (!(signature instanceof Uint8Array)) return signature;
  return verifySignature(rawBody, signature, key);
}

/** The header's parts: present, at most MAX_AUTHORIZATION_LENGTH long, `<ALGORITHM> 1*SP <SIGNATURE>` once trimmed. */
function readAuthorization(
  authorization: string | undefined,
): { readonly algorithm: string; readonly signatureText: string } | WebhookVerifyResult {
  if (authorization === undefined || authorization === null) {
    return fail(
      'AUTHORIZATION_MISSING',
      'missing "Authorization" header: the webhook carries no signature',
    );
  }
  if (typeof authorization !== 'string') {
    return fail(
      'AUTHORIZATION_MALFORMED',
      '"Authorization" header: expected one field value (a string)',
    );
  }
  if (authorization.length > MAX_AUTHORIZATION_LENGTH) {
    return fail(
      'AUTHORIZATION_MALFORMED',
      `"Authorization" header: longer than ${MAX_AUTHORIZATION_LENGTH} characters (${authorization.length})`,
    );
  }
  // RFC 9110 §5.5: leading and trailing whitespace is not part of a field value.
  const value = authorization.replace(/^[ \t]+|[ \t]+$/g, '');
  if (value.length === 0) {
    return fail(
      'AUTHORIZATION_MISSING',
      '"Authorization" header is empty: the webhook carries no signature',
    );
  }
  const space = value.indexOf(' ');
  if (space === -1) {
    const detail = /[\t\r\n]/.test(value)
      ? 'found a separator other than a space'
      : 'found a single word';
    return fail(
      'AUTHORIZATION_MALFORMED',
      `"Authorization" header: expected "<ALGORITHM> <SIGNATURE>"; ${detail}`,
    );
  }
  // RFC 9110 §11.4: 1*SP between scheme and credentials; more than one space is accepted.
  return { algorithm: value.slice(0, space), signatureText: value.slice(space).replace(/^ +/, '') };
}

/** The algorithm: a token, and exactly SHA256withRSA (names are matched case-sensitively). */
function checkAlgorithm(algorithm: string): WebhookVerifyResult | undefined {
  if (!TOKEN.test(algorithm)) {
    return fail(
      'AUTHORIZATION_MALFORMED',
      `"Authorization" header: the algorithm name is not a token (RFC 9110 §5.6.2), at offset 0`,
    );
  }
  if (algorithm === WEBHOOK_SIGNATURE_ALGORITHM) return undefined;
  const caseOnly = algorithm.toLowerCase() === WEBHOOK_SIGNATURE_ALGORITHM.toLowerCase();
  return fail(
    'ALGORITHM_UNSUPPORTED',
    caseOnly
      ? `"Authorization" algorithm: expected exactly "${WEBHOOK_SIGNATURE_ALGORITHM}"; found a different capitalisation (names are matched case-sensitively)`
      : `"Authorization" algorithm: expected "${WEBHOOK_SIGNATURE_ALGORITHM}"; found "${algorithm.slice(0, 40)}"`,
  );
}

/** The signature's bytes: strict base64, as long as the key's modulus. */
function decodeSignature(
  signatureText: string,
  key: ParsedRsaPublicKey,
): Uint8Array | WebhookVerifyResult {
  let signature: Uint8Array;
  try {
    signature = decodeStrictBase64(signatureText, '"Authorization" signature');
  } catch (e) {
    return fail(
      'SIGNATURE_MALFORMED',
      e instanceof Error ? e.message : '"Authorization" signature: not strict base64',
    );
  }
  const expectedLength = Math.ceil(key.modulusBits / 8);
  if (signature.length !== expectedLength) {
    return fail(
      'SIGNATURE_MALFORMED',
      `"Authorization" signature: expected ${expectedLength} bytes for a ${key.modulusBits}-bit RSA key; found ${signature.length}`,
    );
  }
  return signature;
}

/** RSASSA-PKCS1-v1_5 with SHA-256 over exactly the body bytes received. */
function verifySignature(
  rawBody: Uint8Array,
  signature: Uint8Array,
  key: ParsedRsaPublicKey,
): WebhookVerifyResult {
  let valid: boolean;
  try {
    valid = verify(
      'sha256',
      rawBody,
      { key: key.keyObject, padding: constants.RSA_PKCS1_PADDING },
      signature,
    );
  } catch {
    valid = false;
  }
  if (valid) return { ok: true };
  return fail(
    'SIGNATURE_INVALID',
    `"Authorization" signature: SHA256withRSA does not verify over the ${rawBody.length} body bytes received with the configured key`,
  );
}
