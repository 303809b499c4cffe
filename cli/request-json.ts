// The request JSON that `sign` and `verify` read: `{ method, url, headers, body | bodyBase64 }` from a file or stdin.
import type { FieldLines, HttpRequest } from '../src/http/message.js';
import { decodeStrictBase64 } from '../src/keys/index.js';
import { readInput, UsageError, type CliIo } from './io.js';

/** Reads `{ method, url, headers, body | bodyBase64 }` from a file or stdin; UsageError on anything else. */
export async function readRequestJson(path: string, io: CliIo): Promise<HttpRequest> {
  let raw: Buffer;
  try {
    raw = await readInput(path, io);
  } catch (error) {
    throw new UsageError(`cannot read --request ${JSON.stringify(path)}: ${error instanceof Error ? error.message : String(error)}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(raw.toString('utf8'));
  } catch (error) {
    throw new UsageError(`--request is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new UsageError('--request must be a JSON object { method, url, headers, body | bodyBase64 }');
  const r = json as Record<string, unknown>;
  if (typeof r.method !== 'string' || r.method === '') throw new UsageError('request "method" must be a non-empty string');
  if (typeof r.url !== 'string') throw new UsageError('request "url" must be a string');
  const headers: Array<readonly [string, string]> = [];
  if (r.headers !== undefined) {
    if (typeof r.headers !== 'object' || r.headers === null || Array.isArray(r.headers)) throw new UsageError('request "headers" must be an object of strings');
    for (const [name, value] of Object.entries(r.headers)) {
      const values = Array.isArray(value) ? value : [value];
      for (const v of values) {
        if (typeof v !== 'string') throw new UsageError(`request header ${JSON.stringify(name)} must be a string or an array of strings`);
        headers.push([name, v]);
      }
    }
  }
  if (r.body !== undefined && r.bodyBase64 !== undefined) throw new UsageError('give either "body" or "bodyBase64", not both');
  let body: Uint8Array = new Uint8Array();
  if (r.body !== undefined) {
    if (typeof r.body !== 'string') throw new UsageError('request "body" must be a string (UTF-8 text); use "bodyBase64" for bytes');
    body = new TextEncoder().encode(r.body);
  } else if (r.bodyBase64 !== undefined) {
    if (typeof r.bodyBase64 !== 'string') throw new UsageError('request "bodyBase64" must be a string');
    try {
      body = decodeStrictBase64(r.bodyBase64, 'bodyBase64');
    } catch (error) {
      throw new UsageError(error instanceof Error ? error.message : String(error));
    }
  }
  return { method: r.method, url: r.url, headers: headers as FieldLines, body };
}
