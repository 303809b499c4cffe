// Verification where a Node service receives requests: read the body under a cap and a deadline, build the HttpRequest
// exactly (net/incoming-request.ts), run the spec's twelve steps with a deadline on the key lookup, and turn a refusal
// into its status and the spec's error body (Errors), the client's fault 401 and the service's own failure 503
// (net/verify-failure.ts).
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpRequest } from '../src/http/message.js';
import { verifyRequest, type VerifyOptions } from '../src/profile/verify-request.js';
import { verifyRequestAsync } from '../net/verify-pool/verify-request-async.js';
import {
  checkTimeoutMs,
  DEFAULT_LOOKUP_TIMEOUT_MS,
  withLookupDeadline,
} from '../src/profile/lookup-deadline.js';
import {
  checkBodyLimits,
  DEFAULT_BODY_RATE_GRACE_MS,
  DEFAULT_BODY_TIMEOUT_MS,
  DEFAULT_MIN_BODY_BYTES_PER_SECOND,
  type BodyLimits,
} from '../net/body-deadline.js';
import { createErrorBody, type ServiceErrorBody } from '../net/error-body.js';
import { HttpError, type ErrorStatus } from '../net/http-error.js';
import {
  httpRequestFromIncoming,
  readRequestBody,
  type ProxyTrust,
} from '../net/incoming-request.js';
import { verificationFailureError } from '../net/verify-failure.js';
import { onVerifyPoolEvent, type VerifyPoolEvent } from '../net/verify-pool/health.js';

/**
 * What a verified request proves: who signed it, with which key, when, its nonce (never the secret), and the target
 * it was signed for. Route by `target.authority`, never by the framework's host (`req.hostname`, `request.host`):
 * those read the Host header, which an absolute-form target overrides (RFC 9112 §3.2.2) and no signature covers.
 */
export interface VerifiedApplication {
  readonly applicationId: string;
  readonly keyId: string;
  readonly created: number;
  readonly nonce: string;
  readonly target: VerifiedTarget;
}

/** The request target as verified. */
export interface VerifiedTarget {
  /** `@authority` as the signature covered it (host, port unless 80 or 443). */
  readonly authority: string;
  /** `@path` as the signature covered it: the path and the query, unmodified. */
  readonly path: string;
  /**
   * `http` or `https`: the connection's (or a trusted proxy's, with `trustProxy`). The profile does not cover the
   * scheme, so this is what the service was reached by, not something the client signed.
   */
  readonly scheme: string;
}

/** How to verify a `node:http` request: the verification options, body limits and proxy trust. */
export interface IncomingVerifyOptions extends Omit<VerifyOptions, 'now'> {
  /** Largest body read, in bytes (default 1 MiB); a larger one is answered 413 and the connection closed. */
  readonly maxBodyBytes?: number;
  /**
   * Milliseconds from the start of reading the body to its last byte (default DEFAULT_BODY_TIMEOUT_MS, 10 s); past
   * it the request is answered 408 BODY_TIMEOUT and the connection closed.
   */
  readonly bodyTimeoutMs?: number;
  /**
   * The least average receive rate of the body once `bodyRateGraceMs` (default 2 s) has passed, in bytes per second
   * (default DEFAULT_MIN_BODY_BYTES_PER_SECOND, 1 KiB/s; 0: no rate check); slower is answered 408 BODY_TIMEOUT.
   */
  readonly minBodyBytesPerSecond?: number;
  readonly bodyRateGraceMs?: number;
  /**
   * Milliseconds `resolveApplication` may take when it answers with a Promise (default DEFAULT_LOOKUP_TIMEOUT_MS,
   * 1 s); past it the request is refused 503 APPLICATION_LOOKUP_FAILED, its reason naming the deadline.
   */
  readonly lookupTimeoutMs?: number;
  /** Trust a proxy's X-Forwarded-* or Forwarded headers for the scheme and authority (default: none). */
  readonly trustProxy?: ProxyTrust;
  /**
   * Verify through verifyRequestAsync (its worker pool where it runs one, else step 10 on libuv's thread pool);
   * default false (verifyRequest).
   */
  readonly signatureOnThreadPool?: boolean;
  /**
   * With `signatureOnThreadPool`: told of each worker failure, replacement and stop of the verification pool. Default:
   * one line on console.warn per event, written once per process however many adapters are made.
   */
  readonly onPoolEvent?: (event: VerifyPoolEvent) => void;
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
  /** A verification code (verifyErrorCodes), or BODY_TOO_LARGE, BODY_INCOMPLETE, BODY_TIMEOUT, BODY_ALREADY_READ, HOST_INVALID, TARGET_INVALID, FORWARDED_INVALID. */
  readonly code: string;
  /** The spec step (1-12) for a verification code. */
  readonly step?: number;
  readonly detail: string;
  readonly errorBody: ServiceErrorBody;
  /** Close the connection after answering (a body left unread). */
  readonly close: boolean;
}

/**
 * A `node:http` request verified: the verified request, its exact body bytes and its application, or the refusal to
 * answer with (`writeRefusal`).
 */
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

/** What every request under one options object shares: the resolver with its deadline, the body limits. */
interface Prepared {
  readonly verifyOptions: VerifyOptions;
  readonly bodyLimits: BodyLimits;
}

