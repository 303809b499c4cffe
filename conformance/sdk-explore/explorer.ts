// The SDK explorer: fast-check draws sequences (draws.ts), each played against the SDK's adapter while payconform
// plays the service (sequence.ts); the first sequence that breaks a rule is shrunk (fewer steps, simpler values) to
// the shortest that still breaks the same requirement, and named by a token (`SEED~PATH`) that replays exactly it.
// Only a MUST ends the search: a warning (a SHOULD or MAY broken) is kept, once per requirement, with the token of the
// sequence that showed it, and the search goes on, so a warning never hides a failure.
import fc from 'fast-check';
import { generateWebhookKeyPair } from '../../src/webhooks/index.js';
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
import { SDK_EXPLORE_DEFAULTS } from './sdk-explore-defaults.js';

export { SDK_EXPLORE_DEFAULTS };

export interface SdkExploreSettings {
  readonly seconds?: number;
  readonly shrinkSeconds?: number;
  readonly runs?: number;
  readonly maxOps?: number;
  readonly seed?: number;
  /** `SEED~PATH` from a report: replays exactly that sequence. */
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
  /** What was seen where the spec leaves the answer open (at most `MAX_OBSERVATIONS`, each once). */
  readonly observations: readonly string[];
  readonly failure?: SdkExploreFailure;
  /** What the played sequences reached of the edges: the CoP results asked for, and references of 100+ characters. */
  readonly reached: { readonly copResults: readonly string[]; readonly longReferences: number };
  /** Warnings seen while searching (at most `MAX_WARNINGS`, one per requirement), whatever the verdict. */
  readonly warnings: readonly SdkExploreWarning[];
  /** The adapter broke the protocol: nothing could be judged from then on. */
  readonly broken?: string;
}

/** `SEED~PATH` → its parts; throws a readable Error for anything else. */
export function parseSdkReplayToken(token: string): { seed: number; path: string } {
  const m = /^(-?\d{1,10})~(\d+(?::\d+)*)$/.exec(token.trim());
  if (m === null)
    throw new Error(
      `not a replay token: "${token.slice(0, 60)}" (expected SEED~PATH, e.g. 42~3:0:1)`,
    );
  return { seed: Number(m[1]), path: m[2]! };
}

const failingJudgement = (record: SequenceRecord, requirement?: string): Judgement | undefined =>
  record.steps
    .at(-1)
    ?.judgements.find(
      (j) => failsSdk(j) && (requirement === undefined || j.requirement === requirement),
    );

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

/** What the runs saw, while fast-check draws and shrinks. */
interface Progress {
  /** Values fast-check handed the property before shrinking began: the next one's index is its replay path. */
  calls: number;
  runs: number;
  steps: number;
  broken?: string;
  failure?: { judgement: Judgement; record: SequenceRecord };
  readonly unsupported: Partial<Record<SdkStep['op'], string>>;
  readonly observations: Set<string>;
  readonly warnings: Map<string, SdkExploreWarning>;
  readonly copResults: Set<string>;
  longReferences: number;
}

const MAX_OBSERVATIONS = 20;
const MAX_WARNINGS = 20;

/** Keeps each warning of a sequence not seen before (by requirement), with the sequence up to its step. */
function keepWarnings(progress: Progress, record: SequenceRecord, token: string): void {
  for (const [i, step] of record.steps.entries())
    for (const j of step.judgements) {
      if (j.outcome !== 'violation' || failsSdk(j)) continue;
      const key = j.requirement ?? j.message;
      if (progress.warnings.has(key) || progress.warnings.size >= MAX_WARNINGS) continue;
      progress.warnings.set(key, { judgement: j, steps: record.steps.slice(0, i + 1), token });
    }
}

