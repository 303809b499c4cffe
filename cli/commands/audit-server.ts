// `payconform audit server`: audits a service implementation against the spec. Without a target it starts the
// reference service in-process on loopback (short timers, webhooks to the runner's own listener) and audits that.
import { showControls } from '../../conformance/reporters/printable.js';
import { setMaxListeners } from 'node:events';
import { type CliIo, EXIT, UsageError } from '../io.js';
import type { ForgerySettings } from '../../conformance/checks/server/context.js';
import { parseExploreBudget } from '../explore-options.js';
import { resolveTrustedCa } from '../tls-options.js';
import { parseForgeOptions, withForgeries } from '../forge-options.js';
import { commandSpec, parseArgsOptions, usageLine } from '../command-table.js';
import { MAX_TIMEOUT_MS, PROBE_TIMEOUT_MS } from '../command-defaults.js';
import {
  auditCommand,
  auditSteps,
  checkHttpUrl,
  parseAuditArgs,
  parseIntegerOption,
  selectionOptions,
  toolVersion,
  type AuditStepContext,
  type CommonAuditArgs,
  type PreparedAudit,
} from '../audit-command.js';
import {
  describeNeed,
  loadConfig,
  type ConformanceConfig,
} from '../../conformance/config/config.js';
import { discoverFromSandbox } from '../../conformance/config/discover.js';
import { exploreProgress } from '../explore-progress.js';
import { shellQuote } from '../../conformance/report/curl.js';
import {
  createExploreCheck,
  EXPLORE_DEFAULTS,
  parseReplayToken,
  type ExploreSettings,
} from '../../conformance/explore/explorer.js';
import { runChecks, type LevelFilter } from '../../conformance/run/engine.js';
import type { SuiteRerun } from '../../conformance/run/flaky.js';
import { isLoopbackTarget, reachesLoopback } from '../../net/loopback.js';
import { loadCatalogue } from '../../conformance/requirements.js';
import type { RunGate, RunSummary } from '../../conformance/run/result.js';
import { serverChecks, startRun } from '../../conformance/checks/server/index.js';
import { startEmbeddedTarget } from './audit-server-embedded.js';
import type { AuditTarget } from './audit-server-target.js';
import { prepareExternalTarget, probe } from './audit-server-external.js';
// The two kinds of target, one file each; tests and `replay` take them from here.
export {
  EMBEDDED_LABEL,
  EMBEDDED_TIMERS,
  startEmbeddedTarget,
  type EmbeddedOptions,
} from './audit-server-embedded.js';
export { prepareExternalTarget } from './audit-server-external.js';
export type { AuditTarget } from './audit-server-target.js';

const SPEC = commandSpec('audit server');
const USAGE = usageLine(SPEC);

/** Checks running at once (independent checks; the refund checks share a group and run one after another). */
export const AUDIT_CONCURRENCY = 16;

/** What `--explore`, `--explore-only` and their options asked for. */
interface ExploreArgs {
  readonly only: boolean;
  readonly runs: number;
  readonly seconds: number;
  readonly seed?: number;
  readonly replay?: string;
}

/** `audit server`'s arguments, parsed (`payconform replay` builds them from a report). */
export interface Parsed extends CommonAuditArgs {
  readonly target?: string;
  /** The embedded service, whatever the config or PAYCONFORM_TARGET name (replay of a report of it). */
  readonly embedded?: true;
  readonly explore?: ExploreArgs;
  readonly configPath?: string;
  readonly allowLive: boolean;
  readonly timeoutMs?: number;
  readonly caFile?: string;
  readonly forgeries?: ForgerySettings;
}

function parse(args: readonly string[]): Parsed {
  const { values, common } = parseAuditArgs(args, {
    usage: USAGE,
    secretHint:
      'secrets are read only from the environment (PAYCONFORM_APPLICATION_SECRET, PAYCONFORM_PRIVATE_KEY), never from command-line arguments, which other users of this machine and shell histories can see',
    options: parseArgsOptions(SPEC.options),
  });
  const explore = parseExplore(values);
  return {
    ...common,
    ...parseServerTarget(values, { credentialsHint: '; use PAYCONFORM_APPLICATION_SECRET' }),
    ...(explore !== undefined ? { explore } : {}),
    ...parseForgeOptions(values),
  };
}

