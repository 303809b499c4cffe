// The body every audit shares: --help, parse, the secret rule, the command's own `prepare`, then the shared tail.
import { formatHelp, type CommandSpec } from '../command-table.js';
import { type CliIo, applicationSecretFromEnv, EXIT, wantsHelp as asksForHelp } from '../io.js';
import type { LevelFilter } from '../../conformance/run/engine.js';
import type { RunSubscriber } from '../../conformance/run/events.js';
import type { RunGate } from '../../conformance/run/result.js';
import type { CommonAuditArgs } from './parse-args.js';
import { type AuditOutput, auditOutput, type FinishAuditOptions, finishAudit } from './finish.js';
import { rerunCommandFor } from './rerun.js';

/** What an audit's own steps hand the shared tail once its target is ready (`finishAudit` runs it). */
export type PreparedAudit = Omit<FinishAuditOptions, 'command' | 'io' | 'output' | 'common'> & {
  /** After the reports are written, whatever the outcome: stops what must outlive the checks (a key server). */
  readonly release?: () => Promise<void>;
};

/** What every audit's `prepare` step is given besides its parsed flags. */
export interface AuditStepContext {
  readonly io: CliIo;
  readonly output: AuditOutput;
  /** The run options from the flags: the selection, the gate, a failing check's re-run command, and `subscribers`. */
  readonly selection: (
    subscribers: readonly RunSubscriber[],
  ) => ReturnType<typeof selectionOptions>;
  /** PAYCONFORM_APPLICATION_SECRET, checked by the one secret rule before anything runs. */
  readonly applicationSecret: string | undefined;
}

export interface AuditSteps<P extends CommonAuditArgs> {
  /** The command's table entry: its name in messages and its --help. */
  readonly spec: CommandSpec;
  readonly parse: (args: readonly string[]) => P;
  /** Resolves and starts what the audit needs: the run, or the exit code it ends with before any check. */
  readonly prepare: (parsed: P, context: AuditStepContext) => Promise<PreparedAudit | number>;
}

/**
 * The body every audit shares: --help → parse → the one secret rule → the command's `prepare` → the shared tail
 * (`finishAudit`: the checks, the reports, the exit code).
 */
export function auditSteps<P extends CommonAuditArgs>(
  steps: AuditSteps<P>,
): (args: readonly string[], io: CliIo) => Promise<number> {
  return async (args, io) => {
    if (asksForHelp(args)) {
      io.stdout(formatHelp(steps.spec));
      return EXIT.ok;
    }
    const parsed = steps.parse(args);
    const applicationSecret = applicationSecretFromEnv(io, false);
    // Progress and summary go to stdout, unless a report is written there.
    const output = auditOutput(io, parsed.reports);
    const selection = (
      subscribers: readonly RunSubscriber[],
    ): ReturnType<typeof selectionOptions> =>
      selectionOptions({
        ...parsed,
        subscribers,
        rerunCommand: rerunCommandFor(steps.spec.name, args),
      });
    const prepared = await steps.prepare(parsed, { io, output, selection, applicationSecret });
    if (typeof prepared === 'number') return prepared;
    const { release, ...finish } = prepared;
    try {
      return await finishAudit({ command: steps.spec.name, io, output, common: parsed, ...finish });
    } finally {
      await release?.();
    }
  };
}

/** The run options an audit passes on from the command line: the selection, gate and subscribers, when given. */
export function selectionOptions(options: {
  readonly only?: readonly string[];
  readonly level?: LevelFilter;
  readonly gate?: RunGate;
  readonly rerunCommand?: (checkId: string) => string;
  readonly subscribers?: readonly RunSubscriber[];
}): {
  only?: readonly string[];
  level?: LevelFilter;
  gate?: RunGate;
  rerunCommand?: (checkId: string) => string;
  subscribers?: readonly RunSubscriber[];
} {
  return {
    ...(options.rerunCommand !== undefined ? { rerunCommand: options.rerunCommand } : {}),
    ...(options.gate !== undefined ? { gate: options.gate } : {}),
    ...(options.only !== undefined ? { only: options.only } : {}),
    ...(options.level !== undefined ? { level: options.level } : {}),
    ...(options.subscribers !== undefined ? { subscribers: options.subscribers } : {}),
  };
}
