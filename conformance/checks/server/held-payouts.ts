// The payouts a target holds with some references, read through the state hook contract (`payouts`: the config's hook,
// or payconform's /sandbox/ listing; docs/state-hook.md): state, seen at once, not a race with webhooks. The checks
// that judge that a rejected or replayed request made no second payout read it first and fall back to the webhooks.
import type { CheckRunEnv, Evidence } from '../../run/check.js';
import { askState, stateSource } from '../../state-hook/index.js';
import type { ServerAuditContext } from './context.js';

/** A payout the state provider lists. */
export interface HeldPayout {
  readonly payoutId: string;
  readonly reference: string;
}

/** The payouts held with one of `references`, with the evidence naming them; undefined where no provider lists them. */
export async function heldPayouts(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  references: readonly string[],
): Promise<{ payouts: readonly HeldPayout[]; evidence: Evidence } | undefined> {
  const source = stateSource(ctx);
  if (source === undefined) return undefined;
  const listed = await askState(ctx, env, { state: 'payouts', references });
  if (listed.kind !== 'made') return undefined;
  const payouts = listed.answer['payouts'] as HeldPayout[];
  const by = source === 'hook' ? 'the state hook' : "the target's /sandbox/";
  return {
    payouts,
    evidence: {
      notes: `${by} lists ${payouts.length} payout(s) with reference ${references.join(' or ')}${payouts.length > 0 ? `: ${JSON.stringify(payouts)}` : ''}`,
    },
  };
}
