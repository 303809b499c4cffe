// What the drawn forgeries are made of (check signature-forgeries): a form builds one signed create-payout request
// that breaks one of the profile's rules at its edge (`size` 0) or further beyond it, through the one signer and, for
// what the signer will not write (a label's case, a parameter's type, a repeated parameter), an edit of the fields
// after signing that leaves the signed base as it was.
import { randomBytes } from 'node:crypto';
import type { HttpRequest } from '../../../src/http/message.js';
import {
  findingVerdicts,
  type EitherReason,
  type FindingVerdict,
} from '../../../src/profile/finding-verdicts.js';
import type { FindingCase } from '../../../src/profile/profile-findings.js';
import { serviceProfile } from '../../../src/profile/service-profile.js';
import {
  applySignedHeaders,
  signRequestWithOverrides,
  type SignOverrides,
} from '../../../src/profile/sign-request.js';
import type { AuditCredentials } from './context.js';

/** What a form is built from: the unsigned create-payout request, the credentials, the clock and the drawn size. */
export interface FormInput {
  readonly request: HttpRequest;
  readonly credentials: AuditCredentials;
  /** Unix seconds. */
  readonly now: number;
  /** 0 is the rule's edge; larger is further beyond it. */
  readonly size: number;
}

export interface ForgeryForm {
  /** Stable name, shown in reports. */
  readonly name: string;
  /** The rule it breaks (the family it is drawn from). */
  readonly rule:
    'nonce' | 'created' | 'alg' | 'keyid' | 'parameters' | 'label' | 'components' | 'digest';
  /**
   * What the profile's rules find in it: the case of its first finding (whose classification, must refuse or either
   * answer, is the form's: src/profile/finding-verdicts.ts), or nothing: a request within every bound, or one the
   * rules accept that the spec still lets a server refuse (either answer, and why).
   */
  readonly finds: FormFinds;
  /** The id of the vector in vectors/request-signing.json drawn by this form (a cross-reference, not a verdict). */
  readonly vector?: string;
  /** What was sent, as a phrase ("a nonce of 51 characters"). */
  readonly describe: (size: number) => string;
  readonly build: (input: FormInput) => HttpRequest;
}

/** See `ForgeryForm.finds`. */
export type FormFinds =
  | FindingCase
  | { readonly none: 'accept' }
  | { readonly none: 'either'; readonly why: EitherReason; readonly reason: string };

/** What the spec requires of a server given the form: its finding's classification, or acceptance. */
export type FormVerdict = FindingVerdict | { readonly verdict: 'must-accept' };

export function formVerdict(form: Pick<ForgeryForm, 'finds'>): FormVerdict {
  const finds = form.finds;
  if (typeof finds === 'string') return findingVerdicts[finds];
  return finds.none === 'accept'
    ? { verdict: 'must-accept' }
    : { verdict: 'either', why: finds.why, reason: finds.reason };
}

export const P = serviceProfile;
export const [LABEL, ALG, NONCE_MAX, MAX_AGE, MAX_FUTURE] = [
  P.label,
  P.alg,
  P.nonceMaxLength,
  P.maxAgeSeconds,
  P.maxFutureSkewSeconds,
];
const NONCE_CHARACTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.';

/** `n` random nonce characters (fresh each time: a nonce is never sent twice by accident). */
export function randomNonce(n: number): string {
  const bytes = randomBytes(n);
  let s = '';
  for (const b of bytes) s += NONCE_CHARACTERS[b % NONCE_CHARACTERS.length];
  return s;
}

/** The request signed by the one signer with `overrides`. */
export function signWith(input: FormInput, overrides: SignOverrides): HttpRequest {
  const signed = signRequestWithOverrides(input.request, input.credentials, {
    created: input.now,
    ...overrides,
  });
  return applySignedHeaders(input.request, signed.headers, signed.removed);
}

/** Every line of header `name` rewritten by `edit` (after signing: what the base covers is unchanged). */
export function editField(
  request: HttpRequest,
  name: string,
  edit: (value: string) => string,
): HttpRequest {
  return {
    ...request,
    headers: request.headers.map(([n, v]) => [n, n.toLowerCase() === name ? edit(v) : v] as const),
  };
}

/** Signed with `overrides`, then Signature-Input's text edited: the base keeps what was signed. */
export const signedThenInput =
  (
    overrides: (input: FormInput) => SignOverrides,
    edit: (value: string, input: FormInput) => string,
  ) =>
  (input: FormInput): HttpRequest =>
    editField(signWith(input, overrides(input)), 'signature-input', (v) => edit(v, input));

export const pick = <T>(list: readonly T[], size: number): T => list[size % list.length]!;
export const CASE_VARIANTS = (word: string): readonly string[] => [
  word.toUpperCase(),
  word[0]!.toUpperCase() + word.slice(1),
  [...word].map((c, i) => (i % 2 === 1 ? c.toUpperCase() : c)).join(''),
];
export const OTHER_ALGS = ['ed448', 'rsa-pss-sha512', 'ecdsa-p256-sha256', 'hmac-sha256'] as const;
export const OTHER_LABELS = [`${LABEL}0`, 'sig2', 'sig', `${LABEL}a`] as const;
export const EXTRA_COMPONENTS = ['accept', 'content-encoding', '@target-uri', '@query'] as const;
export const digits = (size: number): string => String(10 ** Math.min(14, 6 + size) + (size % 7));
