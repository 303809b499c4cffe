// Confirmation of Payee on create payout (spec: Payout transitions): auto-commit when doNotCommitOnCoPMismatch is
// omitted or false whatever the result; with it true, AWAITING_COMMIT on each non-matching copStatus and IN_PROGRESS
// on FULL_MATCH, NOT_CHECKED and null. Destinations come from the config's `copDestinations`.
import { skip } from '../../run/check.js';
import { COP_STATUS_KEYS, type CopStatusKey } from '../../config/config.js';
import { HOLDING_KEYS, judgeCopCase, MATCHING_KEYS } from './cop-cases.js';
import { NEED, serverCheck, type ServerAuditContext } from './context.js';

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
      [undefined, false].map((flag) => judgeCopCase(ctx, env, key, flag, false)),
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
    const cases = HOLDING_KEYS.map((key) => judgeCopCase(ctx, env, key, true, true));
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
    const cases = MATCHING_KEYS.map((key) => judgeCopCase(ctx, env, key, true, true));
    return (await Promise.all(cases)).flatMap((c) => c.findings);
  },
});

export const copChecks = [autoCommitWithoutFlag, holdOnMismatch, autoCommitOnMatch] as const;
