// vectors/webhook-signatures.json: `Authorization: SHA256withRSA <base64>` over the exact webhook body bytes.
import { signWebhook, verifyWebhook } from '../../src/webhooks/index.js';
import type {
  RsaKeyEntry,
  FlagNote,
  KeyRef,
  KeysFile,
  VectorCase,
  VectorFile,
  VectorResult,
  WireBody,
} from '../format.js';
import {
  bodyBytesOf,
  check,
  checkDeclared,
  keyArgument,
  utf8,
  vectorFile,
  wireBody,
} from './common.js';

/** Payloads shaped like the spec's Events section, serialised compactly as the service would send them. */
export const PAYMENT_WEBHOOK = JSON.stringify({
  paymentId: '0b7c5e1a-2f3d-4c6b-9a8e-1d2c3b4a5f60',
  merchantPaymentId: 'order-2026-0007',
  paymentStatus: 'SETTLED',
  errorDescription: null,
  paymentRequest: { amount: 49.99, currency: 'GBP', reference: 'ORDER 2026 0007' },
  paymentRefundData: {
    accountHolderName: 'Jane Example',
    accountIdentifications: [
      { type: 'ACCOUNT_NUMBER', number: '12345678' },
      { type: 'SORT_CODE', number: '040004' },
    ],
  },
  paymentMetadata: { basket: '42' },
  applicationId: '3f1c9a52-7b4e-4d21-9c8a-5e6f7a8b9c0d',
  isExternal: false,
});
const PAYOUT_WEBHOOK = JSON.stringify({
  eventTimeUtc: '2026-01-01T00:00:05.123Z',
  applicationId: '3f1c9a52-7b4e-4d21-9c8a-5e6f7a8b9c0d',
  payoutId: '6a1e8c2b-3d4f-4a5b-8c7d-9e0f1a2b3c4d',
  payoutAmount: 125.5,
  payoutCurrency: 'GBP',
  payoutReference: 'INV-2026-0042',
  payoutStatus: 'PROCESSED',
  payoutStatusDescription: '',
  payoutWebhookDeliveryAttempt: 0,
  destination: {
    type: 'SCAN',
    name: 'Jane Example',
    accountNumber: '12345678',
    sortCode: '040004',
  },
});
const REFUND_WEBHOOK = JSON.stringify({
  eventTimeUtc: '2026-01-01T00:10:00Z',
  applicationId: '3f1c9a52-7b4e-4d21-9c8a-5e6f7a8b9c0d',
  refundedPaymentId: '0b7c5e1a-2f3d-4c6b-9a8e-1d2c3b4a5f60',
  refundedMerchantPaymentId: 'order-2026-0007',
  refundedPaymentAmount: 49.99,
  refundId: 'c4d3e2f1-a0b9-4c8d-8e7f-6a5b4c3d2e1f',
  refundAmount: 10,
  refundCurrency: 'GBP',
  refundReference: 'REF-7Q2M9X',
  refundStatus: 'IN_PROGRESS',
  refundStatusDescription: '',
  refundWebhookDeliveryAttempt: 1,
  destination: {
    type: 'SCAN',
    accountNumber: '12345678',
    sortCode: '040004',
    name: 'Jane Example',
  },
});
const NON_ASCII_WEBHOOK = PAYMENT_WEBHOOK.replace('Jane Example', 'Zoë Łukasz-Żółć').replace(
  'ORDER 2026 0007',
  'Café £49.99 ✓',
);

