// TypeScript types of the payloads, written by hand beside the JSON Schemas. They cannot drift silently:
// test/schemas.test.ts checks at compile time that each type's keys equal the schema's `properties` keys and that
// its required keys equal the schema's `required`, and at run time that a full sample of each type validates.
import type {
  AccountIdentificationType,
  CopStatus,
  PaymentWebhookStatus,
  PayoutStatus,
  PayoutWebhookStatus,
  RefundStatus,
} from './statuses.js';

/** Spec: Account object (schemas/account.schema.json). */
export interface Account {
  readonly type: string;
  readonly name: string;
  readonly accountNumber: string;
  readonly sortCode: string;
  readonly iban: string | null;
  readonly bic: string | null;
}

/** Spec: Payout destination (schemas/payout-destination.schema.json). Required-ness not shown: all optional. */
export interface PayoutDestination {
  readonly destinationType?: string;
  readonly accountType?: string;
  readonly holderName?: string;
  readonly accountNumber?: string;
  readonly sortCode?: string;
  readonly iban?: string | null;
}

/** Spec: Create payout request body (schemas/payout-create-request.schema.json). Required-ness not shown. */
export interface PayoutCreateRequest {
  readonly applicationId?: string;
  readonly payInAccountSelector?: string;
  readonly amount?: number;
  readonly reference?: string;
  readonly destination?: PayoutDestination;
  readonly doNotCommitOnCoPMismatch?: boolean;
}

/** Spec: Payout resource (schemas/payout.schema.json). */
export interface Payout {
  readonly applicationId: string;
  readonly payoutId: string;
  readonly createdAt: string;
  readonly status: PayoutStatus;
  readonly amount: number;
  readonly reference: string;
  readonly currency: string;
  readonly source: Account;
  readonly destination: Account;
  readonly tracingId: string;
  readonly copStatus: CopStatus | null;
  readonly statusReason: string | null;
}

/** Spec: Create refund request body (schemas/refund-request.schema.json). The spec's examples send a string. */
export interface RefundRequest {
  readonly paymentId?: string;
  readonly amount?: string | number;
}

/** Spec: Refund resource, refundRequestDetails.destination (schemas/refund.schema.json#/$defs/refundDestination). */
export interface RefundDestination {
  readonly type: string;
  readonly name: string;
  readonly accountNumber: string;
  readonly sortCode: string;
  readonly iban: string | null;
}

/** Spec: Refund resource, refundRequestDetails. */
export interface RefundRequestDetails {
  readonly amount: number;
  readonly currency: string;
  readonly reference: string;
  readonly destination: RefundDestination;
}

/** Spec: Refund resource (schemas/refund.schema.json). */
export interface Refund {
  readonly refundPaymentId: string;
  readonly refundedPaymentId: string;
  readonly createdAtUtc: string;
  readonly status: RefundStatus;
  readonly refundRequestDetails: RefundRequestDetails;
}

/** Spec: Errors, error body (schemas/error.schema.json). */
export interface ErrorBody {
  readonly statusCode: number;
  readonly statusName: string;
  readonly errorMessage: string;
  readonly traceId: string;
  readonly source: string;
}

/** Spec: Payment webhook, paymentRequest. */
export interface PaymentRequestDetails {
  readonly amount: number;
  readonly currency: string;
  readonly reference?: string;
}

/** Spec: Payment webhook, paymentRefundData.accountIdentifications[]. */
export interface AccountIdentification {
  readonly type: AccountIdentificationType;
  readonly number: string;
}

/** Spec: Payment webhook, paymentRefundData (payer details). */
export interface PaymentRefundData {
  readonly accountHolderName?: string;
  readonly accountIdentifications?: readonly AccountIdentification[];
}

/** Spec: Payment webhook payload (schemas/payment-webhook.schema.json). */
export interface PaymentWebhook {
  readonly paymentId: string;
  readonly merchantPaymentId?: string;
  readonly paymentStatus: PaymentWebhookStatus;
  readonly errorDescription: string | null;
  readonly paymentRequest: PaymentRequestDetails;
  readonly paymentRefundData: PaymentRefundData | null;
  readonly paymentMetadata?: Readonly<Record<string, unknown>>;
  readonly applicationId: string;
  readonly isExternal: boolean;
}

/** Spec: Payout webhook, destination. */
export interface PayoutWebhookDestination {
  readonly type: string;
  readonly name: string;
  readonly accountNumber: string;
  readonly sortCode: string;
}

/** Spec: Payout webhook payload (schemas/payout-webhook.schema.json). */
export interface PayoutWebhook {
  readonly eventTimeUtc: string;
  readonly applicationId: string;
  readonly payoutId: string;
  readonly payoutAmount: number;
  readonly payoutCurrency: string;
  readonly payoutReference: string;
  readonly payoutStatus: PayoutWebhookStatus;
  readonly payoutStatusDescription: string;
  readonly payoutWebhookDeliveryAttempt: number;
  readonly destination: PayoutWebhookDestination;
}

/** Spec: Refund webhook, destination. */
export interface RefundWebhookDestination {
  readonly type: string;
  readonly accountNumber: string;
  readonly sortCode: string;
  readonly name: string;
}

/** Spec: Refund webhook payload (schemas/refund-webhook.schema.json). */
export interface RefundWebhook {
  readonly eventTimeUtc: string;
  readonly applicationId: string;
  readonly refundedPaymentId: string;
  /** A string in the spec's table; null or absent accepted (what it holds without a merchantPaymentId is not shown). */
  readonly refundedMerchantPaymentId?: string | null;
  readonly refundedPaymentAmount: number;
  readonly refundId: string;
  readonly refundAmount: number;
  readonly refundCurrency: string;
  readonly refundReference: string;
  readonly refundStatus: RefundStatus;
  readonly refundStatusDescription: string;
  readonly refundWebhookDeliveryAttempt: number;
  readonly destination: RefundWebhookDestination;
}

/** The TypeScript type of each payload kind. */
export interface PayloadTypes {
  readonly 'payout-create-request': PayoutCreateRequest;
  readonly 'payout-destination': PayoutDestination;
  readonly payout: Payout;
  readonly account: Account;
  readonly 'refund-request': RefundRequest;
  readonly refund: Refund;
  readonly error: ErrorBody;
  readonly 'payment-webhook': PaymentWebhook;
  readonly 'payout-webhook': PayoutWebhook;
  readonly 'refund-webhook': RefundWebhook;
}
