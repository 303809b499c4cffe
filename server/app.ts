// The HTTP request handler: reads the body (capped), routes, runs the handler, and turns every error into the spec's error body.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpRequest } from '../src/http/message.js';
import type { AnsweredRequest, RouteHandler, ServiceContext, ServiceExtension } from './context.js';
import { createErrorBody, HttpError } from './error-body.js';
import { connectionAnswer } from './connections.js';
import { readBody, RequestAborted, routingPath, send, toHttpRequest } from '../net/http-io.js';
import { stringifyJson } from './json-writer.js';
import { newTracingId } from './representations.js';
import { Router } from './router.js';
import { getPublicKey } from './routes/public-key.js';
import { cancelPayout, commitPayout, createPayout } from './routes/payouts.js';
import { createRefund } from './routes/refunds.js';
import { sandboxRoutes } from './routes/sandbox.js';
import { SANDBOX_BASE_PATH } from '../net/sandbox-protocol.js';

/** The service's routes, with the /sandbox/ helpers at `sandboxPath`: the default path, another (private) one, or nowhere. */
export function createRouter(
  sandboxPath: string | false = SANDBOX_BASE_PATH,
): Router<RouteHandler> {
  const router = new Router<RouteHandler>()
    .add('POST', '/api/payouts', createPayout)
    .add('POST', '/api/payouts/{payoutId}/commit', commitPayout)
    .add('POST', '/api/payouts/{payoutId}/cancel', cancelPayout)
    .add('POST', '/api/merchants/{merchantId}/applications/{applicationId}/refunds', createRefund)
    .add('GET', '/.well-known/signature/pem', getPublicKey);
  if (sandboxPath !== false && !/^(\/[A-Za-z0-9._~-]+)+$/.test(sandboxPath))
    throw new TypeError(
      `sandboxPath must be a path such as /sandbox or /private/helpers (got ${JSON.stringify(sandboxPath)})`,
    );
  if (sandboxPath !== false)
    for (const [method, path, handler] of sandboxRoutes(sandboxPath))
      router.add(method, path, handler);
  return router;
}

/** Body caps: for a request whose application id and secret are valid, and for any other (smaller). */
export interface BodyLimits {
  readonly authenticated: number;
  readonly unauthenticated: number;
}

