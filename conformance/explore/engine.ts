// The explorer's one engine, for both roles: auditing a server (payconform as the client: explorer.ts and lane.ts)
// and auditing an SDK (payconform as the service: conformance/sdk-explore). It draws sequences with fast-check from
// each lane's seed, plays each one through the role, collects what the role judged (every violation, the warnings,
// the observations, how many steps judged each rule), shrinks the first sequence that breaks a MUST to the shortest
// that still breaks the same requirement, and names it by one replay token (replay-token.ts). A role brings only its
// draws (as data: a fast-check arbitrary per lane) and how to play one sequence; the engine owns the budget, the
// lanes, the search, the shrinking and the token.
//
// Only a MUST ends the search; a warning (a SHOULD or MAY broken) is kept, once per requirement, with the token of the
// sequence that showed it, and the search goes on, so a warning never hides a failure. A sequence without a complete
// answer is inconclusive (never judged, never shrunk); `EXPLORE_DEFAULTS.lostAfter` of them in a row and the target is
// lost. A role's internal error stops the exploration and is said as such, never a finding against the target.
import fc from 'fast-check';
import type { Pace } from './commands.js';
import { EXPLORE_DEFAULTS } from './explore-defaults.js';
import { formatReplayToken, type ReplayToken } from './replay-token.js';
import { withTrace } from '../http/trace-context.js';

/** One lane: the seed it draws from and its pace; a replay runs one lane, the one its token names. */
export interface Lane {
  readonly seed: number;
  readonly pace: Pace;
  readonly replay?: ReplayToken;
}

/** A violation the role judged, with the sequence up to the step that showed it. */
export interface Found<V, R> {
  readonly violation: V;
  readonly record: R;
}

/** What playing one drawn sequence gave. */
export interface Played<V, R> {
  /** What the role keeps of the sequence (its steps, for the report). */
  readonly record: R;
  /** Steps judged (0 when the sequence is not judged). */
  readonly steps: number;
  /** The MUST the sequence broke: it ended at that step. */
  readonly failure?: V;
  /** The SHOULDs and MAYs it broke, each with the sequence up to its step. */
  readonly warnings?: ReadonlyArray<Found<V, R>>;
  /** What was seen where the spec leaves the answer open. */
  readonly observations?: readonly string[];
  /** How many steps judged each rule (requirement id). */
  readonly judged?: ReadonlyMap<string, number>;
  /** The sequence ended at a step without a complete answer: inconclusive, the reason (`NoAnswer`'s words). */
  readonly unanswered?: string;
  /** Cut at the end of the exploring time: neither a pass nor a failure. */
  readonly cut?: boolean;
  /** Nothing can be judged from here on (an adapter that broke its protocol): the exploration stops. */
  readonly broken?: string;
}

/** A role of the explorer: its draws, as data, and how one sequence is played and judged. */
export interface ExplorerRole<S, V, R> {
  /** The sequences a lane draws (the lane's replay token included, where the draws need it). */
  sequences(lane: Lane): fc.Arbitrary<S>;
  /** Plays one sequence and judges it; `until` is the end of the exploring time (absent while shrinking, replaying). */
  play(sequence: S, lane: Lane, until: number | undefined): Promise<Played<V, R>>;
  /** The requirement a violation cites: shrinking keeps a failure of the same requirement. */
  requirementOf(violation: V): string;
  /** The part of a token that fast-check's path alone does not give (fc.commands' replay path), if any. */
  replayPathOf?(sequence: S): string | undefined;
}

export interface SearchSettings {
  readonly runs: number;
  /** Exploring time; shrinking a failure gets up to `shrinkSeconds` more. */
  readonly seconds: number;
  readonly shrinkSeconds: number;
  /**
   * Sequences played while shrinking a failure, at most (absent: no count, `shrinkSeconds` alone bounds it). With a
   * count, the same seed shrinks to the same sequence on a quiet machine and a loaded one.
   */
  readonly shrinkRuns?: number;
  readonly lanes: readonly Lane[];
  readonly signal?: AbortSignal;
  /** One line per played sequence. */
  readonly progress?: (line: string) => void;
}

/** A shrunk failure, or a kept warning: the violation, the sequence that showed it and the token that replays it. */
export interface Named<V, R> extends Found<V, R> {
  readonly token: string;
  /** The seed of the lane that drew it. */
  readonly seed: number;
}

