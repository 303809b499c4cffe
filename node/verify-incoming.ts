// Verification where a Node service receives requests: read the body under a cap, build the HttpRequest exactly
// (net/incoming-request.ts), run the spec's twelve steps, and turn a refusal into its status and the spec's error
// body (Errors), the client's fault 401 and the service's own failure 503 (net/verify-failure.ts).
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpRequest } from '../src/http/message.js';
import {
  verifyRequest,
  verifyRequestAsync,
  type VerifyOptions,
} from '../src/profile/verify-request.js';
import { createErrorBody, type ErrorBody } from '../net/error-body.js';
import { HttpError, type ErrorStatus } from '../net/http-error.js';
import {
  httpRequestFromIncoming,
  readRequestBody,
  type ProxyTrust,
} from '../net/incoming-request.js';
import { verificationFailureError } from '../net/verify-failure.js';

/** What a verified request proves: who signed it, with which key, when, and its nonce (never the secret). */
export interface VerifiedApplication {
  readonly applicationId: string;
  readonly keyId: string;
  readonly created: number;
  readonly nonce: string;
}

export interface IncomingVerifyOptions extends Omit<VerifyOptions, 'now'> {
  /** Largest body read, in bytes (default 1 MiB); a larger one is answered 413 and the connection closed. */
  readonly maxBodyBytes?: number;
  /** Trust a proxy's X-Forwarded-* or Forwarded headers for the scheme and authority (default: none). */
  readonly trustProxy?: ProxyTrust;
  /** Run step 10's Ed25519 check on libuv's thread pool (verifyRequestAsync); default false (verifyRequest). */
  readonly signatureOnThreadPool?: boolean;
  /** The status for the client's fault: 401 (default) or 403. */
  readonly clientErrorStatus?: 401 | 403;
  /** The error body's traceId; default 16 random bytes in hex. */
  readonly traceId?: (req: IncomingMessage) => string;
  /**
   * Told of every refusal with its full message (log it here: the body of a 503 does not name the cause, so the
   * client does not learn how the service is laid out). Must not throw; what it throws is ignored.
   */
  readonly onRefusal?: (refusal: Refusal, req: IncomingMessage) => void;
}

/** A refused request: the status and error body to answer with, the stable code, and the full reason. */
export interface Refusal {
  readonly status: ErrorStatus;
  /** A verification code (verifyErrorCodes), or BODY_TOO_LARGE, BODY_INCOMPLETE, BODY_ALREADY_READ, HOST_INVALID, TARGET_INVALID, FORWARDED_INVALID. */
  readonly code: string;
  /** The spec step (1-12) for a verification code. */
  readonly step?: number;
  readonly detail: string;
  readonly errorBody: ErrorBody;
  /** Close the connection after answering (a body left unread). */
  readonly close: boolean;
}

export type IncomingVerification =
  | {
      readonly ok: true;
      readonly application: VerifiedApplication;
      /** The exact bytes that were verified: parse these, never a second reading. */
      readonly body: Uint8Array;
      readonly request: HttpRequest;
    }
  | ({ readonly ok: false } & Refusal);

/** Where the request comes from, when a framework moved things: the original target, the body already read. */
export interface IncomingSource {
  readonly target?: string;
  readonly body?: Uint8Array;
}

/** Verifies one node:http request; never rejects. Reads the body unless `source.body` holds it. */
export async function verifyIncomingRequest(
  req: IncomingMessage,
  options: IncomingVerifyOptions,
  source: IncomingSource = {},
): Promise<IncomingVerification> {
  let body = source.body;
  if (body === undefined) {
    if (req.readableEnded)
      return createRefusal(req, options, 500, 'BODY_ALREADY_READ', {
        detail:
          'the request body was read before verification: put the verifier before any body parser (or after express.raw())',
      });
    const read = await readRequestBody(req, { maxBytes: options.maxBodyBytes });
    if (!read.ok)
      return createRefusal(req, options, read.code === 'BODY_TOO_LARGE' ? 413 : 400, read.code, {
        detail: read.message,
        close: true,
      });
    body = read.body;
  }
  const built = httpRequestFromIncoming(req, body, {
    ...(options.trustProxy ? { trustProxy: options.trustProxy } : {}),
    ...(source.target !== undefined ? { target: source.target } : {}),
  });
  if (!built.ok) return createRefusal(req, options, 400, built.code, { detail: built.message });
  const verify = options.signatureOnThreadPool === true ? verifyRequestAsync : verifyRequest;
  const result = await verify(built.request, options);
  if (!result.ok) {
    const error = verificationFailureError(result, {
      ...(options.clientErrorStatus ? { clientStatus: options.clientErrorStatus } : {}),
    });
    return createRefusal(req, options, error.status, result.code, {
      step: result.step,
      detail: result.message,
      message: error.message,
    });
  }
  const { applicationId, keyId, created, nonce } = result;
  return {
    ok: true,
    application: { applicationId, keyId, created, nonce },
    body,
    request: built.request,
  };
}

/** A refusal with its error body (and `onRefusal` told of it). */
export function createRefusal(
  req: IncomingMessage,
  options: IncomingVerifyOptions,
  status: ErrorStatus,
  code: string,
  what: { detail: string; message?: string; step?: number; close?: boolean },
): { readonly ok: false } & Refusal {
  const error = new HttpError(status, code, what.message ?? `${code}: ${what.detail}`);
  const refusal: Refusal = {
    status,
    code,
    ...(what.step !== undefined ? { step: what.step } : {}),
    detail: what.detail,
    errorBody: createErrorBody(error, traceIdOf(req, options)),
    close: what.close === true,
  };
  try {
    options.onRefusal?.(refusal, req);
  } catch {
    // A logging hook that throws must not turn a refusal into an acceptance or a crash.
  }
  return { ok: false, ...refusal };
}

function traceIdOf(req: IncomingMessage, options: IncomingVerifyOptions): string {
  try {
    if (options.traceId) return String(options.traceId(req));
  } catch {
    // fall through to a random id
  }
  return randomBytes(16).toString('hex');
}

/** Answers a refusal on a node:http response: the status, the spec's error body as JSON, the code in a header. */
export function writeRefusal(res: ServerResponse, refusal: Refusal): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const text = JSON.stringify(refusal.errorBody);
  res.writeHead(refusal.status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'x-payconform-error-code': refusal.code,
    ...(refusal.close ? { connection: 'close' } : {}),
  });
  res.end(text);
}
