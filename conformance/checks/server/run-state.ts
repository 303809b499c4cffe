// What one run of the server audit remembers between its checks: the refunds it created, the payments a refund
// request went unanswered for, and the payments it made through /sandbox/. Made fresh for each run (`startRun`), so
// nothing one run did can count in another (docs/verdicts.md, "A check owns what it judges, so runs repeat").

/** A refund the audit created (accepted by the target). */
export interface NotedRefund {
  readonly id: string;
  readonly amount: string;
}

export interface AuditRunState {
  /** The refunds the audit created, by payment id (later checks wait until they have finished). */
  readonly refunds: Map<string, NotedRefund[]>;
  /**
   * Payments a refund request was sent for that got no complete answer. The target may have created that refund (it
   * may arrive late), so the payment may hold an active refund the audit cannot see: never chosen again.
   */
  readonly tainted: Set<string>;
  /** The settled payments this run made through /sandbox/ (no refund but this run's can be active on them). */
  readonly owned: Set<string>;
  /** The seed each drawn check of this run drew from, by check id: a failure is drawn again from it (flaky.ts). */
  readonly seeds: Map<string, number>;
}

/** An empty run state. */
export function createRunState(): AuditRunState {
  return { refunds: new Map(), tainted: new Set(), owned: new Set(), seeds: new Map() };
}
