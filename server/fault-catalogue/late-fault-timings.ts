// When the faults that show only after a wait misbehave, shared by the explorer-only faults and the service's lifecycle.

/**
 * When the faults that misbehave only after a wait act (`how: 'explorer'`). Each wait is longer than any fixed check
 * takes over the resource it watches, and the explorer's own waits of a second and more reach past it.
 */
export const lateFaultTimings = {
  /** hold-lapses: a payout held in AWAITING_COMMIT this long, untouched, moves on to IN_PROGRESS by itself. */
  holdLapsesMs: 2_000,
  /** refund-active-lapses: an IN_PROGRESS refund older than this no longer counts as active. */
  refundActiveLapseMs: 1_000,
  /**
   * refund-active-lapses: with the fault on, a refund leaves IN_PROGRESS no sooner than this (the lifecycle delay when
   * longer), so the lapse falls while it is still IN_PROGRESS (how long a refund stays IN_PROGRESS is not shown), and
   * no webhook shows it leaving within the explorer's webhook wait after a second refund is accepted: the only
   * evidence of an overlap the spec's sentences support (docs/verdicts.md, "Readings the spec does not state"). A
   * second refund accepted 1 to 3 s after the first shows it to a 2 s wait (a patient lane's long waits reach there).
   */
  refundInProgressMs: 5_000,
  /** webhook-without-change: this long after a cancel, a payout webhook announcing IN_PROGRESS. */
  webhookWithoutChangeMs: 2_000,
} as const;

/** A wait in words, as the catalogue's descriptions give it. */
export const seconds = (ms: number): string => `${ms / 1000} s`;
