// Response details (spec: Resources): a valid signed payout is accepted as a schema-valid Payout resource;
// tracingId is hexadecimal and differs per response; createdAt is ISO 8601 UTC with fractional seconds and Z, the
// refund's createdAtUtc has fractional seconds and no zone suffix.
import type { CheckRunEnv, Finding } from '../../run/check.js';
import { notApplicable, observation, pass, skip, violation } from '../../run/check.js';
import { NEED, serverCheck, type ServerAuditContext, type ServerRunContext } from './context.js';
import { createPartialRefund } from './refund-actions.js';
import {
  createSignedPayout,
  defaultDestination,
  evidenceOf,
  PAYOUT_AMOUNT,
  showValue,
} from './requests.js';
import { judgeResource } from './resources.js';

/** Spec forms, as in schemas/common.schema.json. */
export const CREATED_AT_FORM = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d+Z$/;
export const CREATED_AT_UTC_FORM = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d+$/;

const accepted = serverCheck({
  id: 'payout-signed-accepted',
  title: 'a correctly signed create-payout request is accepted as a schema-valid Payout resource',
  area: 'responses',
  requirements: [
    'SIG-PAYOUT-CREATE-SIGNED',
    'SIG-VERIFY-DECISION',
    'PAYOUT-CREATE-REQUEST',
    'PAYOUT-REQUEST-BODY',
    'PAYOUT-DESTINATION-OBJECT',
    'VERSION-PAYOUT-MEDIA-TYPE',
    'PAYOUT-RESPONSE-RESOURCE',
    'PAYOUT-ACCOUNT-OBJECT',
    'PAYOUT-STATUS-VALUES',
    'PAYOUT-STATUSREASON',
    'PAYOUT-CREATE-DETAILS',
    // Accepting a request signed by the profile means the target rebuilt the same signature base, line by line.
    'SIG-BASE-METHOD',
    'SIG-BASE-CONTENT-DIGEST',
    'SIG-BASE-CONTENT-TYPE-LENGTH',
    'SIG-BASE-APPLICATION-HEADERS',
    'SIG-BASE-LINE-FORMAT',
    'SIG-BASE-PARAMS-LINE',
    'SIG-PROFILE-STRUCTURED-FIELDS',
  ],
  level: 'MUST',
  needs: NEED.signing,
  mutating: true,
  async run(ctx, env) {
    const { ex, reference } = await createSignedPayout(ctx, env, {
      destination: defaultDestination(ctx),
    });
    const verdict = judgeResource(
      ctx,
      ex,
      'a correctly signed create-payout request',
      'payout',
      'SIG-VERIFY-DECISION',
      'PAYOUT-RESPONSE-RESOURCE',
    );
    const payout = verdict.resource;
    if (payout === undefined || verdict.findings.length > 0) return verdict.findings;
    const evidence = evidenceOf(ctx, ex);
    const findings: Finding[] = [
      pass(`accepted with ${ex.response!.status} and a schema-valid Payout resource`, {
        requirement: 'SIG-VERIFY-DECISION',
        evidence,
      }),
      observation(
        `create payout answered ${ex.response!.status} (the success status code is not shown)`,
        { requirement: 'PAYOUT-CREATE-DETAILS' },
      ),
    ];
    const echoes: Array<[string, unknown, unknown]> = [
      ['applicationId', payout['applicationId'], ctx.credentials?.applicationId],
      ['reference', payout['reference'], reference],
      ['amount', payout['amount'], PAYOUT_AMOUNT],
    ];
    for (const [name, got, want] of echoes) {
      if (got !== want)
        findings.push(
          violation(`${name} in the response is not the one sent`, {
            requirement: 'PAYOUT-RESPONSE-RESOURCE',
            expected: showValue(want),
            received: showValue(got),
            evidence,
          }),
        );
    }
    findings.push(
      payout['statusReason'] === null
        ? pass('statusReason is null on a new payout', { requirement: 'PAYOUT-STATUSREASON' })
        : violation('statusReason of a new payout is not null', {
            requirement: 'PAYOUT-STATUSREASON',
            expected: 'null',
            received: showValue(payout['statusReason']),
            evidence,
          }),
    );
    return findings;
  },
});