const prepared = new WeakMap<IncomingVerifyOptions, Prepared>();

/**
 * Checks the options and builds what their requests share, once per options object. Throws a TypeError for a bad
 * deadline or rate (the adapters call it when they are created, so a misconfiguration fails at start-up).
 */
export function prepareIncomingOptions(options: IncomingVerifyOptions): Prepared {
  const known = prepared.get(options);
  if (known !== undefined) return known;
  const lookupTimeoutMs = checkTimeoutMs(
    'lookupTimeoutMs',
    options.lookupTimeoutMs ?? DEFAULT_LOOKUP_TIMEOUT_MS,
  );
  const made: Prepared = {
    verifyOptions: {
      ...options,
      resolveApplication: withLookupDeadline(options.resolveApplication, lookupTimeoutMs),
    },
    bodyLimits: checkBodyLimits({
      timeoutMs: options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS,
      minBytesPerSecond: options.minBodyBytesPerSecond ?? DEFAULT_MIN_BODY_BYTES_PER_SECOND,
      graceMs: options.bodyRateGraceMs ?? DEFAULT_BODY_RATE_GRACE_MS,
    }),
  };
  if (options.signatureOnThreadPool === true) {
    const hook = options.onPoolEvent;
    // Once per hook: options written inline per request must not add a listener per request.
    if (hook !== undefined && !poolHooks.has(hook)) {
      poolHooks.add(hook);
      onVerifyPoolEvent(hook);
    } else if (hook === undefined) logPoolEventsOnce();
  }
  prepared.set(options, made);
  return made;
}

let poolLogged = false;
const poolHooks = new WeakSet<(event: VerifyPoolEvent) => void>();

/** The adapters' default log of the pool's events: one subscription per process. */
function logPoolEventsOnce(): void {
  if (poolLogged) return;
  poolLogged = true;
  onVerifyPoolEvent((event) => console.warn(`payconform: ${describePoolEvent(event)}`));
}

/** One line for a log. */
export function describePoolEvent(event: VerifyPoolEvent): string {
  switch (event.type) {
    case 'worker-failed':
      return `verification worker failed (${event.reason}); ${event.inFlight} requests it held are verified on the event loop${event.restartInMs >= 0 ? `; a replacement starts in ${event.restartInMs} ms` : ''}`;
    case 'worker-restarted':
      return `verification worker replaced (${event.restarts} replacements so far)`;
    case 'pool-stopped':
      return `verification pool stopped, requests are verified on the event loop and libuv's pool: ${event.reason}`;
  }
}

const BODY_STATUS = { BODY_TOO_LARGE: 413, BODY_INCOMPLETE: 400, BODY_TIMEOUT: 408 } as const;

/**
 * Verifies one node:http request. Reads the body unless `source.body` holds it. Settles with a result for anything
 * the request or a dependency does (a lookup past its deadline, a body too slow); rejects only with the TypeError of
 * a bad option (see prepareIncomingOptions).
 *
 * @example
 * ```ts
 * createServer(async (req, res) => {
 *   const verified = await verifyIncomingRequest(req, { nonceStore, resolveApplication });
 *   if (!verified.ok) return writeRefusal(res, verified); // 401, 413 or 503 in the spec's error body
 *   res.end(`verified: ${verified.application.applicationId}`);
 * });
 * ```
 */
export async function verifyIncomingRequest(
  req: IncomingMessage,
  options: IncomingVerifyOptions,
  source: IncomingSource = {},
): Promise<IncomingVerification> {
  const { verifyOptions, bodyLimits } = prepareIncomingOptions(options);
  let body = source.body;
  if (body === undefined) {
    if (req.readableEnded)
      return createRefusal(req, options, 500, 'BODY_ALREADY_READ', {
        detail:
          'the request body was read before verification: put the verifier before any body parser (or after express.raw())',
      });
    const read = await readRequestBody(req, { maxBytes: options.maxBodyBytes, limits: bodyLimits });
    if (!read.ok)
      return createRefusal(req, options, BODY_STATUS[read.code], read.code, {
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
  const result = await verify(built.request, verifyOptions);
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
  const { applicationId, keyId, created, nonce, signatureBase } = result;
  return {
    ok: true,
    application: {
      applicationId,
      keyId,
      created,
      nonce,
      target: verifiedTarget(built.request.url, signatureBase),
    },
    body,
    request: built.request,
  };
}

/**
 * The target the signature covered: `@authority` and `@path` read from the signature base's own lines (exactly what
 * was signed, normalised as the profile says), the scheme from the URL verified against.
 */
function verifiedTarget(url: string, signatureBase: string): VerifiedTarget {
  return {
    authority: componentValue(signatureBase, '"@authority": '),
    path: componentValue(signatureBase, '"@path": '),
    scheme: url.slice(0, url.indexOf(':')),
  };
}

/** The value of the signature base line that starts with `prefix` (field values hold no newline: step 1). */
function componentValue(signatureBase: string, prefix: string): string {
  const at = signatureBase.startsWith(prefix) ? 0 : signatureBase.indexOf(`\n${prefix}`) + 1;
  if (at === 0 && !signatureBase.startsWith(prefix)) return '';
  const start = at + prefix.length;
  const end = signatureBase.indexOf('\n', start);
  return signatureBase.slice(start, end < 0 ? undefined : end);
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
