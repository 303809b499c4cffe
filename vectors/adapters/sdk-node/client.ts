// A small SDK for the payments service over payconform's own signer: what an application would call. Every switch
// of `SDK_FAULTS` is a mistake a real SDK makes; with none switched on it is the reference behaviour.
import { randomUUID } from 'node:crypto';
import {
  signRequest,
  signRequestWithOverrides,
  applySignedHeaders,
} from '../../../src/profile/sign-request.js';
import type { Ed25519PrivateKey } from '../../../src/ed25519/backend.js';
import type { HttpRequest } from '../../../src/http/message.js';
import { endpointSpecs } from '../../../conformance/client-audit/endpoints.js';
import type { SdkFault } from './faults.js';
import { specMembersOf } from '../../../conformance/sdk-explore/spec-properties.js';

export interface ClientConfig {
  readonly baseUrl: string;
  readonly applicationId: string;
  readonly merchantId: string;
  readonly keyId: string;
  readonly payInAccountSelector: string;
  readonly applicationSecret: string;
  readonly privateKey: Ed25519PrivateKey;
}

/** What the SDK returns to its caller: the resource, or the error it raises. */
export type SdkResult =
  | { readonly resource: Record<string, unknown> }
  | {
      readonly error: {
        status: number | null;
        body: string | null;
        message: string | null;
        code: string | null;
      };
    };

interface Answer {
  readonly status: number;
  readonly text: string;
}

/** Attempts in all when the service answers 503 (its outage: the request is signed again each time). */
const ATTEMPTS = 3;

export class PaymentsClient {
  readonly #fixedNonce = randomUUID();

  constructor(
    private readonly config: ClientConfig,
    private readonly faults: ReadonlySet<SdkFault> = new Set(),
    /** Hand the caller only the members the spec defines (a typed SDK's choice). */
    private readonly typed = false,
    /** A stress of the audit, not an SDK's choice: this many unknown members added to every result handed on. */
    private readonly pad = 0,
  ) {}

  createPayout(input: Record<string, unknown>): Promise<SdkResult> {
    const { amount, reference, destination, doNotCommitOnCoPMismatch } = input;
    const body = {
      applicationId: this.config.applicationId,
      payInAccountSelector: this.config.payInAccountSelector,
      amount: this.faults.has('amount-multiplied') ? Number(amount) * 10 : amount,
      reference: this.faults.has('reference-changed') ? `${String(reference)}-X` : reference,
      destination: this.faults.has('destination-swapped')
        ? { ...(destination as object), accountNumber: '99999999', sortCode: '999999' }
        : destination,
      ...(doNotCommitOnCoPMismatch !== undefined ? { doNotCommitOnCoPMismatch } : {}),
    };
    return this.#call('create-payout', '/api/payouts', body);
  }

  commitPayout(payoutId: string): Promise<SdkResult> {
    return this.#call('commit-payout', `/api/payouts/${encodeURIComponent(payoutId)}/commit`);
  }

  cancelPayout(payoutId: string): Promise<SdkResult> {
    if (this.faults.has('cancel-sends-commit')) return this.commitPayout(payoutId);
    return this.#call('cancel-payout', `/api/payouts/${encodeURIComponent(payoutId)}/cancel`);
  }

  createRefund(paymentId: string, amount: string): Promise<SdkResult> {
    const { merchantId, applicationId } = this.config;
    const path = `/api/merchants/${encodeURIComponent(merchantId)}/applications/${encodeURIComponent(applicationId)}/refunds`;
    const sent = this.faults.has('amount-multiplied')
      ? (Number(amount) * 10).toFixed(2)
      : this.faults.has('refund-halved')
        ? (Number(amount) / 2).toFixed(2)
        : amount;
    return this.#call('create-refund', path, { paymentId, amount: sent });
  }

