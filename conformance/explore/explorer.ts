// `audit server --explore`: model-based exploration of a live target with fast-check (fc.commands + asyncModelRun).
// Draws sequences of payouts, commits, cancels, waits, sandbox payments and refunds, judges every answer and webhook
// by the model (model.ts), and shrinks a failing sequence to the shortest one that still fails, which it reports
// with the seed, the numbered steps and one token that replays exactly that sequence (signing afresh).
import fc from 'fast-check';
import {
  inconclusive,
  observation,
  pass,
  violation,
  type CheckRunEnv,
  type Finding,
} from '../check.js';
import type { ServerAuditContext, ServerCheck } from '../checks/server/context.js';
import { NEED, serverCheck } from '../checks/server/context.js';
import { describeOutcome } from '../checks/server/requests.js';
import {
  absorbWebhooks,
  commandArbitraries,
  commandSource,
  ModelViolation,
  NoAnswer,
  type ExplorerModel,
  type Real,
  type StepRecord,
} from './commands.js';
import { createSpecState, pendingUntil, ruleText, SPEC_RULE_IDS } from '../spec-model/index.js';
import { currentExchangeLog } from '../exchange-log.js';
import { EXPLORE_CHECK_ID, STEPS_JUDGED } from './check-id.js';
import { EXPLORE_DEFAULTS } from './explore-defaults.js';

export interface ExploreSettings {
  /** Runs (sequences) to try; the exploration also ends when `seconds` are spent. */
  readonly runs: number;
  /** Time for exploring; shrinking a failure gets up to `shrinkSeconds` more. */
  readonly seconds: number;
  readonly shrinkSeconds?: number;
  /** Commands per sequence at most (default 8). */
  readonly maxCommands?: number;
  /** Default: drawn at random (and reported). */
  readonly seed?: number;
  /** `SEED~PATH~REPLAYPATH` from a report: replays exactly that sequence. */
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
}

// The defaults live in an import-free module so that `--help` shows them without loading the explorer.
export { EXPLORE_DEFAULTS };

export interface ExploreFailure {
  readonly violation: ModelViolation;
  readonly steps: readonly StepRecord[];
  readonly seed: number;
  /** Replays exactly the shrunk sequence: `SEED~PATH~REPLAYPATH`. */
  readonly token: string;
}

