// What a signing-fault check sends: the shape of a variant (one way a rule is broken) and of a rejection check's
// spec, and the request helpers the variants share (the expired signature's age, a correct signature, a reference
// one character off). It declares no check.
import type { HttpRequest } from '../../../src/http/message.js';
import { serviceProfile } from '../../../src/profile/service-profile.js';
import type { Level } from '../../run/check.js';
import type { ServerAuditContext } from './context.js';
import { signCorrectly } from './forge.js';
import { credentialsOf } from './requests.js';
import { UNKNOWN_CLOCK } from './target-clock.js';

interface Variant {
  /** How the request is broken, as a phrase ("Signature header removed"). */
  readonly name: string;
  /** The broken request from the unsigned create-payout request; `reference` is the body's reference. */
  readonly build: (
    ctx: ServerAuditContext,
    request: HttpRequest,
    reference: string,
  ) => { readonly request: HttpRequest; readonly references?: readonly string[] };
}

export interface RejectionSpec<Id extends string> {
  readonly id: Id;
  readonly title: string;
  /** The rule the broken request violates (findings about acceptance name the first). */
  readonly requirements: readonly [string, ...string[]];
  readonly level?: Level;
  readonly variants: readonly Variant[];
  /**
   * Requests the spec lets a server accept or reject (for example a valid sig1 beside another label: RFC 9421 §7.2.7
   * lets a verifier choose which signatures it processes): sent, and the answer recorded, never judged.
   */
  readonly recorded?: readonly Variant[];
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/**
 * How old the expired signature is: one second past the window on the embedded service (this machine's clock), and
 * past it by payconform's clock tolerance on another target, which judges `created` by its own clock (signature-forgeries
 * reads that clock and draws nearer the edge).
 */
export const expiredAge = (sameClock: boolean): number =>
  serviceProfile.maxAgeSeconds + 1 + (sameClock ? 0 : UNKNOWN_CLOCK.hi);

export const signed = (ctx: ServerAuditContext, request: HttpRequest): HttpRequest =>
  signCorrectly(request, credentialsOf(ctx));

/** Same length, one character different: the body changes but Content-Length (a covered component) does not. */
export function alterReference(reference: string): string {
  const last = reference.at(-1) ?? '0';
  return `${reference.slice(0, -1)}${last === '0' ? '1' : '0'}`;
}
