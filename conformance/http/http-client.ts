// A hardened HTTP/1.1 client for audits: exact header lines and body bytes, hard timeouts and size limits, never throws.
//
// Built on node:http rather than fetch so that the headers sent are exactly the ones signed: duplicates kept, order
// kept, nothing normalised. Given headers as raw lines, node:http adds none of its own except framing and connection
// management, so this client adds those itself where the request lacks them and records them, making the recorded
// request equal to the bytes on the wire:
//   - `Host` from the URL's authority (default port omitted) when absent;
//   - `Content-Length` when absent and the body is non-empty, or the method is POST, PUT or PATCH (then `0`),
//     because node:http would otherwise switch to `Transfer-Encoding: chunked` (or send an unframed body on GET);
//   - `Connection: close` when absent (each exchange uses its own connection; no pooling across checks).
// Every request also carries a W3C `traceparent` (trace-context.ts: the check's trace, a span of its own) after its own
// lines, unless it has one: not a covered component of the signature, so no other byte and no verdict changes.
// Redirects are never followed: a 3xx is recorded as the response.
import http from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import type { FieldLines } from '../../src/http/message.js';
import { fieldLinesFromRaw, getFieldValues, toFieldLines } from '../../src/http/message.js';
import type { RecordedRequest, RecordedResponse } from '../run/check.js';
import { currentExchangeLog, type ExchangeTimings } from './exchange-log.js';
import { withTraceparent } from './trace-context.js';

/** The stable codes of `ExchangeError`. */
export type ExchangeErrorCode =
  | 'TIMEOUT'
  | 'CONNECTION_REFUSED'
  | 'CONNECTION_RESET'
  | 'RESPONSE_TOO_LARGE'
  | 'PROTOCOL_ERROR'
  | 'DNS_FAILURE'
  | 'TLS_ERROR'
  | 'INVALID_REQUEST'
  | 'ABORTED'
  | 'NETWORK_ERROR';

/** Why an exchange got no complete answer, with a stable code. */
export interface ExchangeError {
  readonly code: ExchangeErrorCode;
  readonly message: string;
}

/** A request exactly as sent and what came back, or why nothing (complete) did. */
export interface RecordedExchange {
  readonly request: RecordedRequest;
  /** Present when a status line and headers arrived (also with RESPONSE_TOO_LARGE and mid-body failures: partial body). */
  readonly response?: RecordedResponse;
  readonly error?: ExchangeError;
  readonly durationMs: number;
}

/**
 * A request the audit sends: method, absolute URL, header lines in order and the exact body bytes.
 */
export interface OutgoingRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: FieldLines | Readonly<Record<string, string | readonly string[] | undefined>>;
  readonly body?: Uint8Array;
}

/**
 * How one exchange is bounded: its deadline, the largest response, a signal to abort it, and the
 * TLS trust.
 */
export interface SendOptions {
  /** Whole-exchange deadline: connect, send, headers and body. */
  readonly timeoutMs: number;
  /** Reading stops at this many body bytes and the connection is closed (RESPONSE_TOO_LARGE). Default 256 KiB. */
  readonly maxResponseBytes?: number;
  readonly signal?: AbortSignal;
  /** For https targets with a test certificate; default true. */
  readonly rejectUnauthorized?: boolean;
  /** For https targets: the CA certificate(s), PEM, to trust instead of the system's (a private CA; as curl's --cacert). */
  readonly ca?: string;
  /**
   * A connection already open to the target (and, for https, past its TLS handshake), used instead of a new one:
   * the concurrency probes open and warm their connections first, so set-up is not part of what they measure.
   */
  readonly connection?: Duplex;
}