export interface ExploreOutcome {
  readonly seed: number;
  readonly runs: number;
  readonly steps: number;
  readonly elapsedMs: number;
  readonly cost: { readonly payouts: number; readonly refunds: number; readonly payments: number };
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

export function parseReplayToken(
  token: string,
): { seed: number; path: string; replayPath: string } | undefined {
  const m = /^(\d+)~([0-9:]+)~([A-Za-z0-9+/=_:-]*)$/.exec(token);
  if (m === null) return undefined;
  return { seed: Number(m[1]), path: m[2]!, replayPath: m[3]! };
}

/**
 * Waits (bounded by the latest deadline the model holds: a webhook due, an overlapping refund's grace) for what the
 * model still expects, judging each webhook as it comes; then judges everything left.
 */
async function settle(model: ExplorerModel, real: Real): Promise<void> {
  const s: StepRecord = {
    n: real.steps.length + 1,
    command: 'end of sequence: wait for the webhooks due',
    exchanges: [],
  };
  real.steps.push(s);
  const last = pendingUntil(model);
  if (last !== undefined && real.ctx.webhooks !== undefined) {
    let broken: unknown;
    await real.ctx.webhooks.waitFor(
      () => {
        try {
          absorbWebhooks(model, real, s);
        } catch (error) {
          broken = error; // thrown after the wait (a predicate must not throw)
          return true;
        }
        return pendingUntil(model) === undefined;
      },
      { timeoutMs: Math.max(0, last - Date.now()) + 50, signal: real.env.signal },
    );
    if (broken !== undefined) throw broken;
  }
  absorbWebhooks(model, real, s);
}

/** Explores the target; never throws (an internal error is returned as `error`). */
export async function explore(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  settings: ExploreSettings,
): Promise<ExploreOutcome> {
  const replay = settings.replay !== undefined ? parseReplayToken(settings.replay) : undefined;
  const seed = replay?.seed ?? settings.seed ?? (Math.random() * 2 ** 31) | 0;
  const lanes = replay !== undefined ? 1 : Math.max(1, settings.lanes ?? EXPLORE_DEFAULTS.lanes);
  const shared: Lanes = { stop: false };
  const outcomes = await Promise.all(
    Array.from({ length: lanes }, (_, i) =>
      exploreLane(ctx, env, settings, (seed + i) % 2 ** 31, shared),
    ),
  );
  return mergeLanes(seed, outcomes);
}

/** What the lanes of one exploration share: set when one found a failure (the others stop, it shrinks alone). */
interface Lanes {
  stop: boolean;
}

/** The lanes' outcomes as one: sums, the first failure (by lane), the first error, lost when any lane lost it. */
function mergeLanes(seed: number, outcomes: readonly ExploreOutcome[]): ExploreOutcome {
  const sum = (f: (o: ExploreOutcome) => number): number => outcomes.reduce((n, o) => n + f(o), 0);
  const first = <T>(f: (o: ExploreOutcome) => T | undefined): T | undefined =>
    outcomes.map(f).find((v) => v !== undefined);
  const failure = first((o) => o.failure);
  const error = first((o) => o.error);
  const lost = first((o) => o.lost);
  const firstUnanswered = first((o) => o.firstUnanswered);
  return {
    seed,
    runs: sum((o) => o.runs),
    steps: sum((o) => o.steps),
    elapsedMs: Math.max(...outcomes.map((o) => o.elapsedMs)),
    cost: {
      payouts: sum((o) => o.cost.payouts),
      refunds: sum((o) => o.cost.refunds),
      payments: sum((o) => o.cost.payments),
    },
    observations: [...new Set(outcomes.flatMap((o) => o.observations))].slice(0, 20),
    unanswered: sum((o) => o.unanswered),
    judged: Object.fromEntries(
      [...new Set(outcomes.flatMap((o) => Object.keys(o.judged)))].map((rule) => [
        rule,
        sum((o) => o.judged[rule] ?? 0),
      ]),
    ),
    ...(firstUnanswered !== undefined ? { firstUnanswered } : {}),
    ...(lost !== undefined ? { lost } : {}),
    ...(failure !== undefined ? { failure } : {}),
    ...(error !== undefined ? { error } : {}),
  };
}

/** One lane: fast-check's model run from `seed`, until the time is spent, a failure is shrunk or the target is lost. */
async function exploreLane(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  settings: ExploreSettings,
  seed: number,
  shared: Lanes,
): Promise<ExploreOutcome> {
  const started = Date.now();
  const replay = settings.replay !== undefined ? parseReplayToken(settings.replay) : undefined;
  const exploreUntil = started + settings.seconds * 1000;
  const totals = {
    runs: 0,
    steps: 0,
    cost: { payouts: 0, refunds: 0, payments: 0 },
    judged: {} as Record<string, number>,
  };
  const observations = new Set<string>();
  let failing: { violation: ModelViolation; steps: StepRecord[] } | undefined;
  let shrinking = false;
  const silence = { sequences: 0, inARow: 0, first: undefined as string | undefined };
  let lost: string | undefined;

  const arbs = commandArbitraries(commandSource(ctx));
  const property = fc.asyncProperty(
    fc.commands(arbs, {
      maxCommands: settings.maxCommands ?? EXPLORE_DEFAULTS.maxCommands,
      size: 'max',
      ...(replay !== undefined ? { replayPath: replay.replayPath } : {}),
    }),
    async (cmds) => {
      // Past the exploring time, only the shrinking of a failure still acts on the target.
      if (!shrinking && replay === undefined && (Date.now() > exploreUntil || shared.stop)) return;
      if (env.signal.aborted || lost !== undefined) return;
      const model = createSpecState({ webhookWaitMs: ctx.webhookWaitMs });
      const real: Real = {
        ctx,
        env,
        steps: [],
        cursor: Math.max(0, ...(ctx.webhooks?.received().map((w) => w.seq) ?? [0])),
        observations: [],
        cost: { payouts: 0, refunds: 0, payments: 0 },
        judged: new Map(),
      };
      let noAnswer = false;
      try {
        await fc.asyncModelRun(() => ({ model, real }), cmds);
        await settle(model, real);
        silence.inARow = 0;
      } catch (error) {
        if (error instanceof NoAnswer) {
          // Inconclusive: the sequence ends here and counts as neither a pass nor a failure (returning, fast-check
          // treats it as not failing, so an outage is never shrunk into a "shortest failure").
          silence.sequences++;
          silence.inARow++;
          silence.first ??= error.message;
          noAnswer = true;
          if (silence.inARow >= EXPLORE_DEFAULTS.lostAfter)
            lost = `${silence.inARow} sequences in a row got no complete answer (the last: ${error.message})`;
          return;
        }
        if (error instanceof ModelViolation) {
          if (!shrinking && shared.stop) return; // another lane found one first: it shrinks alone
          shrinking = true;
          shared.stop = true;
          failing = { violation: error, steps: real.steps };
        }
        throw error;
      } finally {
        totals.runs++;
        if (!noAnswer) {
          totals.steps += real.steps.length; // steps judged (an unanswered sequence is not)
          for (const [rule, steps] of real.judged)
            totals.judged[rule] = (totals.judged[rule] ?? 0) + steps.size;
        }
        totals.cost.payouts += real.cost.payouts;
        totals.cost.refunds += real.cost.refunds;
        totals.cost.payments += real.cost.payments;
        for (const o of real.observations) if (observations.size < 20) observations.add(o);
        settings.progress?.(
          `explore: run ${totals.runs}, ${real.steps.length} steps${shrinking ? ' (shrinking a failure)' : ''}`,
        );
      }
    },
  );
  const shrinkMs = (settings.shrinkSeconds ?? EXPLORE_DEFAULTS.shrinkSeconds) * 1000;
  const details = await fc.check(property, {
    seed,
    numRuns: replay !== undefined ? 1 : settings.runs,
    ...(replay !== undefined ? { path: replay.path } : {}),
    interruptAfterTimeLimit: settings.seconds * 1000 + shrinkMs,
    markInterruptAsFailure: false,
  });
  const base = {
    seed,
    runs: totals.runs,
    steps: totals.steps,
    elapsedMs: Date.now() - started,
    cost: totals.cost,
    observations: [...observations],
    unanswered: silence.sequences,
    judged: totals.judged,
    ...(silence.first !== undefined ? { firstUnanswered: silence.first } : {}),
    ...(lost !== undefined ? { lost } : {}),
  };
  // Interrupted at the time limit before a run finished, fast-check reports a failure without an error: none.
  const cutShort = details.interrupted && failing === undefined && details.errorInstance == null;
  if (!details.failed || cutShort) return base;
  if (failing === undefined || !(details.errorInstance instanceof ModelViolation))
    return { ...base, error: `the exploration stopped: ${String(details.errorInstance)}` };
  const replayPath = /replayPath="([^"]*)"/.exec(String(details.counterexample?.[0]))?.[1] ?? '';
  return {
    ...base,
    failure: {
      violation: details.errorInstance,
      steps: failing.steps,
      seed,
      token: `${seed}~${details.counterexamplePath}~${replayPath}`,
    },
  };
}

