// What a sequence is played with: the adapter, the service payconform plays (started per sequence by the caller:
// the CLI passes the reference service), the application the adapter signs for, and the webhook keys.
import type { ClientCredentials } from '../client-audit/evaluate-request.js';
import type { ParsedRsaPrivateKey } from '../../src/webhooks/index.js';
import type { Personality } from './draws.js';
import type { AdapterConfiguration, SdkAdapterLink } from './protocol.js';
import type { WebhookKeys } from './webhooks.js';

/** The service payconform plays for one sequence (the CLI starts the reference service for it). */
export interface SdkBackend {
  readonly baseUrl: string;
  /** Everything configure tells the SDK but the base URL (that is the verifying endpoint's). */
  readonly application: Omit<AdapterConfiguration, 'baseUrl'>;
  readonly settledPayment: { readonly paymentId: string; readonly amount: string };
  readonly unsettledPayment?: { readonly paymentId: string };
  /** A destination for each CoP result (`COP_KEYS`). */
  readonly copDestinations: Readonly<Record<string, object>>;
  close(): Promise<void>;
}

export type StartSdkBackend = (personality: {
  readonly variant: Personality['variant'];
  readonly webhookSigningKey: ParsedRsaPrivateKey;
}) => Promise<SdkBackend>;

export interface SequenceEnv {
  readonly link: SdkAdapterLink;
  readonly startBackend: StartSdkBackend;
  readonly credentials: ClientCredentials;
  readonly keys: WebhookKeys;
  readonly stepTimeoutMs: number;
}
