// One lane of an exploration: fast-check's model run (fc.commands + asyncModelRun) from one seed, at one pace, until
// the time is spent, a failure is shrunk or the target is lost; and the replay token that names one shrunk sequence.
import fc from 'fast-check';
import type { CheckRunEnv } from '../check.js';
import type { ServerAuditContext } from '../checks/server/context.js';
import { createSpecState, pendingUntil } from '../spec-model/index.js';
import {
  absorbWebhooks,
  ModelViolation,
  NoAnswer,
  OutOfTime,
  type ExplorerModel,
  type Pace,
  type Real,
  type StepRecord,
} from './commands.js';
import { commandArbitraries, commandSource } from './draws.js';
import { EXPLORE_DEFAULTS } from './explore-defaults.js';
import type { PaymentPool } from './payment-pool.js';
import type { ExploreOutcome, ExploreSettings } from './outcome.js';

/** A shrunk sequence: `SEED~PATH~REPLAYPATH`, with `~patient` when a patient lane drew it. */
export interface ReplayToken {
  readonly seed: number;
  readonly path: string;
  readonly replayPath: string;
  readonly pace: Pace;
}

export function parseReplayToken(token: string): ReplayToken | undefined {
  const m = /^(\d+)~([0-9:]+)~([A-Za-z0-9+/=_:-]*?)(~patient)?$/.exec(token);
  if (m === null) return undefined;
  const pace = m[4] !== undefined ? 'patient' : 'quick';
  return { seed: Number(m[1]), path: m[2]!, replayPath: m[3]!, pace };
}

export function formatReplayToken(t: ReplayToken): string {
  return `${t.seed}~${t.path}~${t.replayPath}${t.pace === 'patient' ? '~patient' : ''}`;
}

/** What the lanes of one exploration share. */
export interface LaneShared {
  /** Set when one found a failure (the others stop, it shrinks alone). */
  stop: boolean;
  /** Without /sandbox/: the config's settled payments, lent to one sequence at a time. */
  readonly pool?: PaymentPool;
}

/** Which lane: its seed and pace, or the replay it runs. */
export interface LaneSpec {
  readonly seed: number;
  readonly pace: Pace;
  readonly replay?: ReplayToken;
}

/** Judges each webhook as it comes for up to `timeoutMs`, or until `done`; a broken rule is thrown after the wait. */
async function watch(
  model: ExplorerModel,
  real: Real,
  s: StepRecord,
  timeoutMs: number,
  done: () => boolean,
): Promise<void> {
  const listener = real.ctx.webhooks;
  if (listener === undefined) return;
  let broken: unknown;
  await listener.waitFor(
    () => {
      try {
        absorbWebhooks(model, real, s);
      } catch (error) {
        broken = error; // thrown after the wait (a predicate must not throw)
        return true;
      }
      return done();
    },
    { timeoutMs, signal: real.env.signal },
  );
  if (broken !== undefined) throw broken;
}

/** How much longer to watch: until `watchMs` after the latest a held or cancelled payout got into that state. */
function watchLeft(model: ExplorerModel, watchMs: number): number {
  const since = model.payouts
    .filter((p) => p.state === 'AWAITING_COMMIT' || p.state === 'CANCELLED')
    .map((p) => p.movedAt ?? p.createdAt);
  return since.length === 0 ? 0 : Math.max(0, Math.max(...since) + watchMs - Date.now());
}

/**
 * The end of a sequence: waits (bounded by the latest deadline the model holds: a webhook due, an overlapping
 * refund's grace) for what the model still expects, judging each webhook as it comes. A patient lane then watches
 * until `EXPLORE_DEFAULTS.patientWaitMs.max` after the last of its held or cancelled payouts got there (what must not
 * happen to it shows seconds later), unless that would run past the exploring time. Then judges everything left.
 */
