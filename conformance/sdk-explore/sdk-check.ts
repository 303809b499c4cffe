// The SDK explorer as a check of the client audit (`sdk-explore`): the engine runs it, grades its findings by
// requirement and hands them to every reporter, as for the other audits.
import {
  inconclusive,
  observation,
  pass,
  skip,
  violation,
  type Check,
  type Evidence,
  type Finding,
} from '../run/check.js';
import { clientChecks } from '../checks/client/index.js';
import { COP_KEYS, LONG_REFERENCE, WEBHOOK_VARIANTS } from './draws.js';
import { intentRequirements, OPERATION_ENDPOINT } from './intent.js';
import {
  ERROR_REQUIREMENT,
  HOLD_REQUIREMENT,
  levelOf,
  RESOURCE_REQUIREMENT,
  type Judgement,
} from './judge.js';
import { EXPLORE_DEFAULTS } from '../explore/explore-defaults.js';
import { MODEL_REQUIREMENTS } from './model-judge.js';
import { SDK_EXPLORE_CHECK_ID, STEPS_JUDGED } from '../explore/check-id.js';
import { exploreSdk, type SdkExploreOutcome, type SdkExploreSettings } from './explorer.js';
import type { SequenceEnv } from './env.js';
import type { StepRecord } from './steps.js';

export { SDK_EXPLORE_CHECK_ID };

/** What the check is given: the adapter, the service to play and the application the adapter signs for. */
export type SdkExploreContext = Omit<SequenceEnv, 'keys' | 'stepTimeoutMs'>;

/** Every requirement a finding of the check may cite: the client rules', the answers' and the webhooks'. */
const SDK_REQUIREMENTS = [
  ...new Set([
    ...clientChecks.flatMap((c) => c.requirements),
    ...Object.values(RESOURCE_REQUIREMENT),
    HOLD_REQUIREMENT,
    ...Object.values(ERROR_REQUIREMENT),
    // What it handed its caller, judged by the spec model as a server's answers are (model-judge.ts).
    ...MODEL_REQUIREMENTS,
    ...Object.values(WEBHOOK_VARIANTS).map((v) => v.requirement),
    // What the SDK sent against what its caller asked (intent.ts): each operation's request and body requirements.
    ...(Object.keys(OPERATION_ENDPOINT) as Array<keyof typeof OPERATION_ENDPOINT>).flatMap(
      intentRequirements,
    ),
  ]),
];

const cut = (text: string, n = 300): string => (text.length > n ? `${text.slice(0, n)}…` : text);

function answerText(s: StepRecord): string {
  const a = s.answer;
  if (a.kind === 'resource') return `resource ${cut(JSON.stringify(a.resource))}`;
  if (a.kind === 'error') return `error ${cut(JSON.stringify(a.error))}`;
  if (a.kind === 'webhook') return `webhook ${a.valid ? 'accepted' : 'refused'}`;
  return `${a.kind}: ${a.reason}`;
}

/** The shrunk sequence, one numbered step a line: what was asked, what went over the wire, what the SDK said. */
export function stepsText(steps: readonly StepRecord[]): string {
  return steps
    .map((s) => {
      const outage =
        'outage' in s.step && s.step.outage
          ? ` after ${s.step.outage.times}×503 ${s.step.outage.code}`
          : '';
      const wire = s.requests.length > 0 ? ` [${s.requests.join('; ')}]` : '';
      return `${s.n}. ${s.step.op}${outage} ${cut(JSON.stringify(s.input), 200)}${wire} → ${answerText(s)}`;
    })
    .join('\n');
}

