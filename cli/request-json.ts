// The request JSON that `sign` reads and writes and `verify` reads (schemas/request.schema.json):
// `{ method, url, headers, body | bodyUtf8 | bodyBase64 }`. `headers` is an object (`name: value`, repeated lines as an
// array) or the vectors' wire form (an array of `[name, value]` pairs). A header value may be `{ "env": "NAME" }`:
// the value of that environment variable, so a request file never has to hold the application secret. `body: null`
// or no body at all is a bodyless request.
import type { FieldLines, HttpRequest } from '../src/http/message.js';
import { decodeStrictBase64 } from '../src/keys/index.js';
import { readInput, UsageError, type CliIo } from './io.js';
import { textOf } from '../net/file-read.js';

/** A header value taken from the environment when the request is read. */
export interface EnvReference {
  readonly env: string;
}

/** The request JSON as `sign --output request` writes it. */
export interface RequestJson {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<
    Record<string, string | EnvReference | ReadonlyArray<string | EnvReference>>
  >;
  readonly body?: string;
  readonly bodyBase64?: string;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const FORMAT =
  '{ method, url, headers, body | bodyUtf8 | bodyBase64 } (schemas/request.schema.json)';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A header value: a string, or `{ "env": "NAME" }` resolved from the environment (never echoed). */
function headerValue(name: string, value: unknown, io: CliIo): string {
  if (typeof value === 'string') return value;
  if (isPlainObject(value) && Object.keys(value).length === 1 && typeof value.env === 'string') {
    if (!ENV_NAME.test(value.env))
      throw new UsageError(
        `request header ${JSON.stringify(name)}: {"env": ...} must name an environment variable (letters, digits, _)`,
      );
    const resolved = io.env[value.env];
    if (resolved === undefined || resolved === '')
      throw new UsageError(
        `request header ${JSON.stringify(name)} comes from environment variable ${value.env}, which is not set`,
      );
    return resolved;
  }
  throw new UsageError(
    `request header ${JSON.stringify(name)} must be a string, {"env": "NAME"}, or an array of those`,
  );
}

function headerLines(headers: unknown, io: CliIo): FieldLines {
  const lines: Array<readonly [string, string]> = [];
  if (headers === undefined) return lines;
  if (Array.isArray(headers)) {
    for (const pair of headers) {
      if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string')
        throw new UsageError('request "headers" as an array must hold [name, value] pairs');
      lines.push([pair[0], headerValue(pair[0], pair[1], io)]);
    }
    return lines;
  }
  if (!isPlainObject(headers))
    throw new UsageError(
      'request "headers" must be an object of strings (or an array of [name, value] pairs)',
    );
  for (const [name, value] of Object.entries(headers)) {
    for (const v of Array.isArray(value) ? value : [value])
      lines.push([name, headerValue(name, v, io)]);
  }
  return lines;
}

function bodyBytes(r: Record<string, unknown>): Uint8Array {
  const given = (['body', 'bodyUtf8', 'bodyBase64'] as const).filter(
    (k) => r[k] !== undefined && r[k] !== null,
  );
  if (given.length > 1)
    throw new UsageError(
      `give either "body" (or "bodyUtf8") or "bodyBase64", not both: ${given.join(', ')}`,
    );
  const key = given[0];
  if (key === undefined) return new Uint8Array();
  const value = r[key];
  if (key === 'bodyBase64') {
    if (typeof value !== 'string') throw new UsageError('request "bodyBase64" must be a string');
    try {
      return decodeStrictBase64(value, 'bodyBase64');
    } catch (error) {
      throw new UsageError(error instanceof Error ? error.message : String(error));
    }
  }
  if (typeof value !== 'string')
    throw new UsageError(
      `request "${key}" must be a string (UTF-8 text) or null; use "bodyBase64" for bytes`,
    );
  return new TextEncoder().encode(value);
}

/** Parses the request JSON; UsageError naming what is wrong (never a header's value). */
export function parseRequestJson(text: string, io: CliIo): HttpRequest {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `--request is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (!isPlainObject(json)) throw new UsageError(`--request must be a JSON object ${FORMAT}`);
  if (typeof json.method !== 'string' || json.method === '')
    throw new UsageError('request "method" must be a non-empty string');
  if (typeof json.url !== 'string') throw new UsageError('request "url" must be a string');
  return {
    method: json.method,
    url: json.url,
    headers: headerLines(json.headers, io),
    body: bodyBytes(json),
  };
}

/** Reads the request JSON from a file or stdin (`-`); UsageError on anything else. */
export async function readRequestJson(path: string, io: CliIo): Promise<HttpRequest> {
  let raw: Buffer;
  try {
    raw = await readInput(path, io);
  } catch (error) {
    throw new UsageError(
      `cannot read --request ${JSON.stringify(path)}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return parseRequestJson(textOf(raw), io);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The request as request JSON: headers as an object in first-seen order (repeated names as arrays), the body as text
 * when it is UTF-8 without NUL, else base64, no body member when it is empty. Every line named in `fromEnv` is written
 * as `{ "env": NAME }` instead of its value.
 */
export function toRequestJson(
  request: HttpRequest,
  fromEnv: Readonly<Record<string, string>> = {},
): RequestJson {
  const headers: Record<string, string | EnvReference | Array<string | EnvReference>> =
    Object.create(null) as Record<string, never>;
  const envFor = new Map(Object.entries(fromEnv).map(([name, env]) => [name.toLowerCase(), env]));
  for (const [name, value] of request.headers) {
    const env = envFor.get(name.toLowerCase());
    const written: string | EnvReference = env === undefined ? value : { env };
    const prior = headers[name];
    headers[name] =
      prior === undefined ? written : [...(Array.isArray(prior) ? prior : [prior]), written];
  }
  if (request.body.length === 0) return { method: request.method, url: request.url, headers };
  let text: string | undefined;
  try {
    text = utf8.decode(request.body);
  } catch {
    text = undefined;
  }
  return text !== undefined && !text.includes('\0')
    ? { method: request.method, url: request.url, headers, body: text }
    : {
        method: request.method,
        url: request.url,
        headers,
        bodyBase64: Buffer.from(request.body).toString('base64'),
      };
}
