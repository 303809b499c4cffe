// The explorer's default budget and limits: plain numbers, with no imports, so the command table shows
// `--explore-seconds` and `--explore-runs` defaults without loading the explorer (or fast-check) for `--help`.

/** Defaults that fit a CI step against the embedded service: a few seconds. */
export const EXPLORE_DEFAULTS = {
  runs: 500,
  seconds: 15,
  shrinkSeconds: 30,
  maxCommands: 10,
  /** Fewer judged steps than this (a replay aside) is not a pass: the exploration did not reach enough to say. */
  minSteps: 10,
  /** This many sequences in a row ended without an answer: the target stopped answering, the exploration stops. */
  lostAfter: 3,
  /** Sequences run side by side (see `ExploreSettings.lanes`). */
  lanes: 3,
  /**
   * Patient lanes beside the quick ones (see `ExploreSettings.patientLanes`): their sequences draw waits of
   * `patientWaitMs` (ms), so what a target does on its own 1.5 to 3.5 s after a call (a hold that lapses, a webhook
   * nothing caused, a refund that stops counting as active) is seen; at most `patientMaxCommands` steps each.
   */
  patientLanes: 3,
  patientWaitMs: { min: 1_600, max: 3_600 },
  patientMaxCommands: 4,
} as const;
