// Binds an HTTP server to host:port and says where it listens. Shared by the reference service and the audit's own
// endpoints (conformance/ already imports server/, so the helper lives here and the arrows keep one direction).
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ListeningAddress {
  /** The bound address as the socket reports it (IPv6 without brackets). */
  readonly host: string;
  readonly port: number;
  /** `http://host:port`, IPv6 in brackets. */
  readonly origin: string;
}

/** Listens on host:port (0: a free port); rejects when the address cannot be bound (e.g. `EADDRINUSE`). */
export async function listen(server: Server, host: string, port: number): Promise<ListeningAddress> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return { host: address.address, port: address.port, origin: `http://${urlHost}:${address.port}` };
}
