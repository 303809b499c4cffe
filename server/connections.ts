// Connection hygiene for the reference service: timeouts that release a silent client's socket and buffers, answers
// to unparseable or timed-out requests (then the socket is destroyed, never half-closed), and a cap on open connections.
import { randomBytes } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { createErrorBody, HttpError } from './error-body.js';

/** How long a connection may take over each part of a request, and how long it may idle. */
export interface ConnectionLimits {
  /** Time to receive the request head (default 20 s): beyond it, 408 and the socket is destroyed. */
  readonly headersTimeoutMs: number;
  /** Time to receive the whole request, body included (default 30 s): beyond it, 408 and the socket is destroyed. */
  readonly requestTimeoutMs: number;
  /** Idle time of a kept-alive connection between requests (default 5 s). */
  readonly keepAliveTimeoutMs: number;
  /**
   * Open connections at most (default 1,000). A new connection beyond it closes the oldest open connection that has
   * no request in flight (logged); only when every open connection has one is the new connection closed instead.
   */
  readonly maxConnections: number;
  /** Time for a new connection to send its first byte (default 5 s): a connection that sends nothing is closed. */
  readonly firstByteTimeoutMs: number;
}

/** The connection limits when none are given. */
export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = Object.freeze({
  headersTimeoutMs: 20_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 1_000,
  firstByteTimeoutMs: 5_000,
});

/** Validated limits, with the defaults for what is not given. Throws TypeError for a bad value. */
export function connectionLimits(given: Partial<ConnectionLimits> = {}): ConnectionLimits {
  const limits = { ...DEFAULT_CONNECTION_LIMITS, ...given };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isInteger(value) || value < 1)
      throw new TypeError(`${name} must be a positive integer`);
  }
  // Node refuses a headers timeout above the request timeout.
  if (limits.headersTimeoutMs > limits.requestTimeoutMs)
    throw new TypeError('headersTimeoutMs must not exceed requestTimeoutMs');
  return limits;
}

/**
 * The node:http server options for these limits. Node checks the header and request timeouts every
 * `connectionsCheckingInterval` (default 30 s, which would let a 20 s timeout run to 50 s): here a quarter of the
 * shorter timeout, at most 1 s.
 */
export function serverTimeoutOptions(limits: ConnectionLimits): {
  requestTimeout: number;
  headersTimeout: number;
  keepAliveTimeout: number;
  connectionsCheckingInterval: number;
} {
  return {
    requestTimeout: limits.requestTimeoutMs,
    headersTimeout: limits.headersTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.max(
      10,
      Math.min(1_000, Math.floor(limits.headersTimeoutMs / 4)),
    ),
  };
}

/** What the connection handler answered on a socket (for the access log of a request cut short). */
const answeredOnSocket = new WeakMap<object, string>();

/** `408 request timeout` when the connection handler answered this request's socket; undefined otherwise. */
export function connectionAnswer(socket: object | undefined): string | undefined {
  return socket === undefined ? undefined : answeredOnSocket.get(socket);
}

/** The answer to a client error Node reports, or undefined for a connection the client already dropped. */
function clientErrorAnswer(error: NodeJS.ErrnoException): HttpError | undefined {
  switch (error.code) {
    case 'ECONNRESET':
    case 'EPIPE':
    case 'HPE_INVALID_EOF_STATE': // the client closed or reset the connection in the middle of a request
      return undefined;
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new HttpError(
        408,
        'request_timeout',
        'request not received in time (headers or body); the connection is closed',
      );
    case 'HPE_HEADER_OVERFLOW':
      return new HttpError(431, 'headers_too_large', 'request header fields too large');
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new HttpError(413, 'chunk_extensions_too_large', 'chunk extensions too large');
    default:
      return new HttpError(400, 'malformed_request', 'malformed HTTP request');
  }
}

function rawResponse(error: HttpError): string {
  const body = JSON.stringify(createErrorBody(error, randomBytes(16).toString('hex')));
  return (
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? ''}\r\n` +
    `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
    `x-payconform-error-code: ${error.code}\r\nconnection: close\r\n\r\n${body}`
  );
}

/**
 * Installs the client-error answer and the connection cap on `server`. Every client error ends with the socket
 * destroyed (as Node's default does): a half-close (`socket.end`) would keep the descriptor and any buffered body for
 * as long as a silent client holds its side open.
 */
export function guardConnections(
  server: Server,
  limits: ConnectionLimits,
  log: (line: string) => void,
): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    const answer = clientErrorAnswer(error);
    // Answered only when no response has started on this socket (a route may already be answering).
    if (answer !== undefined && socket.writable && (socket as Partial<Socket>).bytesWritten === 0) {
      const status = `${answer.status} ${answer.code}`;
      answeredOnSocket.set(socket, status);
      log(`client error: ${status} (${error.code ?? error.message})`);
      socket.write(rawResponse(answer));
    } else {
      log(`connection ended by the client or unanswerable (${error.code ?? error.message})`);
    }
    socket.destroy();
  });

  trackConnections(server, limits, log);
}

/** One open connection: how many requests it has in flight, and its first-byte timer. */
interface OpenConnection {
  readonly socket: Socket;
  inFlight: number;
  readonly timer: NodeJS.Timeout;
}

/** The key of a connection in both the `connection` (TCP) and `request` (TCP or TLS) events. */
function connectionKey(socket: Socket): string {
  return `${socket.remoteAddress ?? ''}|${socket.remotePort ?? ''}`;
}

/**
 * The connection cap and the first-byte timeout. Open connections are kept in arrival order (a Map); at the cap, a new
 * connection evicts the oldest one with no request in flight, so idle sockets (opened and left silent, or kept alive
 * between requests) give way to a client with something to send, and a client holding every slot idle locks no one
 * out. A connection that has sent no byte within `firstByteTimeoutMs` is closed.
 */
function trackConnections(
  server: Server,
  limits: ConnectionLimits,
  log: (line: string) => void,
): void {
  const open = new Map<string, OpenConnection>();
  const oldestIdle = (): OpenConnection | undefined => {
    for (const connection of open.values()) if (connection.inFlight === 0) return connection;
    return undefined;
  };
  server.on('connection', (socket: Socket) => {
    if (open.size >= limits.maxConnections) {
      const victim = oldestIdle();
      if (victim === undefined) {
        log(
          `connection dropped: ${limits.maxConnections} connections open, each with a request in flight (from ${socket.remoteAddress ?? '?'})`,
        );
        socket.destroy();
        return;
      }
      open.delete(connectionKey(victim.socket));
      log(
        `connection evicted: ${limits.maxConnections} connections open; the oldest with no request in flight (from ${victim.socket.remoteAddress ?? '?'}) gave way`,
      );
      victim.socket.destroy();
    }
    const key = connectionKey(socket);
    const timer = setTimeout(() => {
      if (socket.bytesRead > 0 || socket.destroyed) return;
      log(
        `connection closed: no byte within ${limits.firstByteTimeoutMs} ms (from ${socket.remoteAddress ?? '?'})`,
      );
      socket.destroy();
    }, limits.firstByteTimeoutMs);
    timer.unref();
    const connection: OpenConnection = { socket, inFlight: 0, timer };
    open.set(key, connection);
    socket.once('close', () => {
      clearTimeout(timer);
      if (open.get(key) === connection) open.delete(key);
    });
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const connection = open.get(connectionKey(req.socket));
    if (connection === undefined) return;
    connection.inFlight += 1;
    res.once('close', () => {
      connection.inFlight -= 1;
    });
  });
}
