// The strict verifying endpoint the client under test calls: it examines every request exactly as it arrived,
// then forwards it unchanged to the in-process reference service, whose realistic answer it relays.
import http from 'node:http';
import { getFieldValues, type FieldLines, type HttpRequest } from '../../src/http/message.js';
import type { ClientExchange } from '../checks/client/context.js';
import type { RecordedResponse } from '../run/check.js';
import { sendRequest } from '../http/http-client.js';
import { currentExchangeLog, withoutExchangeLog } from '../http/exchange-log.js';
import { toHttpRequest } from '../../net/http-io.js';
import type https from 'node:https';
import { listen, type ListeningAddress } from '../../net/listen.js';
import { arrivedOverTls, createHttpServer, type ServerTls } from '../../net/tls.js';
import type { ClientSession } from './evaluate-request.js';

export interface VerifyingEndpointOptions {
  readonly host: string;
  /** 0: a free port. */
  readonly port: number;
  readonly session: ClientSession;
  /** The reference service that answers (e.g. `http://127.0.0.1:40123`). */
  readonly backendUrl: string;
  /**
   * Rewrites a request before it is forwarded (after it was examined), e.g. the refund path's merchantId when any
   * merchant id is accepted. Returning a different request is the caller's decision; the audit judged the original.
   */
  readonly rewrite?: (request: ForwardedRequest, exchange: ClientExchange) => ForwardedRequest;
  readonly maxBodyBytes?: number;
  /**
   * Serve HTTPS with this certificate, and plain HTTP on a second port of the same host (`plainBaseUrl`), so a client
   * that sends a request there is seen doing it; each exchange records which transport it came over.
   */
  readonly tls?: ServerTls;
  readonly forwardTimeoutMs?: number;
  readonly now?: () => number;
  readonly onExchange?: (exchange: ClientExchange) => void;
}

export interface ForwardedRequest {
  readonly method: string;
  /** Origin-form target, e.g. `/api/payouts?x=1`. */
  readonly target: string;
  readonly headers: FieldLines;
  readonly body: Uint8Array;
}

export interface RunningVerifyingEndpoint {
  readonly baseUrl: string;
  /** With `tls`: the same endpoint over plain HTTP. */
  readonly plainBaseUrl?: string;
  exchanges(): readonly ClientExchange[];
  /** Requests refused unexamined (body over the size limit). */
  refused(): number;
  /** Waits (at most `graceMs`) for requests in flight, then closes every connection. */
  close(graceMs?: number): Promise<void>;
}

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'upgrade',
  'expect',
  'te',
  'trailer',
]);
const DEFAULT_MAX_BODY = 1024 * 1024;

function errorBody(status: number, statusName: string, message: string): string {
  return JSON.stringify({
    statusCode: status,
    statusName,
    errorMessage: message,
    traceId: '0',
    source: status >= 500 ? 'SERVICE' : 'MERCHANT',
  });
}

function readBody(req: http.IncomingMessage, max: number): Promise<Uint8Array | 'too-large'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (v: Uint8Array | 'too-large'): void => {
      if (!done) {
        done = true;
        resolve(v);
      }
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        chunks.length = 0;
        finish('too-large');
        req.resume();
        return;
      }
      if (!done) chunks.push(chunk);
    });
    req.on('end', () => finish(new Uint8Array(Buffer.concat(chunks))));
    req.on('error', () => finish(new Uint8Array(Buffer.concat(chunks))));
    req.on('aborted', () => finish(new Uint8Array(Buffer.concat(chunks))));
  });
}

/** Binds the first server to host:port and any others to free ports of the same host; all or none. */
async function bindAll(
  servers: ReadonlyArray<http.Server | https.Server>,
  host: string,
  port: number,
): Promise<ListeningAddress[]> {
  const bound: ListeningAddress[] = [];
  try {
    for (const [i, server] of servers.entries())
      bound.push(await listen(server, host, i === 0 ? port : 0));
    return bound;
  } catch (error) {
    for (const server of servers) server.close();
    throw error;
  }
}

