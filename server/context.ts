// What every route handler receives: the service's parts and the one request being handled.
import type { IncomingMessage } from 'node:http';
import type { HttpRequest } from '../src/http/message.js';
import type { RequestAuthenticator } from './authentication.js';
import type { FaultSet } from './faults.js';
import type { Lifecycle } from './lifecycle.js';
import type { ServiceState } from './state.js';
import type { WebhookQueue } from './webhook-delivery.js';

export interface ServiceContext {
  readonly state: ServiceState;
  readonly lifecycle: Lifecycle;
  readonly queue: WebhookQueue;
  readonly faults: FaultSet;
  readonly auth: RequestAuthenticator;
  /** Milliseconds since the epoch (injectable clock). */
  readonly now: () => number;
  readonly requireSignatureOnCommitCancelRefund: boolean;
  /** The served public key: trimmed PEM body, and the full PEM (for the public-key-full-pem fault). */
  readonly webhookPublicKey: { readonly trimmed: string; readonly full: string };
  readonly log: (line: string) => void;
}

export interface RouteRequest {
  readonly req: IncomingMessage;
  /** The request as signed: raw method, Host + raw target, raw field lines, exact body bytes. */
  readonly http: HttpRequest;
  readonly params: Readonly<Record<string, string>>;
  /** The raw request target (path and query as sent). */
  readonly target: string;
}

export interface RouteResponse {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export type RouteHandler = (ctx: ServiceContext, request: RouteRequest) => Promise<RouteResponse> | RouteResponse;
