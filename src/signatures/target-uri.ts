// The parts of a request's absolute target URI, read from the string as written (RFC 9421 §2.2.6: the path is
// never normalised through WHATWG URL, which would remove dot segments and re-encode characters).

/** A target URI's parts as the derived components read them. */
export interface TargetUriParts {
  readonly scheme: string;
  /** Raw authority as written, e.g. `Example.COM:443`. */
  readonly rawAuthority: string;
  /** Lowercase host as written (IPv6 with brackets, in WHATWG's serialisation); IPv4 only as a canonical dotted quad. */
  readonly host: string;
  /** The port as written, or undefined when absent or empty. */
  readonly port: number | undefined;
  /** The path as written; `/` when empty. */
  readonly path: string;
  /** The query without `?`, or undefined when there is no `?` at all. */
  readonly query: string | undefined;
  /** The URI without its fragment. */
  readonly withoutFragment: string;
}

/** A target URI's parts, or why it does not parse. */
export type TargetUriResult =
  | { readonly ok: true; readonly value: TargetUriParts }
  | { readonly ok: false; readonly message: string };

const URI_RE = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)([^?#]*)(?:\?([^#]*))?(?:#.*)?$/s;
const PLAIN_HOST = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const AUTHORITY_RE = /^(\[[0-9A-Fa-f:.]+\]|[^:[\]]+)(?::([0-9]*))?$/;

/** Parsed target URIs by their text: a server sees the same few URIs again and again. Bounded: cleared when full. */
const parsedUris = new Map<string, TargetUriResult>();
const PARSED_URIS_MAX = 256;
const PARSED_URI_MAX_LENGTH = 2048;

/** Splits an absolute `http(s)://` URI. Rejects userinfo, non-ASCII authorities, empty hosts and bad ports. */
export function parseTargetUri(url: string): TargetUriResult {
  if (typeof url !== 'string') return { ok: false, message: 'target URI is not a string' };
  let result = parsedUris.get(url);
  if (result === undefined) {
    result = Object.freeze(splitTargetUri(url));
    if (url.length <= PARSED_URI_MAX_LENGTH) {
      if (parsedUris.size >= PARSED_URIS_MAX) parsedUris.clear();
      parsedUris.set(url, result);
    }
  }
  return result;
}

function splitTargetUri(url: string): TargetUriResult {
  const match = URI_RE.exec(url);
  if (!match)
    return {
      ok: false,
      message: `target URI ${JSON.stringify(url.slice(0, 200))} is not an absolute URI`,
    };
  const scheme = match[1]!.toLowerCase();
  const rawAuthority = match[2]!;
  if (scheme !== 'http' && scheme !== 'https')
    return { ok: false, message: `scheme "${scheme}" is not http or https` };
  // eslint-disable-next-line no-control-regex
  if (/[^\x21-\x7e]/.test(rawAuthority))
    return { ok: false, message: 'authority contains whitespace, control or non-ASCII characters' };
  if (rawAuthority.includes('@'))
    return { ok: false, message: 'authority must not contain userinfo' };
  const authority = AUTHORITY_RE.exec(rawAuthority);
  if (!authority) return { ok: false, message: `authority "${rawAuthority}" is malformed` };
  let host: string;
  const rawHost = authority[1]!;
  if (PLAIN_HOST.test(rawHost) && !rawHost.includes('xn--')) {
    // Already canonical (lowercase LDH labels, last label not numeric): nothing to check or normalise.
    host = rawHost;
  } else if (rawHost.startsWith('[')) {
    // IP-literal: WHATWG's IPv6 serialisation (lowercase hex, zeros compressed).
    try {
      host = new URL(`http://${rawHost}/`).hostname;
    } catch {
      return { ok: false, message: `host "${rawHost}" is malformed` };
    }
  } else {
    const problem = regNameProblem(rawHost);
    if (problem !== undefined) return { ok: false, message: problem };
    host = rawHost.toLowerCase();
  }
  if (host === '') return { ok: false, message: 'host is empty' };
  let port: number | undefined;
  const portText = authority[2];
  if (portText !== undefined && portText !== '') {
    if (portText.length > 5 || Number(portText) > 65535)
      return { ok: false, message: `port "${portText}" is out of range` };
    port = Number(portText);
  }
  const rawPath = match[3]!;
  const query = match[4];
  const hashAt = url.indexOf('#');
  return {
    ok: true,
    value: Object.freeze({
      scheme,
      rawAuthority,
      host,
      port,
      path: rawPath === '' ? '/' : rawPath,
      query,
      withoutFragment: hashAt === -1 ? url : url.slice(0, hashAt),
    }),
  };
}

// RFC 3986 §3.2.2: reg-name = *( unreserved / pct-encoded / sub-delims ).
const REG_NAME = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})+$/;
const NUMERIC_LABEL = /(?:^|\.)(?:0[xX][0-9A-Fa-f]*|[0-9]+)\.?$/;
const DOTTED_QUAD =
  /^(?:(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.){3}(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])$/;

/**
 * Why a host that is not an IP-literal cannot be used for `@authority`, or undefined. The host is taken as written
 * (RFC 9421 §2.2.3, RFC 9110 §4.2.3: lowercased, nothing else), never through WHATWG host parsing, which would read
 * `127.0.01`, `0x7f.1`, `2130706433` or `\\127.0.0.1` as `127.0.0.1`: one signature would then verify under
 * several authorities. A host WHATWG would read as an IPv4 address must therefore be a canonical dotted quad.
 */
function regNameProblem(host: string): string | undefined {
  if (!REG_NAME.test(host))
    return `host "${host}" is not an RFC 3986 host (allowed: letters, digits, -._~!$&'()*+,;= and %XX)`;
  if (NUMERIC_LABEL.test(host) && !DOTTED_QUAD.test(host)) {
    return `host "${host}" is a non-canonical IPv4 address (an HTTP stack may read it as another host); write four decimal octets without leading zeros`;
  }
  // An A-label (`xn--`) is Punycode: WHATWG URL refuses an invalid one and may read a valid one as another name, so
  // such a host is taken only where WHATWG reads it exactly as written.
  if (A_LABEL.test(host) && whatwgHostname(host) !== host.toLowerCase())
    return `host "${host}" holds an A-label (xn--) that is not valid Punycode as written`;
  return undefined;
}

const A_LABEL = /(?:^|\.)xn--/i;

function whatwgHostname(host: string): string | undefined {
  try {
    return new URL(`http://${host}/`).hostname;
  } catch {
    return undefined;
  }
}

/** Which ports `@authority` omits: the scheme's default (RFC 9110 §4.2.3), or 80 and 443 whatever the scheme. */
export type AuthorityPortRule = 'scheme-default' | 'omit-80-and-443';

/** The normalised authority: lowercase host, default port omitted per the rule. */
export function normalizeAuthority(
  parts: TargetUriParts,
  rule: AuthorityPortRule = 'scheme-default',
): string {
  const { port } = parts;
  if (port === undefined) return parts.host;
  const omit =
    rule === 'omit-80-and-443'
      ? port === 80 || port === 443
      : (parts.scheme === 'http' && port === 80) || (parts.scheme === 'https' && port === 443);
  return omit ? parts.host : `${parts.host}:${port}`;
}