/** Writes an answer unless one was already written; returns what was written, for the run's HAR. */
function reply(
  res: http.ServerResponse,
  status: number,
  contentType: string,
  body: Uint8Array | string,
  extra: FieldLines = [],
): RecordedResponse | undefined {
  if (res.headersSent || res.destroyed) return undefined;
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body);
  const headers: string[] = [];
  for (const [n, v] of extra)
    if (
      !HOP_BY_HOP.has(n.toLowerCase()) &&
      !['content-length', 'content-type', 'transfer-encoding', 'date'].includes(n.toLowerCase())
    )
      headers.push(n, v);
  headers.push('content-type', contentType, 'content-length', String(bytes.length));
  res.writeHead(status, headers);
  res.end(bytes);
  // What was written, for the run's HAR (node:http adds its Date and Connection lines).
  const lines: Array<readonly [string, string]> = [];
  for (let i = 0; i + 1 < headers.length; i += 2) lines.push([headers[i]!, headers[i + 1]!]);
  return { status, headers: lines, body: new Uint8Array(bytes) };
}

/** One endpoint's running state, shared by its servers' request handlers and its close. */
interface EndpointState {
  readonly options: VerifyingEndpointOptions;
  readonly exchanges: ClientExchange[];
  readonly inFlight: Set<Promise<void>>;
  refused: number;
  readonly now: () => number;
  readonly max: number;
  // The run's log (its HAR): each request the client sent, with the answer it got (not the forward behind it).
  readonly log: ReturnType<typeof currentExchangeLog>;
}

/** An exchange while it is recorded: the answer is added once the reference service gave it. */
interface PendingExchange {
  examined: ClientExchange['examined'];
  transport: 'tls' | 'plain';
  response?: RecordedResponse;
}

/** The request as it goes on to the reference service: origin-form target, hop-by-hop fields left out. */
function forwardedRequest(
  request: HttpRequest,
  target: string,
  body: Uint8Array,
): ForwardedRequest {
  return {
    method: request.method,
    target: target.startsWith('/') ? target : target.replace(/^[a-z]+:\/\/[^/]*/i, '') || '/',
    headers: request.headers.filter(([n]) => !HOP_BY_HOP.has(n.toLowerCase())),
    body,
  };
}

/** The reference service's answer to the forwarded request, or the 502 the client gets when it gave none. */
async function forwardToBackend(
  forward: ForwardedRequest,
  options: VerifyingEndpointOptions,
): Promise<RecordedResponse> {
  const sent = await withoutExchangeLog(() =>
    sendRequest(
      {
        method: forward.method,
        url: `${options.backendUrl}${forward.target}`,
        headers: forward.headers,
        body: forward.body,
      },
      { timeoutMs: options.forwardTimeoutMs ?? 10_000 },
    ),
  );
  if (sent.response && !sent.error) return sent.response;
  const text = errorBody(
    502,
    'BAD_GATEWAY',
    `the audit's reference service did not answer: ${sent.error?.message ?? 'no response'}`,
  );
  return {
    status: 502,
    headers: [['content-type', 'application/json']],
    body: Buffer.from(text),
    bodyText: text,
  };
}

function refuseTooLarge(state: EndpointState, res: http.ServerResponse): void {
  state.refused += 1;
  res.setHeader('connection', 'close');
  const message = `request body exceeds ${state.max} bytes; not examined`;
  reply(res, 413, 'application/json', errorBody(413, 'PAYLOAD_TOO_LARGE', message));
}

