// The server role of the explorer (engine.ts): payconform as the client of a live target. Its draws are fast-check
// model commands (fc.commands, draws.ts) at a lane's pace; one sequence is played by fast-check's model run
// (asyncModelRun) against a fresh spec model, then the webhooks still due are awaited and judged (settle).
import fc from 'fast-check';
import type { CheckRunEnv } from '../run/check.js';
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
import type { ExplorerRole, Lane, Played } from './engine.js';
import { EXPLORE_DEFAULTS } from './explore-defaults.js';
import type { PaymentPool } from './payment-pool.js';

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
export type Commands = Iterable<fc.AsyncCommand<ExplorerModel, Real>>;

/** What the server role made and judged over all its lanes (the report's cost line and refund share). */
export interface ServerTally {
  refundSteps: number;
  readonly cost: { payouts: number; refunds: number; payments: number };
}

export type ServerRole = ExplorerRole<Commands, ModelViolation, readonly StepRecord[]> & {
  readonly tally: ServerTally;
};

/** fc.commands writes the replay path of what ran into the sequence's text. */
const replayPathOf = (cmds: Commands): string =>
  /replayPath="([^"]*)"/.exec(String(cmds))?.[1] ?? '';

/**
 * The server role for one exploration: its draws for the target (what its config and state provider make possible),
 * and one sequence played against a fresh model. Without /sandbox/, `pool` lends the config's settled payments to one
 * sequence at a time.
 */
export function serverRole(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  maxCommands: number,
  pool: PaymentPool | undefined,
): ServerRole {
  const tally: ServerTally = { refundSteps: 0, cost: { payouts: 0, refunds: 0, payments: 0 } };
  const source = commandSource(ctx);
  const freshReal = (until: number | undefined): Real => ({
    ctx,
    env,
    steps: [],
    cursor: Math.max(0, ...(ctx.webhooks?.received().map((w) => w.seq) ?? [0])),
    observations: [],
    cost: { payouts: 0, refunds: 0, payments: 0 },
    judged: new Map(),
    ...(pool !== undefined ? { pool } : {}),
    ...(until !== undefined ? { until } : {}),
  });
  const playedOf = (real: Real): Played<ModelViolation, readonly StepRecord[]> => {
    tally.refundSteps += real.steps.filter((s) => s.refund === true).length;
    return {
      record: real.steps,
      steps: real.steps.length,
      observations: real.observations,
      judged: new Map([...real.judged].map(([rule, steps]) => [rule, steps.size])),
    };
  };
  return {
    tally,
    sequences: (lane: Lane) =>
      fc.commands(commandArbitraries(source, lane.pace), {
        maxCommands:
          lane.pace === 'patient'
            ? Math.min(maxCommands, EXPLORE_DEFAULTS.patientMaxCommands)
            : maxCommands,
        size: 'max',
        ...(lane.replay !== undefined ? { replayPath: lane.replay.replayPath ?? '' } : {}),
      }),
    requirementOf: (v) => v.judgement.requirement,
    replayPathOf,
    async play(cmds, lane, until) {
      const model = createSpecState({ webhookWaitMs: ctx.webhookWaitMs });
      const real = freshReal(until);
      try {
        await fc.asyncModelRun(() => ({ model, real }), cmds);
        await settle(model, real, lane.pace);
        return playedOf(real);
      } catch (error) {
        // Cut at the end of the exploring time: neither pass nor failure.
        if (error instanceof OutOfTime) return { ...playedOf(real), cut: true };
        // Inconclusive: the sequence ends here, never judged, never shrunk (an outage is no "shortest failure").
        if (error instanceof NoAnswer)
          return {
            record: real.steps,
            steps: 0,
            observations: real.observations,
            unanswered: error.message,
          };
        if (error instanceof ModelViolation) return { ...playedOf(real), failure: error };
        throw error;
      } finally {
        pool?.release(model);
        tally.cost.payouts += real.cost.payouts;
        tally.cost.refunds += real.cost.refunds;
        tally.cost.payments += real.cost.payments;
      }
    },
  };
}
