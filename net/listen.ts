// Binds an HTTP(S) server to host:port and says where it listens. Shared by the reference service and the audit's own
// endpoints (conformance/ already imports server/, so the helper lives here and the arrows keep one direction).
import type { AddressInfo, Server } from 'node:net';
import { servesHttps } from './tls.js';

export interface ListeningAddress {
  /** The bound address as the socket reports it (IPv6 without brackets). */
  readonly host: string;
  readonly port: number;
  /** `http://host:port` (`https://` for a TLS server), IPv6 in brackets. */
  readonly origin: string;
}

/** Listens on host:port (0: a free port); rejects when the address cannot be bound (e.g. `EADDRINUSE`). */
export async function listen(
  server: Server,
  host: string,
  port: number,
): Promise<ListeningAddress> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const scheme = servesHttps(server) ? 'https' : 'http';
  // The scheme's default port is left out, as a client writes the URL (and signs @authority).
  const defaultPort = scheme === 'https' ? 443 : 80;
  return {
    host: address.address,
    port: address.port,
    origin: `${scheme}://${urlHost}${address.port === defaultPort ? '' : `:${address.port}`}`,
  };
}
