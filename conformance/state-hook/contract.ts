// The state hook's contract, version 1 (docs/state-hook.md; schemas/state-hook.schema.json is its one statement): what
// payconform asks a hook for (a settled payment of an amount, an unsettled payment, a payout or refund moved on, a
// payment webhook sent, the payouts held with some references), what each answer must carry, and how a hook says it
// does not offer a state. Every provider (a hook URL, a hook command, payconform's own /sandbox/) is asked and judged
// through these types alone.
import { validateAgainst } from '../../src/schemas/validator.js';

/** The contract's name and version, sent in every request. */
export const STATE_HOOK_CONTRACT = 'payconform-state-hook/1';
export const STATE_HOOK_SCHEMA_ID = 'https://payconform.dev/schemas/state-hook.schema.json';
/** A hook URL's answer to a state it does not offer. */
export const NOT_OFFERED_STATUS = 501;
/** A hook command's exit code for a state it does not offer. */
export const NOT_OFFERED_EXIT = 3;

/** One state payconform asks for (the `contract` member is added when it is sent). */
export type StateRequest =
  | { readonly state: 'settled-payment'; readonly amount: string; readonly payer?: boolean }
  | { readonly state: 'unsettled-payment' }
  | { readonly state: 'payout-status'; readonly payoutId: string; readonly status?: string }
  | { readonly state: 'refund-status'; readonly refundId: string; readonly status?: string }
  | {
      readonly state: 'payment-webhook';
      readonly status: 'COMPLETED' | 'SETTLED' | 'FAILED';
      /** The reference to make the payment with (the service must ignore it and assign its own). */
      readonly reference?: string;
    }
  | { readonly state: 'payouts'; readonly references: readonly string[] };

/** What came of asking: the state made (the hook's answer), not offered (skip, with the reason), or failed. */
export type StateResult =
  | { readonly kind: 'made'; readonly answer: Readonly<Record<string, unknown>> }
  | { readonly kind: 'not-offered'; readonly reason: string }
  | { readonly kind: 'failed'; readonly reason: string };

/**
 * Where a config's hook is: an HTTPS URL (plain HTTP on loopback), or a command run with the request as argument; or,
 * with `lines`, a command started once that answers one request line after another (lines-hook.ts).
 */
export type StateHookConfig =
  | { readonly url: string }
  | { readonly command: readonly [string, ...string[]]; readonly lines?: boolean };

/** The request as sent: the contract's name, then the state asked for. */
export function requestBody(request: StateRequest): Record<string, unknown> {
  return { contract: STATE_HOOK_CONTRACT, ...request };
}

/** A short name of what was asked, for reports: `settled-payment 25.00`. */
export function describeRequest(request: StateRequest): string {
  switch (request.state) {
    case 'settled-payment':
      return `settled-payment ${request.amount}${request.payer === true ? ' with its payer' : ''}`;
    case 'payout-status':
      return `payout-status ${request.payoutId} → ${request.status ?? 'next'}`;
    case 'refund-status':
      return `refund-status ${request.refundId} → ${request.status ?? 'next'}`;
    case 'payouts':
      return `payouts with reference ${request.references.join(' or ')}`;
    case 'payment-webhook':
      return `payment-webhook ${request.status}${request.reference !== undefined ? ` with reference ${request.reference}` : ''}`;
    default:
      return request.state;
  }
}

/** A hook's answer (parsed JSON) to `request`, judged against the contract: made, or failed naming what is wrong. */
export function judgeAnswer(request: StateRequest, answer: unknown, from: string): StateResult {
  const checked = validateAgainst(STATE_HOOK_SCHEMA_ID, { request: requestBody(request), answer });
  if (!checked.valid) {
    const wrong = checked.errors
      .slice(0, 3)
      .map((e) => `${e.pointer.replace(/^\/answer/, '') || 'the answer'} ${e.message}`)
      .join('; ');
    return {
      kind: 'failed',
      reason: `${from} answered ${describeRequest(request)} outside the state hook contract: ${wrong}`,
    };
  }
  return { kind: 'made', answer: answer as Record<string, unknown> };
}

/** The reason a not-offered answer gives (`{"reason": "..."}`), or a default naming the state. */
export function notOfferedReason(request: StateRequest, body: unknown, from: string): string {
  const reason =
    typeof body === 'object' && body !== null
      ? (body as Record<string, unknown>)['reason']
      : undefined;
  return `${from} does not offer ${describeRequest(request)}${typeof reason === 'string' && reason !== '' ? `: ${reason.slice(0, 300)}` : ''}`;
}
