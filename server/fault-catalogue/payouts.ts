// The reference service's faults, part of the catalogue (server/faults.ts): confirmation of Payee and the payout lifecycle.
import type { FaultEntry } from './fault-entry.js';

/** Confirmation of Payee and the payout lifecycle: entries of `faultCatalogue`, in its order. Names are public API: never rename. */
export const payoutFaults = [
  // Confirmation of Payee and payout lifecycle
  {
    name: 'no-cop-hold',
    requirements: ['COP-HOLD-ON-MISMATCH'],
    breaks: 'Payout transitions: doNotCommitOnCoPMismatch true holds on a CoP mismatch',
    description:
      'doNotCommitOnCoPMismatch is ignored: a mismatching payout goes straight to IN_PROGRESS',
  },
  {
    name: 'hold-without-flag',
    requirements: ['COP-AUTO-COMMIT-DEFAULT'],
    breaks:
      'Payout transitions: doNotCommitOnCoPMismatch omitted or false executes whatever the CoP result',
    description:
      'a mismatching CoP result holds the payout in AWAITING_COMMIT even when doNotCommitOnCoPMismatch is false or omitted',
  },
  {
    name: 'hold-on-not-checked',
    requirements: ['COP-AUTO-COMMIT-MATCH'],
    breaks: 'Payout transitions: NOT_CHECKED and null are executed automatically',
    description:
      'with doNotCommitOnCoPMismatch true a NOT_CHECKED or null copStatus is held in AWAITING_COMMIT',
  },
  {
    name: 'hold-on-full-match',
    requirements: ['COP-AUTO-COMMIT-MATCH'],
    breaks: 'Payout transitions: FULL_MATCH, NOT_CHECKED and null are executed automatically',
    description:
      'with doNotCommitOnCoPMismatch true a FULL_MATCH payout is held in AWAITING_COMMIT',
  },
  {
    name: 'commit-changes-cop',
    requirements: ['COP-COMMIT'],
    breaks: 'Payout transitions: commit keeps copStatus',
    description: 'commit rewrites copStatus to FULL_MATCH',
  },
  {
    name: 'cancel-without-reason',
    requirements: ['COP-CANCEL', 'PAYOUT-STATUSREASON'],
    breaks: 'Cancel payout: statusReason describes the release of the amount',
    description: 'a cancelled payout has statusReason null',
  },
] as const satisfies readonly FaultEntry[];
