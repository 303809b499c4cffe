// The requests the server checks send (create payout, commit, cancel, refund, public key) and the exchange helper
// that records them as evidence with a reproduce command.
import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { Duplex } from 'node:stream';
import type { HttpRequest } from '../../../src/http/message.js';
import type { CheckRunEnv, Evidence } from '../../run/check.js';
import {
  endpointSpecs,
  PAYOUT_MEDIA_TYPE,
  REFUND_MEDIA_TYPE,
} from '../../client-audit/endpoints.js';
import type { PayoutDestinationConfig } from '../../config/config.js';
import { curlFor } from '../../report/curl.js';
import { sendRequest, type RecordedExchange } from '../../http/http-client.js';
import type { AuditCredentials, ServerAuditContext } from './context.js';
import { signCorrectly } from './forge.js';

export const PAYOUTS_PATH = endpointSpecs['create-payout'].path;

const encoder = new TextEncoder();

/** A payout reference unique to one request, so its webhooks can be told apart from every other. */
export function uniqueReference(): string {
  return `pc-${randomBytes(8).toString('hex')}`;
}

/** The smallest amount: conformance payouts and refunds move as little money as possible. */
export const PAYOUT_AMOUNT = 0.01;

export interface PayoutSpec {
  readonly destination: PayoutDestinationConfig;
  /** `undefined`: the member is omitted. */
  readonly doNotCommitOnCoPMismatch?: boolean;
  readonly reference?: string;
  /** The amount as a JSON number literal (e.g. `1234.5`), written into the body as given; default PAYOUT_AMOUNT. */
  readonly amountText?: string;
}

const AMOUNT_SLOT = '@@amount@@';

/** The application the audit's requests are made under (body, x-application-id, the refund path). */
export function applicationIdOf(ctx: ServerAuditContext): string {
  return ctx.credentials?.applicationId ?? ctx.applicationId ?? '';
}

/** A create-payout request (unsigned) and the reference it carries. */
export function payoutRequest(
  ctx: ServerAuditContext,
  spec: PayoutSpec,
): { request: HttpRequest; reference: string } {
  const reference = spec.reference ?? uniqueReference();
  const body = {
    applicationId: applicationIdOf(ctx),
    payInAccountSelector: ctx.payInAccountSelector ?? '',
    amount: spec.amountText !== undefined ? AMOUNT_SLOT : PAYOUT_AMOUNT,
    reference,
    destination: spec.destination,
    ...(spec.doNotCommitOnCoPMismatch !== undefined
      ? { doNotCommitOnCoPMismatch: spec.doNotCommitOnCoPMismatch }
      : {}),
  };
  return {
    reference,
    request: {
      method: 'POST',
      url: `${ctx.baseUrl}${PAYOUTS_PATH}`,
      headers: [
        ['content-type', PAYOUT_MEDIA_TYPE],
        ['accept', PAYOUT_MEDIA_TYPE],
      ],
      // The amount literal goes into the body as written (trailing zeros kept), not as JSON.stringify would print it.
      body: encoder.encode(
        spec.amountText !== undefined
          ? JSON.stringify(body).replace(`"${AMOUNT_SLOT}"`, spec.amountText)
          : JSON.stringify(body),
      ),
    },
  };
}

/** The credentials, or a TypeError (a check that signs must name the signing needs). */
export function credentialsOf(ctx: ServerAuditContext): AuditCredentials {
  if (ctx.credentials === undefined)
    throw new TypeError('this check needs signing credentials (declare them in needs)');
  return ctx.credentials;
}

/**
 * The payee when the config names no FULL_MATCH destination: the signing checks judge only whether a signed request
 * is accepted or refused, so any well-formed destination does (they need only the credentials).
 */
export const DEFAULT_PAYEE: PayoutDestinationConfig = {
  destinationType: 'toAccount',
  accountType: 'SCAN',
  holderName: 'Jane Payee',
  accountNumber: '12345678',
  sortCode: '040004',
  iban: null,
};

/** The default destination: the config's FULL_MATCH one, else `DEFAULT_PAYEE`. */
export function defaultDestination(ctx: ServerAuditContext): PayoutDestinationConfig {
  return ctx.copDestinations.FULL_MATCH ?? DEFAULT_PAYEE;
}

/**
 * Sends one request under the run's deadline. Never throws. `timeoutMs` overrides the context's request timeout (the
 * concurrency probes give stragglers longer); `connection` is one already open (see warm-connections.ts);
 * `maxResponseBytes` raises the client's read limit (the /sandbox/ listings).
 */
export async function exchange(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  request: HttpRequest,
  options: {
    readonly timeoutMs?: number;
    readonly connection?: Duplex;
    readonly maxResponseBytes?: number;
  } = {},
): Promise<RecordedExchange> {
  const left = Math.max(1, env.deadline - Date.now());
  // A check may have many exchanges in flight on its one signal (each adds an abort listener until it settles).
  setMaxListeners(256, env.signal);
  return sendRequest(request, {
    timeoutMs: Math.min(options.timeoutMs ?? ctx.requestTimeoutMs, left),
    signal: env.signal,
    ...(ctx.tlsCa !== undefined ? { ca: ctx.tlsCa } : {}),
    ...(options.maxResponseBytes !== undefined
      ? { maxResponseBytes: options.maxResponseBytes }
      : {}),
    ...(options.connection !== undefined ? { connection: options.connection } : {}),
  });
}

