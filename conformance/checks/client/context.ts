// What the client audit's checks judge: every request the client sent and the answer it got, with how the run went.
// Its own file so that each check imports the context, not the list of checks (no import circle).
import type { RecordedResponse } from '../../run/check.js';
import type { ExaminedRequest } from '../../client-audit/evaluate-request.js';

/** One request the client sent and the answer the audit's endpoint gave it. */
export interface ClientExchange {
  readonly examined: ExaminedRequest;
  /** How the request arrived: over TLS or plain HTTP (absent: not recorded). */
  readonly transport?: 'tls' | 'plain';
  readonly response?: RecordedResponse;
}

/**
 * What a client check reads: the requests the audited client sent and the service that answered
 * them.
 */
export interface ClientAuditContext {
  /** Where the client was told to call (PAYCONFORM_BASE_URL). */
  readonly baseUrl: string;
  readonly exchanges: readonly ClientExchange[];
  /** What happened to the client command (`--exec`), for the report. */
  readonly commandNote?: string;
  /** Set when the client command did not exit by itself with code 0 (crashed, exited non-zero, timed out). */
  readonly commandFailure?: string;
  /** The endpoint served HTTPS (`--tls`; plain HTTP on a second port), so the transport of each request is judged. */
  readonly tls?: boolean;
}
