// The defaults and bounds the commands of cli/commands/ apply when a flag is not given: plain values with no imports,
// so the command table (cli/command-table.ts) shows the very values the commands use without loading them for --help.

/** `audit client --timeout-ms`: how long the client (or the endpoint alone) may run. */
export const CLIENT_AUDIT_TIMEOUT_MS = 120_000;
/** `audit webhooks --timeout-ms`: how long the receiver may take to answer one webhook. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** `vectors run --timeout-ms`: how long the adapter may take to answer one case. */
export const VECTOR_CASE_TIMEOUT_MS = 5_000;
/** `audit server --timeout-ms` with no target: the per-request limit against the embedded reference service. */
export const EMBEDDED_REQUEST_TIMEOUT_MS = 5_000;
/** The longest the reachability probe before an audit waits for the target's first answer (at most `--timeout-ms`). */
export const PROBE_TIMEOUT_MS = 5_000;
/** The most a per-request (`audit server`) or per-case (`vectors run`) `--timeout-ms` may be. */
export const MAX_TIMEOUT_MS = 600_000;

/** `sign --output` and `diff --format` when not given. */
export const SIGN_OUTPUT_DEFAULT = 'headers';
export const DIFF_FORMAT_DEFAULT = 'text';

/** The audits' `--level` when not given: every check. */
export const AUDIT_LEVEL_DEFAULT = 'all';

/** `payconform serve`: where it listens, how many processes, and which personality, when neither flag nor config says. */
export const SERVE_DEFAULTS = {
  host: '127.0.0.1',
  port: 8080,
  workers: 1,
  variant: 'clean',
} as const;
