// The drawn forgeries' default budget and its bound: plain numbers, with no imports, so the command table shows them
// as `--forge-seconds`'s default and bound without loading the check (or fast-check) for `--help`.

/** The drawn forgeries' check id (`payconform replay` draws its failure again from the seed the report names). */
export const FORGERIES_CHECK_ID = 'signature-forgeries';

export const FORGERY_DEFAULTS = { seconds: 3, runs: 400, shrinkSeconds: 5 } as const;
/** The most drawing time a run may ask for (`--forge-seconds`); the check's own time limit allows for it. */
export const FORGERY_MAX_SECONDS = 600;
