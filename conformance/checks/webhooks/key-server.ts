// Serves the audit's webhook public key as the service does: `GET /.well-known/signature/pem`, the trimmed PEM body.
import { listen } from '../../../net/listen.js';
import { createHttpServer, type ServerTls } from '../../../net/tls.js';
import { endpointSpecs } from '../../client-audit/endpoints.js';

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
  const server = createHttpServer(
    { requestTimeout: 10_000, headersTimeout: 10_000 },
    (req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      if (path !== PUBLIC_KEY_PATH) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
        return;
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res
          .writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' })
          .end('method not allowed\n');
        return;
      }
      fetches += 1;
      const body = Buffer.from(trimmedPem, 'utf8');
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(body.length) });
      res.end(req.method === 'HEAD' ? undefined : body);
    },
    tls,
  );
  const address = await listen(server, host, port);
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
