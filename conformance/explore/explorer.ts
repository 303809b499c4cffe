// `audit server --explore`: model-based exploration of a live target with fast-check (fc.commands + asyncModelRun).
// Draws sequences of payouts, commits, cancels, waits, sandbox payments and refunds, judges every answer and webhook
// by the spec model (conformance/spec-model), and shrinks a failing sequence to the shortest one that still fails, which it reports
// with the seed, the numbered steps and one token that replays exactly that sequence (signing afresh).
import {
  inconclusive,
  observation,
  pass,
  skip,
  violation,
  type CheckRunEnv,
  type Finding,
} from '../run/check.js';
import type { ServerAuditContext, ServerCheck } from '../checks/server/context.js';
import { NEED, serverCheck } from '../checks/server/context.js';
import { describeOutcome } from '../checks/server/requests.js';
import { ruleText, SPEC_RULE_IDS } from '../spec-model/index.js';
import { serverRole } from './lane.js';
import { lanesOf, search } from './engine.js';
import { parseReplayToken } from './replay-token.js';
import { currentExchangeLog } from '../http/exchange-log.js';
import { EXPLORE_CHECK_ID, STEPS_JUDGED } from './check-id.js';
import { EXPLORE_DEFAULTS } from './explore-defaults.js';
import { PaymentPool } from './payment-pool.js';
import { hookPaymentTally } from './payment-commands.js';
import { hookFailure, isHookError } from '../state-hook/attribution.js';
import type { ExploreFailure, ExploreOutcome, ExploreSettings } from './outcome.js';
import type { StepRecord } from './commands.js';

export type { ExploreFailure, ExploreOutcome, ExploreSettings } from './outcome.js';

// The defaults live in an import-free module so that `--help` shows them without loading the explorer.
export { EXPLORE_DEFAULTS, parseReplayToken };