function note(progress: Progress, record: SequenceRecord): void {
  progress.runs += 1;
  progress.steps += record.steps.length;
  for (const s of record.steps) {
    if (s.step.op === 'createPayout') {
      progress.copResults.add(s.step.cop);
      if (s.step.reference.length >= LONG_REFERENCE) progress.longReferences += 1;
    }
    if (s.answer.kind === 'unsupported') progress.unsupported[s.step.op] ??= s.answer.reason;
    for (const j of s.judgements)
      if (j.outcome === 'observation' && progress.observations.size < MAX_OBSERVATIONS)
        progress.observations.add(j.message);
  }
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
  const started = Date.now();
  const replay = settings.replay !== undefined ? parseSdkReplayToken(settings.replay) : undefined;
  const seed = replay?.seed ?? settings.seed ?? Math.floor(Math.random() * 2 ** 31);
  const seconds = settings.seconds ?? SDK_EXPLORE_DEFAULTS.seconds;
  const deadline = started + seconds * 1000;
  const keys = webhookKeys();
  const full: SequenceEnv = {
    ...env,
    keys,
    stepTimeoutMs: settings.stepTimeoutMs ?? SDK_EXPLORE_DEFAULTS.stepTimeoutMs,
  };
  const progress: Progress = {
    calls: 0,
    runs: 0,
    steps: 0,
    unsupported: {},
    observations: new Set(),
    warnings: new Map(),
    copResults: new Set(),
    longReferences: 0,
  };
  const property = fc.asyncProperty(
    sequenceArbitrary(settings.maxOps ?? SDK_EXPLORE_DEFAULTS.maxOps),
    async (sequence) => {
      const index = progress.calls;
      if (progress.failure === undefined) progress.calls += 1;
      // A replay plays its one sequence: fast-check may walk on from a path that passes, the explorer does not.
      if (replay !== undefined && progress.runs >= 1) return true;
      if (
        progress.broken !== undefined ||
        (progress.failure === undefined && replay === undefined && Date.now() > deadline)
      )
        return true;
      const record = await playOne(sequence, full);
      note(progress, record);
      if (record.broken !== undefined) {
        const stderr = env.link.stderr().trim().slice(-400);
        progress.broken = `${record.broken}${stderr !== '' ? `; its stderr ends: ${stderr}` : ''}`;
        return true;
      }
      // Warnings are kept from the search, where a value's index is its replay path (not from shrinking).
      if (progress.failure === undefined)
        keepWarnings(progress, record, settings.replay?.trim() ?? `${seed}~${index}`);
      const judgement = failingJudgement(record, progress.failure?.judgement.requirement);
      settings.progress?.(
        `sequence ${progress.runs}: ${record.steps.length} step(s)${judgement ? `, breaks ${judgement.requirement ?? 'a rule'}` : ''}`,
      );
      if (judgement === undefined) return true;
      progress.failure = { judgement, record };
      return false;
    },
  );
  const result = await fc.check(property, {
    seed,
    numRuns: replay !== undefined ? 1 : (settings.runs ?? SDK_EXPLORE_DEFAULTS.runs),
    ...(replay !== undefined ? { path: replay.path, endOnFailure: true } : {}),
    interruptAfterTimeLimit:
      (seconds + (settings.shrinkSeconds ?? SDK_EXPLORE_DEFAULTS.shrinkSeconds)) * 1000,
    markInterruptAsFailure: false,
  });
  return outcomeOf(seed, started, progress, result.counterexamplePath ?? undefined, replay?.path);
}

function outcomeOf(
  seed: number,
  started: number,
  progress: Progress,
  path: string | undefined,
  replayPath: string | undefined,
): SdkExploreOutcome {
  const base = {
    seed,
    runs: progress.runs,
    steps: progress.steps,
    elapsedMs: Date.now() - started,
    unsupported: progress.unsupported,
    observations: [...progress.observations],
    warnings: [...progress.warnings.values()],
    reached: {
      copResults: COP_KEYS.filter((k) => progress.copResults.has(k)),
      longReferences: progress.longReferences,
    },
  };
  if (progress.broken !== undefined) return { ...base, broken: progress.broken };
  const f = progress.failure;
  if (f === undefined) return base;
  const token = `${seed}~${path ?? replayPath ?? '0'}`;
  return { ...base, failure: { judgement: f.judgement, steps: f.record.steps, token } };
}