/** How a server is reached, from the flags `audit server` and `replay` share (`serverTargetOptions`). */
export function parseServerTarget(
  values: Record<string, unknown>,
  url: { readonly credentialsHint?: string } = {},
): Pick<Parsed, 'target' | 'configPath' | 'allowLive' | 'timeoutMs' | 'caFile'> {
  const timeoutMs = parseIntegerOption(
    values['timeout-ms'] as string | undefined,
    MAX_TIMEOUT_MS,
    `--timeout-ms must be an integer from 1 to ${MAX_TIMEOUT_MS}`,
  );
  const target = values['target'];
  return {
    ...(typeof target === 'string'
      ? { target: checkHttpUrl(target, '--target', { baseUrl: true, ...url }) }
      : {}),
    ...(typeof values['config'] === 'string' ? { configPath: values['config'] } : {}),
    allowLive: values['allow-live'] === true,
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...(typeof values['ca'] === 'string' ? { caFile: values['ca'] } : {}),
  };
}

function parseExplore(values: Record<string, unknown>): ExploreArgs | undefined {
  const replay = values['explore-replay'] as string | undefined;
  // The explorer runs by default; --no-explore leaves it out (and cannot be given with what configures it).
  if (values['no-explore'] === true) {
    const with_ = [
      'explore',
      'explore-only',
      'explore-replay',
      'explore-runs',
      'explore-seconds',
      'explore-seed',
    ].find((k) => values[k] !== undefined);
    if (with_ !== undefined) throw new UsageError(`--no-explore cannot be given with --${with_}`);
    return undefined;
  }
  if (replay !== undefined) {
    const parsed = parseReplayToken(replay);
    if (!parsed.ok) throw new UsageError(`--explore-replay: ${parsed.message}`);
    if (parsed.token.replayPath === undefined)
      throw new UsageError(
        '--explore-replay: this token names an SDK exploration (audit client --adapter); a server exploration prints SEED~PATH~REPLAYPATH',
      );
  }
  const { runs, seconds, seed } = parseExploreBudget(values);
  return {
    // A replay runs the one sequence alone; so does --explore-only.
    only: values['explore-only'] === true || replay !== undefined,
    runs: runs ?? EXPLORE_DEFAULTS.runs,
    seconds: seconds ?? EXPLORE_DEFAULTS.seconds,
    ...(seed !== undefined ? { seed } : {}),
    ...(replay !== undefined ? { replay } : {}),
  };
}

export interface AuditRunOptions {
  /** Adds the explorer (`explore-model`) after the fixed checks, or runs it alone. */
  readonly explore?: ExploreSettings & { readonly only: boolean };
  readonly only?: readonly string[];
  readonly level?: LevelFilter;
  readonly gate?: RunGate;
  /** The command that re-runs one check against this target (shown with failing checks). */
  readonly rerunCommand?: (checkId: string) => string;
  readonly refuseMutating?: string;
  readonly subscribers?: Parameters<typeof runChecks>[0]['subscribers'];
  readonly signal?: AbortSignal;
  /** Whether a failing check runs once more before it is reported (default again: conformance/run/flaky.ts). */
  readonly rerunFailures?: SuiteRerun;
}

/** Runs the server checks against a prepared target (the engine validates the suite, grades and redacts). */
export function auditTarget(
  target: AuditTarget,
  options: AuditRunOptions = {},
): Promise<RunSummary> {
  // The engine adds one abort listener per running check to the run's signal.
  if (options.signal !== undefined) setMaxListeners(4 * AUDIT_CONCURRENCY, options.signal);
  const explorer = options.explore !== undefined ? [createExploreCheck(options.explore)] : [];
  return runChecks({
    checks: options.explore?.only === true ? explorer : [...serverChecks, ...explorer],
    // Each run starts with a state of its own: nothing an earlier run of this target did counts in this one.
    context: startRun(target.context),
    role: 'server',
    target: target.label,
    toolVersion: toolVersion(),
    catalogue: loadCatalogue(),
    concurrency: AUDIT_CONCURRENCY,
    checkTimeoutMs: target.checkTimeoutMs,
    redactor: target.context.redactor,
    isAvailable: target.isAvailable,
    describeNeed,
    ...selectionOptions(options),
    ...(options.refuseMutating !== undefined ? { refuseMutating: options.refuseMutating } : {}),
    ...(options.signal !== undefined ? { signal: options.signal } : {}),
    ...(options.rerunFailures !== undefined ? { rerunFailures: options.rerunFailures } : {}),
  });
}

