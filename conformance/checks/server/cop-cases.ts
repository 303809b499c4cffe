// The Confirmation of Payee cases the CoP, commit/cancel and webhook checks share (spec: Payout transitions): one
// payout created to the destination configured for a copStatus, its status judged against the spec model's
// transitions table (conformance/spec-model: expectedCreateStatus); and a payout held in AWAITING_COMMIT for the
// follow-ups.
import { isCopStatus } from '../../../src/rules/payout-status.js';
import type { CheckRunEnv, Evidence, Finding } from '../../run/check.js';
import { notApplicable, pass, skip, violation } from '../../run/check.js';
import type { CopStatusKey } from '../../config/config.js';
import {
  autoCommitCopStatuses,
  expectedCreateStatus,
  HELD_STATUS,
  holdingCopStatuses,
  type AskedPayout,
} from '../../spec-model/index.js';
import type { ServerAuditContext } from './context.js';
import {
  createSignedPayout,
  evidenceOf,
  PAYOUT_AMOUNT,
  showValue,
  type PayoutSpec,
} from './requests.js';
import { judgeResource } from './resources.js';

/** The copStatus keys whose payouts doNotCommitOnCoPMismatch true holds, and those it lets through (null as 'null'). */
export const HOLDING_KEYS: readonly CopStatusKey[] = holdingCopStatuses;
export const MATCHING_KEYS: readonly CopStatusKey[] = autoCommitCopStatuses.map((s) => s ?? 'null');

const copValue = (key: CopStatusKey): string | null => (key === 'null' ? null : key);
const flagText = (flag: boolean | undefined): string =>
  flag === undefined ? 'doNotCommitOnCoPMismatch omitted' : `doNotCommitOnCoPMismatch ${flag}`;

/** A create-payout request as the spec model takes it (`copKey` names the destination used). */
export function askedPayout(copKey: string, spec: PayoutSpec, reference: string): AskedPayout {
  return {
    amount: spec.amountText ?? String(PAYOUT_AMOUNT),
    reference,
    copKey,
    destination: spec.destination,
    ...(spec.doNotCommitOnCoPMismatch !== undefined
      ? { doNotCommitOnCoPMismatch: spec.doNotCommitOnCoPMismatch }
      : {}),
  };
}

/**
 * Creates one payout to the destination configured for `key` and judges its status. `strictCop`: the returned
 * copStatus must be the configured one for the case to count (else it is skipped as a config mismatch).
 */
export async function judgeCopCase(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  key: CopStatusKey,
  flag: boolean | undefined,
  strictCop: boolean,
): Promise<{ findings: Finding[]; payoutId?: string }> {
  const destination = ctx.copDestinations[key];
  if (destination === undefined)
    return {
      findings: [
        notApplicable(`no copDestinations.${key} in the config: this case was not tested`),
      ],
    };
  const spec = { destination, ...(flag !== undefined ? { doNotCommitOnCoPMismatch: flag } : {}) };
  const { ex, reference } = await createSignedPayout(ctx, env, spec);
  const what = `create payout (copDestinations.${key}, ${flagText(flag)})`;
  const verdict = judgeResource(
    ctx,
    ex,
    what,
    'payout',
    'PAYOUT-CREATE-REQUEST',
    'PAYOUT-RESPONSE-RESOURCE',
  );
  const payout = verdict.resource;
  if (payout === undefined || verdict.findings.length > 0) return { findings: verdict.findings };
  const evidence = evidenceOf(ctx, ex);
  const cop = payout['copStatus'];
  const payoutId = typeof payout['payoutId'] === 'string' ? payout['payoutId'] : undefined;
  if (!isCopStatus(cop))
    return {
      findings: [
        violation(`${what}: copStatus ${showValue(cop)} is not one of the spec's values`, {
          requirement: 'PAYOUT-COPSTATUS-VALUES',
          received: showValue(cop),
          evidence,
        }),
      ],
    };
  const finding =
    strictCop && cop !== copValue(key)
      ? skip(
          `copDestinations.${key} produced copStatus ${showValue(cop)} on this target: the ${key} case was not tested (fix the destination in the config)`,
          { evidence },
        )
      : judgeCreateStatus(what, askedPayout(key, spec, reference), payout, evidence);
  return { findings: [finding], ...(payoutId ? { payoutId } : {}) };
}

/** The created payout's status against the transitions table (the flag and the copStatus it came back with). */
function judgeCreateStatus(
  what: string,
  asked: AskedPayout,
  payout: Record<string, unknown>,
  evidence: Evidence,
): Finding {
  const cop = payout['copStatus'];
  const status = payout['status'];
  const want = expectedCreateStatus(asked, cop);
  // Every copStatus of the spec's list has a row; one outside it was judged before (PAYOUT-COPSTATUS-VALUES).
  if (want === undefined) throw new TypeError(`no transition row for copStatus ${showValue(cop)}`);
  if (status !== want.status)
    return violation(`${what}: status ${showValue(status)} with copStatus ${showValue(cop)}`, {
      requirement: want.requirement,
      expected: want.status,
      received: showValue(status),
      evidence,
    });
  return pass(`${what}: ${want.status} with copStatus ${showValue(cop)}`, {
    requirement: want.requirement,
  });
}

/** Creates a payout held in AWAITING_COMMIT (first configured non-matching destination), or says why it could not. */
export async function createHeldPayout(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
): Promise<{ payoutId: string; key: CopStatusKey } | { problem: Finding }> {
  const key = HOLDING_KEYS.find((k) => ctx.copDestinations[k] !== undefined);
  if (key === undefined)
    return {
      problem: skip(
        `needs one of ${HOLDING_KEYS.map((k) => `copDestinations.${k}`).join(', ')} in the config`,
      ),
    };
  const held = await judgeCopCase(ctx, env, key, true, true);
  if (held.payoutId === undefined || held.findings.some((f) => f.outcome !== 'pass')) {
    const why = held.findings.find((f) => f.outcome !== 'pass')?.message ?? 'no payout id';
    return {
      problem: skip(
        `could not create a payout held in ${HELD_STATUS} (${why}); see cop-hold-on-mismatch`,
      ),
    };
  }
  return { payoutId: held.payoutId, key };
}
