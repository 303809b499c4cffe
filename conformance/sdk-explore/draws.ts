// What the SDK explorer draws (fast-check): per sequence the service's permitted personality, then up to
// `EXPLORE_DEFAULTS.sdk.maxOps` operations an application asks its SDK for. Plain data, so a sequence shrinks and
// replays from fast-check's seed and path.
import fc from 'fast-check';
import { copStatuses } from '../../src/schemas/statuses.js';
import { amountPenceArb, LONG_REFERENCE, referenceArb } from '../explore/values.js';

/** The service's own outage before it answers (the spec's 5xx class; the profile's 503 codes). */
export const OUTAGE_CODES = ['STATE_STORE_UNAVAILABLE', 'NONCE_STORE_UNAVAILABLE'] as const;
export type OutageCode = (typeof OUTAGE_CODES)[number];

/** 503s answered before the service answers for real (the reference adapters try three times). */
export interface Outage {
  readonly code: OutageCode;
  readonly times: 1 | 2;
}

/** How each webhook is given to the SDK: genuine ones must be accepted, the others refused. */
export const WEBHOOK_VARIANTS = {
  genuine: { valid: true, requirement: 'WEBHOOK-VERIFY-WITH-PUBLIC-KEY' },
  'genuine-pretty-printed': { valid: true, requirement: 'WEBHOOK-VERIFY-EXACT-BYTES' },
  'genuine-unknown-property': { valid: true, requirement: 'WEBHOOK-IGNORE-UNKNOWN' },
  'genuine-redelivered': { valid: true, requirement: 'WEBHOOK-IDEMPOTENT' },
  'genuine-reordered': { valid: true, requirement: 'WEBHOOK-VERIFY-WITH-PUBLIC-KEY' },
  'forged-signature': { valid: false, requirement: 'WEBHOOK-PROFILE-REJECT-UNVERIFIED' },
  'altered-body': { valid: false, requirement: 'WEBHOOK-PROFILE-REJECT-UNVERIFIED' },
  're-serialised-body': { valid: false, requirement: 'WEBHOOK-VERIFY-EXACT-BYTES' },
  'wrong-key': { valid: false, requirement: 'WEBHOOK-PROFILE-REJECT-UNVERIFIED' },
  'no-authorization': { valid: false, requirement: 'WEBHOOK-PROFILE-REJECT-UNVERIFIED' },
} as const;
export type WebhookVariant = keyof typeof WEBHOOK_VARIANTS;

/** A CoP result the destination's holder name asks for, every one the spec lists and null (`src/`'s one list). */
export const COP_KEYS = [...copStatuses, 'null'] as const;
export type CopKey = (typeof COP_KEYS)[number];

export type SdkStep =
  | {
      readonly op: 'createPayout';
      readonly pence: number;
      readonly reference: string;
      readonly cop: CopKey;
      readonly hold: boolean | undefined;
      readonly outage?: Outage;
    }
  | {
      readonly op: 'commitPayout' | 'cancelPayout';
      readonly which: number;
      readonly outage?: Outage;
    }
  | {
      readonly op: 'createRefund';
      readonly share: 'part' | 'all' | 'over' | 'unsettled';
      readonly pence: number;
      readonly outage?: Outage;
    }
  | { readonly op: 'verifyWebhook'; readonly variant: WebhookVariant };

export interface Personality {
  /** The reference service's permitted choices where the spec is silent (`clean`, `alt` or `lenient`). */
  readonly variant: 'clean' | 'alt' | 'lenient';
  /** Added before each answer, in ms. */
  readonly latencyMs: number;
}

export interface SdkSequence {
  readonly personality: Personality;
  readonly steps: readonly SdkStep[];
}

const outage = fc.option(
  fc.record({
    code: fc.constantFrom(...OUTAGE_CODES),
    times: fc.constantFrom(1 as const, 2 as const),
  }),
  { nil: undefined, freq: 3 },
);

const withOutage = <T extends object>(
  arb: fc.Arbitrary<T>,
): fc.Arbitrary<T & { outage?: Outage }> =>
  fc.tuple(arb, outage).map(([step, o]) => (o === undefined ? step : { ...step, outage: o }));

/** References and amounts are the server explorer's (one source: conformance/explore/values.ts). */
export { LONG_REFERENCE };

const createPayout: fc.Arbitrary<SdkStep> = withOutage(
  fc.record({
    op: fc.constant('createPayout' as const),
    pence: amountPenceArb,
    reference: referenceArb,
    cop: fc.constantFrom(...COP_KEYS),
    hold: fc.constantFrom(true, true, false, undefined),
  }),
);

const followUp: fc.Arbitrary<SdkStep> = withOutage(
  fc.record({
    op: fc.constantFrom('commitPayout' as const, 'cancelPayout' as const),
    which: fc.nat(4),
  }),
);

const refund: fc.Arbitrary<SdkStep> = withOutage(
  fc.record({
    op: fc.constant('createRefund' as const),
    share: fc.constantFrom(
      'part' as const,
      'part' as const,
      'all' as const,
      'over' as const,
      'unsettled' as const,
    ),
    pence: fc.integer({ min: 1, max: 50_000 }),
  }),
);

const webhook: fc.Arbitrary<SdkStep> = fc.record({
  op: fc.constant('verifyWebhook' as const),
  variant: fc.constantFrom(...(Object.keys(WEBHOOK_VARIANTS) as WebhookVariant[])),
});

/** One sequence: a personality and its steps (payouts and their follow-ups weighted up). */
export function sequenceArbitrary(maxOps: number): fc.Arbitrary<SdkSequence> {
  return fc.record({
    personality: fc.record({
      variant: fc.constantFrom('clean' as const, 'alt' as const, 'lenient' as const),
      latencyMs: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 40 })),
    }),
    steps: fc.array(
      fc.oneof(
        { arbitrary: createPayout, weight: 3 },
        { arbitrary: followUp, weight: 3 },
        { arbitrary: refund, weight: 2 },
        { arbitrary: webhook, weight: 3 },
      ),
      { minLength: 1, maxLength: maxOps },
    ),
  });
}
