// `payconform replay REPORT.json [--target URL] [--config FILE]`: runs again exactly the failures a JSON report holds
// (conformance/report/replay-plan.ts) against the report's target or the one given, and says of each FIXED, STILL FAILING,
// CHANGED, UNDECIDED or NOT REPLAYABLE. The run is the server audit's (its target set-up, its checks, its reports and
// its exit code): a failure that is not FIXED fails the run, each named among the verdict's reasons.
import { parseArgs } from 'node:util';
import type { CliIo } from '../io.js';
import { UsageError } from '../io.js';
import { commandSpec, parseArgsOptions, usageLine } from '../command-table.js';
import {
  auditCommand,
  auditSteps,
  checkHttpUrl,
  rerunCommandFor,
  SECRET_OPTION,
  selectionOptions,
  toolVersion,
  type AuditStepContext,
  type CommonAuditArgs,
  type PreparedAudit,
} from '../audit-command.js';
import { parseReportSpecs } from '../reports.js';
import { readJsonReport } from '../report-file.js';
import { shellQuote } from '../../conformance/report/curl.js';
import { runChecks } from '../../conformance/run/engine.js';
import { EXPLORE_DEFAULTS } from '../../conformance/explore/explore-defaults.js';
import { EXPLORE_CHECK_ID } from '../../conformance/explore/check-id.js';
import { serverChecks } from '../../conformance/checks/server/index.js';
import { loadCatalogue } from '../../conformance/requirements.js';
import {
  judgeReplay,
  replayPlan,
  type ReplayFailure,
  type ReplayJudgement,
} from '../../conformance/report/replay-plan.js';
import type { RunSummary } from '../../conformance/run/result.js';
import type { JsonReport } from '../../conformance/reporters/json.js';
import {
  EMBEDDED_LABEL,
  parseServerTarget,
  prepare as prepareServerAudit,
  type Parsed as ServerAuditArgs,
} from './audit-server.js';

const SPEC = commandSpec('replay');
const USAGE = usageLine(SPEC);

/** The server checks this version has: a report's failure of another id is not replayable. */
const KNOWN_CHECKS: ReadonlySet<string> = new Set([
  ...serverChecks.map((c) => c.id),
  EXPLORE_CHECK_ID,
]);

interface ReplayArgs extends CommonAuditArgs {
  readonly reportPath: string;
  readonly target?: string;
  readonly configPath?: string;
  readonly allowLive: boolean;
  readonly timeoutMs?: number;
  readonly caFile?: string;
}

/** REPORT.json as given: the one positional argument (read before the real parse, so no output may replace it). */
function reportPathOf(args: readonly string[]): string | undefined {
  try {
    const { positionals } = parseArgs({
      args: [...args],
      options: parseArgsOptions(SPEC.options),
      strict: false,
      allowPositionals: true,
    });
    return positionals[0];
  } catch {
    return undefined;
  }
}

function parse(args: readonly string[]): ReplayArgs {
  const secretArg = args.find((a) => SECRET_OPTION.test(a));
  if (secretArg !== undefined)
    throw new UsageError(
      `refusing ${secretArg.split('=')[0]}: secrets are read only from the environment (PAYCONFORM_APPLICATION_SECRET, PAYCONFORM_PRIVATE_KEY), never from command-line arguments`,
    );
  let values: Record<string, string | boolean | string[] | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: [...args],
      options: parseArgsOptions(SPEC.options),
      strict: true,
      allowPositionals: true,
    }) as { values: typeof values; positionals: string[] });
  } catch (error) {
    throw new UsageError(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
  }
  const [reportPath, ...extra] = positionals;
  if (reportPath === undefined || extra.length > 0)
    throw new UsageError(`expected one REPORT.json\n${USAGE}`);
  return {
    reports: parseReportSpecs((values['report'] as string[] | undefined) ?? []),
    level: 'all',
    levelGiven: false,
    // The failures are named one by one: what the replay does not run is no skip of the run's.
    gate: { failOn: [], allowSkips: true },
    verbose: values['verbose'] === true,
    help: false,
    reportPath,
    ...parseServerTarget(values),
  };
}

/** Where the failures run: --target, else the report's target; a report of the embedded service has none left. */
function targetOf(parsed: ReplayArgs, report: JsonReport): { target?: string; embedded?: true } {
  if (parsed.target !== undefined) return { target: parsed.target };
  if (report.target.endsWith(EMBEDDED_LABEL)) return { embedded: true };
  try {
    return { target: checkHttpUrl(report.target, "the report's target", { baseUrl: true }) };
  } catch (error) {
    throw new UsageError(`${(error as Error).message}: give --target URL`);
  }
}

/** One line per failure: its verdict, its check, and why. */
function verdictLines(judged: readonly ReplayJudgement[]): string {
  const width = Math.max(...judged.map((j) => j.verdict.length));
  return judged
    .map((j) => `  ${j.verdict.padEnd(width)}  ${j.failure.check}: ${j.reason}\n`)
    .join('');
}

