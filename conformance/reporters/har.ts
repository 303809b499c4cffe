// The run's exchanges as an HTTP Archive (HAR 1.2): every request the audit sent and every call it received, in the
// order each ended, for a reviewer's own tools (a browser's network panel, HAR viewers). Masked with the run's
// redactor through the same evidence views the findings use, then the engine's last-line scrub; bodies cut at the
// evidence cap, each cut said in the entry's `comment`; each entry names its request's W3C trace id (`_traceId`).
import type { ExchangeLog, LoggedExchange } from '../http/exchange-log.js';
import { EVIDENCE_BODY_BYTES, EvidenceBudget, evidenceView } from '../run/grade.js';
import { createRedactor, scrubValues, type Redactor } from '../report/redact.js';
import type { BodyView, RequestView, ResponseView } from '../run/result.js';
import { traceIdOf } from '../http/trace-context.js';

/** `--report har:FILE`: not a rendering of the summary but of the run's traffic, so a format of its own. */
export const HAR_FORMAT = 'har';

export interface HarOptions {
  readonly toolVersion: string;
  /** Default: the redactor the run handed the log, else one that masks the structural secret forms. */
  readonly redactor?: Redactor;
  /** Bytes of one body kept (default the evidence cap, EVIDENCE_BODY_BYTES). */
  readonly bodyBytes?: number;
}

interface HarNameValue {
  readonly name: string;
  readonly value: string;
}

/** One HAR entry, with payconform's own member (`_payconform`, as HAR 1.2 allows custom fields with `_`). */
export interface HarEntry {
  readonly startedDateTime: string;
  readonly time: number;
  readonly request: {
    readonly method: string;
    readonly url: string;
    readonly httpVersion: string;
    readonly cookies: readonly never[];
    readonly headers: readonly HarNameValue[];
    readonly queryString: readonly HarNameValue[];
    readonly postData?: {
      readonly mimeType: string;
      readonly text: string;
      readonly encoding?: 'base64';
      readonly comment?: string;
    };
    readonly headersSize: -1;
    readonly bodySize: number;
  };
  readonly response: {
    readonly status: number;
    readonly statusText: string;
    readonly httpVersion: string;
    readonly cookies: readonly never[];
    readonly headers: readonly HarNameValue[];
    readonly content: {
      readonly size: number;
      readonly mimeType: string;
      readonly text?: string;
      readonly encoding?: 'base64';
      readonly comment?: string;
    };
    readonly redirectURL: string;
    readonly headersSize: -1;
    readonly bodySize: number;
    readonly _error?: string;
  };
  readonly cache: Record<string, never>;
  readonly timings: {
    readonly blocked: -1;
    readonly dns: -1;
    readonly ssl: -1;
    readonly connect: number;
    readonly send: number;
    readonly wait: number;
    readonly receive: number;
  };
  readonly comment?: string;
  readonly _payconform: { readonly index: number; readonly direction: 'sent' | 'received' };
  /**
   * The W3C trace id of the request's `traceparent` (every request payconform sends carries one; a call it received,
   * only when its sender sent one), as the findings' `evidence.traceId` names it.
   */
  readonly _traceId?: string;
}

/** A HAR 1.2 document of the run's exchanges. */
export interface HarDocument {
  readonly log: {
    readonly version: '1.2';
    readonly creator: { readonly name: 'payconform'; readonly version: string };
    /** Optional in HAR 1.2, but Chromium's importer (DevTools, Network, Import HAR) iterates it: always present. */
    readonly pages: readonly never[];
    readonly entries: readonly HarEntry[];
    readonly comment: string;
  };
}

const header = (
  lines: ReadonlyArray<readonly [string, string]>,
  name: string,
): string | undefined => lines.find(([n]) => n.toLowerCase() === name)?.[1];

const nameValues = (lines: ReadonlyArray<readonly [string, string]>): HarNameValue[] =>
  lines.map(([name, value]) => ({ name, value }));

function queryString(url: string): HarNameValue[] {
  try {
    return [...new URL(url).searchParams].map(([name, value]) => ({ name, value }));
  } catch {
    return [];
  }
}

/** A body view as HAR text: the text, or base64 with `encoding`; the cut, when there is one, as the comment. */
function bodyText(body: BodyView): { text?: string; encoding?: 'base64'; comment?: string } {
  return {
    ...(body.text !== undefined ? { text: body.text } : {}),
    ...(body.base64 !== undefined ? { text: body.base64, encoding: 'base64' as const } : {}),
    ...(body.cut !== undefined ? { comment: body.cut } : {}),
  };
}

