// The SDK role of the explorer (conformance/explore/engine.ts): payconform plays the service, the SDK's adapter is
// asked for each step. Its draws are plain data (draws.ts: a personality and operations); one sequence is played
// against a fresh service (sequence.ts) and each step judged (judge.ts, intent.ts). The engine owns the search, the
// shrinking and the replay token (`SEED~PATH`): only a MUST ends the search, a warning is kept with its token.
import type fc from 'fast-check';
import { generateWebhookKeyPair } from '../../src/webhooks/index.js';
import { lanesOf, search, type ExplorerRole, type Found, type Played } from '../explore/engine.js';
import { EXPLORE_DEFAULTS } from '../explore/explore-defaults.js';
import { parseReplayToken } from '../explore/replay-token.js';
import {
  COP_KEYS,
  LONG_REFERENCE,
  sequenceArbitrary,
  type SdkSequence,
  type SdkStep,
} from './draws.js';
import { failsSdk, type Judgement } from './judge.js';
import type { SequenceEnv } from './env.js';
import { runSequence, type SequenceRecord } from './sequence.js';
import type { StepRecord } from './steps.js';

export interface SdkExploreSettings {
  readonly seconds?: number;
  readonly shrinkSeconds?: number;
  /** Sequences played while shrinking, at most (default: no count; `shrinkSeconds` bounds it). */
  readonly shrinkRuns?: number;
  readonly runs?: number;
  readonly maxOps?: number;
  readonly seed?: number;
  /** `SEED~PATH` from a report (replay-token.ts): replays exactly that sequence. */
  readonly replay?: string;
  readonly stepTimeoutMs?: number;
  readonly progress?: (line: string) => void;
}

export interface SdkExploreFailure {
  readonly judgement: Judgement;
  readonly steps: readonly StepRecord[];
  readonly token: string;
}

/** A warning the search kept: the rule broken, the sequence up to the step that showed it, and its token. */
export type SdkExploreWarning = SdkExploreFailure;

export interface SdkExploreOutcome {
  readonly seed: number;
  readonly runs: number;
  readonly steps: number;
  readonly elapsedMs: number;
  /** Operations the SDK answered "unsupported", with its reason: their checks skip. */
  readonly unsupported: Readonly<Partial<Record<SdkStep['op'], string>>>;
  /** What was seen where the spec leaves the answer open (at most `MAX_KEPT`, each once). */
  readonly observations: readonly string[];
  readonly failure?: SdkExploreFailure;
  /** What the played sequences reached of the edges: the CoP results asked for, and references of 100+ characters. */
  readonly reached: { readonly copResults: readonly string[]; readonly longReferences: number };
  /** Warnings seen while searching (at most `MAX_KEPT`, one per requirement), whatever the verdict. */
  readonly warnings: readonly SdkExploreWarning[];
  /** How many steps judged each rule (requirement id): the requirement table shows it beside the rule. */
  readonly judged: Readonly<Record<string, number>>;
  /** The adapter broke the protocol: nothing could be judged from then on. */
  readonly broken?: string;
}

/** A sequence's steps: what the report shows of it. */
type Steps = readonly StepRecord[];

