// Payout states and transitions (spec: States and transitions, Payout transitions): the initial status from
// doNotCommitOnCoPMismatch and copStatus, and commit or cancel of a payout held in AWAITING_COMMIT.
import { copStatuses, type CopStatus, type PayoutStatus } from '../schemas/statuses.js';

export {
  payoutStatuses,
  payoutWebhookStatuses,
  copStatuses,
  type PayoutStatus,
  type PayoutWebhookStatus,
  type CopStatus,
} from '../schemas/statuses.js';

/** CoP results on which a payout is executed even when the caller asked to hold on a mismatch (null: CoP not active). */
export const autoCommitCopStatuses: readonly (CopStatus | null)[] = [
  'FULL_MATCH',
  'NOT_CHECKED',
  null,
];

/** CoP results on which a payout with doNotCommitOnCoPMismatch true is held in AWAITING_COMMIT. */
export const holdingCopStatuses: readonly CopStatus[] = [
  'PARTIAL_MATCH',
  'NO_MATCH',
  'UNABLE_TO_MATCH',
  'UNKNOWN',
];

/** statusReason of a payout cancelled by the merchant (spec: a text saying so and that the amount was released). */
export const PAYOUT_CANCEL_STATUS_REASON =
  'Payout cancelled by the merchant; the amount was released.';

export interface InitialPayoutStatusInput {
  /** Request field; omitted means false. Only the boolean true holds a payout. */
  readonly doNotCommitOnCoPMismatch?: boolean | undefined;
  readonly copStatus: CopStatus | null;
}

/**
 * The status of a newly created payout (spec, Payout transitions, the three rows from "(none)"):
 * doNotCommitOnCoPMismatch omitted or false → IN_PROGRESS whatever the CoP result; true and copStatus FULL_MATCH,
 * NOT_CHECKED or null → IN_PROGRESS; true and PARTIAL_MATCH, NO_MATCH, UNABLE_TO_MATCH or UNKNOWN → AWAITING_COMMIT.
 * A copStatus outside the spec's list is treated like UNKNOWN ("unrecognised result (fail-safe)"): held.
 */
export function initialPayoutStatus(
  input: InitialPayoutStatusInput,
): 'IN_PROGRESS' | 'AWAITING_COMMIT' {
  if (input.doNotCommitOnCoPMismatch !== true) return 'IN_PROGRESS';
  return autoCommitCopStatuses.includes(input.copStatus) ? 'IN_PROGRESS' : 'AWAITING_COMMIT';
}

/** True when copStatus is one of the six values or null. */
export function isCopStatus(value: unknown): value is CopStatus | null {
  return (
    value === null ||
    (typeof value === 'string' && (copStatuses as readonly string[]).includes(value))
  );
}

/** The fields of a payout that commit and cancel read or write; any payout record with them can be passed. */
export interface PayoutStateFields {
  readonly status: PayoutStatus | string;
  readonly copStatus?: CopStatus | null;
  readonly statusReason?: string | null;
}

export type PayoutTransitionRefusal = {
  readonly ok: false;
  readonly code: 'PAYOUT_NOT_AWAITING_COMMIT';
  /** The status the payout is in. */
  readonly status: string;
  readonly message: string;
};

export type PayoutTransitionResult<P> =
  { readonly ok: true; readonly payout: P } | PayoutTransitionRefusal;

function refuse(action: string, status: string): PayoutTransitionRefusal {
  return {
    ok: false,
    code: 'PAYOUT_NOT_AWAITING_COMMIT',
    status,
    message: `cannot ${action} a payout in status ${JSON.stringify(status)}; only a payout in "AWAITING_COMMIT" can be committed or cancelled`,
  };
}

/**
 * Commit (spec: AWAITING_COMMIT → IN_PROGRESS; "copStatus keeps its earlier value; payout is executed"). Every other
 * field is kept as it is. Commit from any other status is not shown by the spec; payconform refuses it.
 */
export function commitPayout<P extends PayoutStateFields>(
  payout: P,
): PayoutTransitionResult<Omit<P, 'status'> & { readonly status: 'IN_PROGRESS' }> {
  if (payout.status !== 'AWAITING_COMMIT') return refuse('commit', String(payout.status));
  return { ok: true, payout: { ...payout, status: 'IN_PROGRESS' } };
}

/**
 * Cancel (spec: AWAITING_COMMIT → CANCELLED; "statusReason states the amount was released"). copStatus and the other
 * fields are kept. Cancel from any other status is not shown by the spec; payconform refuses it.
 */
export function cancelPayout<P extends PayoutStateFields>(
  payout: P,
): PayoutTransitionResult<
  Omit<P, 'status' | 'statusReason'> & {
    readonly status: 'CANCELLED';
    readonly statusReason: string;
  }
> {
  if (payout.status !== 'AWAITING_COMMIT') return refuse('cancel', String(payout.status));
  return {
    ok: true,
    payout: { ...payout, status: 'CANCELLED', statusReason: PAYOUT_CANCEL_STATUS_REASON },
  };
}