async function settle(model: ExplorerModel, real: Real, pace: Pace): Promise<void> {
  const patient = pace === 'patient';
  const watchMs = EXPLORE_DEFAULTS.patientWaitMs.max;
  const s: StepRecord = {
    n: real.steps.length + 1,
    command: `end of sequence: wait for the webhooks due${patient ? `, and watch held and cancelled payouts for ${watchMs} ms` : ''}`,
    exchanges: [],
  };
  real.steps.push(s);
  const last = pendingUntil(model);
  if (last !== undefined)
    await watch(
      model,
      real,
      s,
      Math.max(0, last - Date.now()) + 50,
      () => pendingUntil(model) === undefined,
    );
  const leftMs = patient ? watchLeft(model, watchMs) : 0;
  const inTime = real.until === undefined || Date.now() + leftMs <= real.until;
  if (leftMs > 0 && inTime) await watch(model, real, s, leftMs, () => false);
  absorbWebhooks(model, real, s);
}

/** A sequence as fast-check draws it. */
type Commands = Iterable<fc.AsyncCommand<ExplorerModel, Real>>;

/** One lane's run: its tallies, and what happened to its sequences (kept on the object, never on the module). */
class LaneRun {
  readonly started = Date.now();
  readonly exploreUntil: number;
  readonly totals = {
    runs: 0,
    steps: 0,
    refundSteps: 0,
    cost: { payouts: 0, refunds: 0, payments: 0 },
    judged: {} as Record<string, number>,
  };
  readonly observations = new Set<string>();
  failing: { violation: ModelViolation; steps: StepRecord[] } | undefined;
  shrinking = false;
  readonly silence = { sequences: 0, inARow: 0, first: undefined as string | undefined };
  lost: string | undefined;

  constructor(
    readonly ctx: ServerAuditContext,
    readonly env: CheckRunEnv,
    readonly settings: ExploreSettings,
    readonly spec: LaneSpec,
    readonly shared: LaneShared,
  ) {
    this.exploreUntil = this.started + settings.seconds * 1000;
  }

  /** The property's body: one sequence against a fresh model; a rule broken throws (fast-check shrinks it). */
  async sequence(cmds: Commands): Promise<void> {
    const exploring = !this.shrinking && this.spec.replay === undefined;
    // Past the exploring time, only the shrinking of a failure still acts on the target.
    if (exploring && (Date.now() > this.exploreUntil || this.shared.stop)) return;
    if (this.env.signal.aborted || this.lost !== undefined) return;
    const model = createSpecState({ webhookWaitMs: this.ctx.webhookWaitMs });
    const real = this.freshReal(exploring ? this.exploreUntil : undefined);
    let noAnswer = false;
    try {
      await fc.asyncModelRun(() => ({ model, real }), cmds);
      await settle(model, real, this.spec.pace);
      this.silence.inARow = 0;
    } catch (error) {
      if (error instanceof OutOfTime) return; // cut at the end of the exploring time: neither pass nor failure
      if (error instanceof NoAnswer) {
        noAnswer = true;
        return this.unanswered(error);
      }
      if (error instanceof ModelViolation) {
        if (!this.shrinking && this.shared.stop) return; // another lane found one first: it shrinks alone
        this.shrinking = true;
        this.shared.stop = true;
        this.failing = { violation: error, steps: real.steps };
      }
      throw error;
    } finally {
      this.shared.pool?.release(model);
      this.tally(real, noAnswer);
    }
  }

  private freshReal(until: number | undefined): Real {
    return {
      ctx: this.ctx,
      env: this.env,
      steps: [],
      cursor: Math.max(0, ...(this.ctx.webhooks?.received().map((w) => w.seq) ?? [0])),
      observations: [],
      cost: { payouts: 0, refunds: 0, payments: 0 },
      judged: new Map(),
      ...(this.shared.pool !== undefined ? { pool: this.shared.pool } : {}),
      ...(until !== undefined ? { until } : {}),
    };
  }