const tracingId = serverCheck({
  id: 'tracing-id-differs',
  title: 'tracingId is hexadecimal and differs per response',
  area: 'responses',
  requirements: ['PAYOUT-TRACINGID'],
  level: 'MUST',
  needs: NEED.signing,
  mutating: true,
  async run(ctx, env) {
    const sent = await Promise.all(
      [0, 1, 2].map(() => createSignedPayout(ctx, env, { destination: defaultDestination(ctx) })),
    );
    const ids: string[] = [];
    for (const { ex } of sent) {
      const verdict = judgeResource(
        ctx,
        ex,
        'create payout',
        'payout',
        'PAYOUT-TRACINGID',
        'PAYOUT-TRACINGID',
      );
      if (verdict.resource === undefined)
        return [skip(`could not create payouts to compare: ${verdict.findings[0]?.message ?? ''}`)];
      const id = verdict.resource['tracingId'];
      if (typeof id !== 'string' || !/^[0-9a-fA-F]+$/.test(id)) {
        return [
          violation('tracingId is not a hexadecimal string', {
            requirement: 'PAYOUT-TRACINGID',
            expected: 'hexadecimal text',
            received: showValue(id),
            evidence: evidenceOf(ctx, ex),
          }),
        ];
      }
      ids.push(id);
    }
    const distinct = new Set(ids.map((i) => i.toLowerCase()));
    if (distinct.size !== ids.length) {
      return [
        violation(`${ids.length} responses carried ${distinct.size} distinct tracingId value(s)`, {
          requirement: 'PAYOUT-TRACINGID',
          expected: 'a different tracingId per response',
          received: ids.join(', '),
          evidence: evidenceOf(ctx, sent[1]!.ex),
        }),
      ];
    }
    return [
      pass(`${ids.length} responses, ${ids.length} distinct hexadecimal tracingId values`, {
        requirement: 'PAYOUT-TRACINGID',
      }),
    ];
  },
});

const timestamps = serverCheck({
  id: 'timestamp-forms',
  title:
    'payout createdAt ends in fractional seconds and Z; refund createdAtUtc has fractional seconds and no zone',
  area: 'responses',
  requirements: ['PAYOUT-CREATEDAT-FORM', 'REFUND-CREATEDATUTC-FORM', 'SIG-OTHER-ENDPOINTS-SIGNED'],
  level: 'MUST',
  needs: NEED.signing,
  mutating: true,
  group: 'refunds',
  async run(ctx, env) {
    const payout = await judgePayoutCreatedAt(ctx, env);
    if (ctx.merchantId === undefined || ctx.payments.settled.length === 0)
      return [
        payout,
        notApplicable(
          'refund createdAtUtc not checked: needs merchantId and payments.settled in the config',
        ),
      ];
    return [payout, await judgeRefundCreatedAtUtc(ctx, env)];
  },
});

/** A created payout's createdAt: ISO 8601 UTC with fractional seconds and Z. */
async function judgePayoutCreatedAt(ctx: ServerAuditContext, env: CheckRunEnv): Promise<Finding> {
  const { ex } = await createSignedPayout(ctx, env, { destination: defaultDestination(ctx) });
  const createdAt = (ex.response?.json as Record<string, unknown> | undefined)?.['createdAt'];
  if (ex.response === undefined || ex.response.status < 200 || ex.response.status >= 300)
    return skip('could not create a payout to read createdAt');
  if (
    typeof createdAt === 'string' &&
    CREATED_AT_FORM.test(createdAt) &&
    !Number.isNaN(Date.parse(createdAt))
  )
    return pass(`createdAt "${createdAt}"`, { requirement: 'PAYOUT-CREATEDAT-FORM' });
  return violation('payout createdAt is not ISO 8601 UTC with fractional seconds and Z', {
    requirement: 'PAYOUT-CREATEDAT-FORM',
    expected: 'e.g. 2024-05-01T12:30:45.123Z',
    received: showValue(createdAt),
    evidence: evidenceOf(ctx, ex),
  });
}

/** A created refund's createdAtUtc: ISO 8601 with fractional seconds and no zone suffix. */
async function judgeRefundCreatedAtUtc(ctx: ServerRunContext, env: CheckRunEnv): Promise<Finding> {
  const made = await createPartialRefund(ctx, env);
  const refundEx = made.ex;
  const at = (refundEx?.response?.json as Record<string, unknown> | undefined)?.['createdAtUtc'];
  if (
    refundEx?.response === undefined ||
    refundEx.response.status < 200 ||
    refundEx.response.status >= 300
  )
    return notApplicable(
      'could not create a refund to read createdAtUtc; see refund-partial-accepted',
    );
  if (typeof at === 'string' && CREATED_AT_UTC_FORM.test(at) && !Number.isNaN(Date.parse(`${at}Z`)))
    return pass(`createdAtUtc "${at}"`, { requirement: 'REFUND-CREATEDATUTC-FORM' });
  return violation(
    'refund createdAtUtc is not ISO 8601 with fractional seconds and no zone suffix',
    {
      requirement: 'REFUND-CREATEDATUTC-FORM',
      expected: 'e.g. 2024-05-01T12:30:45.123',
      received: showValue(at),
      evidence: evidenceOf(ctx, refundEx),
    },
  );
}

export const responseDetailChecks = [accepted, tracingId, timestamps] as const;
