// Fastify (5.x) plugin over verifyIncomingRequest: a preParsing hook reads the body, verifies it, sets
// `request.payconform`, and hands the verified bytes on to Fastify's content-type parsers (so the route parses
// exactly what was verified); a refusal is answered with the spec's error body. Imports nothing from Fastify (an
// optional peer): the instance is typed by the two methods used.
import { Readable } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import {
  createRefusal,
  prepareIncomingOptions,
  verifyIncomingRequest,
  type IncomingVerifyOptions,
  type VerifiedApplication,
} from './verify-incoming.js';

/** The parts of a Fastify request the hook reads and sets. */
export interface FastifyLikeRequest {
  readonly raw: IncomingMessage;
  payconform?: VerifiedApplication | null;
}

/** The parts of a Fastify reply the hook uses to refuse. */
export interface FastifyLikeReply {
  code(status: number): FastifyLikeReply;
  header(name: string, value: string): FastifyLikeReply;
  send(payload: string): unknown;
}

/** The two methods of a Fastify instance the plugin calls. */
export interface FastifyLikeInstance {
  decorateRequest(name: 'payconform', value: null): unknown;
  addHook(
    name: 'preParsing',
    hook: (
      request: FastifyLikeRequest,
      reply: FastifyLikeReply,
      payload: NodeJS.ReadableStream,
    ) => Promise<NodeJS.ReadableStream | undefined>,
  ): unknown;
}

/** A Fastify plugin that verifies signed requests before their handlers run. */
export type FastifyVerifier = ((
  instance: FastifyLikeInstance,
  options: unknown,
  done: (error?: Error) => void,
) => void) & { readonly [key: symbol]: unknown };

/**
 * `await app.register(createFastifyVerifier({ nonceStore, resolveApplication }))`: every route of the context it is
 * registered in (register it inside a plugin to cover only that plugin's routes) verifies first. Register it before
 * any other preParsing hook: it must read the bytes as they arrived. `request.payconform.target` is the verified
 * authority and path: route by it, not by `request.host` (the unverified Host header).
 */
export function createFastifyVerifier(options: IncomingVerifyOptions): FastifyVerifier {
  prepareIncomingOptions(options); // a bad deadline or rate throws here, at start-up
  const plugin = (instance: FastifyLikeInstance, _: unknown, done: (error?: Error) => void) => {
    instance.decorateRequest('payconform', null);
    instance.addHook('preParsing', async (request, reply, payload) => {
      const raw = request.raw;
      const outcome =
        payload === raw
          ? await verifyIncomingRequest(raw, options)
          : createRefusal(raw, options, 500, 'BODY_ALREADY_READ', {
              detail:
                'another preParsing hook replaced the body stream before verification: register the verifier first',
            });
      if (!outcome.ok) {
        reply.code(outcome.status).header('content-type', 'application/json');
        reply.header('x-payconform-error-code', outcome.code);
        if (outcome.close) reply.header('connection', 'close');
        reply.send(JSON.stringify(outcome.errorBody));
        return undefined;
      }
      request.payconform = outcome.application;
      // A fresh stream of the verified bytes (the original has been read to its end).
      return Readable.from(outcome.body.length > 0 ? [Buffer.from(outcome.body)] : []);
    });
    done();
  };
  // As fastify-plugin marks a plugin: the hook applies to the context that registers it, not to a child context.
  return Object.assign(plugin, {
    [Symbol.for('skip-override')]: true,
    [Symbol.for('fastify.display-name')]: 'payconform',
  });
}