  /**
   * Inconclusive: the sequence ends here and counts as neither a pass nor a failure (returning, fast-check treats it
   * as not failing, so an outage is never shrunk into a "shortest failure").
   */
  private unanswered(error: NoAnswer): void {
    const s = this.silence;
    s.sequences++;
    s.inARow++;
    s.first ??= error.message;
    if (s.inARow >= EXPLORE_DEFAULTS.lostAfter)
      this.lost = `${s.inARow} sequences in a row got no complete answer (the last: ${error.message})`;
  }

  private tally(real: Real, noAnswer: boolean): void {
    const t = this.totals;
    t.runs++;
    if (!noAnswer) {
      t.steps += real.steps.length; // steps judged (an unanswered sequence is not)
      t.refundSteps += real.steps.filter((s) => s.refund === true).length;
      for (const [rule, steps] of real.judged) t.judged[rule] = (t.judged[rule] ?? 0) + steps.size;
    }
    t.cost.payouts += real.cost.payouts;
    t.cost.refunds += real.cost.refunds;
    t.cost.payments += real.cost.payments;
    for (const o of real.observations) if (this.observations.size < 20) this.observations.add(o);
    this.settings.progress?.(
      `explore: run ${t.runs}, ${real.steps.length} steps${this.shrinking ? ' (shrinking a failure)' : ''}`,
    );
  }

  /** The lane's outcome from fast-check's report. */
  outcome(details: fc.RunDetails<[Commands]>): ExploreOutcome {
    const base = {
      seed: this.spec.seed,
      runs: this.totals.runs,
      steps: this.totals.steps,
      refundSteps: this.totals.refundSteps,
      elapsedMs: Date.now() - this.started,
      cost: this.totals.cost,
      observations: [...this.observations],
      unanswered: this.silence.sequences,
      judged: this.totals.judged,
      ...(this.silence.first !== undefined ? { firstUnanswered: this.silence.first } : {}),
      ...(this.lost !== undefined ? { lost: this.lost } : {}),
    };
    const failing = this.failing;
    // Interrupted at the time limit before a run finished, fast-check reports a failure without an error: none.
    const cutShort = details.interrupted && failing === undefined && details.errorInstance == null;
    if (!details.failed || cutShort) return base;
    if (failing === undefined || !(details.errorInstance instanceof ModelViolation))
      return { ...base, error: `the exploration stopped: ${String(details.errorInstance)}` };
    const replayPath = /replayPath="([^"]*)"/.exec(String(details.counterexample?.[0]))?.[1] ?? '';
    const token = { seed: this.spec.seed, path: details.counterexamplePath ?? '', replayPath };
    return {
      ...base,
      failure: {
        violation: details.errorInstance,
        steps: failing.steps,
        seed: this.spec.seed,
        token: formatReplayToken({ ...token, pace: this.spec.pace }),
      },
    };
  }
}

/** One lane: fast-check's model run from the lane's seed, at its pace. */
export async function exploreLane(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  settings: ExploreSettings,
  spec: LaneSpec,
  shared: LaneShared,
): Promise<ExploreOutcome> {
  const lane = new LaneRun(ctx, env, settings, spec, shared);
  const replay = spec.replay;
  const most = settings.maxCommands ?? EXPLORE_DEFAULTS.maxCommands;
  const property = fc.asyncProperty(
    fc.commands(commandArbitraries(commandSource(ctx), spec.pace), {
      maxCommands:
        spec.pace === 'patient' ? Math.min(most, EXPLORE_DEFAULTS.patientMaxCommands) : most,
      size: 'max',
      ...(replay !== undefined ? { replayPath: replay.replayPath } : {}),
    }),
    (cmds) => lane.sequence(cmds),
  );
  const shrinkMs = (settings.shrinkSeconds ?? EXPLORE_DEFAULTS.shrinkSeconds) * 1000;
  const details = await fc.check(property, {
    seed: spec.seed,
    numRuns: replay !== undefined ? 1 : settings.runs,
    ...(replay !== undefined ? { path: replay.path } : {}),
    interruptAfterTimeLimit: settings.seconds * 1000 + shrinkMs,
    markInterruptAsFailure: false,
  });
  return lane.outcome(details);
}
