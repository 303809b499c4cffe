// The runner's webhook receiver: records every call the audited service makes (exact bytes, headers, method),
// answers 200, or a non-200 status on demand so a check can watch the service redeliver. Loopback by default.
import http from 'node:http';
import { DEFAULT_MAX_BODY_BYTES } from '../../net/incoming-request.js';
import { listen } from '../../net/listen.js';
import { currentExchangeLog } from './exchange-log.js';
import { fieldLinesFromRaw, type FieldLines } from '../../src/http/message.js';

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

/** How long to wait for a webhook, and a signal that ends the wait early. */
export interface WaitOptions {
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

/** A loopback endpoint that receives the target's webhooks and lets checks wait for them. */
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

/** Where the webhook listener listens, the largest body it reads and how many webhooks it keeps. */
export interface WebhookListenerOptions {
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** Default 0 (a free port). */
  readonly port?: number;
  /** Bodies above this are cut, recorded as truncated and answered 413. Default DEFAULT_MAX_BODY_BYTES (1 MiB). */
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

/** What a call is matched on before it is numbered and answered. */
type Call = Omit<ReceivedWebhook, 'seq' | 'answeredStatus'>;

/** The listener's records, its answer rules and the waiters woken on each call. */
interface ListenerState {
  readonly maxBody: number;
  readonly maxRecords: number;
  readonly maxKeptBytes: number;
  readonly records: ReceivedWebhook[];
  keptBytes: number;
  readonly rules: Rule[];
  readonly waiters: Set<() => void>;
  seq: number;
  // The run's log (its HAR): every call received goes there too, with what the listener answered.
  readonly log: ReturnType<typeof currentExchangeLog>;
  origin: string;
}

/** Reads the body up to `maxBody` bytes (the rest is dropped) and hands it over at its end. */
function readBody(
  req: http.IncomingMessage,
  maxBody: number,
  onEnd: (body: Uint8Array, truncated: boolean) => void,
): void {
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
  req.on('end', () => onEnd(new Uint8Array(Buffer.concat(chunks)), truncated));
}

function callFrom(req: http.IncomingMessage, body: Uint8Array, truncated: boolean): Call {
  const json = truncated ? undefined : parseJson(body);
  return {
    method: req.method ?? '',
    path: req.url ?? '/',
    headers: fieldLinesFromRaw(req.rawHeaders),
    body,
    ...(json !== undefined ? { json } : {}),
    ...(truncated ? { truncated: true } : {}),
    receivedAt: Date.now(),
  };
}

/** 413 for a cut body; else the status of the first rule with calls left that matches (spending one), or 200. */
function answerStatus(rules: readonly Rule[], call: Call): number {
  if (call.truncated === true) return 413;
  for (const rule of rules) {
    let hit = false;
    try {
      hit = rule.remaining > 0 && rule.match(call);
    } catch {
      hit = false;
    }
    if (hit) {
      rule.remaining -= 1;
      return rule.status;
    }
  }
  return 200;
}

/** Numbers and keeps the call; the oldest go while either bound is exceeded, the newest stays. */
function keepRecord(state: ListenerState, call: Call, status: number): void {
  state.seq += 1;
  state.records.push({ seq: state.seq, ...call, answeredStatus: status });
  state.keptBytes += call.body.length;
  let drop = 0;
  while (
    state.records.length - drop > 1 &&
    (state.records.length - drop > state.maxRecords || state.keptBytes > state.maxKeptBytes)
  )
    state.keptBytes -= state.records[drop++]!.body.length;
  if (drop > 0) state.records.splice(0, drop);
}

function logCall(
  state: ListenerState,
  call: Call,
  status: number,
  startedAt: number,
  t0: number,
): void {
  const readMs = Math.round((performance.now() - t0) * 1000) / 1000;
  state.log?.add({
    direction: 'received',
    startedAt,
    durationMs: readMs,
    timings: { connect: -1, send: readMs, wait: 0, receive: 0 },
    request: {
      method: call.method,
      url: `${state.origin}${call.path}`,
      headers: call.headers,
      body: call.body,
    },
    response: {
      status,
      headers: [
        ['content-type', 'text/plain'],
        ['content-length', '0'],
      ],
      body: new Uint8Array(0),
    },
    note: `webhook #${state.seq} received by the audit's listener`,
  });
}

/** Records each call once its body is read, answers it, logs it and wakes the waiters. */
function handleCall(
  state: ListenerState,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): void {
  const startedAt = Date.now();
  const t0 = performance.now();
  req.on('error', () => res.destroy());
  readBody(req, state.maxBody, (body, truncated) => {
    const call = callFrom(req, body, truncated);
    const status = answerStatus(state.rules, call);
    keepRecord(state, call, status);
    res.writeHead(status, { 'content-type': 'text/plain', 'content-length': '0' });
    res.end();
    logCall(state, call, status, startedAt, t0);
    for (const wake of [...state.waiters]) wake();
  });
}

/** Resolves true as soon as `predicate` holds over the records, false when the time is up or `signal` aborts. */
function waitForRecords(
  state: ListenerState,
  predicate: (received: readonly ReceivedWebhook[]) => boolean,
  { timeoutMs, signal }: WaitOptions,
): Promise<boolean> {
  const holds = (): boolean => {
    try {
      return predicate(state.records);
    } catch {
      return false;
    }
  };
  if (holds()) return Promise.resolve(true);
  if (signal?.aborted || timeoutMs <= 0) return Promise.resolve(false);
  return new Promise<boolean>((resolve) => {
    const done = (value: boolean): void => {
      clearTimeout(timer);
      state.waiters.delete(check);
      signal?.removeEventListener('abort', onAbort);
      resolve(value);
    };
    const check = (): void => {
      if (holds()) done(true);
    };
    const onAbort = (): void => done(false);
    const timer = setTimeout(() => done(holds()), timeoutMs);
    state.waiters.add(check);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Adds a rule answering the next `times` matching calls with `status`; returns its withdrawal. */
function addAnswerRule(
  rules: Rule[],
  match: Rule['match'],
  times: number,
  status: number,
): () => void {
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
}

/** Starts the listener; rejects when the address cannot be bound (e.g. `EADDRINUSE`). */
export async function startWebhookListener(
  options: WebhookListenerOptions = {},
): Promise<WebhookListener> {
  const state: ListenerState = {
    maxBody: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    maxRecords: options.maxRecords ?? 10_000,
    maxKeptBytes: options.maxKeptBytes ?? 64 * 1024 * 1024,
    records: [],
    keptBytes: 0,
    rules: [],
    waiters: new Set(),
    seq: 0,
    log: currentExchangeLog(),
    origin: '',
  };
  const server = http.createServer(
    { requestTimeout: 10_000, headersTimeout: 10_000, keepAliveTimeout: 2_000 },
    (req, res) => handleCall(state, req, res),
  );
  server.on('clientError', (_error, socket) => socket.destroy());

  const { origin: url } = await listen(server, options.host ?? '127.0.0.1', options.port ?? 0);
  state.origin = url;
  let closing: Promise<void> | undefined;

  return {
    url,
    urlFor: (kind) => `${url}/webhooks/${encodeURIComponent(kind)}`,
    received: () => [...state.records],
    waitFor: (predicate, waitOptions) => waitForRecords(state, predicate, waitOptions),
    answerNonOk: (match, times, status = 503) => addAnswerRule(state.rules, match, times, status),
    close() {
      closing ??= new Promise<void>((resolve) => {
        for (const wake of [...state.waiters]) wake();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
