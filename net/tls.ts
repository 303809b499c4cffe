// TLS for the reference service and the audits' own endpoints: a certificate for the loopback names, issued at start
// by a throwaway CA whose certificate the client under test is told to trust (spec, Authentication: "HTTPS only").
import http from 'node:http';
import https from 'node:https';
import type { RequestListener, ServerOptions } from 'node:http';
import type net from 'node:net';
import type { TLSSocket } from 'node:tls';

/** What an HTTPS listener needs: a certificate chain and its private key, both PEM. */
export interface ServerTls {
  readonly cert: string;
  readonly key: string;
}

/** A generated loopback certificate and the CA certificate that issued it (the CA's private key is discarded). */
export interface GeneratedLoopbackTls extends ServerTls {
  /** PEM of the issuing CA: what a client must trust. */
  readonly caCert: string;
}

/** The names the generated certificate is valid for. */
export const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1'] as const;

const DAY_MS = 86_400_000;

/**
 * Issues a test-only CA and, from it, an ECDSA P-256 server certificate for `localhost`, `127.0.0.1` and `::1`, valid
 * for `validDays` (from one minute ago, to absorb clock skew). The CA's private key never leaves this function.
 */
export async function generateLoopbackTls(validDays = 7): Promise<GeneratedLoopbackTls> {
  const notBeforeDate = new Date(Date.now() - 60_000);
  const notAfterDate = new Date(notBeforeDate.getTime() + validDays * DAY_MS);
  const common = {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
  } as const;
  // Loaded here: only a --tls run pays for the X.509 library.
  const { default: selfsigned } = await import('selfsigned');
  const ca = await selfsigned.generate(
    [{ name: 'commonName', value: 'payconform test-only CA (generated at start)' }],
    {
      ...common,
      extensions: [
        { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
        { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
      ],
    },
  );
  const leaf = await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], {
    ...common,
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  return { cert: leaf.cert, key: leaf.private, caCert: ca.cert };
}

/** An HTTP server, or an HTTPS one when `tls` is given; the same options and listener either way. */
export function createHttpServer(
  options: ServerOptions,
  listener: RequestListener,
  tls?: ServerTls,
): http.Server | https.Server {
  return tls === undefined
    ? http.createServer(options, listener)
    : https.createServer({ ...options, cert: tls.cert, key: tls.key }, listener);
}

/** True when the request arrived over TLS. */
export function arrivedOverTls(socket: net.Socket): boolean {
  return (socket as TLSSocket).encrypted === true;
}

/** True for an HTTPS server (its origin is `https://`). */
export function servesHttps(server: net.Server): boolean {
  return server instanceof https.Server;
}
