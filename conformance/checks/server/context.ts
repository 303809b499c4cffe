// What every server-audit check receives: the target, the credentials to sign with, the test data of the config, the
// runner's webhook listener and the waits; and `serverCheck`, which keeps each check's id as a literal type.
import type { Ed25519PrivateKey } from '../../../src/ed25519/backend.js';
import type { Check, CheckRunEnv } from '../../run/check.js';
import type {
  ConformanceConfig,
  CopStatusKey,
  PayoutDestinationConfig,
} from '../../config/config.js';
import type { Redactor } from '../../report/redact.js';
import { noAnswerIsNotEvidence } from '../no-answer.js';
import type { WebhookListener } from '../../http/webhook-listener.js';
import { createRunState, type AuditRunState } from './run-state.js';
import type { StateHookConfig } from '../../state-hook/contract.js';

/** The credentials a signed request needs (secret and private key revealed only inside the runner). */
export interface AuditCredentials {
  readonly applicationId: string;
  readonly applicationSecret: string;
  readonly keyId: string;
  readonly privateKey: Ed25519PrivateKey;
}

/** Timings the runner knows only for a target it configured itself (the embedded reference service). */
export interface KnownTimings {
  /** Every automatic lifecycle step (IN_PROGRESS → PROCESSED...) happens within this. */
  readonly lifecycleWithinMs: number;
  /** A webhook answered non-200 is redelivered within this. */
  readonly redeliveryWithinMs: number;
}

/**
 * What a server check reads: the target's address, the application's credentials and ids, the
 * configured payments and destinations, and the run's limits.
 */
export interface ServerAuditContext {
  /** The target's base URL, without a trailing slash. */
  readonly baseUrl: string;
  /** Absent when the environment lacks the secret or the private key (checks that need them are skipped). */
  readonly credentials?: AuditCredentials;
  /** For unsigned calls (refunds, commit, cancel) when no private key is given. */
  readonly applicationId?: string;
  readonly applicationSecret?: string;
  readonly merchantId?: string;
  readonly payInAccountSelector?: string;
  readonly copDestinations: Readonly<Partial<Record<CopStatusKey, PayoutDestinationConfig>>>;
  /** The config's payments (`payer`: the account a settled one came from, for refund-to-original-account). */
  readonly payments: ConformanceConfig['payments'];
  /** The runner's receiver; absent when the config has no `webhookListen` (webhook checks are skipped). */
  readonly webhooks?: WebhookListener;
  /** Time allowed for one HTTP exchange. */
  readonly requestTimeoutMs: number;
  /** CA certificate(s), PEM, trusted for an https target instead of the system's (`--ca`). */
  readonly tlsCa?: string;
  /** How long to wait for a webhook that must come. */
  readonly webhookWaitMs: number;
  /** How long to wait before concluding that no webhook follows a rejected request. */
  readonly quietWaitMs: number;
  /** Set only when the runner configured the target's timers (embedded service); otherwise timing is "not shown". */
  readonly knownTimings?: KnownTimings;
  /**
   * Redelivery of a webhook answered non-200, for a target whose timers the runner did not set (config
   * "webhookRetry"): how long to wait for it, and whether the config states the target's interval (`stated`: no
   * redelivery within `waitMs` fails; otherwise it warns, since the spec shows no retry interval).
   */
  readonly redelivery?: { readonly waitMs: number; readonly stated: boolean };
  /**
   * What the config states of the target's automatic lifecycle (config "lifecycle"): each step within `withinMs`, or
   * none at all (`automatic: false`: payouts and refunds move only when asked, through /sandbox/ where it exists).
   * Absent: not stated (the webhook wait applies). See waits.ts.
   */
  readonly lifecycle?: { readonly withinMs?: number; readonly automatic?: boolean };
  /**
   * The target implements payconform's /sandbox/ helper endpoints (config "sandbox"; true for the embedded service).
   * The spec shows no API to create or move payments: the payment checks run only when this is true.
   */
  readonly sandbox?: boolean;
  /**
   * The config states the target has no /sandbox/ (`"sandbox": false`): the checks that need it are not applicable to
   * this target (reported with the reason, never a skip that makes the run INCOMPLETE).
   */
  readonly sandboxAbsent?: boolean;
  /**
   * The config's state hook (config "stateHook", docs/state-hook.md): a URL or a command that sets up a state the spec
   * shows no API for (a settled payment, a refund moved on). Where given it is asked instead of /sandbox/.
   */
  readonly stateHook?: StateHookConfig;
  /** How much `signature-forgeries` draws (default FORGERY_DEFAULTS: a few seconds, a random seed). */
  readonly forgeries?: ForgerySettings;
  /** Masks secrets in reproduce commands (the engine masks everything else). */
  readonly redactor: Redactor;
  /**
   * What this run of the checks has done so far (run-state.ts): `startRun` gives each run a fresh one. Absent: each
   * check that runs starts a run state of its own.
   */
  readonly run?: AuditRunState;
}

/** How much `signature-forgeries` draws (FORGERY_DEFAULTS in signature-forgeries.ts fills in what is left out). */
export interface ForgerySettings {
  /** Time for drawing after every form's edge was sent once; shrinking a failure gets `shrinkSeconds` more. */
  readonly seconds?: number;
  /** Drawn requests at most (every form's edge counts among them). */
  readonly runs?: number;
  /** Default: drawn at random (and reported). */
  readonly seed?: number;
  readonly shrinkSeconds?: number;
}

/** A check of the server audit. */
export type ServerCheck = Check<ServerAuditContext>;

/** What a server check's own code receives: the audit context with the state of the run it belongs to. */
export type ServerRunContext = ServerAuditContext & { readonly run: AuditRunState };

/** The context for one run of the checks: the audit context with a fresh run state (never one an earlier run left). */
export function startRun(ctx: ServerAuditContext): ServerRunContext {
  return { ...ctx, run: createRunState() };
}

/** The context as a check sees it: with its run's state, or, given none, a state of the check's own. */
function withRunState(ctx: ServerAuditContext): ServerRunContext {
  return ctx.run !== undefined ? (ctx as ServerRunContext) : startRun(ctx);
}

/** Declares a server check; the literal id type lets `ServerCheckId` list every id (for tables keyed by check id). */
export function serverCheck<const Id extends string>(
  check: Omit<Check<ServerRunContext>, 'id' | 'appliesTo'> & { readonly id: Id },
): ServerCheck & { readonly id: Id } {
  // An exchange with no complete answer is never the evidence of a failure (conformance/checks/no-answer.ts).
  const again = check.rerunFailure;
  return {
    ...check,
    appliesTo: 'server',
    run: async (ctx, env) => noAnswerIsNotEvidence(await check.run(withRunState(ctx), env)),
    // A check's own way of running a failure again (a drawn check's same draw) is judged by the same rule.
    ...(again !== undefined
      ? {
          rerunFailure: async (ctx: ServerAuditContext, env: CheckRunEnv) =>
            noAnswerIsNotEvidence(await again.call(check, withRunState(ctx), env)),
        }
      : {}),
  };
}

/** The config fields a check can need, as `availableFields` names them (plus `webhookListen` for the listener). */
export const NEED = {
  // No destination: without copDestinations.FULL_MATCH the signing checks pay DEFAULT_PAYEE (requests.ts).
  signing: ['applicationId', 'keyId', 'applicationSecret', 'privateKey', 'payInAccountSelector'],
  app: ['applicationId', 'applicationSecret'],
  refunds: ['applicationId', 'applicationSecret', 'merchantId'],
  webhooks: ['webhookListen'],
} as const;
