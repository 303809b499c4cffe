// What the verification pool has done since the process started (verifyPoolInfo reports it), and why it stopped if
// it did: one record that the pool, its registry and its configuration update.
export const poolCounters = {
  /** Requests sent to workers. */
  requests: 0,
  /** Requests whose step 10 ran with their parse. */
  verifiedAhead: 0,
  /** Application records whose keys were sent to the workers. */
  registrations: 0,
  /** Workers that exited, threw or errored. */
  workerFailures: 0,
  /** Replacements started and ready. */
  restarts: 0,
};

/** Set when workers failed more often than the restart policy heals: the pool stays off until configured again. */
export const poolStop: { stopped: boolean; reason: string | undefined } = {
  stopped: false,
  reason: undefined,
};
