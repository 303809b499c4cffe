// The SDK's webhook check: the Authorization header verified over the exact bytes received, with the public key
// the service serves. Each SDK_FAULTS switch for webhooks is a mistake real receivers make.
import { createHash } from 'node:crypto';
import { verifyWebhook, WEBHOOK_SIGNATURE_ALGORITHM } from '../../../src/webhooks/index.js';
import type { SdkFault } from './faults.js';

/** The payload properties this SDK knows (only the `webhook-unknown-property-refused` fault looks at them). */
const KNOWN = new Set([
  'eventTimeUtc',
  'applicationId',
  'payoutId',
  'payoutAmount',
  'payoutCurrency',
  'payoutReference',
  'payoutStatus',
  'payoutStatusDescription',
  'destination',
  'payoutWebhookDeliveryAttempt',
]);

export interface WebhookVerdict {
  readonly valid: boolean;
  readonly reason?: string;
}

export class WebhookVerifier {
  readonly #seen = new Set<string>();

  constructor(private readonly faults: ReadonlySet<SdkFault> = new Set()) {}

  verify(
    headers: ReadonlyArray<readonly [string, string]>,
    body: Uint8Array,
    publicKey: string,
  ): WebhookVerdict {
    const authorization = headers.find(([n]) => n.toLowerCase() === 'authorization')?.[1];
    const bytes = this.faults.has('webhook-verified-after-reserialise') ? reserialised(body) : body;
    const result = verifyWebhook(bytes, authorization, publicKey);
    const accepted =
      result.ok ||
      (this.faults.has('webhook-wrong-signature-accepted') &&
        authorization?.startsWith(`${WEBHOOK_SIGNATURE_ALGORITHM} `) === true);
    if (!accepted) return { valid: false, reason: result.ok ? 'accepted' : result.code };
    return this.#afterSignature(body);
  }

  #afterSignature(body: Uint8Array): WebhookVerdict {
    if (this.faults.has('webhook-unknown-property-refused')) {
      const unknown = Object.keys(parsed(body)).filter((k) => !KNOWN.has(k));
      if (unknown.length > 0) return { valid: false, reason: `unknown: ${unknown.join(', ')}` };
    }
    if (this.faults.has('webhook-redelivery-refused')) {
      const digest = createHash('sha256').update(body).digest('hex');
      if (this.#seen.has(digest)) return { valid: false, reason: 'seen before' };
      this.#seen.add(digest);
    }
    return { valid: true };
  }
}

function parsed(body: Uint8Array): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(Buffer.from(body).toString('utf8'));
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function reserialised(body: Uint8Array): Uint8Array {
  return Buffer.from(JSON.stringify(parsed(body)), 'utf8');
}