/** The shrunk sequence as numbered steps: each command, and each of its requests with the answer. */
function stepsText(ctx: ServerAuditContext, steps: readonly StepRecord[]): string {
  const lines: string[] = [];
  // With a HAR being written, each request names its entry there (the run's log indexed it when it was sent).
  const log = currentExchangeLog();
  for (const s of steps) {
    lines.push(`${s.n}. ${s.command}`);
    for (const ex of s.exchanges) {
      const body = new TextDecoder().decode(ex.request.body);
      const entry = log?.indexOf(ex.request);
      lines.push(
        `   → ${ex.request.method} ${ex.request.url}${entry !== undefined ? ` [HAR entry ${entry}]` : ''}${body !== '' ? ` ${body}` : ''}`,
      );
      const answer = ex.response?.bodyText;
      lines.push(
        `   ← ${describeOutcome(ex)}${answer !== undefined && answer !== '' ? ` ${answer.slice(0, 600)}` : ''}`,
      );
    }
  }
  return ctx.redactor.redactText(lines.join('\n'));
}

/**
 * An exploration that judged fewer than `EXPLORE_DEFAULTS.minSteps` steps, or created no payout, is not a pass: it
 * did not reach what it exists to judge (a replay runs one sequence and is judged by that sequence alone).
 */
