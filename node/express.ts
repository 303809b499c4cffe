// Express (5.x) middleware over verifyIncomingRequest: verifies, attaches the verified application as
// `req.payconform`, and answers a refusal with the spec's error body (401 the client's fault, 503 the service's).
// Imports nothing from Express (an optional peer): the request and response are typed as node:http's, which
// Express's extend.
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  prepareIncomingOptions,
  verifyIncomingRequest,
  writeRefusal,
  type IncomingVerifyOptions,
  type VerifiedApplication,
} from './verify-incoming.js';

declare global {
  // Merges with @types/express's `Express.Request` when it is installed; harmless otherwise.
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /**
       * The verified application: set on every request that reaches a route behind createExpressVerifier (which
       * answers every other request itself). Not set on a route outside it, which must not read it.
       */
      payconform: VerifiedApplication;
    }
  }
}

/** The parts of Express's request the verifier reads and sets. */
export interface ExpressLikeRequest extends IncomingMessage {
  /** The target as received (Express rewrites `url` under a mount path). */
  originalUrl?: string;
  body?: unknown;
  payconform?: VerifiedApplication;
}

/** Express middleware that verifies a signed request before the next handler runs. */
export type ExpressVerifier = (
  req: ExpressLikeRequest,
  res: ServerResponse,
  next: (error?: unknown) => void,
) => void;

/**
 * `app.use(createExpressVerifier({ nonceStore, resolveApplication }))`, before any body parser: it reads the body
 * itself and leaves the verified bytes in `req.body` (a Buffer, as `express.raw()` does), so a later `express.json()`
 * finds the body read and leaves it. After `express.raw()` it verifies the Buffer that one read. `req.payconform.target`
 * is the verified authority and path: route by it, not by `req.hostname` (the unverified Host header).
 *
 * @example
 * ```ts
 * app.post('/api/payouts', createExpressVerifier({ nonceStore, resolveApplication }), (req, res) => {
 *   res.json({ ok: true, application: req.payconform.applicationId });
 * });
 * ```
 */
export function createExpressVerifier(options: IncomingVerifyOptions): ExpressVerifier {
  prepareIncomingOptions(options); // a bad deadline or rate throws here, at start-up
  return (req, res, next) => {
    const already = req.body instanceof Uint8Array ? req.body : undefined;
    verifyIncomingRequest(req, options, {
      target: req.originalUrl ?? req.url,
      ...(already ? { body: already } : {}),
    }).then((outcome) => {
      if (!outcome.ok) {
        try {
          writeRefusal(res, outcome);
        } catch (error) {
          next(error); // the response could not be written: Express's error handling decides
        }
        return;
      }
      req.payconform = outcome.application;
      if (already === undefined)
        req.body = Buffer.from(outcome.body.buffer, outcome.body.byteOffset, outcome.body.length);
      next();
    }, next); // only a defect rejects: Express's error handling answers it
  };
}
