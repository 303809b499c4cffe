// GET /.well-known/signature/pem: the webhook public key, PEM with the BEGIN/END lines trimmed off (spec: Endpoint 5).
import { exportTrimmedPublicKeyPem, generateWebhookKeyPair } from '../../src/webhooks/index.js';
import type { RouteHandler } from '../context.js';

/** Fault public-key-stale: another key than the signing key (generated once, on first use). */
let staleKey: string | undefined;

export const getPublicKey: RouteHandler = (ctx) => ({
  status: 200,
  contentType: 'text/plain; charset=utf-8',
  // Variant alt: the same body on one line (the spec does not say how the body is laid out).
  body: ctx.faults.has('public-key-stale')
    ? (staleKey ??= exportTrimmedPublicKeyPem(generateWebhookKeyPair().privateKey))
    : ctx.faults.has('public-key-full-pem')
      ? ctx.webhookPublicKey.full
      : ctx.faults.alt
        ? ctx.webhookPublicKey.trimmed.replace(/\r?\n/g, '')
        : ctx.webhookPublicKey.trimmed,
});
