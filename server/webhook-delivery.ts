// Webhook delivery: an asynchronous queue that PUTs signed events, retrying with backoff until the receiver answers 200.
import { randomInt } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { FaultSet } from './faults.js';
import type { WebhookKind } from '../src/webhooks/kinds.js';
import { stringifyJson } from './json-writer.js';

export type { WebhookKind };

/**
 * How the service redelivers a webhook the receiver did not answer with 200: the delays, the
 * attempts, each attempt's deadline.
 */
export interface RetryPolicy {
  /** Delay before the second attempt; doubles per attempt up to `maxDelayMs`. */
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  /** Attempts in all (the first included); then the delivery is marked failed. */
  readonly maxAttempts: number;
  /** Time allowed for one attempt (connect, send, response headers). */
  readonly requestTimeoutMs: number;
}

/**
 * The retry policy when none is given: the first redelivery after initialDelayMs, doubling up to maxDelayMs.
 * `maxAttempts` attempts in all, each within `requestTimeoutMs`. Written once: docs quote it, and
 * test/facts-once.test.ts checks their quote.
 */
export const defaultRetryPolicy = {
  initialDelayMs: 1000,
  maxDelayMs: 60_000,
  maxAttempts: 8,
  requestTimeoutMs: 10_000,
} as const satisfies RetryPolicy;

/**
 * Delivery beyond the retry policy, as a server written elsewhere may do it (the spec states no delivery time and
 * does not say what moment eventTimeUtc is): each webhook's first attempt `delayMs` after the change, and eventTimeUtc
 * stamped with the moment of each attempt instead of the change. The delay is the local queue's (a shared queue sends
 * at once).
 */
export interface WebhookDeliveryOptions {
  /** Delay of each webhook's first attempt after the change it announces (default 0). */
  readonly delayMs?: number;
  /** Payout and refund webhooks carry the moment of the attempt as eventTimeUtc (default: the moment of the change). */
  readonly eventTimeAtDelivery?: boolean;
}

/** A payload whose top-level eventTimeUtc (payout and refund webhooks) is the moment `at`; others unchanged. */
function stampedAt(payload: unknown, at: number): unknown {
  if (typeof payload !== 'object' || payload === null || !('eventTimeUtc' in payload))
    return payload;
  return { ...payload, eventTimeUtc: new Date(at).toISOString() };
}

/** One attempt to deliver a webhook: its counter, when, and what the receiver answered. */
export interface DeliveryAttempt {
  /** The delivery attempt counter for this attempt (0 for the first). */
  readonly attempt: number;
  readonly startedAt: string;
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The exact body bytes sent, as UTF-8 text. */
  readonly body: string;
  responseStatus?: number;
  error?: string;
  durationMs?: number;
}

/** A webhook and every attempt to deliver it. */
export interface DeliveryRecord {
  readonly id: number;
  readonly kind: WebhookKind;
  readonly url: string | null;
  /** paymentId, payoutId or refundId. */
  readonly resourceId: string;
  /** The resource status the event reports. */
  readonly eventStatus: string;
  /** `not-configured`: no URL for this kind, nothing was sent. */
  state: 'pending' | 'delivered' | 'failed' | 'not-configured';
  readonly attempts: DeliveryAttempt[];
  /** When the next attempt is due (ISO 8601), while one is scheduled. */
  nextAttemptAt?: string;
  /** The application the event belongs to. */
  readonly applicationId: string;
  /** Set on a delivery queued again by hand (portal "resend"): the id of the delivery it repeats. */
  readonly resendOf?: number;
}

export interface WebhookEvent {
  readonly kind: WebhookKind;
  readonly applicationId: string;
  readonly resourceId: string;
  readonly eventStatus: string;
  /** The payload for one attempt; `attempt` is the delivery attempt counter (payout and refund payloads carry it). */
  readonly payload: (attempt: number) => unknown;
}