/** Reads, examines and records one request, then forwards it and relays the reference service's answer. */
async function handleRequest(
  state: EndpointState,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): Promise<void> {
  const startedAt = Date.now();
  const t0 = performance.now();
  const body = await readBody(req, state.max);
  const read = performance.now();
  if (body === 'too-large') return refuseTooLarge(state, res);
  const request = toHttpRequest(req, body);
  const examined = state.options.session.examine(request, state.now());
  const exchange: PendingExchange = {
    examined,
    transport: arrivedOverTls(req.socket) ? 'tls' : 'plain',
  };
  state.exchanges.push(exchange);
  const forward = forwardedRequest(request, req.url ?? '/', body);
  const response = await forwardToBackend(
    state.options.rewrite ? state.options.rewrite(forward, exchange) : forward,
    state.options,
  );
  exchange.response = response;
  const answered = reply(
    res,
    response.status,
    getFieldValues(response.headers, 'content-type')[0] ?? 'application/octet-stream',
    response.body,
    response.headers,
  );
  const ms = (from: number, to: number): number => Math.round((to - from) * 1000) / 1000;
  const end = performance.now();
  state.log?.add({
    direction: 'received',
    startedAt,
    durationMs: ms(t0, end),
    timings: { connect: -1, send: ms(t0, read), wait: ms(read, end), receive: 0 },
    request,
    response: answered ?? response,
    note: `request #${examined.index} from the audited client, answered by the audit's endpoint`,
  });
  state.options.onExchange?.(exchange);
}

/** Answers a request the handler failed on with a 500, and keeps the in-flight set to requests still running. */
function requestListener(
  state: EndpointState,
): (req: http.IncomingMessage, res: http.ServerResponse) => void {
  return (req, res) => {
    const task = handleRequest(state, req, res)
      .catch((error: unknown) => {
        const message = `audit endpoint error: ${error instanceof Error ? error.message : String(error)}`;
        reply(res, 500, 'application/json', errorBody(500, 'INTERNAL_SERVER_ERROR', message));
      })
      .finally(() => state.inFlight.delete(task));
    state.inFlight.add(task);
  };
}

// Answered, then destroyed (never half-closed: a silent client would keep the socket and its buffers).
function refuseMalformed(_error: Error, socket: import('node:stream').Duplex): void {
  if (socket.writable)
    socket.write('HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
  socket.destroy();
}

/** Stops accepting, waits at most `graceMs` for requests in flight, then closes every connection. */
async function closeServers(
  servers: ReadonlyArray<http.Server | https.Server>,
  inFlight: ReadonlySet<Promise<void>>,
  graceMs: number,
): Promise<void> {
  for (const server of servers) {
    server.close();
    server.closeIdleConnections();
  }
  if (inFlight.size > 0) {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...inFlight]),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs))),
    ]);
    clearTimeout(timer);
  }
  for (const server of servers) server.closeAllConnections();
}

export async function startVerifyingEndpoint(
  options: VerifyingEndpointOptions,
): Promise<RunningVerifyingEndpoint> {
  const state: EndpointState = {
    options,
    exchanges: [],
    inFlight: new Set(),
    refused: 0,
    now: options.now ?? Date.now,
    max: options.maxBodyBytes ?? DEFAULT_MAX_BODY,
    log: currentExchangeLog(),
  };
  const serverOptions = { requestTimeout: 30_000, headersTimeout: 20_000, keepAliveTimeout: 2_000 };
  const onRequest = requestListener(state);
  const servers = [
    createHttpServer(serverOptions, onRequest, options.tls),
    ...(options.tls !== undefined ? [http.createServer(serverOptions, onRequest)] : []),
  ];
  for (const server of servers) server.on('clientError', refuseMalformed);
  const [address, plainAddress] = await bindAll(servers, options.host, options.port);
  let closing: Promise<void> | undefined;
  return {
    baseUrl: address!.origin,
    ...(plainAddress !== undefined ? { plainBaseUrl: plainAddress.origin } : {}),
    exchanges: () => state.exchanges,
    refused: () => state.refused,
    close: (graceMs = 5_000) => (closing ??= closeServers(servers, state.inFlight, graceMs)),
  };
}
