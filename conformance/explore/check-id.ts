// The explorer's check id, for what treats its findings apart (drawn, not fixed: a baseline entry it does not see again
// is unobserved; the HTML report's first screen says what it did) without loading the explorer and fast-check.
export const EXPLORE_CHECK_ID = 'explore-model';

/** How the explorer's per-rule pass findings open: `judged by the exploration in N step(s)`. */
export const STEPS_JUDGED = 'judged by the exploration in';
