// The HTTP request handler: reads the body (capped), routes, runs the handler, and turns every error into the spec's error body.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RouteHandler, ServiceContext } from './context.js';
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
export function createRequestListener(ctx: ServiceContext, maxBodyBytes: number): (req: IncomingMessage, res: ServerResponse) => void {
  const router = createRouter();
  return (req, res) => {
    void handle(ctx, router, maxBodyBytes, req, res).catch((error: unknown) => {
      ctx.log(`internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      if (!res.headersSent) sendError(ctx, res, new HttpError(500, 'internal_error', 'internal error'));
      else res.destroy();
    });
  };
}

async function handle(ctx: ServiceContext, router: Router<RouteHandler>, maxBodyBytes: number, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const started = performance.now();
  const target = req.url ?? '/';
  try {
    const route = router.match(req.method ?? '', routingPath(target));
    const body = await readBody(req, maxBodyBytes);
    const response = await route.handler(ctx, { req, http: toHttpRequest(req, body), params: route.params, target });
    send(res, response.status, response.contentType, response.body, response.headers);
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    if (error.status === 413) res.setHeader('connection', 'close');
    sendError(ctx, res, error);
    if (error.status === 413) req.resume();
  } finally {
    ctx.log(`${req.method ?? '?'} ${target.slice(0, 200)} -> ${res.statusCode} (${(performance.now() - started).toFixed(1)} ms)`);
  }
}

export function sendError(ctx: ServiceContext, res: ServerResponse, error: HttpError): void {
  const body = createErrorBody(error, newTracingId(ctx.faults));
  send(res, error.status, 'application/json', stringifyJson(body), { ...error.headers, 'x-payconform-error-code': error.code });
}
