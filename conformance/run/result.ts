// What the engine hands to reporters: graded, redacted, JSON-serialisable results and the run summary.
import type { CheckRole, Level } from './check.js';
import type { EXIT } from '../exit-code-table.js';

/** A check's or finding's verdict after grading. `error`: the check threw (a defect of the run, counted as a failure). */
export type Outcome = 'pass' | 'fail' | 'warn' | 'skip' | 'n/a' | 'error';

export const OUTCOMES: readonly Outcome[] = ['pass', 'fail', 'warn', 'skip', 'n/a', 'error'];

/**
 * A run's checks by outcome, and `known`: the checks whose failures or warnings a baseline marks known (their outcome
 * is the worst of the rest, so a pass, but they never count as passed). Each check counts once; `runCounts`
 * (run-counts.ts) makes them. `known` is absent in summaries made before it existed.
 */
export type OutcomeCounts = Readonly<Record<Outcome, number>> & {
  readonly known?: number;
  /** Of the checks counted, those whose failure did not happen again (flaky.ts); absent when none. */
  readonly flaky?: number;
};

/** A recorded message body in printable form: text when valid UTF-8, otherwise base64. Secrets already masked. */
export interface BodyView {
  /** The body's length: as declared (Content-Length) when the whole was not read, else as received. */
  readonly bytes: number;
  readonly text?: string;
  readonly base64?: string;
  /** Not all of the body is here: reading stopped at the client's limit, or the report keeps less. */
  readonly truncated?: boolean;
  /** With `cut`: how many bytes of the body the report keeps. */
  readonly kept?: number;
  /** Why the body is cut, e.g. `body cut at 16384 bytes of 1073741824`. */
  readonly cut?: string;
}

export interface RequestView {
  readonly method: string;
  readonly url: string;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body: BodyView;
}

export interface ResponseView {
  readonly status: number;
  readonly statusText?: string;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body: BodyView;
}

/** A finding's evidence as reports show it: bounded, redacted, with expected against received. */
export interface EvidenceView {
  readonly request?: RequestView;
  /**
   * The W3C trace id of the request's `traceparent` (payconform sends one on every request: a trace per check, a span
   * per exchange), to find the exchange in the target's own logs. Absent when the request carries none (e.g. a
   * webhook the target sent without one) and in reports made before it existed.
   */
  readonly traceId?: string;
  readonly response?: ResponseView;
  readonly reproduce?: string;
  readonly notes?: string;
}

/**
 * A finding after grading: the outcome its level gives it, and whether it records a "not shown"
 * point.
 */
export interface GradedFinding {
  readonly outcome: Outcome;
  /** True when the finding records behaviour the spec leaves "not shown" (never a failure). */
  readonly observed?: boolean;
  readonly message: string;
  readonly expected?: string;
  readonly received?: string;
  readonly requirement?: string;
  readonly level: Level;
  readonly evidence?: EvidenceView;
  /** The entries of the run's HAR (`--report har:FILE`, 0-based `log.entries` indexes) that show this evidence. */
  readonly harEntries?: readonly number[];
  /** In the run's baseline (`--baseline FILE`): known, with the user's reason; it does not fail the run. */
  readonly known?: { readonly reason: string; readonly expires?: string };
  /** It failed, and when its check ran once more alone it did not: reported as a warning, never dropped (flaky.ts). */
  readonly flaky?: true;
}

/** One check's graded result: its outcome and its findings, redacted. */
export interface CheckResult {
  readonly id: string;
  readonly title: string;
  readonly area: string;
  readonly level: Level;
  readonly appliesTo: CheckRole;
  readonly requirements: readonly string[];
  readonly outcome: Outcome;
  /** One line saying why: the first finding that decided the outcome. */
  readonly message: string;
  readonly findings: readonly GradedFinding[];
  readonly durationMs: number;
  /**
   * A command that runs this check again, signing afresh (so it works at any time, unlike a recorded signed request,
   * whose signature expires 300 s after `created`). Secrets stay in the environment.
   */
  readonly rerun?: string;
  /** Its failure did not happen again when the check ran once more alone: a warning, with both runs (flaky.ts). */
  readonly flaky?: true;
  /** With `flaky`: the second run, its outcome and its findings (the first run's are `findings`). */
  readonly again?: RunAgain;
}

/** A check's second run, once more alone, after its first failed (conformance/run/flaky.ts). */
export interface RunAgain {
  readonly outcome: Outcome;
  readonly message: string;
  readonly findings: readonly GradedFinding[];
  readonly durationMs: number;
}

/**
 * What `--fail-on` can name besides a failure: warnings, skips, MUST requirements not exercised, flaky failures (a
 * check that failed once and not when run once more alone).
 */
export const FAIL_ON = ['warn', 'skip', 'unexercised', 'flaky'] as const;
export type FailOn = (typeof FAIL_ON)[number];

/** What turns outcomes into a verdict: `--fail-on warn|skip` and whether skips are accepted. */
export interface RunGate {
  /**
   * What fails the run besides `fail` and `error`: warnings, skips, and (`unexercised`) a MUST requirement that
   * applies to the target and was not exercised (`unexercisedMust`).
   */
  readonly failOn: readonly FailOn[];
  /** True with `--allow-skips` or an explicit `--only`/`--level`: a skipped check does not make the run INCOMPLETE. */
  readonly allowSkips: boolean;
}

