// The wire edge: raw body bytes with a size cap, the HttpRequest the verifier sees, and JSON/text responses.
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  fieldLinesFromRaw,
  getFieldValues,
  type FieldLines,
  type HttpRequest,
} from '../src/http/message.js';
import { HttpError } from './http-error.js';
import { findRepeatedMember } from './json-members.js';
import { arrivedOverTls } from './tls.js';

/** The client closed or reset the connection (or the server's request timeout did) before the body ended. */
export class RequestAborted extends Error {
  override name = 'RequestAborted';
}

/**
 * Collects the exact body bytes; more than `maxBytes` is a 413 (the rest of the body is not read), `limitNote` says
 * which limit applied. A connection that ends before the body does rejects with RequestAborted.
 */
export function readBody(
  req: IncomingMessage,
  maxBytes: number,
  limitNote = '',
): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) {
      reject(
        new HttpError(
          413,
          'body_too_large',
          `request body of ${declared} bytes exceeds the limit of ${maxBytes} bytes${limitNote}`,
        ),
      );
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const abort = (reason: string): void => {
      if (done) return;
      done = true;
      chunks.length = 0;
      reject(new RequestAborted(reason));
    };
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > maxBytes) {
        done = true;
        chunks.length = 0;
        reject(
          new HttpError(
            413,
            'body_too_large',
            `request body exceeds the limit of ${maxBytes} bytes${limitNote}`,
          ),
        );
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (done) return;
      done = true;
      resolve(new Uint8Array(Buffer.concat(chunks)));
    });
    req.on('error', (error) => abort(`connection ended before the body (${error.message})`));
    req.on('close', () => abort('connection closed before the body ended'));
  });
}

// RFC 9110 §7.2 / RFC 3986 §3.2: uri-host [ ":" port ], host an IP-literal or a reg-name. Nothing that would end the
// authority inside a URL (`/`, `?`, `#`, `@`): a Host of `a.example/x#` would otherwise move the path the signature is
// checked against away from the path the application routes on.
const AUTHORITY =
  /^(?:\[[0-9A-Fa-f:.]+\]|(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})+)(?::[0-9]*)?$/;
/** Whether `text` is `host[:port]` and nothing more (no path, query, fragment, userinfo or whitespace). */
export function isAuthority(text: string): boolean {
  return AUTHORITY.test(text);
}

/**
 * The request as the verifier must see it: method as sent, the Host header as received for @authority (the scheme
 * that of the connection; the profile omits ports 80 and 443 whatever the scheme),
 * `req.url` unmodified for @path, every raw field line (Node drops a duplicate Content-Type from `req.headers`).
 */
export function toHttpRequest(req: IncomingMessage, body: Uint8Array): HttpRequest {
  const headers = fieldLinesFromRaw(req.rawHeaders);
  // RFC 9112 §3.2: a request with more than one Host field line gets 400; a proxy reading the last one would see an
  // authority other than the one signed.
  singleHeader(headers, 'host');
  const target = req.url ?? '/';
  const host = getFieldValues(headers, 'host')[0] ?? '';
  // A Host carrying `/`, `?` or `#` would move the @path verified away from the path routed on (`a.example/x#`).
  if (host !== '' && !isAuthority(host))
    throw new HttpError(
      400,
      'bad_host',
      `"Host" ${JSON.stringify(host.slice(0, 100))} is not host[:port]`,
    );
  const scheme = arrivedOverTls(req.socket) ? 'https' : 'http';
  const url = target.startsWith('/') ? `${scheme}://${host}${target}` : target;
  return { method: req.method ?? '', url, headers, body };
}

/** The path without the query, for routing only (never for @path). */
export function routingPath(rawTarget: string): string {
  if (!rawTarget.startsWith('/')) {
    try {
      return new URL(rawTarget).pathname;
    } catch {
      throw new HttpError(
        400,
        'bad_request_target',
        'request target is neither origin-form nor absolute-form',
      );
    }
  }
  const q = rawTarget.indexOf('?');
  return q === -1 ? rawTarget : rawTarget.slice(0, q);
}

export function queryParams(rawTarget: string): URLSearchParams {
  const q = rawTarget.indexOf('?');
  return new URLSearchParams(q === -1 ? '' : rawTarget.slice(q + 1));
}

