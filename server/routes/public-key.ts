// GET /.well-known/signature/pem: the webhook public key, PEM with the BEGIN/END lines trimmed off (spec: Endpoint 5).
import { exportTrimmedPublicKeyPem, generateWebhookKeyPair } from '../../src/webhooks/index.js';
import type { RouteHandler } from '../context.js';
import type { FaultSet } from '../faults.js';

/** Fault public-key-stale: another key than the signing key (generated once, on first use). */
let staleKey: string | undefined;

/** Fault fails-once: the services (by their fault set) that have answered the key once already. */
const answeredOnce = new WeakSet<FaultSet>();

/** Fault fails-once: true for the first answer of this service only. */
function firstAnswer(faults: FaultSet): boolean {
  if (answeredOnce.has(faults)) return false;
  answeredOnce.add(faults);
  return true;
}

export const getPublicKey: RouteHandler = (ctx) => ({
  status: 200,
  contentType: 'text/plain; charset=utf-8',
  // Variant alt: the same body on one line (the spec does not say how the body is laid out).
  body: ctx.faults.has('public-key-stale')
    ? (staleKey ??= exportTrimmedPublicKeyPem(generateWebhookKeyPair().privateKey))
    : ctx.faults.has('public-key-full-pem') ||
        (ctx.faults.has('fails-once') && firstAnswer(ctx.faults))
      ? ctx.webhookPublicKey.full
      : ctx.faults.alt
        ? ctx.webhookPublicKey.trimmed.replace(/\r?\n/g, '')
        : ctx.webhookPublicKey.trimmed,
});
