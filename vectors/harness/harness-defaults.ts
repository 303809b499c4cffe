// The harness's defaults: plain numbers, with no imports, so the command table shows `vectors run
// --startup-timeout-ms`'s default without loading the harness for `--help`.

/** How long the adapter may take to start and answer the handshake (an interpreter or a compiler starting up). */
export const STARTUP_TIMEOUT_MS = 30_000;