function findingsOf(
  outcome: SdkExploreOutcome,
  replayCommand: (token: string) => string,
): Finding[] {
  const reached = `CoP results ${outcome.reached.copResults.length} of ${COP_KEYS.length}, ${outcome.reached.longReferences} payout(s) with a reference of ${LONG_REFERENCE}+ characters`;
  const summary = `seed ${outcome.seed}: ${outcome.runs} sequences, ${outcome.steps} steps in ${(outcome.elapsedMs / 1000).toFixed(1)} s; ${reached}`;
  const recorded = [
    ...Object.entries(outcome.unsupported).map(([op, reason]) =>
      skip(`the SDK does not offer ${op} ("${reason}"): its checks were skipped`),
    ),
    ...outcome.observations.map((o) => observation(`where the spec leaves the answer open: ${o}`)),
  ];
  // Each warning the search kept, with the sequence that showed it and the token that replays it.
  const warned = outcome.warnings.map((w) =>
    judgementFinding(w.judgement, `step ${w.steps.at(-1)?.n ?? 0} of sequence ${w.token}`, {
      reproduce: replayCommand(w.token),
      notes: `${summary}; replay token ${w.token}\n${stepsText(w.steps)}`,
    }),
  );
  if (outcome.broken !== undefined)
    return [inconclusive(`the exploration stopped: ${outcome.broken} (${summary})`), ...warned];
  const f = outcome.failure;
  if (f === undefined)
    return outcome.runs === 0
      ? [inconclusive(`no sequence was played (${summary})`)]
      : [
          pass(
            `no request, answer or webhook verdict broke a MUST${warned.length > 0 ? ` (${warned.length} warning(s) below)` : ''} (${summary})`,
          ),
          // Per rule, how many steps judged it: the requirement table shows it beside the rule.
          ...Object.entries(outcome.judged)
            .filter(([rule]) => !warned.some((w) => w.requirement === rule))
            .map(([rule, n]) => pass(`${STEPS_JUDGED} ${n} step(s)`, { requirement: rule })),
          ...warned,
          ...recorded,
        ];
  // Every rule the failing step broke, the one shrunk for first (each with its own requirement and level).
  const others = (f.steps.at(-1)?.judgements ?? []).filter(
    (j) => j.outcome === 'violation' && j !== f.judgement,
  );
  const where = `step ${f.steps.at(-1)?.n ?? 0} of the shrunk sequence of ${f.steps.length}`;
  const evidence = {
    reproduce: replayCommand(f.token),
    notes: `${summary}; replay token ${f.token}\n${stepsText(f.steps)}`,
  };
  return [
    judgementFinding(f.judgement, where, evidence),
    ...others.map((j) => judgementFinding(j, where, evidence)),
    ...warned.filter((w) => !others.some((j) => j.requirement === w.requirement)),
    ...recorded,
  ];
}

/** One broken rule as a violation, at the level of its requirement (or the rule's own, where it has one). */
function judgementFinding(j: Judgement, where: string, evidence: Evidence): Finding {
  const level = levelOf(j);
  return violation(`${j.message} [${where}]`, {
    ...(j.requirement !== undefined ? { requirement: j.requirement } : {}),
    ...(j.expected !== undefined ? { expected: j.expected } : {}),
    ...(j.received !== undefined ? { received: j.received } : {}),
    ...(level !== 'MUST' ? { level } : {}),
    evidence,
  });
}

export function createSdkExploreCheck(
  settings: SdkExploreSettings & { readonly replayCommand: (token: string) => string },
): Check<SdkExploreContext> {
  const seconds = settings.seconds ?? EXPLORE_DEFAULTS.seconds;
  const shrink = settings.shrinkSeconds ?? EXPLORE_DEFAULTS.shrinkSeconds;
  // The token of the last failure shrunk: a failure is run once more by replaying it (conformance/run/flaky.ts).
  let failedToken: string | undefined;
  return {
    id: SDK_EXPLORE_CHECK_ID,
    title:
      'random sequences of payouts, commits, cancels, refunds and webhooks through the SDK: every request, answer and verdict agrees with the spec',
    area: 'sdk',
    requirements: SDK_REQUIREMENTS,
    level: 'MUST',
    appliesTo: 'client',
    serial: true,
    timeoutMs: (seconds + shrink + 30) * 1000,
    async run(ctx) {
      const outcome = await exploreSdk(ctx, settings);
      failedToken = outcome.failure?.token;
      return findingsOf(outcome, settings.replayCommand);
    },
    // Once more, alone: the shrunk sequence only, by its token.
    async rerunFailure(ctx) {
      const replay = failedToken !== undefined ? { ...settings, replay: failedToken } : settings;
      return findingsOf(await exploreSdk(ctx, replay), settings.replayCommand);
    },
  };
}
