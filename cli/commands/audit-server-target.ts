// What `payconform audit server` audits, embedded or external: the check context and how to stop what was started.
import type { ServerAuditContext } from '../../conformance/checks/server/index.js';

/** A target ready to audit: the check context, what the engine needs to know, and how to stop what was started. */
export interface AuditTarget {
  readonly context: ServerAuditContext;
  /** As shown in reports. */
  readonly label: string;
  readonly isAvailable: (need: string) => boolean;
  readonly checkTimeoutMs: number;
  readonly close: () => Promise<void>;
}
