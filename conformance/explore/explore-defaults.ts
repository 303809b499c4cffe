// The explorer's one set of defaults, for both roles (engine.ts): plain numbers, with no imports, so the command
// table shows `--explore-seconds` and `--explore-runs` defaults without loading the explorer (or fast-check) for
// `--help`. The budget (runs, seconds, shrinkSeconds) is the user's in either role; what only one role has is under
// its name (the server role's lanes and paces at the top level, as they came first; the SDK role's under `sdk`).

/** Defaults that fit a CI step against the embedded service: a few seconds. */
export const EXPLORE_DEFAULTS = {
  runs: 500,
  seconds: 15,
  shrinkSeconds: 30,
  /** The server role: model commands per sequence at most. */
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
  /** The SDK role (`audit client --adapter`). */
  sdk: {
    /** Operations per sequence at most. */
    maxOps: 8,
    /** How long the adapter may take to answer one operation (ms). */
    stepTimeoutMs: 15_000,
  },
} as const;
