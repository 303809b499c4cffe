// What an exploration of a server is asked (ExploreSettings) and what it gives back (ExploreOutcome): the types the
// server role's explorer and its checks share, in a module of their own so that neither imports the other.
import type { ModelViolation, StepRecord } from './commands.js';

export interface ExploreSettings {
  /** Runs (sequences) to try; the exploration also ends when `seconds` are spent. */
  readonly runs: number;
  /** Time for exploring; shrinking a failure gets up to `shrinkSeconds` more. */
  readonly seconds: number;
  readonly shrinkSeconds?: number;
  /** Sequences played while shrinking, at most (default: no count; `shrinkSeconds` bounds it). */
  readonly shrinkRuns?: number;
  /** Commands per sequence at most (default 8). */
  readonly maxCommands?: number;
  /** Default: drawn at random (and reported). */
  readonly seed?: number;
  /** `SEED~PATH~REPLAYPATH[~patient]` from a report (replay-token.ts): replays exactly that sequence. */
  readonly replay?: string;
  /** The command line that replays a token against this target (shown with a failure). */
  readonly replayCommand?: (token: string) => string;
  /** One line per finished run, while it explores. */
  readonly progress?: (line: string) => void;
  /**
   * Sequences run side by side (default `EXPLORE_DEFAULTS.lanes`), lane i drawing from seed + i: they share no
   * resource (each makes its own payouts and payments and judges only its own webhooks), so the waits overlap. The
   * first failure stops the other lanes, and is shrunk alone. A replay runs one lane.
   */
  readonly lanes?: number;
  /**
   * Patient lanes beside them (default `EXPLORE_DEFAULTS.patientLanes`), drawing the long waits
   * (`EXPLORE_DEFAULTS.patientWaitMs`) that show what a target does seconds after a call.
   */
  readonly patientLanes?: number;
}

export interface ExploreFailure {
  readonly violation: ModelViolation;
  readonly steps: readonly StepRecord[];
  readonly seed: number;
  /** Replays exactly the shrunk sequence (replay-token.ts: `~patient` after it from a patient lane). */
  readonly token: string;
}

export interface ExploreOutcome {
  readonly seed: number;
  readonly runs: number;
  readonly steps: number;
  readonly elapsedMs: number;
  /** What it made on the target: payouts, settled payments (through /sandbox/) and refunds accepted. */
  readonly cost: { readonly payouts: number; readonly refunds: number; readonly payments: number };
  /** Steps that sent a refund or waited on one (of the judged steps). */
  readonly refundSteps: number;
  /** Without /sandbox/: the refunds made of the config's settled payments, and when and why it stopped drawing them. */
  readonly configPayments?: string;
  readonly observations: readonly string[];
  /** How many steps judged each rule (requirement id), in the sequences that were judged. */
  readonly judged: Readonly<Record<string, number>>;
  /** Sequences that ended at a step without a complete answer (inconclusive: never judged, never shrunk). */
  readonly unanswered: number;
  /** The first step that got no complete answer, as `NoAnswer` words it. */
  readonly firstUnanswered?: string;
  /** Set when `EXPLORE_DEFAULTS.lostAfter` sequences in a row got no answer: the target stopped answering. */
  readonly lost?: string;
  readonly failure?: ExploreFailure;
  /** The run broke for a reason that is not a rule (an internal error): said, never a finding against the target. */
  readonly error?: string;
}
