// Every exchange an audit run made, in the order each one ended: what `--report har:FILE` writes (reporters/har.ts)
// and what findings name, by index, as their evidence. A run records into the log of its scope
// (`withExchangeLog`), so every request the run sends (checks, discovery, probes, the explorer) and every call its
// listeners receive lands here without each caller passing a log along. Holds raw messages: masking happens when
// the log is rendered, with the run's own redactor (never before, never twice).
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import type { RecordedRequest, RecordedResponse } from '../run/check.js';
import { EVIDENCE_BODY_BYTES } from '../run/grade.js';
import type { Redactor } from '../report/redact.js';

/** Milliseconds spent in each phase of one exchange (HAR's `timings`); -1 where the phase was not measured. */
export interface ExchangeTimings {
  readonly connect: number;
  readonly send: number;
  readonly wait: number;
  readonly receive: number;
}

/**
 * One exchange of the run's log: its direction, the request and response as on the wire, and when
 * each part happened.
 */
export interface LoggedExchange {
  /** `sent`: the audit called the target; `received`: the target (or the audited client) called the audit. */
  readonly direction: 'sent' | 'received';
  /** Milliseconds since the epoch when the exchange began. */
  readonly startedAt: number;
  readonly durationMs: number;
  readonly timings: ExchangeTimings;
  /** The request as on the wire, with an absolute URL. */
  readonly request: RecordedRequest;
  readonly response?: RecordedResponse;
  /** Why there is no (complete) answer: a timeout, a reset, a body over the client's limit. */
  readonly error?: { readonly code: string; readonly message: string };
  /** Who took part, when it is not plain from the URL (e.g. `webhook received by the audit's listener`). */
  readonly note?: string;
}

/** Exchanges one log keeps; later ones are counted, not kept (a HAR of a run is read by people, not archived). */
export const MAX_LOGGED_EXCHANGES = 20_000;
/**
 * Body bytes one log keeps in all (each body is kept only up to the evidence cap): past it, bodies are kept as their
 * length alone, so a target that answers or sends large bodies without end cannot grow the audit's memory.
 */
export const MAX_LOGGED_BODY_BYTES = 64 * 1024 * 1024;

/** A request's identity for matching evidence to entries: method, URL, every header line and the exact body. */
function requestKey(r: RecordedRequest): string {
  const hash = createHash('sha256');
  hash.update(`${String(r.method)}\n${String(r.url)}\n`);
  for (const [name, value] of r.headers ?? []) hash.update(`${name}: ${value}\n`);
  hash.update('\n');
  if (r.body instanceof Uint8Array) hash.update(r.body);
  return hash.digest('base64');
}

const ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i;

/** Every exchange of a run in the order it happened, for the HAR report and the evidence. */
export class ExchangeLog {
  readonly #entries: LoggedExchange[] = [];
  readonly #byRequest = new WeakMap<object, number>();
  readonly #byResponse = new WeakMap<object, number>();
  readonly #byKey = new Map<string, number[]>();
  #dropped = 0;
  #keptBytes = 0;
  #redactor: Redactor | undefined;

  /** `bodyBytes`: what is kept of each body (the HAR cuts there; default the evidence cap). */
  constructor(private readonly bodyBytes = EVIDENCE_BODY_BYTES) {}

  /** The first bytes of a body (within the log's bounds), with its whole length when that is more. */
  #bounded<T extends RecordedRequest | RecordedResponse>(message: T): T {
    const body = message.body instanceof Uint8Array ? message.body : new Uint8Array(0);
    const room = Math.max(0, MAX_LOGGED_BODY_BYTES - this.#keptBytes);
    const keep = Math.min(body.length, this.bodyBytes, room);
    this.#keptBytes += keep;
    if (keep === body.length) return message;
    // A response's decoded text and JSON are of the whole body: not kept either.
    const { bodyText: _text, json: _json, ...rest } = message as RecordedResponse;
    return {
      ...(rest as T),
      body: body.slice(0, keep),
      bodySize: Math.max(body.length, message.bodySize ?? 0),
    };
  }

  /** Records one exchange; returns its index (its entry in the HAR), or undefined past MAX_LOGGED_EXCHANGES. */
  add(exchange: LoggedExchange): number | undefined {
    if (this.#entries.length >= MAX_LOGGED_EXCHANGES) {
      this.#dropped += 1;
      return undefined;
    }
    const index = this.#entries.length;
    this.#entries.push({
      ...exchange,
      request: this.#bounded(exchange.request),
      ...(exchange.response !== undefined ? { response: this.#bounded(exchange.response) } : {}),
    });
    this.#byRequest.set(exchange.request, index);
    if (exchange.response !== undefined) this.#byResponse.set(exchange.response, index);
    const keys = new Set([requestKey(exchange.request)]);
    // A call the audit received is shown in findings by its request target alone (path and query).
    if (exchange.direction === 'received')
      keys.add(
        requestKey({ ...exchange.request, url: exchange.request.url.replace(ORIGIN, '') || '/' }),
      );
    for (const key of keys) {
      const same = this.#byKey.get(key);
      if (same === undefined) this.#byKey.set(key, [index]);
      else same.push(index);
    }
    return index;
  }

  entries(): readonly LoggedExchange[] {
    return this.#entries;
  }

  /** Exchanges not kept because the log was full. */
  get dropped(): number {
    return this.#dropped;
  }

  /** The log's per-body keep limit (what a HAR of it can show of each body). */
  get bodyLimit(): number {
    return this.bodyBytes;
  }

  /** The index of the entry that recorded exactly this request or response object, if any. */
  indexOf(message: RecordedRequest | RecordedResponse): number | undefined {
    return this.#byRequest.get(message) ?? this.#byResponse.get(message);
  }

  /**
   * The entries a finding's evidence shows: the one that recorded the very request or response object, else every
   * entry whose request has the same method, URL, header lines and body (a request sent twice names both).
   */
  entriesFor(evidence: {
    readonly request?: RecordedRequest;
    readonly response?: RecordedResponse;
  }): number[] {
    const exact =
      (evidence.request !== undefined ? this.#byRequest.get(evidence.request) : undefined) ??
      (evidence.response !== undefined ? this.#byResponse.get(evidence.response) : undefined);
    if (exact !== undefined) return [exact];
    if (evidence.request === undefined) return [];
    return [...(this.#byKey.get(requestKey(evidence.request)) ?? [])];
  }

  /** The redactor of the run that recorded into this log (the engine hands it over), so the HAR masks alike. */
  useRedactor(redactor: Redactor): void {
    this.#redactor = redactor;
  }

  get redactor(): Redactor | undefined {
    return this.#redactor;
  }
}

const scope = new AsyncLocalStorage<ExchangeLog>();

/** Runs `fn` with `log` receiving every exchange made inside it (and in servers started inside it). */
export function withExchangeLog<T>(log: ExchangeLog, fn: () => T): T {
  return scope.run(log, fn);
}

/** Runs `fn` outside any log: for traffic that is the audit's own plumbing, not an exchange with the target. */
export function withoutExchangeLog<T>(fn: () => T): T {
  return scope.exit(fn);
}

/** The log of the current scope, if a run is recording. */
export function currentExchangeLog(): ExchangeLog | undefined {
  return scope.getStore();
}