export interface SearchOutcome<V, R> {
  readonly runs: number;
  readonly steps: number;
  readonly elapsedMs: number;
  readonly judged: Readonly<Record<string, number>>;
  readonly observations: readonly string[];
  /** At most `MAX_KEPT`, one per requirement, whatever the verdict. */
  readonly warnings: ReadonlyArray<Named<V, R>>;
  readonly unanswered: number;
  readonly firstUnanswered?: string;
  readonly lost?: string;
  readonly broken?: string;
  readonly failure?: Named<V, R>;
  /** An internal error (not a rule): said, never a finding against the target. */
  readonly error?: string;
}

/** Observations and warnings kept, at most. */
export const MAX_KEPT = 20;

/**
 * The lanes of an exploration: `quick` ones from seed, seed + 1, ..., then `patient` ones after them; a replay runs
 * one lane, at the pace its token names.
 */
export function lanesOf(
  seed: number,
  quick: number,
  patient: number,
  replay: ReplayToken | undefined,
): Lane[] {
  if (replay !== undefined) return [{ seed: replay.seed, pace: replay.pace, replay }];
  return Array.from({ length: Math.max(1, quick) + Math.max(0, patient) }, (_, i) => ({
    seed: (seed + i) % 2 ** 31,
    pace: i < Math.max(1, quick) ? ('quick' as const) : ('patient' as const),
  }));
}

/** What the lanes share while they search. */
class Shared<V, R> {
  readonly started = Date.now();
  stop = false;
  runs = 0;
  steps = 0;
  readonly judged: Record<string, number> = {};
  readonly observations = new Set<string>();
  readonly warnings = new Map<string, Named<V, R>>();
  readonly silence = { sequences: 0, first: undefined as string | undefined };
  lost: string | undefined;
  broken: string | undefined;
  error: string | undefined;

  constructor(readonly settings: SearchSettings) {}

  get exploreUntil(): number {
    return this.started + this.settings.seconds * 1000;
  }

  /** Nothing more is played: the run was aborted, the target lost, the role broken or in error. */
  get halted(): boolean {
    return (
      this.settings.signal?.aborted === true ||
      this.lost !== undefined ||
      this.broken !== undefined ||
      this.error !== undefined
    );
  }

  /** Adds a played sequence; `inARow` counts the lane's unanswered sequences in a row (lost at `lostAfter`). */
  tally(played: Played<V, R>, inARow: number): void {
    this.runs++;
    this.steps += played.steps;
    for (const [rule, n] of played.judged ?? []) this.judged[rule] = (this.judged[rule] ?? 0) + n;
    for (const o of played.observations ?? [])
      if (this.observations.size < MAX_KEPT) this.observations.add(o);
    if (played.unanswered !== undefined) {
      this.silence.sequences++;
      this.silence.first ??= played.unanswered;
      if (inARow >= EXPLORE_DEFAULTS.lostAfter)
        this.lost = `${inARow} sequences in a row got no complete answer (the last: ${played.unanswered})`;
    }
    if (played.broken !== undefined) this.broken = played.broken;
  }

  keepWarnings(
    found: ReadonlyArray<Found<V, R>>,
    key: (v: V) => string,
    token: string,
    seed: number,
  ): void {
    for (const w of found) {
      const k = key(w.violation);
      if (this.warnings.has(k) || this.warnings.size >= MAX_KEPT) continue;
      this.warnings.set(k, { ...w, token, seed });
    }
  }
}

/** One lane's search: fast-check's property over the role's sequences, from the lane's seed. */
class LaneSearch<S, V, R> {
  /** Values fast-check handed the property before shrinking began: the next one's index is its path. */
  private calls = 0;
  private shrinking = false;
  private played = 0;
  /** Sequences played while shrinking (bounded by `shrinkRuns`). */
  private shrinkPlays = 0;
  /** This lane's sequences in a row without a complete answer. */
  private silentInARow = 0;
  failing: Found<V, R> | undefined;

  constructor(
    private readonly role: ExplorerRole<S, V, R>,
    readonly lane: Lane,
    private readonly shared: Shared<V, R>,
  ) {}

  private tokenOf(path: string, sequence: S | undefined): string {
    const replayPath = sequence !== undefined ? this.role.replayPathOf?.(sequence) : undefined;
    return formatReplayToken({
      seed: this.lane.seed,
      path,
      ...(replayPath !== undefined ? { replayPath } : {}),
      pace: this.lane.pace,
    });
  }