const notes: Record<string, FlagNote> = {
  Baseline: {
    description:
      'A webhook signed by the service key and received unchanged (spec: Webhook authentication).',
  },
  EventKinds: {
    description:
      'Payout and refund webhooks use the identical mechanism as payment webhooks (spec: Webhook authentication, rule 2).',
  },
  KeyForm: {
    description:
      'The verification key in another accepted form (full SPKI PEM or DER) than the trimmed PEM the endpoint serves.',
  },
  NonAscii: {
    description: 'The payload holds non-ASCII UTF-8: the signature covers its bytes.',
    effect: 'Verifying over a re-encoded string breaks on the first non-ASCII character.',
  },
  ExactBytes: {
    description:
      'The body was re-serialised, re-formatted, changed or given a trailing newline after signing (spec: Webhook authentication, rule 1).',
    effect:
      'A receiver that verifies a re-serialised body rejects every honest webhook, or accepts an altered one.',
  },
  AlgorithmName: {
    description: 'The algorithm name in `Authorization` is not "SHA256withRSA".',
    effect: 'Accepting any name invites algorithm confusion.',
  },
  AlgorithmCase: {
    description:
      "The algorithm name in another capitalisation. This toolkit matches the spec's spelling exactly; accepting it also conforms.",
  },
  Separator: {
    description:
      'More than one space between the algorithm and the signature (RFC 9110 §11.4 allows 1*SP). Accepted here; rejecting it also conforms.',
  },
  WrongKey: {
    description: 'Signed by another RSA key than the service key.',
    effect: 'Accepting it means anyone can forge webhooks.',
  },
  MissingHeader: {
    description: 'No Authorization header, or an empty one.',
    effect: 'A receiver that skips verification when the header is absent accepts forgeries.',
  },
  Syntax: {
    description:
      'The Authorization value is not `<ALGORITHM> <base64 signature>`, or the signature is not strict base64 of the modulus length.',
  },
};

interface WebhookCaseSpec {
  readonly id: string;
  readonly description: string;
  readonly result: VectorResult;
  readonly flags: readonly string[];
  readonly body: WireBody;
  readonly authorization: string | null;
  readonly publicKey?: KeyRef;
  readonly code?: string;
  readonly source?: string;
  /** Record the Authorization header in `expected` (valid cases signed by the service key: lets senders compare). */
  readonly showAuthorization?: boolean;
}

const SOURCE = 'spec: Webhook authentication';
const SERVICE_KEY: KeyRef = { key: 'webhook-rsa', format: 'trimmed-pem' };

function webhookCase(keys: KeysFile, spec: WebhookCaseSpec): VectorCase {
  const keyRef = spec.publicKey ?? SERVICE_KEY;
  const outcome = verifyWebhook(
    bodyBytesOf(spec.body),
    spec.authorization ?? undefined,
    keyArgument(keys, keyRef),
  );
  const { id } = spec;
  checkDeclared(id, spec.result, outcome, spec.code);
  return {
    id,
    op: 'webhook-verify',
    description: spec.description,
    source: spec.source ?? SOURCE,
    result: spec.result,
    flags: spec.flags,
    input: { body: spec.body, authorization: spec.authorization, publicKey: keyRef },
    expected: outcome.ok
      ? {
          ok: true,
          ...(spec.showAuthorization && spec.authorization !== null
            ? { authorization: spec.authorization }
            : {}),
        }
      : { ok: false, code: outcome.code },
  };
}

/** What a row's Authorization is written from: the keys' signatures over the payloads. */
interface WebhookMaterial {
  readonly other: RsaKeyEntry & { readonly private: NonNullable<RsaKeyEntry['private']> };
  /** Signs `body` (default with the service key), as the service's Authorization header. */
  readonly sign: (body: string, pem?: string) => string;
  /** The payment webhook's Authorization, and its signature alone (after "SHA256withRSA "). */
  readonly payment: string;
  readonly sig: string;
}

/** A case as a row: its Authorization written from the keys by a one-line function. */
type WebhookRow = Omit<WebhookCaseSpec, 'authorization'> & {
  readonly authorization: (keys: WebhookMaterial) => string | null;
};

