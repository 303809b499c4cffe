// From a node:http request to the HttpRequest that verifyRequest checks: every raw field line as received, the
// request target as sent, and one stated rule for the scheme and authority (the connection and its Host header, or a
// proxy's headers only when the caller trusts that proxy), plus the exact body bytes read under a size cap.
import type { IncomingMessage } from 'node:http';
import { fieldLinesFromRaw, getFieldValues, type HttpRequest } from '../src/http/message.js';
import { watchBodyDeadline, type BodyLimits } from './body-deadline.js';
import { HttpError } from './http-error.js';
import { isAuthority, readBody, RequestAborted } from './http-io.js';

/** A proxy in front of the service whose headers say how the client reached it. */
export interface ProxyTrust {
  /** `x-forwarded`: X-Forwarded-Proto and X-Forwarded-Host; `forwarded`: RFC 7239 Forwarded (`proto=`, `host=`). */
  readonly headers: 'x-forwarded' | 'forwarded';
  /**
   * The proxy's addresses as the socket reports them (e.g. `10.0.0.5`, `::ffff:10.0.0.5` matches too); a request from
   * any other peer is read as a direct one. Default: every peer (only when the service cannot be reached but through
   * the proxy: anyone else could otherwise choose the authority the signature is checked against).
   */
  readonly addresses?: readonly string[];
}

/**
 * How a `node:http` request becomes an `HttpRequest`: which proxy's headers to trust for scheme
 * and authority.
 */
export interface IncomingRequestOptions {
  /** Trust this proxy's headers for the scheme and authority; default: none (the connection and Host). */
  readonly trustProxy?: ProxyTrust;
  /**
   * The request target as received, when a framework rewrote `req.url` (Express under a mount path: pass
   * `req.originalUrl`); default `req.url`.
   */
  readonly target?: string;
}

/** Why a request cannot be turned into the HttpRequest the signature was made over (answered with 400). */
export type IncomingRequestErrorCode = 'HOST_INVALID' | 'TARGET_INVALID' | 'FORWARDED_INVALID';

/** The `HttpRequest` built from a `node:http` request, or why it could not be. */
export type IncomingRequestResult =
  | { readonly ok: true; readonly request: HttpRequest }
  | { readonly ok: false; readonly code: IncomingRequestErrorCode; readonly message: string };

