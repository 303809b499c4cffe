// Commit and cancel of a held payout (spec: Endpoints 2 and 3): commit gives IN_PROGRESS with copStatus unchanged;
// cancel gives CANCELLED with a statusReason saying the amount was released.
import type { CheckRunEnv, Evidence, Finding } from '../../run/check.js';
import { observation, pass, violation } from '../../run/check.js';
import { judgeActionAnswer, PAYOUT_ACTIONS, type PayoutAction } from '../../spec-model/index.js';
import { createHeldPayout } from './cop-cases.js';
import { NEED, serverCheck, type ServerAuditContext } from './context.js';
import { evidenceOf, payoutActionRequest, sendAppCall, showValue } from './requests.js';
import { violationOf } from './judgements.js';
import { judgeResource } from './resources.js';

/**
 * Sends commit or cancel for a held payout and judges the resource and its status (the spec model's row of the
 * transitions table for the action); returns the findings so far and the payout.
 */
async function act(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  payoutId: string,
  action: PayoutAction,
): Promise<{ findings: Finding[]; payout?: Record<string, unknown>; evidence: Evidence }> {
  const { to, rule } = PAYOUT_ACTIONS[action];
  const { ex, unsignedAttempt } = await sendAppCall(
    ctx,
    env,
    payoutActionRequest(ctx, payoutId, action),
  );
  const findings: Finding[] = [];
  if (unsignedAttempt !== undefined) {
    findings.push(
      observation(
        `${action} without a signature was answered ${unsignedAttempt.response?.status ?? ''}; sent again signed (whether ${action} requires a signature is not shown)`,
        { requirement: 'SIG-OTHER-ENDPOINTS-SIGNED', evidence: evidenceOf(ctx, unsignedAttempt) },
      ),
    );
  }
  const verdict = judgeResource(
    ctx,
    ex,
    `${action} of a held payout`,
    'payout',
    rule,
    'PAYOUT-RESPONSE-RESOURCE',
  );
  findings.push(...verdict.findings);
  const evidence = evidenceOf(ctx, ex);
  const payout = verdict.findings.length === 0 ? verdict.resource : undefined;
  if (payout === undefined) return { findings, evidence };
  const status = payout['status'];
  findings.push(
    status === to
      ? pass(`${action} gave ${to}`, { requirement: rule })
      : violation(`${action} gave status ${showValue(status)}`, {
          requirement: rule,
          expected: to,
          received: showValue(status),
          evidence,
        }),
  );
  return { findings, payout, evidence };
}

const commit = serverCheck({
  id: 'cop-commit',
  title: 'commit of a held payout gives IN_PROGRESS with copStatus unchanged',
  area: 'commit-cancel',
  requirements: [
    'COP-COMMIT',
    'COP-COMMIT-REQUEST',
    'COP-FOLLOW-UPS',
    'PAYOUT-RESPONSE-RESOURCE',
    'SIG-OTHER-ENDPOINTS-SIGNED',
  ],
  level: 'MUST',
  needs: NEED.signing,
  mutating: true,
  async run(ctx, env) {
    const held = await createHeldPayout(ctx, env);
    if ('problem' in held) return [held.problem];
    const { findings, payout, evidence } = await act(ctx, env, held.payoutId, 'commit');
    // A wrong status is judged (by act) already.
    if (payout === undefined || payout['status'] !== PAYOUT_ACTIONS.commit.to) return findings;
    // The spec model's judge of a commit answer ("copStatus keeps its earlier value").
    const wrong = judgeActionAnswer({ payoutId: held.payoutId, copStatus: held.key }, 'commit', {
      accepted: true,
      body: payout,
      outcome: 'a Payout resource',
    });
    findings.push(
      wrong === undefined
        ? pass(`copStatus kept its earlier value ${held.key}`, { requirement: 'COP-COMMIT' })
        : violationOf(wrong, evidence),
    );
    return findings;
  },
});

const cancel = serverCheck({
  id: 'cop-cancel',
  title: 'cancel of a held payout gives CANCELLED with a statusReason',
  area: 'commit-cancel',
  requirements: [
    'COP-CANCEL',
    'COP-CANCEL-REQUEST',
    'COP-FOLLOW-UPS',
    'PAYOUT-STATUSREASON',
    'PAYOUT-RESPONSE-RESOURCE',
    'SIG-OTHER-ENDPOINTS-SIGNED',
  ],
  level: 'MUST',
  needs: NEED.signing,
  mutating: true,
  async run(ctx, env) {
    const held = await createHeldPayout(ctx, env);
    if ('problem' in held) return [held.problem];
    const { findings, payout, evidence } = await act(ctx, env, held.payoutId, 'cancel');
    if (payout === undefined) return findings;
    const reason = payout['statusReason'];
    if (typeof reason !== 'string' || reason.trim() === '') {
      findings.push(
        violation('a cancelled payout has no statusReason', {
          requirement: 'PAYOUT-STATUSREASON',
          expected: 'a text saying the payout was cancelled and the amount released',
          received: showValue(reason),
          evidence,
        }),
      );
    } else if (!/releas/i.test(reason)) {
      // The wording is the service's; the spec only says what it states, so a different text is a warning.
      findings.push(
        violation(`statusReason "${reason}" does not say that the amount was released`, {
          requirement: 'COP-CANCEL',
          level: 'SHOULD',
          evidence,
        }),
      );
    } else {
      findings.push(pass(`statusReason: "${reason}"`, { requirement: 'PAYOUT-STATUSREASON' }));
    }
    return findings;
  },
});

export const commitCancelChecks = [commit, cancel] as const;
