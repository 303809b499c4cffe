// Serves the audit's webhook public key as the service does: `GET /.well-known/signature/pem`, the trimmed PEM body.
import type http from 'node:http';
import { listen } from '../../../net/listen.js';
import { fieldLinesFromRaw, type FieldLines } from '../../../src/http/message.js';
import { currentExchangeLog } from '../../http/exchange-log.js';
import { createHttpServer, type ServerTls } from '../../../net/tls.js';
import { endpointSpecs } from '../../client-audit/endpoints.js';

/**
 * A loopback server that publishes the webhook public key as the spec's public-key endpoint does.
 */
export interface RunningKeyServer {
  /** e.g. `http://127.0.0.1:43122/.well-known/signature/pem`. */
  readonly url: string;
  /** How many times the key was fetched. */
  fetches(): number;
  close(): Promise<void>;
}

export const PUBLIC_KEY_PATH = endpointSpecs['public-key'].path;

/** Starts the key endpoint on host:port (0: a free port), over HTTPS when `tls` is given. 404 elsewhere, 405 for other methods. */
export async function startKeyServer(
  trimmedPem: string,
  host: string,
  port: number,
  tls?: ServerTls,
): Promise<RunningKeyServer> {
  let fetches = 0;
  // The run's log (its HAR): each fetch of the key by the receiver is an exchange of the run too.
  const log = currentExchangeLog();
  let origin = '';
  const server = createHttpServer(
    { requestTimeout: 10_000, headersTimeout: 10_000 },
    (req, res) => {
      const startedAt = Date.now();
      const t0 = performance.now();
      const answer = (status: number, headers: FieldLines, text: string): void => {
        const body = Buffer.from(text, 'utf8');
        const lines: FieldLines = [...headers, ['content-length', String(body.length)]];
        res.writeHead(status, lines.flat() as unknown as http.OutgoingHttpHeaders);
        res.end(req.method === 'HEAD' ? undefined : body);
        const ms = Math.round((performance.now() - t0) * 1000) / 1000;
        log?.add({
          direction: 'received',
          startedAt,
          durationMs: ms,
          timings: { connect: -1, send: 0, wait: ms, receive: 0 },
          request: {
            method: req.method ?? '',
            url: `${origin}${req.url ?? '/'}`,
            headers: fieldLinesFromRaw(req.rawHeaders),
            body: new Uint8Array(0),
          },
          response: {
            status,
            headers: lines,
            body: req.method === 'HEAD' ? new Uint8Array(0) : body,
          },
          note: "the receiver fetched the audit's webhook public key",
        });
      };
      const path = (req.url ?? '/').split('?')[0];
      if (path !== PUBLIC_KEY_PATH) {
        answer(404, [['content-type', 'text/plain']], 'not found\n');
        return;
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        answer(
          405,
          [
            ['allow', 'GET, HEAD'],
            ['content-type', 'text/plain'],
          ],
          'method not allowed\n',
        );
        return;
      }
      fetches += 1;
      answer(200, [['content-type', 'text/plain']], trimmedPem);
    },
    tls,
  );
  const address = await listen(server, host, port);
  origin = address.origin;
  let closing: Promise<void> | undefined;
  return {
    url: `${address.origin}${PUBLIC_KEY_PATH}`,
    fetches: () => fetches,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