/** The explorer's settings from the flags: the replay command names this target; progress as exploreProgress prints it. */
function exploreSettings(
  args: ExploreArgs,
  targetUrl: string | undefined,
  configPath: string | undefined,
  out: (text: string) => void,
  verbose: boolean,
): ExploreSettings & { readonly only: boolean } {
  const where = [
    targetUrl !== undefined ? `--target ${shellQuote(targetUrl)}` : '',
    configPath !== undefined ? `--config ${shellQuote(configPath)}` : '',
  ]
    .filter((p) => p !== '')
    .join(' ');
  return {
    ...args,
    replayCommand: (token) =>
      `payconform audit server ${where}${where !== '' ? ' ' : ''}--explore-only --explore-replay ${shellQuote(token)}`,
    progress: exploreProgress(out, {
      verbose,
      seconds: args.seconds,
      what: 'the target',
      ...(args.replay !== undefined ? { replay: args.replay } : {}),
    }),
  };
}

/** The command, leaving a report on every exit (see `auditCommand`). */
export const run = auditCommand(
  { command: 'audit server', role: 'server' },
  auditSteps({ spec: SPEC, parse, prepare }),
);

/** A target to audit, and why mutating checks are not sent to it (a live target without --allow-live). */
interface ResolvedTarget {
  readonly target: AuditTarget;
  readonly refuseMutating?: string;
}

/** config → the target (embedded, or given by URL) → the checks, the explorer, and a review of a target that went quiet. */
export async function prepare(
  parsed: Parsed,
  { io, output, selection }: AuditStepContext,
): Promise<PreparedAudit | number> {
  const loaded = await loadConfig(parsed.configPath, io.env);
  if (!loaded.ok) {
    io.stderr(`payconform audit server: ${showControls(loaded.message, { multiline: true })}\n`);
    return EXIT.usage;
  }
  const config = loaded.config;
  const targetUrl = parsed.embedded === true ? undefined : (parsed.target ?? config.target);
  const { out } = output;
  const resolved =
    targetUrl === undefined
      ? await embeddedTarget(parsed, out)
      : await externalTarget(parsed, config, targetUrl, io, out);
  if (typeof resolved === 'number') return resolved;
  const { refuseMutating } = resolved;
  const target = withForgeries(resolved.target, parsed.forgeries);
  const controller = new AbortController();
  const onSigint = (): void => controller.abort();
  process.once('SIGINT', onSigint);
  return {
    run: (subscribers) =>
      auditTarget(target, {
        ...(parsed.explore !== undefined
          ? {
              explore: exploreSettings(
                parsed.explore,
                targetUrl,
                parsed.configPath,
                out,
                parsed.verbose,
              ),
            }
          : {}),
        ...selection(subscribers),
        ...(refuseMutating !== undefined ? { refuseMutating } : {}),
        signal: controller.signal,
      }),
    cleanup: async () => {
      process.off('SIGINT', onSigint);
      await target.close();
    },
    ...(targetUrl === undefined ? { next: NEXT_AFTER_EMBEDDED } : {}),
    ...(targetUrl !== undefined
      ? {
          review: (summary: RunSummary) =>
            stoppedAnswering(
              summary,
              targetUrl,
              parsed.timeoutMs ?? config.timeoutMs,
              parsed.caFile,
            ),
        }
      : {}),
  };
}

/** What to try after auditing the embedded service (`npm start`): the same audit of one's own server. */
export const NEXT_AFTER_EMBEDDED =
  'audit your own server: payconform audit server --target URL, its ids and secrets in the environment (README, "Your first audit of your own server")';