/** Each failure judged against what the replay's run gave; the run fails on each that is not FIXED, named. */
function judgeRun(
  summary: RunSummary,
  plan: readonly ReplayFailure[],
  out: (text: string) => void,
): RunSummary {
  const judged = plan.map((f) =>
    judgeReplay(
      f,
      summary.results.find((r) => r.id === f.check),
    ),
  );
  const fixed = judged.filter((j) => j.verdict === 'FIXED').length;
  out(`\nreplay: ${fixed} of ${judged.length} failure(s) FIXED\n${verdictLines(judged)}`);
  const blocking = judged
    .filter((j) => j.verdict !== 'FIXED')
    .map((j) => `replay: ${j.failure.check} ${j.verdict}: ${j.reason}`);
  return { ...summary, blocking: [...summary.blocking, ...blocking] };
}

/** The server audit's arguments that run exactly these failures: their checks, the explorer's token, the seed. */
function serverArgs(parsed: ReplayArgs, report: JsonReport, plan: readonly ReplayFailure[]) {
  const ways = plan.map((f) => f.way);
  const token = ways.flatMap((w) => (w.kind === 'explore' ? [w.token] : []))[0];
  const seed = ways.flatMap((w) => (w.kind === 'forge' ? [w.seed] : []))[0];
  const only = plan.filter((f) => f.way.kind !== 'not-replayable').map((f) => f.check);
  const args: ServerAuditArgs = {
    ...parsed,
    only,
    ...targetOf(parsed, report),
    ...(token !== undefined
      ? {
          explore: {
            only: only.length === 1,
            runs: EXPLORE_DEFAULTS.runs,
            seconds: EXPLORE_DEFAULTS.seconds,
            replay: token,
          },
        }
      : {}),
    ...(seed !== undefined ? { forgeries: { seed } } : {}),
  };
  return args;
}

/** A failing check's own re-run command: `audit server --only ID` against the same target and config. */
function auditRerun(args: ServerAuditArgs): (checkId: string) => string {
  return rerunCommandFor('audit server', [
    ...(args.target !== undefined ? ['--target', args.target] : []),
    ...(args.configPath !== undefined ? ['--config', args.configPath] : []),
  ]);
}

/** Report → plan → the server audit of the failures that can run, judged; or, when none can, each named. */
async function prepare(
  parsed: ReplayArgs,
  context: AuditStepContext,
): Promise<PreparedAudit | number> {
  const report = await readJsonReport(parsed.reportPath, context.io);
  const plan = replayPlan(report, KNOWN_CHECKS);
  const out = context.output.out;
  out(
    `replay of ${shellQuote(parsed.reportPath)}: ${plan.length} failure(s) of ${report.role} audit of ${report.target}\n`,
  );
  if (!plan.some((f) => f.way.kind !== 'not-replayable')) return nothingToRun(report, plan, out);
  const args = serverArgs(parsed, report, plan);
  if (args.embedded === true)
    out(
      "the report's target was the embedded reference service, gone with its run: replaying against a fresh embedded service\n",
    );
  const prepared = await prepareServerAudit(args, {
    ...context,
    selection: (subscribers) =>
      selectionOptions({ ...args, subscribers, rerunCommand: auditRerun(args) }),
  });
  if (typeof prepared === 'number') return prepared;
  const { next: _next, review, ...rest } = prepared;
  return {
    ...rest,
    review: async (summary) => {
      const reviewed = review !== undefined ? await review(summary) : summary;
      return reviewed.stopped !== undefined ? reviewed : judgeRun(reviewed, plan, out);
    },
  };
}

/**
 * No failure to run (none in the report, or none replayable): nothing is started; each failure is named with why, in
 * the run's verdict reasons. With none at all the run is INCOMPLETE (nothing was replayed), never a pass.
 */
function nothingToRun(
  report: JsonReport,
  plan: readonly ReplayFailure[],
  out: (text: string) => void,
): PreparedAudit {
  if (plan.length === 0) out('the report holds no failed or flaky check: nothing to replay\n');
  return {
    run: (subscribers) =>
      runChecks({
        checks: [],
        context: undefined,
        role: report.role,
        target: report.target,
        toolVersion: toolVersion(),
        catalogue: loadCatalogue(),
        subscribers,
        gate: { failOn: [], allowSkips: true },
      }),
    review: async (summary) => (plan.length > 0 ? judgeRun(summary, plan, out) : summary),
  };
}

/** The command, leaving a report on every exit (see `auditCommand`); REPORT.json is never an output. */
export const run: (args: readonly string[], io: CliIo) => Promise<number> = auditCommand(
  {
    command: 'replay',
    role: 'server',
    inputs: (args) => {
      const path = reportPathOf(args);
      return path !== undefined ? [{ given: `REPORT ${path}`, path }] : [];
    },
  },
  auditSteps({ spec: SPEC, parse, prepare }),
);
