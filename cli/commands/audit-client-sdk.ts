// `payconform audit client --adapter "CMD"`: the SDK explorer (conformance/sdk-explore/) as the audit's one check,
// with the reference service played for each sequence and the adapter given a fresh application's secret and key
// through its environment only.
import { UsageError } from '../io.js';
import { parseExploreBudget } from '../explore-options.js';
import {
  refuseUnknownChecks,
  toolVersion,
  type AuditStepContext,
  type PreparedAudit,
} from '../audit-command.js';
import { shellQuote } from '../../conformance/report/curl.js';
import { runChecks } from '../../conformance/run/engine.js';
import { createRedactor } from '../../conformance/report/redact.js';
import { loadCatalogue } from '../../conformance/requirements.js';
import { parseReplayToken } from '../../conformance/explore/replay-token.js';
import { EXPLORE_DEFAULTS } from '../../conformance/explore/explore-defaults.js';
import { exploreProgress } from '../explore-progress.js';
import type { SdkExploreSettings } from '../../conformance/sdk-explore/explorer.js';
import { createSdkExploreCheck } from '../../conformance/sdk-explore/sdk-check.js';
import { referenceSdkBackend, sdkAuditApplication, startAdapterLink } from '../sdk-audit-setup.js';

export interface SdkAuditArgs extends SdkExploreSettings {
  readonly adapter: string;
}

const EXPLORE_FLAGS = [
  'explore-seconds',
  'explore-runs',
  'explore-seed',
  'explore-replay',
] as const;

/** The --adapter flags, or undefined without --adapter (then the explorer's flags are refused). */
export function parseSdkAuditArgs(values: Record<string, unknown>): SdkAuditArgs | undefined {
  const adapter = values['adapter'];
  if (typeof adapter !== 'string') {
    const stray = EXPLORE_FLAGS.find((k) => values[k] !== undefined);
    if (stray !== undefined) throw new UsageError(`--${stray} needs --adapter "CMD"`);
    return undefined;
  }
  if (adapter.trim() === '') throw new UsageError('--adapter needs a command');
  if (values['exec'] !== undefined) throw new UsageError('give --exec or --adapter, not both');
  const replay = values['explore-replay'] as string | undefined;
  if (replay !== undefined) {
    const parsed = parseReplayToken(replay);
    if (!parsed.ok) throw new UsageError(`--explore-replay: ${parsed.message}`);
    if (parsed.token.replayPath !== undefined)
      throw new UsageError(
        '--explore-replay: this token names a server exploration (audit server); an SDK exploration prints SEED~PATH',
      );
  }
  return {
    adapter,
    ...parseExploreBudget(values),
    ...(replay !== undefined ? { replay } : {}),
  };
}

/** The audit's one check over the adapter; the adapter is stopped once the reports are written. */
export async function prepareSdkAudit(
  args: SdkAuditArgs,
  only: readonly string[] | undefined,
  { io, output, selection }: AuditStepContext,
  verbose = false,
): Promise<PreparedAudit> {
  const check = createSdkExploreCheck({
    ...args,
    progress: exploreProgress(output.out, {
      verbose,
      seconds: args.seconds ?? EXPLORE_DEFAULTS.seconds,
      what: 'the SDK',
      ...(args.replay !== undefined ? { replay: args.replay } : {}),
    }),
    replayCommand: (token) =>
      `payconform audit client --adapter ${shellQuote(args.adapter)} --explore-replay ${shellQuote(token)}`,
  });
  refuseUnknownChecks([check], only, 'all');
  const app = sdkAuditApplication();
  const redactor = createRedactor({
    applicationSecret: app.credentials.applicationSecret,
    privateKey: app.privateKeyPem,
  });
  const link = startAdapterLink(args.adapter, { ...io.env, ...app.adapterEnv });
  output.out(`payconform audit client: driving the SDK adapter ${args.adapter}\n`);
  return {
    run: (subscribers) =>
      runChecks({
        checks: [check],
        context: { link, startBackend: referenceSdkBackend(app), credentials: app.credentials },
        role: 'client',
        target: `the SDK behind ${args.adapter}`,
        toolVersion: toolVersion(),
        catalogue: loadCatalogue(),
        redactor,
        ...selection(subscribers),
      }),
    release: () => link.stop(),
  };
}
