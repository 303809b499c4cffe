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
// Redirects are never followed: a 3xx is recorded as the response.
import http from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import type { FieldLines } from '../src/http/message.js';
import { fieldLinesFromRaw, getFieldValues, toFieldLines } from '../src/http/message.js';
import type { RecordedRequest, RecordedResponse } from './check.js';
import { currentExchangeLog, type ExchangeTimings } from './exchange-log.js';

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

export interface ExchangeError {
  readonly code: ExchangeErrorCode;
  readonly message: string;
}

export interface RecordedExchange {
  readonly request: RecordedRequest;
  /** Present when a status line and headers arrived (also with RESPONSE_TOO_LARGE and mid-body failures: partial body). */
  readonly response?: RecordedResponse;
  readonly error?: ExchangeError;
  readonly durationMs: number;
}

export interface OutgoingRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: FieldLines | Readonly<Record<string, string | readonly string[] | undefined>>;
  readonly body?: Uint8Array;
}

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

/** Sends one request and records the exchange. Never throws and never outlives `timeoutMs` (plus a few ms). */
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
  const elapsed = (): number => Math.round((performance.now() - started) * 10) / 10;
  let url: URL;
  try {
    url = new URL(request.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new TypeError(`unsupported scheme "${url.protocol}"`);
  } catch (error) {
    const recorded: RecordedRequest = {
      method: request.method,
      url: request.url,
      headers: given,
      body,
    };
    const invalid: RecordedExchange = {
      request: recorded,
      error: {
        code: 'INVALID_REQUEST',
        message: `invalid URL: ${error instanceof Error ? error.message : String(error)}`,
      },
      durationMs: elapsed(),
    };
    log?.add({
      direction: 'sent',
      startedAt,
      timings: { connect: -1, send: 0, wait: 0, receive: 0 },
      ...invalid,
    });
    return Promise.resolve(invalid);
  }
  const headers = completeHeaders(request.method, url, given, body);
  const recorded: RecordedRequest = { method: request.method, url: request.url, headers, body };
  const limit = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;

  return new Promise<RecordedExchange>((resolve) => {
    let settled = false;
    let req: http.ClientRequest | undefined;
    let head: { status: number; statusText: string | undefined; headers: FieldLines } | undefined;
    const chunks: Buffer[] = [];
    let received = 0;
    // When each phase ended (performance.now()), for the HAR's timings.
    const marks: { connected?: number; sent?: number; head?: number } = {};

    const finish = (error?: ExchangeError, truncated = false): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      const response = head
        ? recordResponse(
            head.status,
            head.statusText,
            head.headers,
            new Uint8Array(Buffer.concat(chunks)),
            truncated || error !== undefined,
          )
        : undefined;
      if (req && !req.destroyed) req.destroy();
      const exchange: RecordedExchange = {
        request: recorded,
        ...(response ? { response } : {}),
        ...(error ? { error } : {}),
        durationMs: elapsed(),
      };
      log?.add({ direction: 'sent', startedAt, timings: phases(started, marks), ...exchange });
      resolve(exchange);
    };
    const timer = setTimeout(() => {
      finish({
        code: 'TIMEOUT',
        message: `no complete response within ${options.timeoutMs} ms${head ? ` (status ${head.status} received, body incomplete after ${received} bytes)` : ''}`,
      });
    }, options.timeoutMs);
    const onAbort = (): void => finish({ code: 'ABORTED', message: 'request aborted by the run' });
    if (options.signal?.aborted) return onAbort();
    options.signal?.addEventListener('abort', onAbort, { once: true });

    try {
      const raw: string[] = [];
      for (const [name, value] of headers) raw.push(name, value);
      const transport = url.protocol === 'https:' ? https : http;
      req = transport.request({
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
    } catch (error) {
      return finish(classify(error));
    }
    req.on('error', (error) => finish(classify(error)));
    req.on('socket', (socket) => {
      const connected = (): void => {
        marks.connected ??= performance.now();
      };
      socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', connected);
    });
    req.on('finish', () => {
      marks.sent = performance.now();
    });
    req.on('response', (res) => {
      marks.head = performance.now();
      head = {
        status: res.statusCode ?? 0,
        statusText: res.statusMessage,
        headers: fieldLinesFromRaw(res.rawHeaders),
      };
      res.on('data', (chunk: Buffer) => {
        if (settled) return;
        received += chunk.length;
        if (received > limit) {
          chunks.push(chunk.subarray(0, chunk.length - (received - limit)));
          // Reading stops here and the connection is dropped: an endless body costs `limit` bytes, no more.
          const declared = res.headers['content-length'];
          finish(
            {
              code: 'RESPONSE_TOO_LARGE',
              message: `body cut at ${limit} bytes of ${declared !== undefined && /^\d+$/.test(declared) ? declared : `more than ${limit}`} (the limit for one response; reading stopped and the connection was closed)`,
            },
            true,
          );
          return;
        }
        chunks.push(chunk);
      });
      res.on('end', () => finish());
      res.on('error', (error) => finish(classify(error)));
      res.on('aborted', () =>
        finish({
          code: 'CONNECTION_RESET',
          message: 'connection closed before the response body was complete',
        }),
      );
    });
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
