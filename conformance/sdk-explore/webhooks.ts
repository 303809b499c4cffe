// The webhooks the SDK is asked to verify: a payout webhook for a payout of the sequence, signed with the service's
// key as the service signs it, then given as drawn (WEBHOOK_VARIANTS): as sent, pretty-printed, with a property the
// spec does not list, twice, a later status change first, or forged in one of the ways a receiver must refuse.
import { randomBytes } from 'node:crypto';
import {
  signWebhook,
  WEBHOOK_SIGNATURE_ALGORITHM,
  type ParsedRsaPrivateKey,
} from '../../src/webhooks/index.js';
import type { WebhookVariant } from './draws.js';

export interface WebhookKeys {
  /** The service's signing key (its public half is what the service serves). */
  readonly service: ParsedRsaPrivateKey;
  /** Another key: a webhook signed with it must be refused. */
  readonly other: ParsedRsaPrivateKey;
}

export interface DrawnWebhook {
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body: Uint8Array;
}

const utf8 = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'utf8'));

/** A payout webhook payload (Events: payout webhook) for a payout as the service answered it. */
export function payoutWebhookPayload(
  payout: Record<string, unknown> | undefined,
  attempt: number,
): object {
  return {
    eventTimeUtc: new Date().toISOString(),
    applicationId: payout?.['applicationId'] ?? '00000000-0000-4000-8000-000000000000',
    payoutId: payout?.['payoutId'] ?? '00000000-0000-4000-8000-000000000001',
    payoutAmount: payout?.['amount'] ?? 1,
    payoutCurrency: payout?.['currency'] ?? 'GBP',
    payoutReference: payout?.['reference'] ?? 'ref',
    payoutStatus: payout?.['status'] === 'CANCELLED' ? 'CANCELLED' : 'IN_PROGRESS',
    payoutStatusDescription: null,
    payoutWebhookDeliveryAttempt: attempt,
    destination: payout?.['destination'] ?? null,
  };
}

const headersFor = (authorization: string | undefined): DrawnWebhook['headers'] => [
  ['content-type', 'application/json'],
  ['accept', 'application/json'],
  ...(authorization !== undefined ? [['authorization', authorization] as const] : []),
];

/** The webhook(s) one step gives the SDK: two for a redelivery (the same bytes twice) or a reordering, else one. */
export function drawnWebhooks(
  variant: WebhookVariant,
  payload: object,
  keys: WebhookKeys,
): DrawnWebhook[] {
  const compact = utf8(JSON.stringify(payload));
  const pretty = utf8(JSON.stringify(payload, null, 2));
  const signed = (body: Uint8Array, key = keys.service): DrawnWebhook => ({
    headers: headersFor(signWebhook(body, key)),
    body,
  });
  switch (variant) {
    case 'genuine':
      return [signed(compact)];
    case 'genuine-pretty-printed':
      return [signed(pretty)];
    case 'genuine-unknown-property':
      return [
        signed(
          utf8(JSON.stringify({ ...payload, payconformUnknownProperty: { note: 'ignore me' } })),
        ),
      ];
    case 'genuine-redelivered':
      return [signed(compact), signed(compact)];
    case 'genuine-reordered': {
      // The payout's next status change, delivered before the one it follows (no delivery order is shown).
      const later = {
        ...payload,
        payoutStatus: 'CANCELLED',
        eventTimeUtc: new Date(Date.now() + 1000).toISOString(),
      };
      return [signed(utf8(JSON.stringify(later))), signed(compact)];
    }
    case 'forged-signature':
      return [
        {
          headers: headersFor(
            `${WEBHOOK_SIGNATURE_ALGORITHM} ${randomBytes(256).toString('base64')}`,
          ),
          body: compact,
        },
      ];
    case 'altered-body':
      return [
        {
          headers: signed(compact).headers,
          body: utf8(JSON.stringify({ ...payload, payoutReference: 'altered after signing' })),
        },
      ];
    case 're-serialised-body':
      return [{ headers: signed(pretty).headers, body: compact }];
    case 'wrong-key':
      return [signed(compact, keys.other)];
    case 'no-authorization':
      return [{ headers: headersFor(undefined), body: compact }];
  }
}