function notEnough(outcome: ExploreOutcome, settings: ExploreSettings, summary: string): Finding[] {
  const judged = outcome.steps;
  if (settings.replay === undefined && judged < EXPLORE_DEFAULTS.minSteps)
    return [
      inconclusive(
        `the exploration judged ${judged} step(s), fewer than its minimum of ${EXPLORE_DEFAULTS.minSteps}: not a pass (${summary})`,
      ),
    ];
  if (outcome.cost.payouts === 0)
    return [
      inconclusive(
        `the exploration created no payout (every one was refused or unanswered), so no rule of a payout's life was judged: not a pass (${summary})`,
      ),
    ];
  return [
    pass(`no answer or webhook disagreed with the model (${summary})`),
    // Per rule, how many steps judged it: the requirement table shows it beside the rule.
    ...Object.entries(outcome.judged).map(([rule, n]) =>
      pass(`${STEPS_JUDGED} ${n} step(s)`, { requirement: rule }),
    ),
  ];
}

/** The explorer as a server check: `explore-model`, MUST, every finding citing the rule it breaks. */
export function createExploreCheck(settings: ExploreSettings): ServerCheck {
  const shrink = settings.shrinkSeconds ?? EXPLORE_DEFAULTS.shrinkSeconds;
  return serverCheck({
    id: EXPLORE_CHECK_ID,
    title:
      'random sequences of payouts, commits, cancels, waits and refunds: every answer and webhook agrees with the model of the spec',
    area: 'explore',
    requirements: [...SPEC_RULE_IDS],
    level: 'MUST',
    needs: NEED.signing,
    mutating: true,
    serial: true,
    timeoutMs: (settings.seconds + shrink + 30) * 1000,
    async run(ctx, env): Promise<Finding[]> {
      const outcome = await explore(ctx, env, settings);
      const summary = `seed ${outcome.seed}: ${outcome.runs} sequences, ${outcome.steps} steps in ${(outcome.elapsedMs / 1000).toFixed(1)} s; created ${outcome.cost.payouts} payouts, ${outcome.cost.refunds} refunds, ${outcome.cost.payments} sandbox payments`;
      const seen = outcome.observations.map((o) =>
        observation(`where the spec leaves the answer open: ${o}`),
      );
      const silent =
        outcome.unanswered > 0
          ? [
              observation(
                `${outcome.unanswered} sequence(s) ended at a step without a complete answer, inconclusive and not judged (the first: ${outcome.firstUnanswered ?? 'unknown'})`,
              ),
            ]
          : [];
      if (outcome.error !== undefined)
        return [...seen, ...silent, inconclusive(`${outcome.error} (${summary})`)];
      // An outage is no evidence: whatever the exploration found while the target was going away is undecided.
      if (outcome.lost !== undefined)
        return [
          inconclusive(
            `the target stopped answering: ${outcome.lost}; the exploration stopped${outcome.failure !== undefined ? `, and what it was shrinking (${outcome.failure.violation.judgement.requirement}) is undecided` : ''} (${summary})`,
          ),
          ...silent,
        ];
      const f = outcome.failure;
      if (f === undefined) return [...notEnough(outcome, settings, summary), ...seen, ...silent];
      const j = f.violation.judgement;
      const replay = settings.replayCommand?.(f.token) ?? `--explore-replay ${f.token}`;
      const notes = `${ruleText(j.requirement)} (spec). Shrunk to ${f.steps.filter((s) => !s.command.startsWith('end of sequence')).length} step(s); failed at step ${f.violation.step}. ${summary}\n${stepsText(ctx, f.steps)}`;
      return [
        violation(`${j.message} [step ${f.violation.step} of the shrunk sequence]`, {
          requirement: j.requirement,
          expected: j.expected,
          received: j.received,
          evidence: {
            ...(f.violation.exchange !== undefined
              ? {
                  request: f.violation.exchange.request,
                  ...(f.violation.exchange.response
                    ? { response: f.violation.exchange.response }
                    : {}),
                }
              : {}),
            reproduce: replay,
            notes,
          },
        }),
        ...seen,
      ];
    },
  });
}
