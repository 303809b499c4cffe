// The HTTP request handler: reads the body (capped), routes, runs the handler, and turns every error into the spec's error body.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpRequest } from '../src/http/message.js';
import type { AnsweredRequest, RouteHandler, ServiceContext, ServiceExtension } from './context.js';
import { createErrorBody, HttpError } from './error-body.js';
import { readBody, routingPath, send, toHttpRequest } from './http-io.js';
import { stringifyJson } from './json-writer.js';
import { newTracingId } from './representations.js';
import { Router } from './router.js';
import { getPublicKey } from './routes/public-key.js';
import { cancelPayout, commitPayout, createPayout } from './routes/payouts.js';
import { createRefund } from './routes/refunds.js';
import { sandboxRoutes } from './routes/sandbox.js';

export function createRouter(): Router<RouteHandler> {
  const router = new Router<RouteHandler>()
    .add('POST', '/api/payouts', createPayout)
    .add('POST', '/api/payouts/{payoutId}/commit', commitPayout)
    .add('POST', '/api/payouts/{payoutId}/cancel', cancelPayout)
    .add('POST', '/api/merchants/{merchantId}/applications/{applicationId}/refunds', createRefund)
    .add('GET', '/.well-known/signature/pem', getPublicKey);
  for (const [method, path, handler] of sandboxRoutes) router.add(method, path, handler);
  return router;
}

/** Builds the `(req, res)` listener. Never throws: every failure is answered with the error body. */
export function createRequestListener(ctx: ServiceContext, maxBodyBytes: number, extensions: readonly ServiceExtension[] = []): (req: IncomingMessage, res: ServerResponse) => void {
  const router = createRouter();
  return (req, res) => {
    for (const e of extensions) if (e.handle?.(req, res) === true) return;
    void handle(ctx, router, maxBodyBytes, req, res, extensions).catch((error: unknown) => {
      ctx.log(`internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      if (!res.headersSent) sendError(ctx, res, new HttpError(500, 'internal_error', 'internal error'));
      else res.destroy();
    });
  };
}

async function handle(ctx: ServiceContext, router: Router<RouteHandler>, maxBodyBytes: number, req: IncomingMessage, res: ServerResponse, extensions: readonly ServiceExtension[]): Promise<void> {
  const started = performance.now();
  const target = req.url ?? '/';
  let http: HttpRequest | undefined;
  let rejection: HttpError | undefined;
  try {
    const route = router.match(req.method ?? '', routingPath(target));
    const body = await readBody(req, maxBodyBytes);
    http = toHttpRequest(req, body);
    const response = await route.handler(ctx, { req, http, params: route.params, target });
    send(res, response.status, response.contentType, response.body, response.headers);
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    rejection = error;
    if (error.status === 413) res.setHeader('connection', 'close');
    sendError(ctx, res, error);
    if (error.status === 413) req.resume();
  } finally {
    ctx.log(`${req.method ?? '?'} ${target.slice(0, 200)} -> ${res.statusCode} (${(performance.now() - started).toFixed(1)} ms)`);
    if (extensions.length > 0) {
      const answered: AnsweredRequest = {
        at: ctx.now(),
        http: http ?? { method: req.method ?? '', url: target, headers: [], body: new Uint8Array(0) },
        target,
        status: res.statusCode,
        ...(rejection !== undefined ? { code: rejection.code, message: rejection.message } : {}),
      };
      for (const e of extensions) {
        e.requestAnswered?.(answered);
        e.changed?.();
      }
    }
  }
}

export function sendError(ctx: ServiceContext, res: ServerResponse, error: HttpError): void {
  const body = createErrorBody(error, newTracingId(ctx.faults));
  send(res, error.status, 'application/json', stringifyJson(body), { ...error.headers, 'x-payconform-error-code': error.code });
}
