// payconform/node: verification where a Node service receives requests. The node:http adapter (the HttpRequest of an
// IncomingMessage, the body under a cap), one call that verifies an incoming request, and thin middleware for
// Express 5 and Fastify 5, which stay optional peers: nothing here imports either.
export {
  DEFAULT_MAX_BODY_BYTES,
  httpRequestFromIncoming,
  readRequestBody,
  type BodyResult,
  type IncomingRequestErrorCode,
  type IncomingRequestOptions,
  type IncomingRequestResult,
  type ProxyTrust,
} from '../net/incoming-request.js';
export { type ServiceErrorBody } from '../net/error-body.js';
export {
  DEFAULT_BODY_RATE_GRACE_MS,
  DEFAULT_BODY_TIMEOUT_MS,
  DEFAULT_MIN_BODY_BYTES_PER_SECOND,
  type BodyLimits,
} from '../net/body-deadline.js';
// The lookup deadline's default: withLookupDeadline and LookupTimeoutError are the root entry's (payconform).
export { DEFAULT_LOOKUP_TIMEOUT_MS } from '../src/profile/lookup-deadline.js';
export {
  describePoolEvent,
  verifyIncomingRequest,
  writeRefusal,
  type IncomingSource,
  type IncomingVerification,
  type IncomingVerifyOptions,
  type Refusal,
  type VerifiedApplication,
  type VerifiedTarget,
} from './verify-incoming.js';
export { createExpressVerifier, type ExpressLikeRequest, type ExpressVerifier } from './express.js';
export {
  createFastifyVerifier,
  type FastifyLikeInstance,
  type FastifyLikeReply,
  type FastifyLikeRequest,
  type FastifyVerifier,
} from './fastify.js';