function harRequest(view: RequestView): HarEntry['request'] {
  const body = bodyText(view.body);
  const hasBody = view.body.bytes > 0 || body.text !== undefined;
  return {
    method: view.method,
    url: view.url,
    httpVersion: 'HTTP/1.1',
    cookies: [],
    headers: nameValues(view.headers),
    queryString: queryString(view.url),
    ...(hasBody
      ? {
          postData: {
            mimeType: header(view.headers, 'content-type') ?? '',
            text: body.text ?? '',
            ...(body.encoding !== undefined ? { encoding: body.encoding } : {}),
            ...(body.comment !== undefined ? { comment: body.comment } : {}),
          },
        }
      : {}),
    headersSize: -1,
    bodySize: view.body.bytes,
  };
}

function harResponse(
  view: ResponseView | undefined,
  error: string | undefined,
): HarEntry['response'] {
  if (view === undefined)
    return {
      status: 0,
      statusText: '',
      httpVersion: '',
      cookies: [],
      headers: [],
      content: { size: 0, mimeType: 'x-unknown' },
      redirectURL: '',
      headersSize: -1,
      bodySize: -1,
      ...(error !== undefined ? { _error: error } : {}),
    };
  return {
    status: view.status,
    statusText: view.statusText ?? '',
    httpVersion: 'HTTP/1.1',
    cookies: [],
    headers: nameValues(view.headers),
    content: {
      size: view.body.bytes,
      mimeType: header(view.headers, 'content-type') ?? 'x-unknown',
      ...bodyText(view.body),
    },
    redirectURL: header(view.headers, 'location') ?? '',
    headersSize: -1,
    bodySize: view.body.bytes,
    ...(error !== undefined ? { _error: error } : {}),
  };
}

function harEntry(
  exchange: LoggedExchange,
  index: number,
  redactor: Redactor,
  bodyBytes: number,
): HarEntry {
  // The evidence views the findings use: the same masking, the same cut, the same words for it.
  const view = evidenceView(
    {
      request: exchange.request,
      ...(exchange.response !== undefined ? { response: exchange.response } : {}),
    },
    redactor,
    new EvidenceBudget(bodyBytes, Number.MAX_SAFE_INTEGER),
  );
  const error =
    exchange.error !== undefined
      ? redactor.redactText(`${exchange.error.code}: ${exchange.error.message}`)
      : undefined;
  const traceId = traceIdOf(view.request!.headers);
  const { connect, send, wait, receive } = exchange.timings;
  const comment = [
    exchange.note,
    error,
    view.request?.body.cut !== undefined ? `request ${view.request.body.cut}` : undefined,
    view.response?.body.cut !== undefined ? `response ${view.response.body.cut}` : undefined,
  ].filter((c): c is string => c !== undefined);
  return {
    startedDateTime: new Date(exchange.startedAt).toISOString(),
    time: Math.round((Math.max(0, connect) + send + wait + receive) * 1000) / 1000,
    request: harRequest(view.request!),
    response: harResponse(view.response, error),
    cache: {},
    timings: { blocked: -1, dns: -1, ssl: -1, connect, send, wait, receive },
    ...(comment.length > 0 ? { comment: comment.join('; ') } : {}),
    _payconform: { index, direction: exchange.direction },
    ...(traceId !== undefined ? { _traceId: traceId } : {}),
  };
}

/** The log as a HAR 1.2 document, masked and scrubbed. */
export function toHar(log: ExchangeLog, options: HarOptions): HarDocument {
  const redactor = options.redactor ?? log.redactor ?? createRedactor();
  const bodyBytes = Math.min(options.bodyBytes ?? EVIDENCE_BODY_BYTES, log.bodyLimit);
  const entries = log.entries().map((e, i) => harEntry(e, i, redactor, bodyBytes));
  const dropped =
    log.dropped > 0 ? ` ${log.dropped} later exchange(s) not kept (the log was full).` : '';
  return scrubValues(
    {
      log: {
        version: '1.2',
        creator: { name: 'payconform', version: options.toolVersion },
        pages: [],
        entries,
        comment: `Every exchange of the audit run, in the order each ended; secrets masked; bodies cut at ${bodyBytes} bytes.${dropped} Findings in the JSON report name their entries by index (harEntries).`,
      },
    },
    redactor,
  );
}

/** The HAR as the file's text. */
export function renderHar(log: ExchangeLog, options: HarOptions): string {
  return `${JSON.stringify(toHar(log, options), null, 2)}\n`;
}