/** No target given: the embedded reference service on loopback. */
async function embeddedTarget(
  parsed: Parsed,
  out: (text: string) => void,
): Promise<ResolvedTarget> {
  const target = await startEmbeddedTarget(
    parsed.timeoutMs !== undefined ? { requestTimeoutMs: parsed.timeoutMs } : {},
  );
  out(
    'no target given: auditing the embedded reference service (credentials generated for this run only)\n',
  );
  return { target };
}

/**
 * A target given by URL: probed (exit 3 when it does not answer), what its /sandbox/ tells filled in, the context
 * prepared; mutating checks refused off loopback without --allow-live.
 */
async function externalTarget(
  parsed: Parsed,
  config: ConformanceConfig,
  targetUrl: string,
  io: CliIo,
  out: (text: string) => void,
): Promise<ResolvedTarget | number> {
  const timeoutMs = parsed.timeoutMs ?? config.timeoutMs;
  const ca = await resolveTrustedCa({ ca: parsed.caFile });
  const unreachable = await probe(targetUrl, Math.min(timeoutMs, PROBE_TIMEOUT_MS), ca);
  if (unreachable !== undefined) {
    io.stderr(
      `payconform audit server: ${showControls(`target ${targetUrl} is unreachable (${unreachable})`)}\n`,
    );
    return EXIT.unreachable;
  }
  const discovery = await discoverFromSandbox(targetUrl, config, {
    timeoutMs: Math.min(timeoutMs, PROBE_TIMEOUT_MS),
    ...(ca !== undefined ? { ca } : {}),
  });
  if (discovery.found.length > 0)
    out(
      `discovered from ${targetUrl.replace(/\/+$/, '')}/sandbox/ (not in the config): ${discovery.found.join('; ')}\n`,
    );
  const target = await prepareExternalTarget(
    targetUrl,
    discovery.config,
    timeoutMs,
    ca !== undefined ? { tlsCa: ca } : {},
  );
  let refuseMutating: string | undefined;
  // Judged by the addresses the name resolves to, not the name: `localhost` may resolve elsewhere.
  const loopback = await reachesLoopback(targetUrl);
  if (!loopback && !parsed.allowLive) {
    refuseMutating = `not sent: ${new URL(targetUrl).host} is not a loopback address${isLoopbackTarget(targetUrl) ? ' (its name resolves to an address that is not loopback)' : ''} and payouts and refunds move real money; pass --allow-live to run mutating checks against a sandbox you own`;
    out(`note: mutating checks are skipped (${refuseMutating})\n`);
  } else if (!loopback) {
    out(
      `warning: --allow-live given: mutating checks will create payouts and refunds on ${new URL(targetUrl).host}\n`,
    );
  }
  if (target.context.webhooks === undefined)
    out('note: no "webhookListen" in the config: webhook checks are skipped\n');
  return { target, ...(refuseMutating !== undefined ? { refuseMutating } : {}) };
}

/**
 * A run with inconclusive checks whose target no longer answers ends with exit 3, as one that was unreachable from
 * the start: the target stopped answering mid-run, which no report may pass off as a finding (docs/verdicts.md).
 */
async function stoppedAnswering(
  summary: RunSummary,
  targetUrl: string,
  timeoutMs: number,
  caFile: string | undefined,
): Promise<RunSummary> {
  const undecided = summary.results.filter((r) => r.outcome === 'error');
  if (undecided.length === 0 || summary.stopped !== undefined) return summary;
  const ca = await resolveTrustedCa({ ca: caFile });
  const unreachable = await probe(targetUrl, Math.min(timeoutMs, PROBE_TIMEOUT_MS), ca);
  if (unreachable === undefined) return summary;
  return {
    ...summary,
    stopped: {
      exitCode: EXIT.unreachable,
      reason: `the target stopped answering during the run (${unreachable}): ${undecided.length} check(s) inconclusive (${undecided.map((r) => r.id).join(', ')}); a request without an answer is no finding against the target`,
    },
  };
}
