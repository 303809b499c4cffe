// The runner's webhook receiver: records every call the audited service makes (exact bytes, headers, method),
// answers 200, or a non-200 status on demand so a check can watch the service redeliver. Loopback by default.
import http from 'node:http';
import { listen } from '../net/listen.js';
import { currentExchangeLog } from './exchange-log.js';
import { fieldLinesFromRaw, type FieldLines } from '../src/http/message.js';

/** One call the listener received. */
export interface ReceivedWebhook {
  /** 1, 2, 3... in arrival order. */
  readonly seq: number;
  readonly method: string;
  /** The request target as received (path and query). */
  readonly path: string;
  readonly headers: FieldLines;
  /** The exact body bytes (cut at the size limit when `truncated`). */
  readonly body: Uint8Array;
  /** The body parsed as JSON, when it parses. */
  readonly json?: unknown;
  readonly truncated?: boolean;
  /** Milliseconds since the epoch. */
  readonly receivedAt: number;
  /** What the listener answered. */
  readonly answeredStatus: number;
}

export interface WaitOptions {
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

export interface WebhookListener {
  /** Base URL, e.g. `http://127.0.0.1:43123` (no trailing slash). */
  readonly url: string;
  /** A URL per webhook kind (`payment`, `payout`, `refund`), for services whose URLs the runner configures. */
  urlFor(kind: string): string;
  /** Everything received so far, oldest first. */
  received(): readonly ReceivedWebhook[];
  /**
   * Resolves true as soon as `predicate` holds over everything received, false when the time is up or `signal`
   * aborts. Never rejects.
   */
  waitFor(
    predicate: (received: readonly ReceivedWebhook[]) => boolean,
    options: WaitOptions,
  ): Promise<boolean>;
  /**
   * The next `times` calls whose (parsed) call matches are answered with `status` instead of 200 (to test
   * redelivery). Returns a function that withdraws what is left of the rule.
   */
  answerNonOk(
    match: (call: Omit<ReceivedWebhook, 'seq' | 'answeredStatus'>) => boolean,
    times: number,
    status?: number,
  ): () => void;
  close(): Promise<void>;
}

export interface WebhookListenerOptions {
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** Default 0 (a free port). */
  readonly port?: number;
  /** Bodies above this are cut, recorded as truncated and answered 413. Default 1 MiB. */
  readonly maxBodyBytes?: number;
  /** Records kept; the oldest are dropped beyond this. Default 10 000. */
  readonly maxRecords?: number;
  /**
   * Body bytes kept over all records; the oldest records are dropped beyond this (the newest is always kept).
   * Default 64 MiB, so that a target sending many large webhooks cannot grow the audit's memory without bound.
   */
  readonly maxKeptBytes?: number;
}

interface Rule {
  readonly match: (call: Omit<ReceivedWebhook, 'seq' | 'answeredStatus'>) => boolean;
  remaining: number;
  readonly status: number;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function parseJson(body: Uint8Array): unknown {
  try {
    return JSON.parse(utf8.decode(body)) as unknown;
  } catch {
    return undefined;
  }
}

/** Starts the listener; rejects when the address cannot be bound (e.g. `EADDRINUSE`). */
export async function startWebhookListener(
  options: WebhookListenerOptions = {},
): Promise<WebhookListener> {
  const maxBody = options.maxBodyBytes ?? 1024 * 1024;
  const maxRecords = options.maxRecords ?? 10_000;
  const maxKeptBytes = options.maxKeptBytes ?? 64 * 1024 * 1024;
  const records: ReceivedWebhook[] = [];
  let keptBytes = 0;
  const rules: Rule[] = [];
  const waiters = new Set<() => void>();
  let seq = 0;
  // The run's log (its HAR): every call received goes there too, with what the listener answered.
  const log = currentExchangeLog();
  let origin = '';

  const server = http.createServer(
    { requestTimeout: 10_000, headersTimeout: 10_000, keepAliveTimeout: 2_000 },
    (req, res) => {
      const startedAt = Date.now();
      const t0 = performance.now();
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      req.on('data', (chunk: Buffer) => {
        if (truncated) return;
        size += chunk.length;
        if (size > maxBody) {
          truncated = true;
          chunks.push(chunk.subarray(0, chunk.length - (size - maxBody)));
          return;
        }
        chunks.push(chunk);
      });
      req.on('error', () => res.destroy());
      req.on('end', () => {
        const body = new Uint8Array(Buffer.concat(chunks));
        const json = truncated ? undefined : parseJson(body);
        const call = {
          method: req.method ?? '',
          path: req.url ?? '/',
          headers: fieldLinesFromRaw(req.rawHeaders),
          body,
          ...(json !== undefined ? { json } : {}),
          ...(truncated ? { truncated: true } : {}),
          receivedAt: Date.now(),
        };
        let status = truncated ? 413 : 200;
        if (!truncated) {
          for (const rule of rules) {
            let hit = false;
            try {
              hit = rule.remaining > 0 && rule.match(call);
            } catch {
              hit = false;
            }
            if (hit) {
              rule.remaining -= 1;
              status = rule.status;
              break;
            }
          }
        }
        seq += 1;
        records.push({ seq, ...call, answeredStatus: status });
        keptBytes += body.length;
        // The oldest go while either bound is exceeded; the newest stays.
        let drop = 0;
        while (
          records.length - drop > 1 &&
          (records.length - drop > maxRecords || keptBytes > maxKeptBytes)
        )
          keptBytes -= records[drop++]!.body.length;
        if (drop > 0) records.splice(0, drop);
        res.writeHead(status, { 'content-type': 'text/plain', 'content-length': '0' });
        res.end();
        const readMs = Math.round((performance.now() - t0) * 1000) / 1000;
        log?.add({
          direction: 'received',
          startedAt,
          durationMs: readMs,
          timings: { connect: -1, send: readMs, wait: 0, receive: 0 },
          request: {
            method: call.method,
            url: `${origin}${call.path}`,
            headers: call.headers,
            body,
          },
          response: {
            status,
            headers: [
              ['content-type', 'text/plain'],
              ['content-length', '0'],
            ],
            body: new Uint8Array(0),
          },
          note: `webhook #${seq} received by the audit's listener`,
        });
        for (const wake of [...waiters]) wake();
      });
    },
  );
  server.on('clientError', (_error, socket) => socket.destroy());

  const { origin: url } = await listen(server, options.host ?? '127.0.0.1', options.port ?? 0);
  origin = url;
  let closing: Promise<void> | undefined;

  return {
    url,
    urlFor: (kind) => `${url}/webhooks/${encodeURIComponent(kind)}`,
    received: () => [...records],
    waitFor(predicate, { timeoutMs, signal }) {
      const holds = (): boolean => {
        try {
          return predicate(records);
        } catch {
          return false;
        }
      };
      if (holds()) return Promise.resolve(true);
      if (signal?.aborted || timeoutMs <= 0) return Promise.resolve(false);
      return new Promise<boolean>((resolve) => {
        const done = (value: boolean): void => {
          clearTimeout(timer);
          waiters.delete(check);
          signal?.removeEventListener('abort', onAbort);
          resolve(value);
        };
        const check = (): void => {
          if (holds()) done(true);
        };
        const onAbort = (): void => done(false);
        const timer = setTimeout(() => done(holds()), timeoutMs);
        waiters.add(check);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
    answerNonOk(match, times, status = 503) {
      if (!Number.isInteger(times) || times < 0)
        throw new TypeError('times must be a non-negative integer');
      if (!Number.isInteger(status) || status < 100 || status > 599 || status === 200)
        throw new TypeError('status must be an HTTP status other than 200');
      const rule: Rule = { match, remaining: times, status };
      rules.push(rule);
      return () => {
        rule.remaining = 0;
        const i = rules.indexOf(rule);
        if (i !== -1) rules.splice(i, 1);
      };
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        for (const wake of [...waiters]) wake();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