/** Builds the `(req, res)` listener. Never throws: every failure is answered with the error body. */
export function createRequestListener(
  ctx: ServiceContext,
  limits: BodyLimits,
  extensions: readonly ServiceExtension[] = [],
  sandboxPath: string | false = SANDBOX_BASE_PATH,
): (req: IncomingMessage, res: ServerResponse) => void {
  const router = createRouter(sandboxPath);
  // The Date header (RFC 9110 §6.6.1) from the clock the service judges `created` by: Node writes (and caches) it
  // from Date.now, so only an injected clock needs writing here, on every answer.
  const injectedClock = ctx.now !== Date.now;
  return (req, res) => {
    if (injectedClock) res.setHeader('date', new Date(ctx.now()).toUTCString());
    for (const e of extensions) if (e.handle?.(req, res) === true) return;
    void handle(ctx, router, limits, req, res, extensions).catch((error: unknown) => {
      ctx.log(
        `internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
      if (!res.headersSent)
        sendError(ctx, res, new HttpError(500, 'internal_error', 'internal error'));
      else res.destroy();
    });
  };
}

/**
 * The body cap for this request, decided before any body byte is read: the larger cap only when the request's
 * x-application-id and x-application-secret are valid (checked only when the declared length needs it, so an
 * ordinary request costs nothing extra), so an unauthenticated client never makes the service buffer more.
 */
function bodyLimit(
  ctx: ServiceContext,
  limits: BodyLimits,
  req: IncomingMessage,
): { readonly max: number; readonly note: string } {
  const declared = Number(req.headers['content-length']);
  if (
    limits.unauthenticated >= limits.authenticated ||
    (req.headers['content-length'] !== undefined && declared <= limits.unauthenticated)
  ) {
    return {
      max:
        limits.unauthenticated >= limits.authenticated
          ? limits.authenticated
          : limits.unauthenticated,
      note: '',
    };
  }
  try {
    ctx.auth.checkCredentials(toHttpRequest(req, new Uint8Array(0)));
    return { max: limits.authenticated, note: '' };
  } catch {
    return {
      max: limits.unauthenticated,
      note: ` for a request without a valid x-application-id and x-application-secret (${limits.authenticated} bytes with them)`,
    };
  }
}

async function handle(
  ctx: ServiceContext,
  router: Router<RouteHandler>,
  limits: BodyLimits,
  req: IncomingMessage,
  res: ServerResponse,
  extensions: readonly ServiceExtension[],
): Promise<void> {
  const started = performance.now();
  const target = req.url ?? '/';
  let http: HttpRequest | undefined;
  let rejection: HttpError | undefined;
  let aborted: RequestAborted | undefined;
  try {
    const route = router.match(req.method ?? '', routingPath(target));
    const limit = bodyLimit(ctx, limits, req);
    const body = await readBody(req, limit.max, limit.note);
    http = toHttpRequest(req, body);
    const response = await route.handler(ctx, { req, http, params: route.params, target });
    send(res, response.status, response.contentType, response.body, response.headers);
  } catch (error) {
    if (error instanceof RequestAborted) {
      // Nothing to answer: the connection is gone (client reset, or the request timeout answered and closed it).
      aborted = error;
      res.destroy();
    } else {
      if (!(error instanceof HttpError)) throw error;
      rejection = error;
      if (error.status === 413) res.setHeader('connection', 'close');
      sendError(ctx, res, error);
      if (error.status === 413) req.resume();
    }
  } finally {
    reportAnswer(ctx, req, res, extensions, { target, started, http, rejection, aborted });
  }
}

/** How one request ended: what was read of it, and the HttpError it was refused with or why it was cut short. */
interface RequestEnd {
  readonly target: string;
  /** performance.now() when it came in. */
  readonly started: number;
  readonly http: HttpRequest | undefined;
  readonly rejection: HttpError | undefined;
  readonly aborted: RequestAborted | undefined;
}

/** The log line of an answered request, and the extensions told (the portal's request log). */
function reportAnswer(
  ctx: ServiceContext,
  req: IncomingMessage,
  res: ServerResponse,
  extensions: readonly ServiceExtension[],
  end: RequestEnd,
): void {
  const { target, http, rejection, aborted } = end;
  // The status actually sent: a request cut short got the connection handler's answer (408) or none at all.
  const byConnection = connectionAnswer(req.socket);
  const answered = res.headersSent ? String(res.statusCode) : (byConnection ?? 'no response');
  const note = aborted !== undefined ? ` (${aborted.message})` : '';
  ctx.log(
    `${req.method ?? '?'} ${target.slice(0, 200)} -> ${answered}${note} (${(performance.now() - end.started).toFixed(1)} ms)`,
  );
  if (extensions.length === 0) return;
  const answeredRequest: AnsweredRequest = {
    at: ctx.now(),
    http: http ?? {
      method: req.method ?? '',
      url: target,
      headers: [],
      body: new Uint8Array(0),
    },
    target,
    // 0 when no response was sent.
    status: res.headersSent ? res.statusCode : Number.parseInt(byConnection ?? '0', 10),
    ...(rejection !== undefined ? { code: rejection.code, message: rejection.message } : {}),
    ...(aborted !== undefined ? { code: 'request_aborted', message: aborted.message } : {}),
  };
  for (const e of extensions) {
    e.requestAnswered?.(answeredRequest);
    e.changed?.();
  }
}

export function sendError(ctx: ServiceContext, res: ServerResponse, error: HttpError): void {
  const body = createErrorBody(error, newTracingId(ctx.faults));
  if (ctx.faults.alt) {
    // Variant alt: RFC 9457 problem details outside refund creation (the spec shows an error body for refunds only).
    const problem = {
      type: 'about:blank',
      title: body.statusName,
      status: body.statusCode,
      detail: body.errorMessage,
      traceId: body.traceId,
    };
    send(res, error.status, 'application/problem+json; charset=utf-8', stringifyJson(problem), {
      ...error.headers,
      'x-payconform-error-code': error.code,
    });
    return;
  }
  send(res, error.status, 'application/json', stringifyJson(body), {
    ...error.headers,
    'x-payconform-error-code': error.code,
  });
}
