// Per invocation of an audit command: what the steps share (whether the reports were written, the exchange log, the
// arguments, the attestation key).
import type { CliIo } from '../io.js';
import type { ExchangeLog } from '../../conformance/http/exchange-log.js';
import type { Ed25519PrivateKey } from '../../src/ed25519/index.js';

/**
 * Per invocation of an audit command: whether `finishAudit` wrote the reports (then no stopped report is written),
 * and the log its exchanges are recorded in (when a HAR is asked for).
 */
export interface Invocation {
  reportsWritten: boolean;
  readonly exchangeLog?: ExchangeLog;
  /** The command's arguments (secret-free: refused otherwise), as the attestation's configuration carries them. */
  readonly args: readonly string[];
  /** With `--attest`: the signing key, read before the run starts. */
  readonly attestKey?: Ed25519PrivateKey;
}
export const invocations = new WeakMap<CliIo, Invocation>();
