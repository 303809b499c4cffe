// The SDK explorer's default budget and limits: plain numbers, with no imports, so the command table shows the
// `audit client --adapter` defaults without loading the explorer (or fast-check) for `--help`.

/** Defaults of `audit client --adapter`: the user's budget, as the server explorer's. */
export const SDK_EXPLORE_DEFAULTS = {
  /** Exploring time (s); the user's default, as the server explorer's. */
  seconds: 15,
  /** Shrinking time after a failure (s). */
  shrinkSeconds: 30,
  runs: 500,
  /** Steps per sequence at most. */
  maxOps: 8,
  /** How long the adapter may take to answer one operation (ms). */
  stepTimeoutMs: 15_000,
} as const;