/** A correctly signed create-payout request, sent. */
export async function createSignedPayout(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  spec: PayoutSpec,
): Promise<{ ex: RecordedExchange; reference: string }> {
  const { request, reference } = payoutRequest(ctx, spec);
  const ex = await exchange(ctx, env, signCorrectly(request, credentialsOf(ctx)));
  return { ex, reference };
}

/** Headers of the unsigned calls (commit, cancel, refund): the two application headers as in the spec's examples. */
function appHeaders(ctx: ServerAuditContext, mediaType: string): Array<readonly [string, string]> {
  const id = applicationIdOf(ctx);
  const secret = ctx.credentials?.applicationSecret ?? ctx.applicationSecret ?? '';
  return [
    ['content-type', mediaType],
    ['accept', mediaType],
    ['x-application-id', id],
    ['x-application-secret', secret],
  ];
}

/** POST /api/payouts/{payoutId}/commit or /cancel, unsigned (spec: the examples carry only the application headers). */
export function payoutActionRequest(
  ctx: ServerAuditContext,
  payoutId: string,
  action: 'commit' | 'cancel',
): HttpRequest {
  return {
    method: 'POST',
    url: `${ctx.baseUrl}${PAYOUTS_PATH}/${encodeURIComponent(payoutId)}/${action}`,
    headers: appHeaders(ctx, PAYOUT_MEDIA_TYPE),
    body: new Uint8Array(0),
  };
}

/** POST /api/merchants/{merchantId}/applications/{applicationId}/refunds with `{ paymentId, amount }` (amount as a string). */
export function refundRequest(
  ctx: ServerAuditContext,
  paymentId: string,
  amount: string,
): HttpRequest {
  const applicationId = applicationIdOf(ctx);
  return {
    method: 'POST',
    url: `${ctx.baseUrl}/api/merchants/${encodeURIComponent(ctx.merchantId ?? '')}/applications/${encodeURIComponent(applicationId)}/refunds`,
    headers: appHeaders(ctx, REFUND_MEDIA_TYPE),
    body: encoder.encode(JSON.stringify({ paymentId, amount })),
  };
}

/**
 * Sends an unsigned commit, cancel or refund call; when the target answers 401 or 403 (which one a server uses for a
 * missing signature is not shown) and signing credentials exist, sends
 * it again signed (whether these calls require a signature is "not shown"); `unsignedAttempt` is then the first try.
 */
export async function sendAppCall(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  request: HttpRequest,
): Promise<{ ex: RecordedExchange; unsignedAttempt?: RecordedExchange }> {
  const first = await exchange(ctx, env, request);
  const status = first.response?.status;
  if ((status !== 401 && status !== 403) || ctx.credentials === undefined) return { ex: first };
  const signed = await exchange(ctx, env, signCorrectly(request, ctx.credentials));
  return { ex: signed, unsignedAttempt: first };
}

export function publicKeyRequest(ctx: ServerAuditContext): HttpRequest {
  return {
    method: 'GET',
    url: `${ctx.baseUrl}${endpointSpecs['public-key'].path}`,
    headers: [['accept', '*/*']],
    body: new Uint8Array(0),
  };
}

/** Evidence of one exchange: the request as sent, the response as received, and a curl command. */
export function evidenceOf(
  ctx: ServerAuditContext,
  ex: RecordedExchange,
  notes?: string,
): Evidence {
  const note = [ex.error ? `${ex.error.code}: ${ex.error.message}` : undefined, notes]
    .filter((n) => n !== undefined)
    .join('; ');
  return {
    request: ex.request,
    ...(ex.response ? { response: ex.response } : {}),
    reproduce: curlFor(ex.request, ctx.redactor),
    ...(note !== '' ? { notes: note } : {}),
  };
}

/** One line for messages: `401 Unauthorized`, or the transport error. */
export function describeOutcome(ex: RecordedExchange): string {
  if (ex.response === undefined)
    return ex.error ? `no response (${ex.error.code}: ${ex.error.message})` : 'no response';
  const r = ex.response;
  return `${r.status}${r.statusText ? ` ${r.statusText}` : ''}${ex.error ? ` (${ex.error.code})` : ''}`;
}

/** A received value for a message: strings as they are, anything else as JSON (the spec model's one `show`). */
export { show as showValue } from '../../spec-model/judgement.js';

/** The parsed JSON body of a 2xx response, as an object, or undefined. */
export function jsonObject(ex: RecordedExchange): Record<string, unknown> | undefined {
  const j = ex.response?.json;
  return typeof j === 'object' && j !== null && !Array.isArray(j)
    ? (j as Record<string, unknown>)
    : undefined;
}

export function isSuccess(ex: RecordedExchange): boolean {
  const s = ex.response?.status;
  return s !== undefined && s >= 200 && s < 300 && ex.error === undefined;
}
