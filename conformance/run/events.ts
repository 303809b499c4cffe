// Typed events the engine emits while a run progresses; reporters subscribe to them.
import type { CheckRole, Level } from './check.js';
import type { CheckResult, RunSummary } from './result.js';

/** A check as the run's events describe it. */
export interface CheckInfo {
  readonly id: string;
  readonly title: string;
  readonly area: string;
  readonly level: Level;
  readonly appliesTo: CheckRole;
}

/** What the engine emits while it runs: run started, check started and finished, run finished. */
export type RunEvent =
  | {
      readonly type: 'run-started';
      readonly target: string;
      readonly role: CheckRole;
      readonly toolVersion: string;
      readonly startedAt: string;
      readonly checks: readonly CheckInfo[];
    }
  | {
      readonly type: 'check-started';
      readonly check: CheckInfo;
      readonly index: number;
      readonly total: number;
    }
  | {
      readonly type: 'check-finished';
      readonly result: CheckResult;
      readonly completed: number;
      readonly total: number;
    }
  | { readonly type: 'run-finished'; readonly summary: RunSummary };

/** Receives the run's events in order (a reporter). */
export type RunSubscriber = (event: RunEvent) => void;