/** The single value of a header; two or more field lines of it are a 400 for headers that must be singletons. */
export function singleHeader(headers: FieldLines, name: string): string | undefined {
  const values = getFieldValues(headers, name);
  if (values.length > 1)
    throw new HttpError(400, 'duplicate_header', `header "${name}" sent ${values.length} times`);
  return values[0];
}

/** The media type of a Content-Type value, lowercased, parameters dropped. */
export function mediaType(contentType: string): string {
  return (contentType.split(';')[0] ?? '').trim().toLowerCase();
}

/** 415 unless the request's Content-Type is one of `accepted` (compared by media type, parameters ignored). */
export function requireContentType(headers: FieldLines, accepted: readonly string[]): void {
  const value = singleHeader(headers, 'content-type');
  if (value === undefined)
    throw new HttpError(
      415,
      'missing_content_type',
      `Content-Type is required: ${accepted.join(' or ')}`,
    );
  if (!accepted.includes(mediaType(value))) {
    throw new HttpError(
      415,
      'unsupported_media_type',
      `Content-Type "${value}" is not supported: use ${accepted.join(' or ')}`,
    );
  }
}

/** One Accept range: its media type (lower case, parameters other than q dropped) and its weight (RFC 9110 §12.4.2). */
function acceptRange(text: string): { readonly type: string; readonly q: number } | undefined {
  const [head = '', ...params] = text.split(';');
  const type = head.trim().toLowerCase();
  if (!/^[^/\s]+\/[^/\s]+$/.test(type)) return undefined;
  let q = 1;
  for (const p of params) {
    const m = /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(p);
    // A weight outside RFC 9110's qvalue grammar is read as the default 1 (lenient: the client meant to accept).
    if (m && /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/.test(m[1]!)) q = Number(m[1]);
  }
  return { type, q };
}

// How specifically `range` names `type`: 3 exact, 2 `type/*`, 1 `*/*`, 0 not at all.
function specificity(range: string, type: string): number {
  if (range === type) return 3;
  if (range === '*/*') return 1;
  return range.endsWith('/*') && type.startsWith(range.slice(0, -1)) ? 2 : 0;
}

// 406 when an Accept header is sent and gives none of `offered` a weight above 0. Each offered type takes the weight
// of the most specific range that names it (RFC 9110 §12.5.1), so `q=0` refuses a type: `application/json;q=0`
// alone admits nothing, and `*/*;q=0` beside an exact type admits only that type.
export function requireAcceptable(headers: FieldLines, offered: readonly string[]): void {
  const values = getFieldValues(headers, 'accept');
  if (values.length === 0) return;
  const ranges = values
    .join(',')
    .split(',')
    .map(acceptRange)
    .filter((r) => r !== undefined);
  if (ranges.length === 0) return;
  const weight = (type: string): number => {
    let best = 0;
    let q = 0;
    for (const r of ranges) {
      const s = specificity(r.type, type);
      if (s > best || (s === best && s > 0 && r.q > q)) {
        best = s;
        q = r.q;
      }
    }
    return best === 0 ? 0 : q;
  };
  if (!offered.some((t) => weight(t.toLowerCase()) > 0))
    throw new HttpError(
      406,
      'not_acceptable',
      `Accept "${values.join(', ')}" admits none of ${offered.join(', ')}`,
    );
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Parses a JSON body; 400 for invalid UTF-8 or JSON. */
export function parseJsonBody(body: Uint8Array): unknown {
  let text: string;
  try {
    text = strictUtf8.decode(body);
  } catch {
    throw new HttpError(400, 'malformed_json', 'request body is not valid UTF-8');
  }
  if (text.trim() === '')
    throw new HttpError(400, 'malformed_json', 'request body is empty; a JSON object is required');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new HttpError(
      400,
      'malformed_json',
      `request body is not valid JSON: ${error instanceof Error ? error.message : 'parse error'}`,
    );
  }
  const repeated = findRepeatedMember(text);
  if (repeated !== undefined)
    throw new HttpError(
      400,
      'duplicate_json_member',
      `request body repeats the member ${JSON.stringify(repeated.name)} in the object at ${JSON.stringify(repeated.pointer)} (RFC 8259 §4: names SHOULD be unique; readers differ on which one counts)`,
    );
  return value;
}

export function send(
  res: ServerResponse,
  status: number,
  contentType: string,
  body: string | Uint8Array,
  headers: Readonly<Record<string, string>> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body);
  res.writeHead(status, {
    ...headers,
    'content-type': contentType,
    'content-length': String(bytes.length),
  });
  res.end(bytes);
}
