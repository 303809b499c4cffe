// What a webhook-receiver check reads, and how it sends one delivery and judges the answer: a valid one must be answered 200, a
// tampered one with anything but 200; each finding carries the exchange and a curl command that repeats it.
import { signWebhook, type ParsedRsaPrivateKey } from '../../../src/webhooks/index.js';
import { inconclusive, type Finding, type Level } from '../../run/check.js';
import { curlFor } from '../../report/curl.js';
import { sendRequest, type RecordedExchange } from '../../http/http-client.js';
import { unanswered } from '../no-answer.js';
import {
  assertSchemaValid,
  createPayload,
  serializePayload,
  type WebhookKind,
} from './payloads.js';

/**
 * What a webhook-receiver check reads: the receiver URLs, the signing key pair and the key server
 * the receivers fetch from.
 */
export interface WebhookAuditContext {
  /** The receiver's URL for each kind audited. */
  readonly targets: Readonly<Partial<Record<WebhookKind, string>>>;
  /** The service's key: its public half is what the receiver was given. */
  readonly signingKey: ParsedRsaPrivateKey;
  /** Another RSA key, for "signed by another key". */
  readonly otherKey: ParsedRsaPrivateKey;
  /** The applicationId written into the payloads. */
  readonly applicationId: string;
  readonly requestTimeoutMs: number;
}

interface Delivery {
  readonly bytes: Uint8Array;
  /** The Authorization header value; undefined: sent without one. */
  readonly authorization: string | undefined;
}

export const deliver = (
  ctx: WebhookAuditContext,
  kind: WebhookKind,
  d: Delivery,
  signal: AbortSignal,
): Promise<RecordedExchange> =>
  sendRequest(
    {
      method: 'PUT',
      url: ctx.targets[kind]!,
      headers: [
        ['Content-Type', 'application/json'],
        ['Accept', 'application/json'],
        ...(d.authorization !== undefined ? ([['Authorization', d.authorization]] as const) : []),
      ],
      body: d.bytes,
    },
    { timeoutMs: ctx.requestTimeoutMs, signal },
  );

const evidence = (ex: RecordedExchange): NonNullable<Finding['evidence']> => ({
  request: ex.request,
  ...(ex.response ? { response: ex.response } : {}),
  reproduce: curlFor(ex.request),
});
export const answered = (ex: RecordedExchange): string =>
  ex.response
    ? `answered ${ex.response.status}`
    : `no answer (${ex.error?.code ?? 'NETWORK_ERROR'}: ${ex.error?.message ?? ''})`;

/** A valid delivery must be answered 200. */
export function expectAccepted(ex: RecordedExchange, requirement: string, what: string): Finding {
  // The status line is the answer (spec: Events); a body cut short after it changes nothing.
  if (ex.response?.status === 200)
    return { outcome: 'pass', message: `${what}: answered 200`, requirement };
  // No answer (timeout, reset) is not a refusal: a slow or busy receiver is not a non-conformant one.
  if (ex.response === undefined && unanswered(ex))
    return inconclusive(
      `${what}: ${answered(ex)}; no answer is not a refusal, so whether the receiver accepts it is unknown`,
      {
        expected: '200',
        received: ex.error?.code ?? 'no answer',
        requirement,
        evidence: evidence(ex),
      },
    );
  return violationFor(ex, requirement, what);
}

function violationFor(ex: RecordedExchange, requirement: string, what: string): Finding {
  return {
    outcome: 'violation',
    message: `${what}: ${answered(ex)}; the service treats anything but 200 as a failed delivery and sends it again`,
    expected: '200',
    received: ex.response ? String(ex.response.status) : (ex.error?.code ?? 'no answer'),
    requirement,
    evidence: evidence(ex),
  };
}

/**
 * A delivery that must not be accepted: anything but 200. No answer at all (timeout, reset) is not a rejection:
 * the receiver may have accepted and crashed, or never looked, so the check is inconclusive (an error), never a pass.
 */
export function expectRejected(ex: RecordedExchange, requirement: string, what: string): Finding {
  if (ex.response?.status === 200)
    return {
      outcome: 'violation',
      message: `${what}: answered 200, so the receiver accepted a webhook it cannot have verified`,
      expected: 'anything but 200 (e.g. 401)',
      received: '200',
      requirement,
      evidence: evidence(ex),
    };
  if (!ex.response) {
    return inconclusive(
      `${what}: ${answered(ex)}; no answer is not a rejection, so whether the receiver accepts it is unknown`,
      {
        expected: 'an answer other than 200 (e.g. 401)',
        received: ex.error?.code ?? 'no answer',
        requirement,
        evidence: evidence(ex),
      },
    );
  }
  return { outcome: 'pass', message: `${what}: ${answered(ex)}`, requirement };
}

export interface WebhookCase {
  readonly name: string;
  readonly title: (kind: WebhookKind) => string;
  readonly requirements: readonly string[];
  readonly level: Level;
  run(ctx: WebhookAuditContext, kind: WebhookKind, signal: AbortSignal): Promise<Finding[]>;
}

/** A valid delivery: fresh payload, serialised, validated, signed over exactly those bytes. */
export function valid(ctx: WebhookAuditContext, kind: WebhookKind, indent: number): Delivery {
  const bytes = serializePayload(createPayload(kind, ctx.applicationId), indent);
  assertSchemaValid(kind, bytes);
  return { bytes, authorization: signWebhook(bytes, ctx.signingKey) };
}
