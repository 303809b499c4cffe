// The explorer's check id, for what treats its findings apart (drawn, not fixed: a baseline entry it does not see again
// is unobserved; the HTML report's first screen says what it did) without loading the explorer and fast-check.
export const EXPLORE_CHECK_ID = 'explore-model';

/** The SDK explorer's check id (`audit client --adapter`). */
export const SDK_EXPLORE_CHECK_ID = 'sdk-explore';

/** The explorers' checks, of both roles: each has a requirement row for every rule it judges, whatever its party. */
export const EXPLORER_CHECK_IDS: readonly string[] = [EXPLORE_CHECK_ID, SDK_EXPLORE_CHECK_ID];

/** How the explorer's per-rule pass findings open: `judged by the exploration in N step(s)`. */
export const STEPS_JUDGED = 'judged by the exploration in';
