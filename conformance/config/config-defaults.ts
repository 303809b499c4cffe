// The audit config's defaults: plain numbers, with no imports, so the command table shows `audit server
// --timeout-ms`'s default without loading the config reader (or the schemas) for `--help`.

/** Per-request timeout against the target when neither `--timeout-ms` nor the config's "timeoutMs" says. */
export const DEFAULT_TIMEOUT_MS = 10_000;
