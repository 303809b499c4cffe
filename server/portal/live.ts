// Server-sent events for the portal's live views: one coalesced "change" event at most every `intervalMs`, to at most
// `maxClients` open streams, written only where the socket keeps up: the API never waits for a portal tab.
import type { ServerResponse } from 'node:http';

export class LiveChanges {
  private readonly clients = new Set<ServerResponse>();
  private timer: NodeJS.Timeout | undefined;
  private readonly heartbeat: NodeJS.Timeout;

  constructor(
    private readonly maxClients = 16,
    private readonly intervalMs = 200,
  ) {
    // A comment line now and then keeps proxies and the browser from timing the stream out.
    this.heartbeat = setInterval(() => this.write(': keep-alive\n\n'), 15_000);
    this.heartbeat.unref();
  }

  get size(): number {
    return this.clients.size;
  }

  /** Opens a stream; false (answered 503) when `maxClients` are open already. */
  open(res: ServerResponse): boolean {
    if (this.clients.size >= this.maxClients) {
      res
        .writeHead(503, { 'content-type': 'text/plain; charset=utf-8', 'retry-after': '5' })
        .end('too many live portal views open\n');
      return false;
    }
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-store',
      connection: 'keep-alive',
    });
    res.write('retry: 2000\n\n');
    this.clients.add(res);
    res.on('close', () => this.clients.delete(res));
    return true;
  }

  /** Something changed: one event reaches every stream within `intervalMs`, however many changes came. */
  changed(): void {
    if (this.timer !== undefined || this.clients.size === 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.write('event: change\ndata: {}\n\n');
    }, this.intervalMs);
  }

  close(): void {
    clearTimeout(this.timer);
    clearInterval(this.heartbeat);
    for (const res of this.clients) res.end();
    this.clients.clear();
  }

  private write(text: string): void {
    // A stream whose reader does not keep up skips events (the next one carries the same news).
    for (const res of this.clients) if (!res.writableNeedDrain) res.write(text);
  }
}