/** One sequence; a failure of the run itself (the service would not start) ends the exploration, never a pass. */
async function playOne(sequence: SdkSequence, env: SequenceEnv): Promise<SequenceRecord> {
  try {
    return await runSequence(sequence, env);
  } catch (error) {
    return {
      steps: [],
      broken: `the run failed: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

/** What the SDK role saw besides verdicts: operations it does not offer, and the edges its sequences reached. */
interface SdkTally {
  readonly unsupported: Partial<Record<SdkStep['op'], string>>;
  readonly copResults: Set<string>;
  longReferences: number;
}

/** The played sequence as the engine takes it: its first MUST broken, its warnings, what it judged and saw. */
function playedOf(record: SequenceRecord, stderr: () => string): Played<Judgement, Steps> {
  const steps = record.steps;
  const warnings: Array<Found<Judgement, Steps>> = steps.flatMap((step, i) =>
    step.judgements
      .filter((j) => j.outcome === 'violation' && !failsSdk(j))
      .map((j) => ({ violation: j, record: steps.slice(0, i + 1) })),
  );
  const judged = new Map<string, number>();
  for (const s of steps) for (const rule of s.judged) judged.set(rule, (judged.get(rule) ?? 0) + 1);
  const failure = steps.at(-1)?.judgements.find(failsSdk);
  const tail = record.broken !== undefined ? stderr().trim().slice(-400) : '';
  return {
    record: steps,
    steps: steps.length,
    warnings,
    judged,
    observations: steps.flatMap((s) =>
      s.judgements.filter((j) => j.outcome === 'observation').map((j) => j.message),
    ),
    ...(failure !== undefined ? { failure } : {}),
    ...(record.broken !== undefined
      ? { broken: `${record.broken}${tail !== '' ? `; its stderr ends: ${tail}` : ''}` }
      : {}),
  };
}

function sdkRole(
  env: SequenceEnv,
  maxOps: number,
  tally: SdkTally,
): ExplorerRole<SdkSequence, Judgement, Steps> {
  return {
    sequences: (): fc.Arbitrary<SdkSequence> => sequenceArbitrary(maxOps),
    requirementOf: (j) => j.requirement ?? j.message,
    async play(sequence) {
      const record = await playOne(sequence, env);
      for (const s of record.steps) {
        if (s.step.op === 'createPayout') {
          tally.copResults.add(s.step.cop);
          if (s.step.reference.length >= LONG_REFERENCE) tally.longReferences += 1;
        }
        if (s.answer.kind === 'unsupported') tally.unsupported[s.step.op] ??= s.answer.reason;
      }
      return playedOf(record, () => env.link.stderr());
    },
  };
}

let keysOfProcess: SequenceEnv['keys'] | undefined;

/**
 * The service's webhook key and another one, made once per process: RSA key generation costs about 0.16 s each, and
 * the keys sign only what this process's explorations play (the other's only forgeries).
 */
function webhookKeys(): SequenceEnv['keys'] {
  keysOfProcess ??= {
    service: generateWebhookKeyPair().privateKey,
    other: generateWebhookKeyPair().privateKey,
  };
  return keysOfProcess;
}

export async function exploreSdk(
  env: Omit<SequenceEnv, 'keys' | 'stepTimeoutMs'>,
  settings: SdkExploreSettings = {},
): Promise<SdkExploreOutcome> {
  const parsed = settings.replay !== undefined ? parseReplayToken(settings.replay) : undefined;
  const replay = parsed?.ok === true ? parsed.token : undefined;
  const seed = replay?.seed ?? settings.seed ?? Math.floor(Math.random() * 2 ** 31);
  const tally: SdkTally = { unsupported: {}, copResults: new Set(), longReferences: 0 };
  const base = (runs: number, steps: number, elapsedMs: number) => ({
    seed,
    runs,
    steps,
    elapsedMs,
    unsupported: tally.unsupported,
    reached: {
      copResults: COP_KEYS.filter((k) => tally.copResults.has(k)),
      longReferences: tally.longReferences,
    },
  });
  const refused = (why: string): SdkExploreOutcome => ({
    ...base(0, 0, 0),
    observations: [],
    warnings: [],
    judged: {},
    broken: why,
  });
  if (parsed?.ok === false) return refused(parsed.message);
  if (replay !== undefined && (replay.replayPath !== undefined || replay.pace !== 'quick'))
    return refused(
      `the replay token ${settings.replay} names a server exploration (it has a commands' replay path): an SDK exploration's token is SEED~PATH`,
    );
  const full: SequenceEnv = {
    ...env,
    keys: webhookKeys(),
    stepTimeoutMs: settings.stepTimeoutMs ?? EXPLORE_DEFAULTS.sdk.stepTimeoutMs,
  };
  const found = await search(sdkRole(full, settings.maxOps ?? EXPLORE_DEFAULTS.sdk.maxOps, tally), {
    runs: settings.runs ?? EXPLORE_DEFAULTS.runs,
    seconds: settings.seconds ?? EXPLORE_DEFAULTS.seconds,
    shrinkSeconds: settings.shrinkSeconds ?? EXPLORE_DEFAULTS.shrinkSeconds,
    ...(settings.shrinkRuns !== undefined ? { shrinkRuns: settings.shrinkRuns } : {}),
    lanes: lanesOf(seed, 1, 0, replay),
    ...(settings.progress !== undefined ? { progress: settings.progress } : {}),
  });
  const named = (f: (typeof found.warnings)[number]): SdkExploreFailure => ({
    judgement: f.violation,
    steps: f.record,
    token: f.token,
  });
  const broken = found.broken ?? found.error;
  return {
    ...base(found.runs, found.steps, found.elapsedMs),
    observations: found.observations,
    warnings: found.warnings.map(named),
    judged: found.judged,
    ...(broken !== undefined ? { broken } : {}),
    ...(broken === undefined && found.failure !== undefined
      ? { failure: named(found.failure) }
      : {}),
  };
}
