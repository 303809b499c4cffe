// Confirmation of Payee on create payout (spec: Payout transitions): auto-commit when doNotCommitOnCoPMismatch is
// omitted or false whatever the result; with it true, AWAITING_COMMIT on each non-matching copStatus and IN_PROGRESS
// on FULL_MATCH, NOT_CHECKED and null. Destinations come from the config's `copDestinations`.
import { isCopStatus } from '../../../src/rules/payout-status.js';
import type { CheckRunEnv, Finding } from '../../check.js';
import { notApplicable, pass, skip, violation } from '../../check.js';
import { COP_STATUS_KEYS, type CopStatusKey } from '../../config.js';
import { NEED, serverCheck, type ServerAuditContext } from './context.js';
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

const configured = (ctx: ServerAuditContext, keys: readonly CopStatusKey[]): CopStatusKey[] =>
  keys.filter((k) => ctx.copDestinations[k] !== undefined);

const autoCommitWithoutFlag = serverCheck({
  id: 'cop-auto-commit-without-flag',
  title:
    'without doNotCommitOnCoPMismatch (omitted or false) every payout is IN_PROGRESS whatever the CoP result',
  area: 'cop',
  requirements: [
    'COP-AUTO-COMMIT-DEFAULT',
    'PAYOUT-CREATE-REQUEST',
    'PAYOUT-RESPONSE-RESOURCE',
    'PAYOUT-COPSTATUS-VALUES',
  ],
  level: 'MUST',
  needs: NEED.signing,
  mutating: true,
  async run(ctx, env) {
    const keys = configured(ctx, COP_STATUS_KEYS);
    if (keys.length === 0)
      return [
        skip(
          'not run: no "copDestinations" in the config (a destination per copStatus value to test)',
        ),
      ];
    const cases = keys.flatMap((key) =>
      [undefined, false].map((flag) =>
        judgeCopCase(ctx, env, key, flag, 'IN_PROGRESS', 'COP-AUTO-COMMIT-DEFAULT', false),
      ),
    );
    return (await Promise.all(cases)).flatMap((c) => c.findings);
  },
});

const holdOnMismatch = serverCheck({
  id: 'cop-hold-on-mismatch',
  title:
    'with doNotCommitOnCoPMismatch true each non-matching copStatus holds the payout in AWAITING_COMMIT',
  area: 'cop',
  requirements: [
    'COP-HOLD-ON-MISMATCH',
    'PAYOUT-CREATE-REQUEST',
    'PAYOUT-RESPONSE-RESOURCE',
    'PAYOUT-COPSTATUS-VALUES',
  ],
  level: 'MUST',
  needs: NEED.signing,
  mutating: true,
  async run(ctx, env) {
    if (configured(ctx, HOLDING_KEYS).length === 0)
      return [
        skip(
          `needs one of ${HOLDING_KEYS.map((k) => `copDestinations.${k}`).join(', ')} in the config`,
        ),
      ];
    const cases = HOLDING_KEYS.map((key) =>
      judgeCopCase(ctx, env, key, true, 'AWAITING_COMMIT', 'COP-HOLD-ON-MISMATCH', true),
    );
    return (await Promise.all(cases)).flatMap((c) => c.findings);
  },
});

const autoCommitOnMatch = serverCheck({
  id: 'cop-auto-commit-on-match',
  title: 'with doNotCommitOnCoPMismatch true, FULL_MATCH, NOT_CHECKED and null give IN_PROGRESS',
  area: 'cop',
  requirements: [
    'COP-AUTO-COMMIT-MATCH',
    'PAYOUT-CREATE-REQUEST',
    'PAYOUT-RESPONSE-RESOURCE',
    'PAYOUT-COPSTATUS-VALUES',
  ],
  level: 'MUST',
  needs: NEED.signing,
  mutating: true,
  async run(ctx, env) {
    const cases = MATCHING_KEYS.map((key) =>
      judgeCopCase(ctx, env, key, true, 'IN_PROGRESS', 'COP-AUTO-COMMIT-MATCH', true),
    );
    return (await Promise.all(cases)).flatMap((c) => c.findings);
  },
});

export const copChecks = [autoCommitWithoutFlag, holdOnMismatch, autoCommitOnMatch] as const;
