// What every route handler receives: the service's parts and the one request being handled.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpRequest } from '../src/http/message.js';
import type { RequestAuthenticator } from './authentication.js';
import type { FaultSet } from './faults.js';
import type { Lifecycle } from './lifecycle.js';
import type { Application, ServiceState } from './state.js';
import type { StateStore } from './state-store.js';
import type { WebhookKind, WebhookQueue } from './webhook-delivery.js';

/**
 * What a route handler works with: the state and its store, the webhook queue, the faults switched
 * on, the authenticator and the clock.
 */
export interface ServiceContext {
  /** This instance's view of the resources (applications are fixed at start; read them here). */
  readonly state: ServiceState;
  /** Where payments, payouts and refunds are read and changed (memory, or Redis shared by several instances). */
  readonly store: StateStore;
  readonly lifecycle: Lifecycle;
  readonly queue: WebhookQueue;
  readonly faults: FaultSet;
  readonly auth: RequestAuthenticator;
  /** Milliseconds since the epoch (injectable clock). */
  readonly now: () => number;
  readonly requireSignatureOnCommitCancelRefund: boolean;
  /** The served public key: trimmed PEM body, and the full PEM (for the public-key-full-pem fault). */
  readonly webhookPublicKey: { readonly trimmed: string; readonly full: string };
  /** The webhook URLs given at start (flags, config): the default of every application. */
  readonly defaultWebhookUrls: Readonly<Partial<Record<WebhookKind, string>>>;
  readonly log: (line: string) => void;
}

/** An API request once answered, as an extension (the portal's Requests view) is told of it. */
export interface AnsweredRequest {
  readonly at: number;
  /** The request as received (secret included: whoever shows it masks it). */
  readonly http: HttpRequest;
  readonly target: string;
  readonly status: number;
  /** The error code of a rejected request (for a signed request: the verifier's code). */
  readonly code?: string;
  readonly message?: string;
}

/** Something served beside the API from the same process and state (the portal), never reached by API clients. */
export interface ServiceExtension {
  /** Answers the request when it is the extension's (then true): the API router never sees it. */
  handle?(req: IncomingMessage, res: ServerResponse): boolean;
  /** Every API request, once answered. */
  requestAnswered?(request: AnsweredRequest): void;
  /** Something changed: a webhook was queued, an attempt ended, an API request was answered. */
  changed?(): void;
  close?(): void;
}

/** A request as a route handler receives it: verified where the route requires it. */
export interface RouteRequest {
  /** Absent for an in-process call (the portal), which has no connection. */
  readonly req?: IncomingMessage;
  /** The request as signed: raw method, Host + raw target, raw field lines, exact body bytes. */
  readonly http: HttpRequest;
  readonly params: Readonly<Record<string, string>>;
  /** The raw request target (path and query as sent). */
  readonly target: string;
  /**
   * Set only by an in-process caller that authenticated the merchant itself (the portal's logged-in merchant): the
   * route skips its credential and signature check and acts for this application. Never set from the network.
   */
  readonly asApplication?: Application;
}

/** What a route handler answers: status, content type and exact body bytes. */
export interface RouteResponse {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Answers one route of the reference service. */
export type RouteHandler = (
  ctx: ServiceContext,
  request: RouteRequest,
) => Promise<RouteResponse> | RouteResponse;
