// Connections opened (and, for https, past the TLS handshake) before a concurrency probe releases its requests, so
// that connection set-up and a target's short accept queue are not part of what the probe measures.
import net from 'node:net';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';

export interface WarmOptions {
  /** How long to wait for every connection to open; one still opening then is dropped (its request goes alone). */
  readonly timeoutMs: number;
  /** For https: the CA certificate(s) to trust instead of the system's. */
  readonly ca?: string;
  readonly signal?: AbortSignal;
}

/** Opens one connection; resolves undefined (never rejects) when it fails or is not open within the time. */
function openOne(url: URL, options: WarmOptions): Promise<Duplex | undefined> {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const https = url.protocol === 'https:';
  const port = Number(url.port || (https ? 443 : 80));
  return new Promise((resolve) => {
    const socket = https
      ? tls.connect({
          host,
          port,
          ...(net.isIP(host) === 0 ? { servername: host } : {}),
          ...(options.ca !== undefined ? { ca: options.ca } : {}),
          ALPNProtocols: ['http/1.1'],
        })
      : net.connect({ host, port });
    let done = false;
    const settle = (ok: boolean): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      socket.removeListener('error', onError);
      if (!ok) socket.destroy();
      // A connection the target closes while it waits for its request is noticed when the request is written.
      if (ok) socket.on('error', () => {});
      resolve(ok ? socket : undefined);
    };
    const onError = (): void => settle(false);
    const onAbort = (): void => settle(false);
    const timer = setTimeout(() => settle(false), options.timeoutMs);
    socket.once('error', onError);
    socket.once(https ? 'secureConnect' : 'connect', () => settle(true));
    options.signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Opens `count` connections to the origin of `target` at once and waits until all are open (or the time is up).
 * Slot i holds connection i, or undefined when it did not open in time.
 */
export function openConnections(
  target: string,
  count: number,
  options: WarmOptions,
): Promise<Array<Duplex | undefined>> {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return Promise.resolve(Array.from({ length: count }, () => undefined));
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return Promise.resolve(Array.from({ length: count }, () => undefined));
  return Promise.all(Array.from({ length: count }, () => openOne(url, options)));
}
