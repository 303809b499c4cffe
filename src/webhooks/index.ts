// Public surface of webhook signatures: SHA256withRSA over the exact body bytes.

export {
  exportRsaPrivateKeyPem,
  exportRsaPublicKeyPem,
  exportTrimmedPublicKeyPem,
  generateWebhookKeyPair,
  parseRsaPrivateKey,
  parseRsaPublicKey,
  type ParsedRsaPrivateKey,
  type ParsedRsaPublicKey,
  type RsaKeyPolicy,
  type RsaPrivateKeyInput,
  type RsaPublicKeyInput,
} from './rsa-keys.js';
export { signWebhook, WEBHOOK_SIGNATURE_ALGORITHM } from './sign-webhook.js';
export {
  MAX_AUTHORIZATION_LENGTH,
  verifyWebhook,
  type WebhookVerifyResult,
} from './verify-webhook.js';
export { webhookErrorCodes, type WebhookErrorCode } from './webhook-error-codes.js';
export { WEBHOOK_KINDS, type WebhookKind } from './kinds.js';