/** Explores the target; never throws (an internal error, or a token that is not one, is returned as `error`). */
export async function explore(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  settings: ExploreSettings,
): Promise<ExploreOutcome> {
  const parsed = settings.replay !== undefined ? parseReplayToken(settings.replay) : undefined;
  const replay = parsed?.ok === true ? parsed.token : undefined;
  const seed = replay?.seed ?? settings.seed ?? (Math.random() * 2 ** 31) | 0;
  const nothing = {
    seed,
    runs: 0,
    steps: 0,
    refundSteps: 0,
    elapsedMs: 0,
    cost: { payouts: 0, refunds: 0, payments: 0 },
    observations: [],
    unanswered: 0,
    judged: {},
  };
  if (parsed?.ok === false) return { ...nothing, error: parsed.message };
  if (replay !== undefined && replay.replayPath === undefined)
    return {
      ...nothing,
      error: `the replay token ${settings.replay} names an SDK exploration (SEED~PATH): a server exploration's token also has its commands' replay path`,
    };
  const pool = PaymentPool.of(ctx);
  const role = serverRole(ctx, env, settings.maxCommands ?? EXPLORE_DEFAULTS.maxCommands, pool);
  const found = await search(role, {
    runs: settings.runs,
    seconds: settings.seconds,
    shrinkSeconds: settings.shrinkSeconds ?? EXPLORE_DEFAULTS.shrinkSeconds,
    ...(settings.shrinkRuns !== undefined ? { shrinkRuns: settings.shrinkRuns } : {}),
    lanes: lanesOf(
      seed,
      settings.lanes ?? EXPLORE_DEFAULTS.lanes,
      settings.patientLanes ?? EXPLORE_DEFAULTS.patientLanes,
      replay,
    ),
    signal: env.signal,
    ...(settings.progress !== undefined ? { progress: settings.progress } : {}),
  });
  const f = found.failure;
  return {
    ...nothing,
    runs: found.runs,
    steps: found.steps,
    refundSteps: role.tally.refundSteps,
    elapsedMs: found.elapsedMs,
    cost: role.tally.cost,
    observations: found.observations,
    unanswered: found.unanswered,
    judged: found.judged,
    ...(found.firstUnanswered !== undefined ? { firstUnanswered: found.firstUnanswered } : {}),
    ...(found.lost !== undefined ? { lost: found.lost } : {}),
    ...(f !== undefined
      ? { failure: { violation: f.violation, steps: f.record, seed: f.seed, token: f.token } }
      : {}),
    ...(found.error !== undefined ? { error: found.error } : {}),
    ...(pool !== undefined ? { configPayments: pool.summary() } : {}),
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

/**
 * The config's state hook was asked for settled payments and made none: no refund of a payment it made was judged.
 * That is the hook's error, never a pass (INCOMPLETE, naming the hook and its last words).
 */
function hookNeverMade(ctx: ServerAuditContext): Finding[] {
  const tally = hookPaymentTally(ctx);
  if (tally === undefined || tally.asked === 0 || tally.made > 0) return [];
  return [
    skip(
      `the state hook made none of the ${tally.asked} settled payment(s) the exploration asked for, so no refund of a payment it made was judged: not a pass. Its last error: ${hookFailure(tally.lastFailure ?? 'unknown')}`,
    ),
  ];
}

/** The run in one line: its seed, sequences and steps, and what it made on the target (the cost line). */
export function exploreSummary(outcome: ExploreOutcome): string {
  const c = outcome.cost;
  const made = `made ${c.payouts} payouts, ${c.payments} payments, ${c.refunds} refunds`;
  return `seed ${outcome.seed}: ${outcome.runs} sequences, ${outcome.steps} steps (${outcome.refundSteps} on refunds) in ${(outcome.elapsedMs / 1000).toFixed(1)} s; ${made}${outcome.configPayments !== undefined ? ` (${outcome.configPayments})` : ''}`;
}

/** What an exploration found, as the check's findings: the verdict first, then what it recorded. */
function findingsOf(
  ctx: ServerAuditContext,
  settings: ExploreSettings,
  outcome: ExploreOutcome,
): Finding[] {
  const summary = exploreSummary(outcome);
  const seen = outcome.observations.map((o) =>
    observation(isHookError(o) ? o : `where the spec leaves the answer open: ${o}`),
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
  if (f === undefined)
    return [...notEnough(outcome, settings, summary), ...hookNeverMade(ctx), ...seen, ...silent];
  return [failureFinding(ctx, settings, f, summary), ...seen];
}

/** The shrunk failure as a violation: the judgement, the failing exchange, the steps and the replay command. */
function failureFinding(
  ctx: ServerAuditContext,
  settings: ExploreSettings,
  f: ExploreFailure,
  summary: string,
): Finding {
  const j = f.violation.judgement;
  const replay = settings.replayCommand?.(f.token) ?? `--explore-replay ${f.token}`;
  const notes = `${ruleText(j.requirement)} (spec). Shrunk to ${f.steps.filter((s) => !s.command.startsWith('end of sequence')).length} step(s); failed at step ${f.violation.step}. ${summary}\n${stepsText(ctx, f.steps)}`;
  const ex = f.violation.exchange;
  return violation(`${j.message} [step ${f.violation.step} of the shrunk sequence]`, {
    requirement: j.requirement,
    expected: j.expected,
    received: j.received,
    evidence: {
      ...(ex !== undefined
        ? { request: ex.request, ...(ex.response ? { response: ex.response } : {}) }
        : {}),
      reproduce: replay,
      notes,
    },
  });
}

/** The explorer as a server check: `explore-model`, MUST, every finding citing the rule it breaks. */
export function createExploreCheck(settings: ExploreSettings): ServerCheck {
  const shrink = settings.shrinkSeconds ?? EXPLORE_DEFAULTS.shrinkSeconds;
  // The token of the last failure this check shrunk: a failure is run once more by replaying it (conformance/run/flaky.ts).
  let failedToken: string | undefined;
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
      failedToken = outcome.failure?.token;
      return findingsOf(ctx, settings, outcome);
    },
    // Once more, alone: the shrunk sequence only, by its token, within the check's time limit.
    async rerunFailure(ctx, env): Promise<Finding[]> {
      if (failedToken === undefined)
        return findingsOf(ctx, settings, await explore(ctx, env, settings));
      const replay = { ...settings, replay: failedToken };
      return findingsOf(ctx, replay, await explore(ctx, env, replay));
    },
  });
}