export interface WebhookQueueOptions {
  /** The URL of each kind for an application (its own setting, else the service's default); undefined: none. */
  readonly urlFor: (kind: WebhookKind, applicationId: string) => string | undefined;
  /** Called when a delivery is queued or an attempt ends (the portal's live views). */
  readonly onChange?: () => void;
  readonly retry: RetryPolicy;
  /** Default: each webhook at once, eventTimeUtc the moment of the change. */
  readonly delivery?: WebhookDeliveryOptions;
  /** The Authorization header value (`SHA256withRSA <base64>`) for these exact bytes. */
  readonly sign: (bytes: Uint8Array) => string;
  readonly faults: FaultSet;
  readonly log: (line: string) => void;
  /** Records kept for `/sandbox/deliveries`; the oldest are dropped beyond this. */
  readonly maxRecords?: number;
  /**
   * Instances sharing a store (Redis): deliveries are queued there and each attempt is made by whichever instance
   * claims it (server/shared-deliveries.ts). Default: this process's timers.
   */
  readonly shared?: SharedDeliveries;
}

/** A delivery as the shared queue keeps it: the record and the payload of every attempt, computed when queued. */
export interface SharedDelivery {
  readonly record: DeliveryRecord;
  /** `payloads[i]`: the payload of attempt index i (the counter rule and its fault already applied). */
  readonly payloads: readonly unknown[];
  /** Index of the next attempt. */
  readonly index: number;
}

/** What a shared queue offers WebhookQueue (implemented over Redis). */
export interface SharedDeliveries {
  /** Queues `delivery`, due at once; attempts come back through `start`'s `attempt` callback (in some instance). */
  add(delivery: SharedDelivery): Promise<void>;
  /** Starts claiming due deliveries; `attempt` makes one attempt and says when the next is due (undefined: done). */
  start(
    attempt: (
      delivery: SharedDelivery,
    ) => Promise<{ readonly record: DeliveryRecord; readonly nextInMs: number | undefined }>,
  ): void;
  /** Every delivery the shared queue holds (newest last), for `/sandbox/deliveries`. */
  list(): Promise<DeliveryRecord[]>;
  close(): void;
}

/** What one attempt got: the receiver's status, or why there was none (`fatal`: retrying cannot help). */
type SendOutcome = { status: number } | { error: string; fatal?: boolean };

/** The bytes one attempt sends and the bytes its signature covers: the same, but for the faults that part them. */
function attemptBytes(
  payload: unknown,
  firstPayload: unknown,
  index: number,
  faults: FaultSet,
): { readonly sent: Buffer; readonly signed: Buffer } {
  // Variant alt: pretty-printed, and signed over exactly those bytes.
  const compact = Buffer.from(stringifyJson(payload, faults.alt ? 2 : 0), 'utf8');
  // Faults: send other bytes than those signed, or sign other bytes than those sent.
  const sent = faults.has('webhook-reserialised')
    ? Buffer.from(stringifyJson(payload, 2), 'utf8')
    : compact;
  let signed = faults.has('webhook-bad-signature')
    ? Buffer.concat([compact, Buffer.from(' ')])
    : compact;
  // Fault webhook-retry-bad-signature: a redelivery reuses the first attempt's signature (its counter was 0).
  if (faults.has('webhook-retry-bad-signature') && index > 0)
    signed = Buffer.from(stringifyJson(firstPayload, faults.alt ? 2 : 0), 'utf8');
  return { sent, signed };
}

/** The headers of one attempt (Events: Content-Type, Accept, Authorization), as the variant and the faults write them. */
function attemptHeaders(
  kind: WebhookKind,
  authorization: string,
  length: number,
  faults: FaultSet,
): Record<string, string> {
  return {
    'content-type': faults.has('webhook-content-type')
      ? 'text/plain'
      : faults.alt
        ? 'application/json; charset=utf-8'
        : 'application/json',
    ...(faults.has('webhook-no-accept') && kind !== 'payment'
      ? {}
      : { accept: faults.alt && kind === 'payment' ? '*/*' : 'application/json' }),
    // Fault webhook-signature-hex: the signature in hexadecimal.
    authorization: faults.has('webhook-signature-hex')
      ? authorization.replace(
          / (\S+)$/,
          (_, b64: string) => ` ${Buffer.from(b64, 'base64').toString('hex')}`,
        )
      : authorization,
    'content-length': String(length),
  };
}

