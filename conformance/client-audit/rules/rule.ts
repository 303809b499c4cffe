// What a client-audit rule is: an id (public API), the outcomes it gives one request, and what it may read (the
// request's facts, computed once) and touch (the session's memory: nonces seen, the diagnosis budget).
import type { Ed25519Backend, Ed25519PublicKey } from '../../../src/ed25519/backend.js';
import type { HttpRequest } from '../../../src/http/message.js';
import type { ProfileFinding } from '../../../src/profile/profile-findings.js';
import type { ProfileEvaluation } from '../../../src/profile/profile-rules.js';
import type { SignatureInput } from '../../../src/signatures/signature-fields.js';
import type { Level } from '../../run/check.js';
import type { EndpointMatch, EndpointSpec } from '../endpoints.js';

/** The rules, in report order (each becomes one check of the client audit; ids are public API). */
export const CLIENT_RULE_IDS = [
  'client-endpoint',
  'client-signature-headers',
  'client-signature-syntax',
  'client-signature-label',
  'client-covered-components',
  'client-signature-parameter-order',
  'client-signature-alg',
  'client-signature-keyid',
  'client-signature-created',
  'client-signature-nonce',
  'client-content-digest',
  'client-content-type',
  'client-accept',
  'client-request-body',
  'client-application-headers',
  'client-signature-verifies',
] as const;

/** The id of one rule the client audit judges requests by. */
export type ClientRuleId = (typeof CLIENT_RULE_IDS)[number];

export interface RuleOutcome {
  readonly rule: ClientRuleId;
  readonly outcome: 'pass' | 'violation' | 'observation' | 'n/a';
  readonly requirement?: string;
  readonly message: string;
  readonly expected?: string;
  readonly received?: string;
  /** The signature or digest diagnosis, as text for the report. */
  readonly notes?: string;
  /** Overrides the requirement's level (a finding the spec's words support only as a SHOULD). */
  readonly level?: Level;
}

/** The client's credentials, as configured for the audit. */
export interface ClientCredentials {
  readonly applicationId: string;
  readonly applicationSecret: string;
  readonly keyId: string;
  readonly publicKey: Ed25519PublicKey;
  /** When unset, any merchant id in the refund path is accepted. */
  readonly merchantId?: string;
}

/**
 * Skew between "created" and the request's arrival above which the audit warns (spec: "client clocks should be
 * synchronised"). A client that signs just before sending lands within a second or two; payconform's tolerance.
 */
export const CLOCK_SKEW_TOLERANCE_SECONDS = 30;

export interface ClientSessionOptions {
  readonly backend?: Ed25519Backend;
  /** Warn (SIG-CLOCK-SYNC) when |arrival - created| exceeds this many seconds (default 30). */
  readonly clockSkewToleranceSeconds?: number;
  /** Failed signatures diagnosed with the full pair search; later ones try single mistakes only (default 25). */
  readonly fullDiagnoses?: number;
}

/** What the rules may ask of the audit session (one per audit run). */
export interface RuleSession {
  readonly credentials: ClientCredentials;
  readonly options: ClientSessionOptions;
  /** True when `value` is the configured application secret (compared in constant time). */
  secretMatches(value: string): boolean;
  /** Records `nonce` as used by request `index` unless seen before; returns the request that used it first. */
  recordNonce(nonce: string, index: number): number | undefined;
  /** Counts one failed signature; true while the full diagnosis budget lasts. */
  nextDiagnosisIsFull(): boolean;
}

/**
 * Where the request stands on signing, decided once: not signed (and not required to be), a signature header
 * missing, or both present (the members the profile's rules examined: the label's, or the only one).
 */
export type SigningState =
  | { readonly kind: 'unsigned' }
  | { readonly kind: 'headers-missing'; readonly missing: readonly string[] }
  | {
      readonly kind: 'present';
      /** Both headers' member labels, Signature-Input's first (empty when one does not parse). */
      readonly labels: readonly string[];
      /** Both headers carry the profile's label. */
      readonly bothHaveSig1: boolean;
      readonly input?: SignatureInput;
      readonly signature?: Uint8Array;
    };

/** What every rule reads about one request, computed once. */
export interface RequestFacts {
  readonly request: HttpRequest;
  readonly receivedAt: number;
  /** 1-based, in arrival order. */
  readonly index: number;
  readonly match: EndpointMatch;
  /** The spec endpoint called with its own method (undefined: none, or the wrong method). */
  readonly spec: EndpointSpec | undefined;
  /** A bodyless request (`bodyKindOf`: GET, DELETE, or another method without body bytes). */
  readonly bodyless: boolean;
  readonly signing: SigningState;
  /** Every finding of the profile's rules (src/profile/profile-rules.ts) on the request, at its arrival. */
  readonly profile: ProfileEvaluation;
  /** The field lines of a header, as sent. */
  values(name: string): string[];
}

/** One rule: the outcomes it gives one request (several where it finds several things). Never throws for hostile input. */
export type ClientRule = (facts: RequestFacts, session: RuleSession) => RuleOutcome[];

type Extra = Partial<Pick<RuleOutcome, 'expected' | 'received' | 'notes' | 'level'>>;

/** One outcome, in the fields' fixed order (rule, outcome, requirement, message, then the extras). */
export function outcome(
  rule: ClientRuleId,
  result: RuleOutcome['outcome'],
  requirement: string | undefined,
  message: string,
  extra: Extra = {},
): RuleOutcome {
  return {
    rule,
    outcome: result,
    ...(requirement !== undefined ? { requirement } : {}),
    message,
    ...extra,
  };
}

export function notApplicable(rule: ClientRuleId, message: string): RuleOutcome[] {
  return [outcome(rule, 'n/a', undefined, message)];
}

/** Why a rule on the signature headers' content has nothing to read. */
export function noSignatureHeaders(
  signing: Exclude<SigningState, { readonly kind: 'present' }>,
): string {
  return signing.kind === 'unsigned' ? 'not a signed request' : 'no signature to examine';
}

/**
 * The signature member a rule examines, or why there is none (the n/a message each case has always given):
 * not signed, a header missing, or no member under the label.
 */
export function signatureMember(
  facts: RequestFacts,
): { readonly input: SignatureInput; readonly signature?: Uint8Array } | { readonly none: string } {
  const s = facts.signing;
  if (s.kind !== 'present') return { none: noSignatureHeaders(s) };
  if (s.input === undefined) return { none: 'no signature member to examine' };
  return s.signature !== undefined
    ? { input: s.input, signature: s.signature }
    : { input: s.input };
}

/** The outcome of a profile finding under `rule`: a violation with the finding's message and sides. */
export function findingOutcome(
  rule: ClientRuleId,
  f: ProfileFinding,
  extra: Extra & { readonly message?: string } = {},
): RuleOutcome {
  const { message, ...sides } = extra;
  return outcome(rule, 'violation', f.requirement, message ?? f.message, {
    expected: f.expected,
    received: f.received,
    ...sides,
  });
}

/** Runs `judge` on the signature member, or gives the rule's n/a. */
export function onSignatureMember(
  rule: ClientRuleId,
  facts: RequestFacts,
  judge: (input: SignatureInput) => RuleOutcome[],
): RuleOutcome[] {
  const member = signatureMember(facts);
  return 'none' in member ? notApplicable(rule, member.none) : judge(member.input);
}
