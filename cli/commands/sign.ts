// `payconform sign --request FILE|-`: signs a request described as JSON with credentials from the environment.
import { parseArgs } from 'node:util';
import type { CliIo } from '../io.js';
import { EXIT, readInput, UsageError } from '../io.js';
import { decodeStrictBase64, parseEd25519PrivateKey } from '../../src/keys/index.js';
import type { FieldLines, HttpRequest } from '../../src/http/message.js';
import { signRequest } from '../../src/profile/sign-request.js';

export const SECRET_MASK = '***';

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

/** A required environment variable, or a UsageError naming it (never its value). */
export function requireEnv(io: CliIo, name: string): string {
  const value = io.env[name];
  if (value === undefined || value.trim() === '') throw new UsageError(`environment variable ${name} is not set`);
  return value;
}

function parseInteger(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  if (!/^[0-9]{1,15}$/.test(text)) throw new UsageError(`${flag} must be a non-negative integer (unix seconds)`);
  return Number(text);
}

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  let values: { request?: string; created?: string; nonce?: string };
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: { request: { type: 'string' }, created: { type: 'string' }, nonce: { type: 'string' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError(`${error instanceof Error ? error.message : String(error)}\nusage: payconform sign --request FILE|- [--created N] [--nonce S]`);
  }
  if (values.request === undefined) throw new UsageError('--request FILE|- is required\nusage: payconform sign --request FILE|- [--created N] [--nonce S]');
  const created = parseInteger(values.created, '--created');
  const request = await readRequestJson(values.request, io);
  const applicationId = requireEnv(io, 'PAYCONFORM_APPLICATION_ID');
  const applicationSecret = requireEnv(io, 'PAYCONFORM_APPLICATION_SECRET');
  const keyId = requireEnv(io, 'PAYCONFORM_KEY_ID');
  const privateKeyText = requireEnv(io, 'PAYCONFORM_PRIVATE_KEY');
  let privateKey;
  try {
    privateKey = parseEd25519PrivateKey(privateKeyText.trim());
  } catch (error) {
    throw new UsageError(`PAYCONFORM_PRIVATE_KEY: ${error instanceof Error ? error.message : String(error)}`);
  }
  let result;
  try {
    result = signRequest(request, { applicationId, applicationSecret, keyId, privateKey }, {
      ...(created === undefined ? {} : { created }),
      ...(values.nonce === undefined ? {} : { nonce: values.nonce }),
    });
  } catch (error) {
    throw new UsageError(`cannot sign: ${error instanceof Error ? error.message : String(error)}`);
  }
  // The secret is never printed: masked in the headers and in the base (the caller holds it in the environment).
  const headers = { ...result.headers, 'x-application-secret': SECRET_MASK };
  const signatureBase = result.signatureBase
    .split('\n')
    .map((line) => (line.startsWith('"x-application-secret": ') ? `"x-application-secret": ${SECRET_MASK}` : line))
    .join('\n');
  io.stdout(`${JSON.stringify({ headers, signatureBase }, null, 2)}\n`);
  return EXIT.ok;
}