/**
 * What one response may cost: the spec's answers are a few kilobytes, so 256 KiB leaves room for a long listing and
 * keeps fifty concurrent exchanges (nonce-concurrent-once) within a few megabytes against a target that answers 1 GiB.
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 256 * 1024;

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** The header lines actually sent: the request's own, plus Host, Content-Length and Connection where absent. */
export function completeHeaders(
  method: string,
  url: URL,
  headers: FieldLines,
  body: Uint8Array,
): FieldLines {
  const lines = [...headers];
  const has = (name: string): boolean => getFieldValues(headers, name).length > 0;
  if (!has('host')) lines.unshift(['Host', url.host]);
  if (
    !has('content-length') &&
    !has('transfer-encoding') &&
    (body.length > 0 || BODY_METHODS.has(method.toUpperCase()))
  ) {
    lines.push(['Content-Length', String(body.length)]);
  }
  if (!has('connection')) lines.push(['Connection', 'close']);
  return lines;
}

function classify(error: unknown): ExchangeError {
  const e = error as NodeJS.ErrnoException & { reason?: string };
  const code = e?.code ?? '';
  const message = e instanceof Error ? e.message : String(error);
  if (code === 'ECONNREFUSED')
    return { code: 'CONNECTION_REFUSED', message: `connection refused (${message})` };
  if (code === 'ECONNRESET' || code === 'EPIPE' || message === 'socket hang up')
    return { code: 'CONNECTION_RESET', message: `connection reset by the target (${message})` };
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return { code: 'DNS_FAILURE', message: `host name did not resolve (${message})` };
  if (code.startsWith('HPE_') || code === 'ERR_HTTP_INVALID_STATUS_CODE')
    return { code: 'PROTOCOL_ERROR', message: `malformed HTTP response: ${e.reason ?? message}` };
  if (
    code.startsWith('ERR_TLS') ||
    code.includes('CERT') ||
    code.startsWith('ERR_SSL') ||
    /certificate|SSL/i.test(message)
  )
    return { code: 'TLS_ERROR', message };
  if (
    code.startsWith('ERR_INVALID') ||
    code === 'ERR_UNESCAPED_CHARACTERS' ||
    code === 'ERR_HTTP_INVALID_HEADER_VALUE'
  )
    return { code: 'INVALID_REQUEST', message: `request could not be sent: ${message}` };
  return { code: 'NETWORK_ERROR', message };
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Builds the recorded response, decoding text and JSON where the bytes allow. */
export function recordResponse(
  status: number,
  statusText: string | undefined,
  headers: FieldLines,
  body: Uint8Array,
  truncated: boolean,
): RecordedResponse {
  let bodyText: string | undefined;
  try {
    bodyText = utf8.decode(body);
  } catch {
    bodyText = undefined;
  }
  let json: unknown;
  let parsed = false;
  if (bodyText !== undefined && !truncated && /^\s*[[{"\d\-tfn]/.test(bodyText)) {
    try {
      json = JSON.parse(bodyText);
      parsed = true;
    } catch {
      parsed = false;
    }
  }
  return {
    status,
    ...(statusText !== undefined ? { statusText } : {}),
    headers,
    body,
    ...(bodyText !== undefined ? { bodyText } : {}),
    ...(parsed ? { json } : {}),
    ...(truncated ? { truncated: true } : {}),
  };
}

/** Milliseconds since `started`, to a tenth. */
const elapsedSince = (started: number): number =>
  Math.round((performance.now() - started) * 10) / 10;

/** The URL of an http or https target, or why it is not one. */
function parseTargetUrl(text: string): URL | ExchangeError {
  try {
    const url = new URL(text);
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new TypeError(`unsupported scheme "${url.protocol}"`);
    return url;
  } catch (error) {
    return {
      code: 'INVALID_REQUEST',
      message: `invalid URL: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

/** Where an exchange records itself: the run's log (when one records), when it began, and what it sent. */
interface ExchangeRecord {
  readonly log: ReturnType<typeof currentExchangeLog>;
  readonly started: number;
  readonly startedAt: number;
  readonly request: RecordedRequest;
}

/** A request never sent (its URL is not an http or https one), recorded as it was given. */
function unsendable(record: ExchangeRecord, error: ExchangeError): RecordedExchange {
  const invalid: RecordedExchange = {
    request: record.request,
    error,
    durationMs: elapsedSince(record.started),
  };
  record.log?.add({
    direction: 'sent',
    startedAt: record.startedAt,
    timings: { connect: -1, send: 0, wait: 0, receive: 0 },
    ...invalid,
  });
  return invalid;
}

/** The node:http request for exactly these header lines, on a connection of its own (or the one given). */
function openRequest(
  url: URL,
  request: OutgoingRequest,
  headers: FieldLines,
  options: SendOptions,
): http.ClientRequest {
  const raw: string[] = [];
  for (const [name, value] of headers) raw.push(name, value);
  const transport = url.protocol === 'https:' ? https : http;
  return transport.request({
    protocol: url.protocol,
    hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
    port: url.port || (url.protocol === 'https:' ? 443 : 80),
    method: request.method,
    // The request target as written (path and query), never re-normalised.
    path: requestTarget(request.url),
    headers: raw as unknown as http.OutgoingHttpHeaders,
    setHost: false,
    agent: false,
    rejectUnauthorized: options.rejectUnauthorized ?? true,
    ...(options.ca !== undefined ? { ca: options.ca } : {}),
    ...(options.connection !== undefined
      ? { createConnection: () => options.connection as never }
      : {}),
  });
}

/** One exchange in progress: what has arrived, when each phase ended, and the one way it settles. */
class ExchangeRun {
  #settled = false;
  #req: http.ClientRequest | undefined;
  #head: { status: number; statusText: string | undefined; headers: FieldLines } | undefined;
  readonly #chunks: Buffer[] = [];
  #received = 0;
  // When each phase ended (performance.now()), for the HAR's timings.
  readonly #marks: { connected?: number; sent?: number; head?: number } = {};
  readonly #timer: NodeJS.Timeout;

  constructor(
    private readonly record: ExchangeRecord,
    private readonly options: SendOptions,
    private readonly resolve: (exchange: RecordedExchange) => void,
  ) {
    this.#timer = setTimeout(() => {
      const head = this.#head;
      this.finish({
        code: 'TIMEOUT',
        message: `no complete response within ${options.timeoutMs} ms${head ? ` (status ${head.status} received, body incomplete after ${this.#received} bytes)` : ''}`,
      });
    }, options.timeoutMs);
  }

  readonly onAbort = (): void =>
    this.finish({ code: 'ABORTED', message: 'request aborted by the run' });

  finish(error?: ExchangeError, truncated = false): void {
    if (this.#settled) return;
    this.#settled = true;
    clearTimeout(this.#timer);
    this.options.signal?.removeEventListener('abort', this.onAbort);
    const head = this.#head;
    const response = head
      ? recordResponse(
          head.status,
          head.statusText,
          head.headers,
          new Uint8Array(Buffer.concat(this.#chunks)),
          truncated || error !== undefined,
        )
      : undefined;
    if (this.#req && !this.#req.destroyed) this.#req.destroy();
    const exchange: RecordedExchange = {
      request: this.record.request,
      ...(response ? { response } : {}),
      ...(error ? { error } : {}),
      durationMs: elapsedSince(this.record.started),
    };
    const timings = phases(this.record.started, this.#marks);
    this.record.log?.add({
      direction: 'sent',
      startedAt: this.record.startedAt,
      timings,
      ...exchange,
    });
    this.resolve(exchange);
  }

  /** Follows the request: its connection, the end of sending, the response head and body. */
  watch(req: http.ClientRequest, url: URL): void {
    this.#req = req;
    req.on('error', (error) => this.finish(classify(error)));
    req.on('socket', (socket) => {
      const connected = (): void => {
        this.#marks.connected ??= performance.now();
      };
      socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', connected);
    });
    req.on('finish', () => {
      this.#marks.sent = performance.now();
    });
    req.on('response', (res) => this.#receive(res));
  }

  #receive(res: http.IncomingMessage): void {
    this.#marks.head = performance.now();
    this.#head = {
      status: res.statusCode ?? 0,
      statusText: res.statusMessage,
      headers: fieldLinesFromRaw(res.rawHeaders),
    };
    res.on('data', (chunk: Buffer) => this.#receiveChunk(res, chunk));
    res.on('end', () => this.finish());
    res.on('error', (error) => this.finish(classify(error)));
    res.on('aborted', () =>
      this.finish({
        code: 'CONNECTION_RESET',
        message: 'connection closed before the response body was complete',
      }),
    );
  }

  #receiveChunk(res: http.IncomingMessage, chunk: Buffer): void {
    if (this.#settled) return;
    const limit = this.options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.#received += chunk.length;
    if (this.#received <= limit) {
      this.#chunks.push(chunk);
      return;
    }
    this.#chunks.push(chunk.subarray(0, chunk.length - (this.#received - limit)));
    // Reading stops here and the connection is dropped: an endless body costs `limit` bytes, no more.
    const declared = res.headers['content-length'];
    this.finish(
      {
        code: 'RESPONSE_TOO_LARGE',
        message: `body cut at ${limit} bytes of ${declared !== undefined && /^\d+$/.test(declared) ? declared : `more than ${limit}`} (the limit for one response; reading stopped and the connection was closed)`,
      },
      true,
    );
  }
}

/**
 * Sends one request and records the exchange. Never throws and never outlives `timeoutMs` (plus a few ms). The
 * request carries a `traceparent` of the current trace (one per check) and a new span, unless it has one already.
 */
export function sendRequest(
  request: OutgoingRequest,
  options: SendOptions,
): Promise<RecordedExchange> {
  const started = performance.now();
  const startedAt = Date.now();
  // The run's log, when one records (every exchange of an audit goes into its HAR): taken now, in the caller's scope.
  const log = currentExchangeLog();
  const body = request.body ?? new Uint8Array(0);
  const given: FieldLines = Array.isArray(request.headers)
    ? (request.headers as FieldLines)
    : toFieldLines(request.headers as Record<string, string>);
  const url = parseTargetUrl(request.url);
  if (!(url instanceof URL)) {
    const recorded = { method: request.method, url: request.url, headers: given, body };
    return Promise.resolve(unsendable({ log, started, startedAt, request: recorded }, url));
  }
  const headers = completeHeaders(request.method, url, withTraceparent(given), body);
  const recorded: RecordedRequest = { method: request.method, url: request.url, headers, body };

  return new Promise<RecordedExchange>((resolve) => {
    const run = new ExchangeRun({ log, started, startedAt, request: recorded }, options, resolve);
    if (options.signal?.aborted) return run.onAbort();
    options.signal?.addEventListener('abort', run.onAbort, { once: true });
    let req: http.ClientRequest;
    try {
      req = openRequest(url, request, headers, options);
    } catch (error) {
      return run.finish(classify(error));
    }
    run.watch(req, url);
    req.end(
      body.length > 0 ? Buffer.from(body.buffer, body.byteOffset, body.byteLength) : undefined,
    );
  });
}

/** HAR timings from the phase marks: connect (-1 on a connection opened before), send, wait for the head, receive. */
function phases(
  started: number,
  marks: { readonly connected?: number; readonly sent?: number; readonly head?: number },
): ExchangeTimings {
  const end = performance.now();
  const ms = (from: number, to: number): number =>
    Math.max(0, Math.round((to - from) * 1000) / 1000);
  const sendFrom = marks.connected ?? started;
  const sent = marks.sent ?? marks.head ?? end;
  return {
    connect: marks.connected !== undefined ? ms(started, marks.connected) : -1,
    send: ms(sendFrom, sent),
    wait: ms(sent, marks.head ?? end),
    receive: marks.head !== undefined ? ms(marks.head, end) : 0,
  };
}

/** The origin-form request target exactly as written in the URL string: path plus query, no fragment. */
export function requestTarget(url: string): string {
  const afterScheme = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '');
  const noFragment = afterScheme.split('#', 1)[0] ?? '';
  if (noFragment === '') return '/';
  return noFragment.startsWith('?') ? `/${noFragment}` : noFragment;
}