// RFC 9112 §3.2.1 origin-form: absolute-path [ "?" query ], visible ASCII, no fragment.
const ORIGIN_FORM = /^\/[\x21-\x7e]*$/;
const ABSOLUTE_FORM = /^(https?):\/\/([^/?#]*)([\x21-\x7e]*)$/i;

/**
 * The HttpRequest of a node:http request and its body bytes. The rule (docs/library.md, "Where the request is
 * received"): method as sent; field lines from `rawHeaders` in order (RFC 9421 §2.1: nothing combined or dropped);
 * the target as sent. Scheme: `https` when the connection is TLS, else `http`. Authority: the one Host field line
 * (none or several: HOST_INVALID, as RFC 9112 §3.2 makes them a 400); a target in absolute-form carries its own
 * (RFC 9112 §3.2.2). With `trustProxy`, and the peer among its addresses, the nearest proxy's value (the last one) of
 * X-Forwarded-Proto / X-Forwarded-Host or of Forwarded's `proto` / `host` replaces each one it gives.
 */
export function httpRequestFromIncoming(
  req: IncomingMessage,
  body: Uint8Array,
  options: IncomingRequestOptions = {},
): IncomingRequestResult {
  const headers = fieldLinesFromRaw(req.rawHeaders);
  const target = options.target ?? req.url ?? '';
  let scheme = isTls(req) ? 'https' : 'http';
  let authority: string;
  let rest: string;
  const absolute = ABSOLUTE_FORM.exec(target);
  if (absolute !== null) {
    scheme = absolute[1]!.toLowerCase();
    authority = absolute[2]!;
    rest = absolute[3] === '' ? '/' : absolute[3]!;
    if (!rest.startsWith('/') && !rest.startsWith('?'))
      return invalid('TARGET_INVALID', 'request target in absolute-form has no path');
  } else if (ORIGIN_FORM.test(target)) {
    const hosts = getFieldValues(headers, 'host');
    if (hosts.length !== 1)
      return invalid('HOST_INVALID', `the request has ${hosts.length} "Host" field lines, not one`);
    authority = hosts[0]!;
    rest = target;
  } else {
    return invalid(
      'TARGET_INVALID',
      `request target ${JSON.stringify(target.slice(0, 100))} is not in origin-form or absolute-form`,
    );
  }
  if (target.includes('#')) return invalid('TARGET_INVALID', 'request target carries a fragment');
  if (options.trustProxy !== undefined && fromProxy(req, options.trustProxy)) {
    const forwarded = forwardedValues(headers, options.trustProxy.headers);
    if (!forwarded.ok) return forwarded;
    if (forwarded.proto !== undefined) scheme = forwarded.proto;
    if (forwarded.host !== undefined) authority = forwarded.host;
  }
  if (!isAuthority(authority))
    return invalid(
      'HOST_INVALID',
      `authority ${JSON.stringify(authority.slice(0, 100))} is not host[:port]`,
    );
  return {
    ok: true,
    request: { method: req.method ?? '', url: `${scheme}://${authority}${rest}`, headers, body },
  };
}

function invalid(code: IncomingRequestErrorCode, message: string): IncomingRequestResult {
  return { ok: false, code, message };
}

function isTls(req: IncomingMessage): boolean {
  return (req.socket as { encrypted?: boolean } | null)?.encrypted === true;
}

/** Whether the peer is the trusted proxy (IPv4-mapped IPv6 addresses compared as IPv4). */
function fromProxy(req: IncomingMessage, trust: ProxyTrust): boolean {
  if (trust.addresses === undefined) return true;
  const peer = (req.socket?.remoteAddress ?? '').replace(/^::ffff:(?=\d+\.)/i, '');
  return trust.addresses.some((a) => a.replace(/^::ffff:(?=\d+\.)/i, '') === peer);
}

type Forwarded =
  | { readonly ok: true; readonly proto?: string; readonly host?: string }
  | { readonly ok: false; readonly code: 'FORWARDED_INVALID'; readonly message: string };

/** The nearest proxy's scheme and authority: the last value of each header (a proxy appends its own). */
function forwardedValues(
  headers: ReturnType<typeof fieldLinesFromRaw>,
  kind: ProxyTrust['headers'],
): Forwarded {
  let proto: string | undefined;
  let host: string | undefined;
  if (kind === 'x-forwarded') {
    proto = lastListValue(getFieldValues(headers, 'x-forwarded-proto'));
    host = lastListValue(getFieldValues(headers, 'x-forwarded-host'));
  } else {
    const element = lastListValue(getFieldValues(headers, 'forwarded'));
    if (element !== undefined) {
      const pairs = forwardedPairs(element);
      if (pairs === undefined)
        return { ok: false, code: 'FORWARDED_INVALID', message: 'Forwarded is malformed' };
      proto = pairs.get('proto');
      host = pairs.get('host');
    }
  }
  if (proto !== undefined) {
    proto = proto.toLowerCase();
    if (proto !== 'http' && proto !== 'https')
      return { ok: false, code: 'FORWARDED_INVALID', message: `forwarded scheme "${proto}"` };
  }
  return { ok: true, ...(proto !== undefined ? { proto } : {}), ...(host ? { host } : {}) };
}

/** The last member of a comma-separated list spread over field lines (quoted commas are not split on). */
function lastListValue(lines: readonly string[]): string | undefined {
  if (lines.length === 0) return undefined;
  const members = splitOutsideQuotes(lines.join(','), ',')
    .map((m) => m.trim())
    .filter((m) => m !== '');
  return members[members.length - 1];
}

/** RFC 7239 §4: forwarded-element = pair *( ";" pair ), pair = token "=" ( token / quoted-string ). */
function forwardedPairs(element: string): Map<string, string> | undefined {
  const pairs = new Map<string, string>();
  for (const pair of splitOutsideQuotes(element, ';')) {
    const m =
      /^\s*([!#$%&'*+\-.^_`|~0-9A-Za-z]+)=(?:([!#$%&'*+\-.^_`|~0-9A-Za-z]+)|"((?:[^"\\]|\\.)*)")\s*$/.exec(
        pair,
      );
    if (m === null) return undefined;
    pairs.set(m[1]!.toLowerCase(), m[2] ?? m[3]!.replace(/\\(.)/g, '$1'));
  }
  return pairs;
}

function splitOutsideQuotes(text: string, separator: string): string[] {
  const out: string[] = [];
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted && ch === '\\') i++;
    else if (ch === '"') quoted = !quoted;
    else if (!quoted && ch === separator) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out;
}

/** A request body read within its limits, or why it was not. */
export type BodyResult =
  | { readonly ok: true; readonly body: Uint8Array }
  | {
      readonly ok: false;
      /**
       * BODY_TOO_LARGE: over `maxBytes` (answer 413 and close); BODY_INCOMPLETE: the client went away first;
       * BODY_TIMEOUT: past the deadline or below the minimum rate of `limits` (answer 408 and close).
       */
      readonly code: 'BODY_TOO_LARGE' | 'BODY_INCOMPLETE' | 'BODY_TIMEOUT';
      readonly message: string;
    };

/** Default cap on a request body (1 MiB): the middleware's, the reference service's and the audits' webhook listener's. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/**
 * Reads the exact body bytes of a node:http request, at most `maxBytes` (default 1 MiB; a Content-Length above it is
 * refused before reading), within `limits` when given (net/body-deadline.ts; the request is then paused, and the
 * caller answers and closes the connection). Never rejects.
 */
export async function readRequestBody(
  req: IncomingMessage,
  options: { readonly maxBytes?: number; readonly limits?: BodyLimits } = {},
): Promise<BodyResult> {
  const reading = readBody(req, options.maxBytes ?? DEFAULT_MAX_BODY_BYTES).then(
    (body): BodyResult => ({ ok: true, body }),
    (error: unknown): BodyResult => {
      if (error instanceof HttpError)
        return { ok: false, code: 'BODY_TOO_LARGE', message: error.message };
      const message = error instanceof RequestAborted ? error.message : String(error);
      return { ok: false, code: 'BODY_INCOMPLETE', message };
    },
  );
  const limits = options.limits;
  if (limits === undefined) return reading;
  return new Promise((settle) => {
    let settled = false;
    const finish = (result: BodyResult): void => {
      if (settled) return;
      settled = true;
      stop();
      settle(result);
    };
    const stop = watchBodyDeadline(req, limits, (message) => {
      req.pause(); // the rest is not read: the answer closes the connection
      finish({ ok: false, code: 'BODY_TIMEOUT', message });
    });
    void reading.then(finish);
  });
}
