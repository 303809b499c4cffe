// The Confirmation of Payee cases the CoP, commit/cancel and webhook checks share (spec: Payout transitions): one
// payout created to the destination configured for a copStatus, its status judged; and a payout held in
// AWAITING_COMMIT for the follow-ups.
import { isCopStatus } from '../../../src/rules/payout-status.js';
import type { CheckRunEnv, Finding } from '../../check.js';
import { notApplicable, pass, skip, violation } from '../../check.js';
import type { CopStatusKey } from '../../config.js';
import type { ServerAuditContext } from './context.js';
import { createSignedPayout, evidenceOf, showValue } from './requests.js';
import { judgeResource } from './resources.js';

export const HOLDING_KEYS: readonly CopStatusKey[] = [
  'PARTIAL_MATCH',
  'NO_MATCH',
  'UNABLE_TO_MATCH',
  'UNKNOWN',
];
export const MATCHING_KEYS: readonly CopStatusKey[] = ['FULL_MATCH', 'NOT_CHECKED', 'null'];

const copValue = (key: CopStatusKey): string | null => (key === 'null' ? null : key);
const flagText = (flag: boolean | undefined): string =>
  flag === undefined ? 'doNotCommitOnCoPMismatch omitted' : `doNotCommitOnCoPMismatch ${flag}`;

/**
 * Creates one payout to the destination configured for `key` and judges its status. `strictCop`: the returned
 * copStatus must be the configured one for the case to count (else it is skipped as a config mismatch).
 */
export async function judgeCopCase(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  key: CopStatusKey,
  flag: boolean | undefined,
  expectedStatus: 'IN_PROGRESS' | 'AWAITING_COMMIT',
  requirement: string,
  strictCop: boolean,
): Promise<{ findings: Finding[]; payoutId?: string }> {
  const destination = ctx.copDestinations[key];
  if (destination === undefined)
    return {
      findings: [
        notApplicable(`no copDestinations.${key} in the config: this case was not tested`),
      ],
    };
  const { ex } = await createSignedPayout(ctx, env, {
    destination,
    ...(flag !== undefined ? { doNotCommitOnCoPMismatch: flag } : {}),
  });
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
  const findings: Finding[] = [];
  if (!isCopStatus(cop)) {
    findings.push(
      violation(`${what}: copStatus ${showValue(cop)} is not one of the spec's values`, {
        requirement: 'PAYOUT-COPSTATUS-VALUES',
        received: showValue(cop),
        evidence,
      }),
    );
    return { findings };
  }
  if (strictCop && cop !== copValue(key)) {
    findings.push(
      skip(
        `copDestinations.${key} produced copStatus ${showValue(cop)} on this target: the ${key} case was not tested (fix the destination in the config)`,
        { evidence },
      ),
    );
    return { findings, ...(payoutId ? { payoutId } : {}) };
  }
  const status = payout['status'];
  if (status !== expectedStatus) {
    findings.push(
      violation(`${what}: status ${showValue(status)} with copStatus ${showValue(cop)}`, {
        requirement,
        expected: expectedStatus,
        received: showValue(status),
        evidence,
      }),
    );
  } else {
    findings.push(
      pass(`${what}: ${expectedStatus} with copStatus ${showValue(cop)}`, { requirement }),
    );
  }
  return { findings, ...(payoutId ? { payoutId } : {}) };
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
  const held = await judgeCopCase(
    ctx,
    env,
    key,
    true,
    'AWAITING_COMMIT',
    'COP-HOLD-ON-MISMATCH',
    true,
  );
  if (held.payoutId === undefined || held.findings.some((f) => f.outcome !== 'pass')) {
    const why = held.findings.find((f) => f.outcome !== 'pass')?.message ?? 'no payout id';
    return {
      problem: skip(
        `could not create a payout held in AWAITING_COMMIT (${why}); see cop-hold-on-mismatch`,
      ),
    };
  }
  return { payoutId: held.payoutId, key };
}