  /** The property's body: true unless the sequence broke a MUST (of the failure being shrunk, while shrinking). */
  async property(sequence: S): Promise<boolean> {
    const index = this.calls;
    if (!this.shrinking) this.calls++;
    const replaying = this.lane.replay !== undefined;
    // A replay plays its one sequence: fast-check may walk on from a path that passes, the explorer does not.
    if (replaying && this.played >= 1) return true;
    const exploring = !this.shrinking && !replaying;
    const shared = this.shared;
    // Past the exploring time, only the shrinking of a failure still acts on the target.
    if (exploring && (Date.now() > shared.exploreUntil || shared.stop)) return true;
    if (shared.halted) return true;
    // Past the shrinking count, a candidate is not played: fast-check keeps the smallest failure found so far.
    if (this.shrinking && shared.settings.shrinkRuns !== undefined) {
      if (this.shrinkPlays >= shared.settings.shrinkRuns) return true;
      this.shrinkPlays++;
    }
    this.played++;
    let played: Played<V, R>;
    try {
      // A trace of its own per sequence (trace-context.ts): its requests carry it in `traceparent`.
      played = await withTrace(() =>
        this.role.play(sequence, this.lane, exploring ? shared.exploreUntil : undefined),
      );
    } catch (error) {
      shared.error = `the exploration stopped: ${error instanceof Error ? error.message : String(error)}`;
      return true;
    }
    if (played.unanswered !== undefined) this.silentInARow++;
    else if (played.cut !== true) this.silentInARow = 0;
    shared.tally(played, this.silentInARow);
    const failure = played.failure;
    shared.settings.progress?.(
      `explore: sequence ${shared.runs}, ${played.steps} step(s)${this.shrinking ? ' (shrinking a failure)' : ''}${failure !== undefined ? `, breaks ${this.role.requirementOf(failure)}` : ''}`,
    );
    if (played.broken !== undefined || played.unanswered !== undefined || played.cut === true)
      return true;
    // Warnings are kept from the search, where a value's index is its path (not from shrinking).
    if (!this.shrinking)
      shared.keepWarnings(
        played.warnings ?? [],
        (v) => this.role.requirementOf(v),
        replaying
          ? this.tokenOf(this.lane.replay!.path, sequence)
          : this.tokenOf(String(index), sequence),
        this.lane.seed,
      );
    if (failure === undefined) return true;
    if (this.shrinking) {
      const shrunk = this.failing!.violation;
      if (this.role.requirementOf(failure) !== this.role.requirementOf(shrunk)) return true;
    } else if (shared.stop && !replaying) return true; // another lane found one first: it shrinks alone
    this.shrinking = true;
    shared.stop = true;
    this.failing = { violation: failure, record: played.record };
    return false;
  }

  /** The lane's failure, from fast-check's report: the last failing value is the shrunk one. */
  failureOf(details: fc.RunDetails<[S]>): Named<V, R> | undefined {
    if (this.failing === undefined || !details.failed) return undefined;
    const path = details.counterexamplePath ?? this.lane.replay?.path ?? '0';
    return {
      ...this.failing,
      token: this.tokenOf(path, details.counterexample?.[0]),
      seed: this.lane.seed,
    };
  }
}

/** Explores with the role over the settings' lanes, side by side; never throws (an internal error is `error`). */
export async function search<S, V, R>(
  role: ExplorerRole<S, V, R>,
  settings: SearchSettings,
): Promise<SearchOutcome<V, R>> {
  const shared = new Shared<V, R>(settings);
  const lanes = await Promise.all(
    settings.lanes.map(async (lane) => {
      const run = new LaneSearch(role, lane, shared);
      const replay = lane.replay;
      const details = await fc.check(
        fc.asyncProperty(role.sequences(lane), (s) => run.property(s)),
        {
          seed: lane.seed,
          numRuns: replay !== undefined ? 1 : settings.runs,
          ...(replay !== undefined ? { path: replay.path, endOnFailure: true } : {}),
          interruptAfterTimeLimit: (settings.seconds + settings.shrinkSeconds) * 1000,
          markInterruptAsFailure: false,
        },
      );
      // fast-check's own error (not a property's verdict) is an internal error.
      if (details.failed && run.failing === undefined && details.errorInstance != null)
        shared.error ??= `the exploration stopped: ${String(details.errorInstance)}`;
      return run.failureOf(details);
    }),
  );
  const failure = lanes.find((f) => f !== undefined);
  const s = shared.silence;
  return {
    runs: shared.runs,
    steps: shared.steps,
    elapsedMs: Date.now() - shared.started,
    judged: shared.judged,
    observations: [...shared.observations],
    warnings: [...shared.warnings.values()],
    unanswered: s.sequences,
    ...(s.first !== undefined ? { firstUnanswered: s.first } : {}),
    ...(shared.lost !== undefined ? { lost: shared.lost } : {}),
    ...(shared.broken !== undefined ? { broken: shared.broken } : {}),
    ...(failure !== undefined ? { failure } : {}),
    ...(shared.error !== undefined ? { error: shared.error } : {}),
  };
}