  /** Signs and sends, signing again for each retry after a 503; the last answer becomes the caller's result. */
  async #call(
    endpoint: keyof typeof endpointSpecs,
    path: string,
    body?: object,
  ): Promise<SdkResult> {
    let signed = this.#sign(endpoint, path, body);
    let first: Answer | undefined;
    let answer: Answer | undefined;
    for (let attempt = 1; attempt <= ATTEMPTS; attempt += 1) {
      answer = await send(signed, this.#sentBody(signed, body));
      first ??= answer;
      if (answer.status !== 503) break;
      if (!this.faults.has('resend-same-bytes-after-503'))
        signed = this.#sign(endpoint, path, body);
    }
    const given =
      this.faults.has('retry-answer-is-first-error') && first!.status === 503 ? first! : answer!;
    return this.#result(given);
  }

  #sign(endpoint: keyof typeof endpointSpecs, path: string, body?: object): HttpRequest {
    const spec = endpointSpecs[endpoint];
    const headers: Array<[string, string]> = [];
    if (spec.contentType) headers.push(['content-type', spec.contentType.media]);
    if (spec.accept) headers.push(['accept', spec.accept.media]);
    const request: HttpRequest = {
      method: 'POST',
      url: `${this.config.baseUrl}${path}`,
      headers,
      body: body === undefined ? new Uint8Array(0) : Buffer.from(JSON.stringify(body), 'utf8'),
    };
    const nonce = this.faults.has('nonce-reused-per-client') ? { nonce: this.#fixedNonce } : {};
    const result =
      this.faults.has('bodyless-post-without-digest') && spec.body === 'none'
        ? signRequestWithOverrides(request, this.config, { ...nonce, contentDigest: null })
        : signRequest(request, this.config, nonce);
    return applySignedHeaders(request, result.headers, result.removed);
  }

  /** The bytes sent: the signed ones, or (a fault) the body written again after signing. */
  #sentBody(signed: HttpRequest, body?: object): Uint8Array {
    if (!this.faults.has('body-reserialised-after-signing') || body === undefined)
      return signed.body;
    return Buffer.from(JSON.stringify(body, null, 2), 'utf8');
  }

  #result(answer: Answer): SdkResult {
    if (answer.status === 0)
      return { error: { status: null, body: null, message: answer.text, code: 'NETWORK' } };
    if (answer.status >= 200 && answer.status < 300) {
      try {
        const resource = JSON.parse(answer.text) as Record<string, unknown>;
        const kind = 'refundPaymentId' in resource ? 'refund' : 'payout';
        const shown = this.typed ? (specMembersOf(kind, resource) as typeof resource) : resource;
        return { resource: this.#present(shown) };
      } catch {
        return {
          error: {
            status: answer.status,
            body: answer.text,
            message: 'not JSON',
            code: 'BAD_RESPONSE',
          },
        };
      }
    }
    return { error: this.#error(answer) };
  }

  /** The resource as handed to the caller. */
  #present(resource: Record<string, unknown>): Record<string, unknown> {
    const shown = { ...resource };
    if (this.faults.has('held-reported-as-success') && shown['status'] === 'AWAITING_COMMIT')
      shown['status'] = 'IN_PROGRESS';
    if (this.faults.has('copstatus-dropped')) delete shown['copStatus'];
    if (this.faults.has('amount-truncated') && shown['amount'] !== undefined)
      shown['amount'] = Math.trunc(Number(shown['amount']));
    for (let i = 0; i < this.pad; i++) shown[`x-pad-${i}`] = i;
    return shown;
  }

  #error(answer: Answer): Extract<SdkResult, { error: unknown }>['error'] {
    let message: string | null = null;
    let code: string | null = null;
    try {
      const parsed = JSON.parse(answer.text) as Record<string, unknown>;
      message = typeof parsed['errorMessage'] === 'string' ? parsed['errorMessage'] : null;
      code = typeof parsed['statusName'] === 'string' ? parsed['statusName'] : null;
    } catch {
      /* a body that is not JSON is passed on as text */
    }
    const collapsed = this.faults.has('error-status-collapsed') && answer.status < 500;
    if (this.faults.has('error-body-swallowed'))
      return { status: answer.status, body: null, message: null, code: 'HTTP_ERROR' };
    return { status: collapsed ? 400 : answer.status, body: answer.text, message, code };
  }
}

/** One exchange over fetch; a network failure is an error with no status. */
async function send(request: HttpRequest, body: Uint8Array): Promise<Answer> {
  try {
    const response = await fetch(request.url, {
      method: request.method,
      // fetch writes Content-Length itself, from the bytes it sends.
      headers: request.headers.filter(([n]) => n.toLowerCase() !== 'content-length') as Array<
        [string, string]
      >,
      ...(request.body.length > 0 ? { body } : {}),
      signal: AbortSignal.timeout(10_000),
    });
    return { status: response.status, text: await response.text() };
  } catch (error) {
    return { status: 0, text: error instanceof Error ? error.message : String(error) };
  }
}
