// Between the verifying endpoint and the reference service: the service's permitted behaviour that a personality
// alone does not give. It answers the next requests with the service's own 503 (a state or nonce store that is down,
// in the spec's error body) when a step asks for it, and delays every answer by the sequence's latency.
import http from 'node:http';
import { createErrorBody } from '../../net/error-body.js';
import { HttpError } from '../../net/http-error.js';
import { listen } from '../../net/listen.js';
import { verificationFailureError } from '../../net/verify-failure.js';
import { sendRequest } from '../http/http-client.js';
import { withoutExchangeLog } from '../http/exchange-log.js';
import type { Outage, OutageCode } from './draws.js';

export interface OutageRelay {
  readonly baseUrl: string;
  /** The next `outage.times` requests are answered 503 with `outage.code` (undefined: none; what was planned is dropped). */
  plan(outage: Outage | undefined): void;
  close(): Promise<void>;
}

/** The 503 the service answers while its store is down (the reference service's words for each code). */
function outageError(code: OutageCode): HttpError {
  if (code === 'NONCE_STORE_UNAVAILABLE')
    return verificationFailureError({ code, step: 11, message: 'nonce store down' });
  return new HttpError(503, code, "the service's state store is unavailable, try again later");
}

const readAll = (req: http.IncomingMessage): Promise<Uint8Array> =>
  new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(new Uint8Array(Buffer.concat(chunks))));
    req.on('error', () => resolve(new Uint8Array(Buffer.concat(chunks))));
  });

export async function startOutageRelay(
  backendUrl: string,
  latencyMs: number,
): Promise<OutageRelay> {
  const pending: OutageCode[] = [];
  let traces = 0;
  const server = http.createServer((req, res) => {
    void (async () => {
      const body = await readAll(req);
      if (latencyMs > 0) await new Promise((r) => setTimeout(r, latencyMs));
      const code = pending.shift();
      if (code !== undefined) {
        traces += 1;
        const text = JSON.stringify(createErrorBody(outageError(code), `outage-${traces}`));
        res.writeHead(503, { 'content-type': 'application/json' }).end(text);
        return;
      }
      const sent = await withoutExchangeLog(() =>
        sendRequest(
          {
            method: req.method ?? 'GET',
            url: `${backendUrl}${req.url ?? '/'}`,
            headers: req.headers,
            body,
          },
          { timeoutMs: 10_000 },
        ),
      );
      const headers = (sent.response?.headers ?? []).filter(
        ([n]) =>
          !['connection', 'keep-alive', 'transfer-encoding', 'content-length'].includes(
            n.toLowerCase(),
          ),
      );
      res
        .writeHead(sent.response?.status ?? 502, headers.flat())
        .end(sent.response?.body ?? new Uint8Array(0));
    })();
  });
  const address = await listen(server, '127.0.0.1', 0);
  return {
    baseUrl: address.origin,
    plan(outage) {
      pending.length = 0;
      for (let i = 0; i < (outage?.times ?? 0); i += 1) pending.push(outage!.code);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
