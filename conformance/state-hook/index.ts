// The state hook (docs/state-hook.md): how a check or the explorer gets a state the spec shows no API for. One path:
// the config's hook (a URL, a command per request, or a command that stays) where it names one, else payconform's own
// /sandbox/ where the target has it, each asked through the one contract (contract.ts) and judged by it; else none.
import type { CheckRunEnv } from '../run/check.js';
import type { ServerAuditContext } from '../checks/server/context.js';
import type { StateHookConfig, StateRequest, StateResult } from './contract.js';
import { commandHook, urlHook, type StateProvider } from './providers.js';
import { closeLinesHook, linesHook } from './lines-hook.js';
import { sandboxHook } from './sandbox-provider.js';
import { hookFailure } from './attribution.js';

export {
  NOT_OFFERED_EXIT,
  NOT_OFFERED_STATUS,
  STATE_HOOK_CONTRACT,
  STATE_HOOK_SCHEMA_ID,
  describeRequest,
  type StateHookConfig,
  type StateRequest,
  type StateResult,
} from './contract.js';
export { refusalOfHookPayment } from './attribution.js';

/** Who provides states to this target: `hook` (the config's), `sandbox` (payconform's /sandbox/), or none. */
export function stateSource(ctx: ServerAuditContext): 'hook' | 'sandbox' | undefined {
  return ctx.stateHook !== undefined ? 'hook' : ctx.sandbox === true ? 'sandbox' : undefined;
}

function providerOf(ctx: ServerAuditContext): StateProvider | undefined {
  const hook = ctx.stateHook;
  if (hook !== undefined)
    return 'url' in hook
      ? urlHook(hook.url)
      : hook.lines === true
        ? linesHook(hook)
        : commandHook(hook.command);
  return ctx.sandbox === true ? sandboxHook : undefined;
}

/** Asks the target's state provider for one state; without one, not offered (the reason says how to give one). */
export function askState(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  request: StateRequest,
): Promise<StateResult> {
  const provider = providerOf(ctx);
  if (provider === undefined)
    return Promise.resolve({
      kind: 'not-offered',
      reason:
        'the spec shows no API to set this up: name a state hook in the config ("stateHook", docs/state-hook.md), or audit a target with payconform\'s /sandbox/',
    });
  return provider(ctx, env, request);
}

/**
 * Ends what the config's hook holds for the audit: the process of a command with `"lines": true` is stopped (SIGTERM
 * to its group, SIGKILL after STOP_GRACE_MS); nothing for a URL or a command run per request. Never throws.
 */
export async function closeStateHook(hook: StateHookConfig | undefined): Promise<void> {
  if (hook !== undefined && 'command' in hook && hook.lines === true) await closeLinesHook(hook);
}

/**
 * The reason a state the config's hook failed to make is the hook's error (attribution.ts), or undefined: made, not
 * offered (a state the hook says it lacks: the checks that need it skip or fall back), or not from a hook (/sandbox/
 * is the target's own).
 */
export function hookFailed(ctx: ServerAuditContext, result: StateResult): string | undefined {
  return result.kind === 'failed' && stateSource(ctx) === 'hook'
    ? hookFailure(result.reason)
    : undefined;
}