/** What attempt `index` leads to: delivered, failed for good, or the delay before the next attempt. */
function afterAttempt(
  outcome: SendOutcome,
  index: number,
  faults: FaultSet,
  retry: RetryPolicy,
): 'delivered' | 'failed' | number {
  // Fault webhook-retry-5xx-only: a 4xx answer counts as delivered.
  const ok =
    'status' in outcome &&
    (outcome.status === 200 ||
      (faults.has('webhook-retry-5xx-only') && outcome.status >= 400 && outcome.status < 500));
  if (ok) return 'delivered';
  if (
    faults.has('webhook-no-retry') ||
    (faults.has('webhook-retry-once') && index + 1 >= 2) ||
    index + 1 >= retry.maxAttempts ||
    ('fatal' in outcome && outcome.fatal)
  )
    return 'failed';
  // Variant alt: a constant interval instead of exponential backoff (the retry interval is not shown).
  return faults.alt
    ? retry.initialDelayMs
    : Math.min(retry.maxDelayMs, retry.initialDelayMs * 2 ** index);
}

export class WebhookQueue {
  private readonly records: DeliveryRecord[] = [];
  /** The event of each kept record, for a resend. */
  private readonly events = new Map<number, WebhookEvent>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly inFlight = new Set<http.ClientRequest>();
  private readonly agents = {
    http: new http.Agent({ keepAlive: true }),
    https: new https.Agent({ keepAlive: true }),
  };
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: WebhookQueueOptions) {
    options.shared?.start((delivery) => this.attemptShared(delivery));
  }

  /** Queues an event; returns at once (delivery never blocks the API request that caused it). */
  enqueue(event: WebhookEvent, resendOf?: number): DeliveryRecord {
    const url = this.options.urlFor(event.kind, event.applicationId) ?? null;
    const { shared } = this.options;
    const record: DeliveryRecord = {
      // Shared: ids must not collide between instances (48 random bits, a safe integer).
      id: shared !== undefined ? randomInt(1, 2 ** 47) : this.nextId++,
      kind: event.kind,
      applicationId: event.applicationId,
      url,
      resourceId: event.resourceId,
      eventStatus: event.eventStatus,
      state: url === null ? 'not-configured' : 'pending',
      attempts: [],
      ...(resendOf !== undefined ? { resendOf } : {}),
    };
    this.records.push(record);
    this.events.set(record.id, event);
    const max = this.options.maxRecords ?? 10_000;
    if (this.records.length > max)
      for (const dropped of this.records.splice(0, this.records.length - max))
        this.events.delete(dropped.id);
    if (url !== null && !this.closed) {
      if (shared !== undefined) {
        const { faults, retry } = this.options;
        const payloads = Array.from({ length: retry.maxAttempts }, (_, i) =>
          event.payload(faults.has('webhook-counter-fixed') ? 0 : i),
        );
        shared
          .add({ record: { ...record, attempts: [] }, payloads, index: 0 })
          .catch((error: unknown) => {
            record.state = 'failed';
            this.options.log(
              `webhook ${record.kind} ${record.eventStatus} ${record.resourceId} could not be queued: ${error instanceof Error ? error.message : String(error)}`,
            );
          });
      } else {
        this.schedule(record, event, 0, this.options.delivery?.delayMs ?? 0);
      }
    }
    this.options.onChange?.();
    return record;
  }

  /** `/sandbox/deliveries`: this process's records, or with a shared queue every instance's. */
  async listDeliveries(): Promise<readonly DeliveryRecord[]> {
    return this.options.shared !== undefined ? this.options.shared.list() : this.deliveries();
  }

  /** Queues the event of delivery `id` again, to the URL configured now (a new delivery, counter from 0). */
  resend(id: number): DeliveryRecord | undefined {
    const event = this.events.get(id);
    return event === undefined ? undefined : this.enqueue(event, id);
  }

  deliveries(): readonly DeliveryRecord[] {
    return this.records.map((r) => ({ ...r, attempts: r.attempts.map((a) => ({ ...a })) }));
  }

  /** Stops timers and aborts requests in flight. */
  close(): void {
    this.closed = true;
    this.options.shared?.close();
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const req of this.inFlight) req.destroy();
    this.inFlight.clear();
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  private schedule(
    record: DeliveryRecord,
    event: WebhookEvent,
    index: number,
    delayMs: number,
  ): void {
    record.nextAttemptAt = new Date(Date.now() + delayMs).toISOString();
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      delete record.nextAttemptAt;
      void this.attempt(record, event, index);
    }, delayMs);
    this.timers.add(timer);
  }

  private async attempt(record: DeliveryRecord, event: WebhookEvent, index: number): Promise<void> {
    if (this.closed || record.url === null) return;
    const { faults } = this.options;
    const counter = faults.has('webhook-counter-fixed') ? 0 : index;
    const next = await this.attemptOnce(
      record,
      event.payload(counter),
      event.payload(0),
      counter,
      index,
    );
    if (next === 'closed') return;
    if (next !== undefined) this.schedule(record, event, index + 1, next);
    this.options.onChange?.();
  }

  /**
   * One attempt of a shared delivery, claimed by this instance: the same bytes and rules as a local one. The record
   * comes back with the attempt added; the local copy (when this instance queued it) is updated for the portal.
   */
  private async attemptShared(
    delivery: SharedDelivery,
  ): Promise<{ readonly record: DeliveryRecord; readonly nextInMs: number | undefined }> {
    const record: DeliveryRecord = { ...delivery.record, attempts: [...delivery.record.attempts] };
    const counter = this.options.faults.has('webhook-counter-fixed') ? 0 : delivery.index;
    const next = await this.attemptOnce(
      record,
      delivery.payloads[delivery.index],
      delivery.payloads[0],
      counter,
      delivery.index,
    );
    if (next === 'closed') throw new Error('queue closed during the attempt');
    const local = this.records.find((r) => r.id === record.id);
    if (local !== undefined) {
      local.state = record.state;
      local.attempts.splice(0, local.attempts.length, ...record.attempts);
      this.options.onChange?.();
    }
    return { record, nextInMs: next };
  }

  /** Sends one attempt and records it in `record`; the delay before the next attempt, undefined when none, 'closed'. */
  private async attemptOnce(
    record: DeliveryRecord,
    payload: unknown,
    firstPayload: unknown,
    counter: number,
    index: number,
  ): Promise<number | undefined | 'closed'> {
    if (record.url === null) return undefined;
    const { faults, retry } = this.options;
    const sentAt = Date.now();
    const stamp = (p: unknown): unknown =>
      this.options.delivery?.eventTimeAtDelivery === true ? stampedAt(p, sentAt) : p;
    const { sent, signed } = attemptBytes(stamp(payload), stamp(firstPayload), index, faults);
    const headers = attemptHeaders(record.kind, this.options.sign(signed), sent.length, faults);
    const method = faults.has('webhook-post') ? 'POST' : 'PUT';
    const entry: DeliveryAttempt = {
      attempt: counter,
      startedAt: new Date(sentAt).toISOString(),
      method,
      headers,
      body: sent.toString('utf8'),
    };
    record.attempts.push(entry);
    const started = performance.now();
    const outcome = await this.send(record.url, method, headers, sent, retry.requestTimeoutMs);
    entry.durationMs = Math.round((performance.now() - started) * 10) / 10;
    if ('status' in outcome) entry.responseStatus = outcome.status;
    else entry.error = outcome.error;
    if (this.closed) return 'closed';
    this.options.log(
      `webhook ${record.kind} ${record.eventStatus} ${record.resourceId} attempt ${counter} -> ${'status' in outcome ? outcome.status : outcome.error}`,
    );
    const next = afterAttempt(outcome, index, faults, retry);
    if (typeof next === 'number') return next;
    record.state = next;
    return undefined;
  }

  private send(
    url: string,
    method: string,
    headers: Record<string, string>,
    body: Buffer,
    timeoutMs: number,
  ): Promise<SendOutcome> {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return Promise.resolve({ error: `invalid webhook URL "${url}"`, fatal: true });
    }
    const secure = target.protocol === 'https:';
    if (!secure && target.protocol !== 'http:')
      return Promise.resolve({ error: `unsupported URL scheme "${target.protocol}"`, fatal: true });
    return new Promise((resolve) => {
      let settled = false;
      const finish = (value: { status: number } | { error: string }): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.inFlight.delete(req);
        resolve(value);
      };
      const req = (secure ? https : http).request(
        target,
        { method, headers, agent: secure ? this.agents.https : this.agents.http },
        (res) => {
          res.resume();
          finish({ status: res.statusCode ?? 0 });
        },
      );
      const timer = setTimeout(() => {
        finish({ error: `no response within ${timeoutMs} ms` });
        req.destroy();
      }, timeoutMs);
      this.inFlight.add(req);
      req.on('error', (error) => finish({ error: error.message }));
      req.end(body);
    });
  }
}