export type RequirementStatus = 'failed' | 'passed' | 'inconclusive' | 'not-exercised';

/** Why a requirement was not exercised, as a kind a gate can tell apart (the row's `reason` says it in words). */
export type UnexercisedKind = 'not-applicable' | 'skipped' | 'deselected' | 'uncovered' | 'stopped';

/** One requirement of the catalogue in a run (`requirementTable` builds them). */
export interface RequirementRow {
  readonly id: string;
  readonly level: Level;
  /** A MUST the spec states (`canFailTarget`): the rows "N of M MUST requirements exercised" counts. */
  readonly must: boolean;
  readonly status: RequirementStatus;
  /** The checks that reached a verdict on it (pass, warn or fail); for `failed`, those that failed it first. */
  readonly checks: readonly string[];
  /** Not exercised or inconclusive: why. */
  readonly reason?: string;
  /** Passed by the explorer too: how many of its steps judged it (`judged by the exploration in N step(s)`). */
  readonly explored?: string;
  readonly unexercised?: UnexercisedKind;
}

export interface RequirementTable {
  readonly rows: readonly RequirementRow[];
  /** MUST requirements (the spec's) this audit's role covers, and how many of them the run exercised. */
  readonly must: { readonly total: number; readonly exercised: number };
}

export interface RequirementCoverage {
  /** Requirement ids named by a check that reached a verdict (pass, fail, warn, error). */
  readonly covered: readonly string[];
  /** Named only by checks that were skipped, not applicable or not selected in this run. */
  readonly notRun: readonly string[];
  /** Requirements of this audit's role that no check in the suite names at all. */
  readonly uncovered: readonly string[];
  /** Every requirement of this audit's role: what the run did with it (absent in summaries made before it existed). */
  readonly table?: RequirementTable;
}

/**
 * A whole run: the target, the role, the selection, every check's result, the counts, the
 * requirements' coverage and the gate that gives the exit code.
 */
export interface RunSummary {
  readonly target: string;
  readonly role: CheckRole;
  readonly toolVersion: string;
  readonly catalogueVersion: string;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly durationMs: number;
  readonly selection: {
    readonly level: 'must' | 'should' | 'all';
    readonly only?: readonly string[];
    /** Checks of the suite left out by `--only` or `--level`. */
    readonly deselected: readonly string[];
  };
  /** True when the run is not a full verdict: checks deselected, run aborted, or checks not started. */
  readonly partial: boolean;
  readonly partialReasons: readonly string[];
  readonly results: readonly CheckResult[];
  /** Each check once, by outcome, known apart (`outcomeCounts` in run-counts.ts). */
  readonly counts: OutcomeCounts;
  readonly requirements: RequirementCoverage;
  readonly gate: RunGate;
  /** Problems of the run itself that fail it whatever the checks say (e.g. the audited client exited non-zero). */
  readonly blocking: readonly string[];
  /** The evidence limits and what they cut (absent in summaries made before the limits existed). */
  readonly evidence?: EvidenceSummary;
  /** What `--baseline FILE` made of the run (see `applyBaseline`). */
  readonly baseline?: BaselineOutcome;
  /** The run never reached a verdict: why, and the exit code the command ended with (see `stoppedRunSummary`). */
  readonly stopped?: RunStopped;
}

/**
 * A run that stopped before its checks (2 usage or config error, 3 target unreachable, 70 internal error), or whose
 * target stopped answering mid-run (3: its results are kept, and the undecided checks are inconclusive).
 */
export interface RunStopped {
  readonly exitCode: (typeof EXIT)['usage' | 'unreachable' | 'internal'];
  readonly reason: string;
}

/** Bounded evidence: what one body and the whole run may keep, and how much was kept and cut. */
export interface EvidenceSummary {
  readonly bodyBytes: number;
  readonly runBytes: number;
  readonly keptBytes: number;
  readonly bodiesCut: number;
}

/** A baseline entry's key: check, requirement, failure class (the graded outcome) and at most one discriminator. */
export interface BaselineKey {
  readonly check: string;
  readonly requirement: string;
  readonly class: 'fail' | 'warn' | 'error';
  readonly status?: number;
  readonly pointer?: string;
  readonly header?: string;
}

/** A run against a baseline: each entry and finding sorted by what became of it. */
export interface BaselineOutcome {
  readonly file: string;
  /** Findings the baseline names (they do not fail the run), with the entry's reason. */
  readonly known: ReadonlyArray<
    BaselineKey & { readonly reason: string; readonly expires?: string }
  >;
  /** Failing findings the baseline does not name (they fail the run as without it). */
  readonly new: readonly BaselineKey[];
  /** Entries past their `expires` whose finding is still there: they fail the run, each named. */
  readonly expired: ReadonlyArray<
    BaselineKey & { readonly reason: string; readonly expires: string }
  >;
  /** Entries of a deterministic check that ran and did not find them again. */
  readonly fixed: readonly BaselineKey[];
  /** Entries of the explorer it did not find again (it draws its sequences: not seeing one is not a fix). */
  readonly unobserved: readonly BaselineKey[];
  /** Entries whose check did not reach a verdict in this run (not selected, skipped, not applicable, errored). */
  readonly notRun: readonly BaselineKey[];
}