const pretty = JSON.stringify(JSON.parse(PAYMENT_WEBHOOK), null, 2);
const spaced = JSON.stringify(JSON.parse(PAYMENT_WEBHOOK))
  .replace(/":/g, '": ')
  .replace(/,"/g, ', "');

/** The webhook cases, in file order (spec: Webhook authentication). */
const WEBHOOK_CASES: readonly WebhookRow[] = [
  {
    id: 'webhook-payment-valid',
    description:
      'A payment webhook verified over the exact bytes received, key as the endpoint serves it (trimmed PEM).',
    result: 'valid',
    flags: ['Baseline'],
    body: wireBody(PAYMENT_WEBHOOK),
    authorization: ({ payment }) => payment,
    showAuthorization: true,
  },
  {
    id: 'webhook-payout-valid',
    description: 'A payout webhook, same mechanism.',
    result: 'valid',
    flags: ['EventKinds'],
    body: wireBody(PAYOUT_WEBHOOK),
    authorization: ({ sign }) => sign(PAYOUT_WEBHOOK),
    showAuthorization: true,
  },
  {
    id: 'webhook-refund-valid',
    description: 'A refund webhook, same mechanism.',
    result: 'valid',
    flags: ['EventKinds'],
    body: wireBody(REFUND_WEBHOOK),
    authorization: ({ sign }) => sign(REFUND_WEBHOOK),
    showAuthorization: true,
  },
  {
    id: 'webhook-non-ascii-payload-valid',
    description: 'A payload with non-ASCII characters, verified over its UTF-8 bytes.',
    result: 'valid',
    flags: ['NonAscii'],
    body: wireBody(NON_ASCII_WEBHOOK),
    authorization: ({ sign }) => sign(NON_ASCII_WEBHOOK),
    showAuthorization: true,
  },
  {
    id: 'webhook-key-spki-pem-valid',
    description: 'The payment webhook verified with the key as a full SPKI PEM.',
    result: 'valid',
    flags: ['KeyForm'],
    body: wireBody(PAYMENT_WEBHOOK),
    authorization: ({ payment }) => payment,
    publicKey: { key: 'webhook-rsa', format: 'spki-pem' },
  },
  {
    id: 'webhook-key-spki-der-valid',
    description: 'The payment webhook verified with the key as SPKI DER.',
    result: 'valid',
    flags: ['KeyForm'],
    body: wireBody(PAYMENT_WEBHOOK),
    authorization: ({ payment }) => payment,
    publicKey: { key: 'webhook-rsa', format: 'spki-der-base64' },
  },
  {
    id: 'webhook-reserialised-after-signing',
    description:
      'The body re-serialised with ": " and ", " separators (as Python\'s json.dumps does) after signing.',
    result: 'invalid',
    flags: ['ExactBytes'],
    code: 'SIGNATURE_INVALID',
    body: wireBody(spaced),
    authorization: ({ payment }) => payment,
  },
  {
    id: 'webhook-pretty-printed-after-signing',
    description: 'The body pretty-printed after signing (same JSON value).',
    result: 'invalid',
    flags: ['ExactBytes'],
    code: 'SIGNATURE_INVALID',
    body: wireBody(pretty),
    authorization: ({ payment }) => payment,
  },
  {
    id: 'webhook-body-changed',
    description: 'The payment status changed from SETTLED to FAILED after signing.',
    result: 'invalid',
    flags: ['ExactBytes'],
    code: 'SIGNATURE_INVALID',
    body: wireBody(PAYMENT_WEBHOOK.replace('SETTLED', 'FAILED')),
    authorization: ({ payment }) => payment,
  },
  {
    id: 'webhook-trailing-newline-added',
    description: 'A trailing LF added to the body after signing.',
    result: 'invalid',
    flags: ['ExactBytes'],
    code: 'SIGNATURE_INVALID',
    body: wireBody(`${PAYMENT_WEBHOOK}\n`),
    authorization: ({ payment }) => payment,
  },
  {
    id: 'webhook-wrong-algorithm-name',
    description: 'The right signature under the name "SHA512withRSA".',
    result: 'invalid',
    flags: ['AlgorithmName'],
    code: 'ALGORITHM_UNSUPPORTED',
    body: wireBody(PAYMENT_WEBHOOK),
    authorization: ({ sig }) => `SHA512withRSA ${sig}`,
  },
  {
    id: 'webhook-bearer-scheme',
    description: 'An `Authorization: Bearer ...` header instead of a signature.',
    result: 'invalid',
    flags: ['AlgorithmName'],
    code: 'ALGORITHM_UNSUPPORTED',
    body: wireBody(PAYMENT_WEBHOOK),
    authorization: ({ sig }) => `Bearer ${sig}`,
  },
  {
    id: 'webhook-algorithm-lowercase',
    description: 'The right signature under the name "sha256withrsa".',
    result: 'acceptable',
    flags: ['AlgorithmCase'],
    body: wireBody(PAYMENT_WEBHOOK),
    authorization: ({ sig }) => `sha256withrsa ${sig}`,
  },
  {
    id: 'webhook-two-spaces-separator',
    description: 'Two spaces between the algorithm and the signature.',
    result: 'acceptable',
    flags: ['Separator'],
    body: wireBody(PAYMENT_WEBHOOK),
    authorization: ({ sig }) => `SHA256withRSA  ${sig}`,
  },
  {
    id: 'webhook-signed-by-another-key',
    description: 'Signed with another RSA 2048 key, verified with the service key.',
    result: 'invalid',
    flags: ['WrongKey'],
    code: 'SIGNATURE_INVALID',
    body: wireBody(PAYMENT_WEBHOOK),
    authorization: ({ sign, other }) => sign(PAYMENT_WEBHOOK, other.private['pkcs8-pem']),
  },
  {
    id: 'webhook-authorization-missing',
    description: 'No Authorization header.',
    result: 'invalid',
    flags: ['MissingHeader'],
    code: 'AUTHORIZATION_MISSING',
    body: wireBody(PAYMENT_WEBHOOK),
    authorization: () => null,
  },
  {
    id: 'webhook-authorization-empty',
    description: 'An empty Authorization header.',
    result: 'invalid',
    flags: ['MissingHeader'],
    code: 'AUTHORIZATION_MISSING',
    body: wireBody(PAYMENT_WEBHOOK),
    authorization: () => '',
  },
  {
    id: 'webhook-signature-without-algorithm',
    description: 'The base64 signature alone, without the algorithm name.',
    result: 'invalid',
    flags: ['Syntax'],
    code: 'AUTHORIZATION_MALFORMED',
    body: wireBody(PAYMENT_WEBHOOK),
    authorization: ({ sig }) => sig,
  },
  {
    id: 'webhook-signature-base64url',
    description: 'The signature in base64url.',
    result: 'invalid',
    flags: ['Syntax'],
    code: 'SIGNATURE_MALFORMED',
    body: wireBody(PAYMENT_WEBHOOK),
    authorization: ({ sig }) => `SHA256withRSA ${toBase64UrlKeepingPadding(sig)}`,
  },
  {
    id: 'webhook-signature-truncated',
    description: 'The signature with its last 4 base64 characters (3 bytes) cut off.',
    result: 'invalid',
    flags: ['Syntax'],
    code: 'SIGNATURE_MALFORMED',
    body: wireBody(PAYMENT_WEBHOOK),
    authorization: ({ sig }) => `SHA256withRSA ${sig.slice(0, -4)}`,
  },
];

export function buildWebhookFile(keys: KeysFile): VectorFile {
  const service = keys.keys['webhook-rsa']!;
  const other = keys.keys['other-rsa']!;
  check(
    service.type === 'rsa' &&
      service.private !== undefined &&
      other.type === 'rsa' &&
      other.private !== undefined,
    'webhooks',
    'keys.json lacks the RSA keys',
  );
  const servicePem = service.private['pkcs8-pem'];
  const sign = (body: string, pem = servicePem): string => signWebhook(utf8(body), pem);
  const payment = sign(PAYMENT_WEBHOOK);
  const material: WebhookMaterial = {
    other: { ...other, private: other.private },
    sign,
    payment,
    sig: payment.slice('SHA256withRSA '.length),
  };
  const cases = WEBHOOK_CASES.map((row) =>
    webhookCase(keys, { ...row, authorization: row.authorization(material) }),
  );
  return vectorFile(
    'webhook-signatures',
    'Webhook signatures: Authorization: SHA256withRSA <base64>',
    "Verify: the exact body bytes received, the Authorization header value (null when absent) and the service's RSA public key. Valid cases signed by the service key also give the exact Authorization value, so that a sender implementation can compare (RSASSA-PKCS1-v1_5 is deterministic).",
    notes,
    cases,
  );
}

/** base64url of the same bytes; when the base64 happens to have no "+" or "/", force one so the case stays meaningful. */
function toBase64UrlKeepingPadding(b64: string): string {
  const url = b64.replace(/\+/g, '-').replace(/\//g, '_');
  return url === b64 ? `-${b64.slice(1)}` : url;
}
