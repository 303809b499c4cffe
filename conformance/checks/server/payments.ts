// Payments into the merchant's virtual account (spec: What the service does 5 and 7, Payment statuses, Events,
// Limits): the spec shows no API to create or move payments, so these checks drive payconform's /sandbox/ helper
// endpoints and run only against a target that has them (config "sandbox": true; the embedded reference service).
import { getFieldValues, type HttpRequest } from '../../../src/http/message.js';
import { validatePayload } from '../../../src/schemas/index.js';
import { verifyWebhook } from '../../../src/webhooks/index.js';
import type { CheckRunEnv, Evidence, Finding } from '../../check.js';
import { notApplicable, observation, pass, skip, violation } from '../../check.js';
import type { RecordedExchange } from '../../http-client.js';
import type { ReceivedWebhook } from '../../webhook-listener.js';
import { NEED, serverCheck, type ServerAuditContext } from './context.js';
import { fetchPublicKey } from './served-key.js';
import {
  freeSettledPayment,
  noteRefund,
  PARTIAL_REFUND_AMOUNT,
  sendRefund,
} from './refund-actions.js';
import {
  describeOutcome,
  evidenceOf,
  exchange,
  isSuccess,
  jsonObject,
  SANDBOX_LISTING_BYTES,
  sandboxCall,
  sandboxRequest,
  uniqueReference,
  type SandboxCall,
} from './requests.js';
import { member, waitForMentions, webhookEvidence, webhookKind } from './webhook-match.js';

/** Why these checks cannot run without the sandbox endpoints. */
export const NO_PAYMENT_API = 'the spec shows no API to create or move payments';

/** Spec, States and transitions / Payment statuses. */
const PAYMENT_STATUSES: readonly string[] = [
  'AWAITING_AUTHORIZATION',
  'COMPLETED',
  'SETTLED',
  'FAILED',
];

/** Not applicable: the config states the target has no /sandbox/ (checked by the engine before the check runs). */
function sandboxAbsent(ctx: ServerAuditContext): string | undefined {
  return ctx.sandbox !== true && ctx.sandboxAbsent === true
    ? `not applicable to this target: ${NO_PAYMENT_API}, and the config states the target has no payconform /sandbox/ endpoints ("sandbox": false)`
    : undefined;
}

/**
 * What every check here gives for a target without payconform's /sandbox/ endpoints: not applicable where the config
 * states the target has none (the spec defines no such API, so nothing is missing from the run), else a skip.
 */
function withoutSandbox(ctx: ServerAuditContext): Finding | undefined {
  if (ctx.sandbox === true) return undefined;
  const absent = sandboxAbsent(ctx);
  if (absent !== undefined) return notApplicable(absent);
  return skip(
    `${NO_PAYMENT_API} (set "sandbox": true in the config when the target implements payconform's /sandbox/ helper endpoints)`,
  );
}

/** A failing helper endpoint is payconform's extension misbehaving, not a spec violation: the check is skipped. */
function sandboxProblem(ctx: ServerAuditContext, what: string, call: SandboxCall): Finding {
  return skip(`the /sandbox/ endpoint could not ${what} (${describeOutcome(call.ex)})`, {
    evidence: evidenceOf(ctx, call.ex),
  });
}

const show = (v: unknown): string =>
  v === undefined ? '(absent)' : typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));

/** Payment webhooks (by payload members) for `paymentId`, optionally with `status`. */
function paymentHooks(
  all: readonly ReceivedWebhook[],
  paymentId: string,
  status?: string,
): ReceivedWebhook[] {
  return all.filter(
    (w) =>
      webhookKind(w) === 'payment' &&
      member(w, 'paymentId') === paymentId &&
      (status === undefined || member(w, 'paymentStatus') === status),
  );
}

/** The time left for one wait: the context's webhook wait, cut to the check's deadline. */
const waitBudget = (ctx: ServerAuditContext, env: CheckRunEnv): number =>
  Math.max(0, Math.min(ctx.webhookWaitMs, env.deadline - Date.now() - 250));

// --- webhook-payment-status-changes ---------------------------------------------------------------------------

interface DrivenPayment {
  readonly paymentId: string;
  /** Every status the sandbox reported, in order (creation, then each move). */
  readonly reported: ReadonlyArray<{ readonly status: unknown; readonly call: SandboxCall }>;
  /** The move call for each target status (evidence when its webhook is missing). */
  readonly moves: ReadonlyMap<string, SandboxCall>;
}

/** Creates a payment (AWAITING_AUTHORIZATION) and moves it through `path`, one status after another. */
async function drivePayment(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  path: readonly string[],
): Promise<DrivenPayment | { problem: Finding }> {
  const created = await sandboxCall(ctx, env, 'POST', '/payments', {
    amount: '0.01',
    merchantPaymentId: uniqueReference(),
  });
  const paymentId = created.value?.['paymentId'];
  if (typeof paymentId !== 'string')
    return { problem: sandboxProblem(ctx, 'create a payment', created) };
  const reported: Array<{ status: unknown; call: SandboxCall }> = [
    { status: created.value?.['status'], call: created },
  ];
  const moves = new Map<string, SandboxCall>();
  for (const status of path) {
    const moved = await sandboxCall(
      ctx,
      env,
      'POST',
      `/payments/${encodeURIComponent(paymentId)}/status`,
      { status },
    );
    if (moved.value === undefined)
      return { problem: sandboxProblem(ctx, `move payment ${paymentId} to ${status}`, moved) };
    reported.push({ status: moved.value['status'], call: moved });
    moves.set(status, moved);
  }
  return { paymentId, reported, moves };
}

const paymentStatusChanges = serverCheck({
  id: 'webhook-payment-status-changes',
  title:
    'a payment webhook arrives when a payment reaches COMPLETED, SETTLED and FAILED, verified and schema-valid',
  area: 'webhooks',
  requirements: [
    'WEBHOOK-PAYMENT-EMITTED',
    'PAYMENT-STATUS-VALUES',
    'WEBHOOK-AUTHORIZATION',
    'WEBHOOK-PAYMENT-PAYLOAD',
  ],
  level: 'MUST',
  needs: NEED.webhooks,
  mutating: true,
  notApplicableTo: sandboxAbsent,
  async run(ctx, env) {
    const off = withoutSandbox(ctx);
    if (off !== undefined) return [off];
    const listener = ctx.webhooks;
    if (listener === undefined)
      throw new TypeError('this check needs the webhook listener (declare webhookListen in needs)');
    const [key, settled, failed] = await Promise.all([
      fetchPublicKey(ctx, env),
      drivePayment(ctx, env, ['COMPLETED', 'SETTLED']),
      drivePayment(ctx, env, ['FAILED']),
    ]);
    if ('problem' in settled) return [settled.problem];
    if ('problem' in failed) return [failed.problem];
    const expected = [
      { payment: settled, status: 'COMPLETED' },
      { payment: settled, status: 'SETTLED' },
      { payment: failed, status: 'FAILED' },
    ] as const;
    const wait = waitBudget(ctx, env);
    await listener.waitFor(
      (all) => expected.every((e) => paymentHooks(all, e.payment.paymentId, e.status).length > 0),
      { timeoutMs: wait, signal: env.signal },
    );
    const all = listener.received();
    const findings: Finding[] = [];

    // Statuses the service reported (sandbox resources and webhooks) are from the spec's list.
    const ours = [...paymentHooks(all, settled.paymentId), ...paymentHooks(all, failed.paymentId)];
    const offList = [
      ...[settled, failed].flatMap((p) =>
        p.reported
          .filter((r) => !PAYMENT_STATUSES.includes(String(r.status)))
          .map((r) => ({
            what: `payment ${p.paymentId} reported as ${show(r.status)}`,
            evidence: evidenceOf(ctx, r.call.ex),
          })),
      ),
      ...ours
        .filter((w) => !PAYMENT_STATUSES.includes(member(w, 'paymentStatus') ?? ''))
        .map((w) => ({
          what: `webhook #${w.seq} with paymentStatus ${show((w.json as Record<string, unknown> | undefined)?.['paymentStatus'])}`,
          evidence: webhookEvidence(w),
        })),
    ];
    findings.push(
      offList.length > 0
        ? violation(
            `a payment status outside the spec's list: ${offList.map((o) => o.what).join('; ')}`,
            {
              requirement: 'PAYMENT-STATUS-VALUES',
              expected: PAYMENT_STATUSES.join(', '),
              evidence: offList[0]!.evidence,
            },
          )
        : pass(
            `every payment status reported is from the list (${[...new Set([...[settled, failed].flatMap((p) => p.reported.map((r) => String(r.status))), ...ours.map((w) => member(w, 'paymentStatus') ?? '')])].join(', ')})`,
            { requirement: 'PAYMENT-STATUS-VALUES' },
          ),
    );

    // One webhook per expected status, each verified over the exact bytes and schema-valid.
    const arrived: ReceivedWebhook[] = [];
    for (const e of expected) {
      const hook = paymentHooks(all, e.payment.paymentId, e.status)[0];
      if (hook !== undefined) {
        arrived.push(hook);
        continue;
      }
      const seen = paymentHooks(all, e.payment.paymentId).map(
        (w) => member(w, 'paymentStatus') ?? '(none)',
      );
      const move = e.payment.moves.get(e.status);
      findings.push(
        violation(
          `no payment webhook with paymentStatus ${e.status} arrived within ${wait} ms after payment ${e.payment.paymentId} reached ${e.status}`,
          {
            requirement: 'WEBHOOK-PAYMENT-EMITTED',
            expected: `a payment webhook with paymentStatus ${e.status}`,
            received:
              seen.length === 0
                ? 'no payment webhook for this payment'
                : `payment webhooks with paymentStatus ${seen.join(', ')}`,
            ...(move !== undefined
              ? {
                  evidence: evidenceOf(
                    ctx,
                    move.ex,
                    'the sandbox move that should have produced the webhook',
                  ),
                }
              : {}),
          },
        ),
      );
    }
    if (arrived.length === expected.length)
      findings.push(
        pass('payment webhooks arrived for COMPLETED, SETTLED and FAILED', {
          requirement: 'WEBHOOK-PAYMENT-EMITTED',
        }),
      );
    if (arrived.length > 0) findings.push(...judgeArrived(ctx, arrived, key));

    // Spec: a webhook is sent for COMPLETED, SETTLED and FAILED; it does not say none is sent for AWAITING_AUTHORIZATION.
    const awaiting = ours.filter((w) => member(w, 'paymentStatus') === 'AWAITING_AUTHORIZATION');
    findings.push(
      observation(
        awaiting.length > 0
          ? `a payment webhook was sent for AWAITING_AUTHORIZATION (#${awaiting[0]!.seq}); the spec names webhooks for COMPLETED, SETTLED and FAILED without forbidding others, though its payload lists only those three statuses`
          : 'no payment webhook was sent for AWAITING_AUTHORIZATION (the spec names webhooks only for COMPLETED, SETTLED and FAILED)',
        {
          requirement: 'WEBHOOK-PAYMENT-EMITTED',
          ...(awaiting[0] ? { evidence: webhookEvidence(awaiting[0]) } : {}),
        },
      ),
    );
    return findings;
  },
});

/** Signature (served key, exact bytes) and schema of the payment webhooks that arrived. */
function judgeArrived(
  ctx: ServerAuditContext,
  arrived: readonly ReceivedWebhook[],
  key: Awaited<ReturnType<typeof fetchPublicKey>>,
): Finding[] {
  const findings: Finding[] = [];
  if (!key.ok) {
    findings.push(
      notApplicable(
        `payment webhook signatures not verified: ${key.message} (see public-key-form)`,
        { requirement: 'WEBHOOK-AUTHORIZATION' },
      ),
    );
  } else {
    const bad = arrived.flatMap((w) => {
      const auth = getFieldValues(w.headers, 'authorization');
      const result = verifyWebhook(w.body, auth.length === 1 ? auth[0] : undefined, key.key);
      return result.ok ? [] : [{ w, why: `${result.code}: ${result.message}` }];
    });
    findings.push(
      bad.length > 0
        ? violation(
            `payment webhook signatures do not verify with the served key over the exact bytes: ${bad.map((b) => `#${b.w.seq} ${b.why}`).join('; ')}`,
            {
              requirement: 'WEBHOOK-AUTHORIZATION',
              expected: 'Authorization: SHA256withRSA <base64> over the body as sent',
              evidence: webhookEvidence(bad[0]!.w),
            },
          )
        : pass(`${arrived.length} payment webhook(s) verified with the served key`, {
            requirement: 'WEBHOOK-AUTHORIZATION',
          }),
    );
  }
  const invalid = arrived.flatMap((w) => {
    if (w.json === undefined) return [{ w, why: 'the body is not JSON' }];
    const result = validatePayload('payment-webhook', w.json);
    return result.valid
      ? []
      : [
          {
            w,
            why: result.errors
              .slice(0, 3)
              .map((e) => `${e.pointer || '(root)'}: ${e.message}`)
              .join(', '),
          },
        ];
  });
  findings.push(
    invalid.length > 0
      ? violation(
          `payment webhook payloads do not match schemas/payment-webhook.schema.json: ${invalid.map((b) => `#${b.w.seq} ${b.why}`).join('; ')}`,
          { requirement: 'WEBHOOK-PAYMENT-PAYLOAD', evidence: webhookEvidence(invalid[0]!.w) },
        )
      : pass(`${arrived.length} payment webhook payload(s) match the schema`, {
          requirement: 'WEBHOOK-PAYMENT-PAYLOAD',
        }),
  );
  return findings;
}

// --- refund-to-original-account -------------------------------------------------------------------------------

interface AccountDetails {
  readonly name: string;
  readonly accountNumber: string;
  readonly sortCode: string;
}

/** The payer from a `paymentRefundData` object (payment webhook form), or undefined when it lacks a part. */
function payerOf(data: unknown): AccountDetails | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const d = data as Record<string, unknown>;
  const ids = Array.isArray(d['accountIdentifications'])
    ? (d['accountIdentifications'] as unknown[])
    : [];
  const number = (type: string): string | undefined => {
    const item = ids.find(
      (i): i is Record<string, unknown> =>
        typeof i === 'object' && i !== null && (i as Record<string, unknown>)['type'] === type,
    );
    return typeof item?.['number'] === 'string' ? item['number'] : undefined;
  };
  const name = d['accountHolderName'];
  const accountNumber = number('ACCOUNT_NUMBER');
  const sortCode = number('SORT_CODE');
  if (typeof name !== 'string' || accountNumber === undefined || sortCode === undefined)
    return undefined;
  return { name, accountNumber, sortCode };
}

/** Account numbers and sort codes compared without spaces and hyphens ("20-00-00" is 200000); names case- and space-insensitively. */
const digits = (v: unknown): string => (typeof v === 'string' ? v.replace(/[\s-]/g, '') : show(v));
const words = (v: unknown): string =>
  typeof v === 'string' ? v.trim().replace(/\s+/g, ' ').toLowerCase() : show(v);

/** Differences between a destination object and the payer. */
function destinationDiff(destination: unknown, payer: AccountDetails): string[] {
  if (typeof destination !== 'object' || destination === null)
    return [`destination is ${show(destination)}`];
  const d = destination as Record<string, unknown>;
  const out: string[] = [];
  if (words(d['name']) !== words(payer.name))
    out.push(`name ${show(d['name'])} (payer ${payer.name})`);
  if (digits(d['accountNumber']) !== digits(payer.accountNumber))
    out.push(`accountNumber ${show(d['accountNumber'])} (payer ${payer.accountNumber})`);
  if (digits(d['sortCode']) !== digits(payer.sortCode))
    out.push(`sortCode ${show(d['sortCode'])} (payer ${payer.sortCode})`);
  return out;
}

function judgeDestination(
  what: string,
  destination: unknown,
  payer: AccountDetails,
  evidence: Evidence,
): Finding {
  const diff = destinationDiff(destination, payer);
  if (diff.length === 0)
    return pass(
      `${what} is the payer's account (${payer.name}, ${payer.accountNumber}, ${payer.sortCode})`,
      { requirement: 'REFUND-ORIGINAL-ACCOUNT' },
    );
  return violation(`${what} is not the account the payment came from: ${diff.join(', ')}`, {
    requirement: 'REFUND-ORIGINAL-ACCOUNT',
    expected: `name ${payer.name}, accountNumber ${payer.accountNumber}, sortCode ${payer.sortCode}`,
    received: show(destination),
    evidence,
  });
}

const refundToOriginalAccount = serverCheck({
  id: 'refund-to-original-account',
  title:
    'a refund goes to the account the payment came from (refund resource and refund webhook destination)',
  area: 'refunds',
  requirements: ['REFUND-ORIGINAL-ACCOUNT', 'SIG-OTHER-ENDPOINTS-SIGNED'],
  level: 'MUST',
  needs: [...NEED.refunds, 'payments.settled'],
  mutating: true,
  group: 'refunds',
  async run(ctx, env) {
    // The payer comes from the config (payments.settled[].payer) on any target, else from the /sandbox/ payment view.
    const withPayer = ctx.payments.settled.filter((p) => p.payer !== undefined);
    if (withPayer.length === 0 && ctx.sandbox !== true) {
      return [
        skip(
          `${NO_PAYMENT_API} (nor to read a payment's payer): name the payer's account as "payer" ({ "name", "accountNumber", "sortCode" }) beside paymentId and amount in payments.settled, or set "sandbox": true for a target with payconform's /sandbox/ endpoints`,
        ),
      ];
    }
    const payment = await freeSettledPayment(
      ctx,
      env,
      withPayer.length > 0 ? withPayer : ctx.payments.settled,
    );
    if ('problem' in payment) return [skip(payment.problem)];
    let payer: AccountDetails | undefined = payment.payer;
    if (payer === undefined) {
      const view = await sandboxCall(
        ctx,
        env,
        'GET',
        `/payments/${encodeURIComponent(payment.paymentId)}`,
      );
      if (view.value === undefined)
        return [sandboxProblem(ctx, `show payment ${payment.paymentId}`, view)];
      payer = payerOf(view.value['paymentRefundData']);
      if (payer === undefined) {
        return [
          skip(
            `the /sandbox/ endpoint reports no payer details for payment ${payment.paymentId} (paymentRefundData with accountHolderName, ACCOUNT_NUMBER and SORT_CODE)`,
            { evidence: evidenceOf(ctx, view.ex) },
          ),
        ];
      }
    }
    const { ex, notes } = await sendRefund(ctx, env, payment.paymentId, PARTIAL_REFUND_AMOUNT);
    if (isSuccess(ex)) noteRefund(ctx, payment.paymentId, jsonObject(ex));
    const refund = isSuccess(ex) ? jsonObject(ex) : undefined;
    const refundId = refund?.['refundPaymentId'];
    if (refund === undefined || typeof refundId !== 'string') {
      return [
        ...notes,
        skip(
          `a partial refund of ${PARTIAL_REFUND_AMOUNT} of payment ${payment.paymentId} was not created (${describeOutcome(ex)}); see refund-partial-accepted`,
          { evidence: evidenceOf(ctx, ex) },
        ),
      ];
    }
    const details = refund['refundRequestDetails'] as Record<string, unknown> | undefined;
    const findings: Finding[] = [
      ...notes,
      judgeDestination(
        'refundRequestDetails.destination',
        details?.['destination'],
        payer,
        evidenceOf(ctx, ex),
      ),
    ];
    if (ctx.webhooks === undefined) {
      findings.push(
        notApplicable(
          'the refund webhook destination was not checked: no webhook listener is configured (set "webhookListen")',
          { requirement: 'REFUND-ORIGINAL-ACCOUNT' },
        ),
      );
      return findings;
    }
    const hooks = await waitForMentions(
      ctx.webhooks,
      env,
      waitBudget(ctx, env),
      [refundId],
      1,
      (w) => webhookKind(w) === 'refund',
    );
    const hook = hooks[0];
    findings.push(
      hook === undefined
        ? notApplicable(
            `no refund webhook arrived within ${ctx.webhookWaitMs} ms, so its destination was not checked (see webhook-refund-status-changes)`,
            { requirement: 'REFUND-ORIGINAL-ACCOUNT' },
          )
        : judgeDestination(
            `the refund webhook's destination (#${hook.seq})`,
            (hook.json as Record<string, unknown> | undefined)?.['destination'],
            payer,
            webhookEvidence(hook),
          ),
    );
    return findings;
  },
});

// --- payment-reference-assigned -------------------------------------------------------------------------------

const referenceAssigned = serverCheck({
  id: 'payment-reference-assigned',
  title:
    'for payments into a virtual account the service ignores the reference passed and assigns its own, unique one',
  area: 'payments',
  requirements: ['PAYMENT-REFERENCE-ASSIGNED'],
  level: 'MUST',
  mutating: true,
  notApplicableTo: sandboxAbsent,
  async run(ctx, env) {
    const off = withoutSandbox(ctx);
    if (off !== undefined) return [off];
    const passed = `${uniqueReference()}-custom`;
    // COMPLETED at once, so the payment webhook (which carries paymentRequest.reference) is sent.
    const create = () =>
      sandboxCall(ctx, env, 'POST', '/payments', {
        amount: '0.01',
        merchantPaymentId: uniqueReference(),
        reference: passed,
        status: 'COMPLETED',
      });
    const made = [await create(), await create()] as const;
    const payments: Array<{ id: string; reference: unknown; call: SandboxCall }> = [];
    for (const call of made) {
      const id = call.value?.['paymentId'];
      if (typeof id !== 'string') return [sandboxProblem(ctx, 'create a payment', call)];
      payments.push({ id, reference: call.value?.['reference'], call });
    }
    const [a, b] = payments as [(typeof payments)[0], (typeof payments)[0]];
    if (typeof a.reference !== 'string' || typeof b.reference !== 'string') {
      return [
        skip('the /sandbox/ endpoint reports no "reference" for the payments it created', {
          evidence: evidenceOf(ctx, a.call.ex),
        }),
      ];
    }
    const findings: Finding[] = [];
    const kept = payments.filter((p) => p.reference === passed);
    findings.push(
      kept.length > 0
        ? violation(
            `the reference passed (${passed}) was kept instead of one assigned by the service`,
            {
              requirement: 'PAYMENT-REFERENCE-ASSIGNED',
              expected: `a reference assigned by the service, not ${passed}`,
              received: `${a.reference}, ${b.reference}`,
              evidence: evidenceOf(ctx, kept[0]!.call.ex),
            },
          )
        : pass(
            `the reference passed (${passed}) was ignored: the service assigned ${a.reference} and ${b.reference}`,
            { requirement: 'PAYMENT-REFERENCE-ASSIGNED' },
          ),
    );
    findings.push(
      a.reference === b.reference
        ? violation(`two payments carry the same reference ${a.reference}`, {
            requirement: 'PAYMENT-REFERENCE-ASSIGNED',
            expected: 'a unique reference per payment',
            received: `${a.reference} for payments ${a.id} and ${b.id}`,
            evidence: evidenceOf(ctx, b.call.ex),
          })
        : pass('the two payments carry different references', {
            requirement: 'PAYMENT-REFERENCE-ASSIGNED',
          }),
    );
    findings.push(
      await uniqueAmongAll(
        ctx,
        env,
        payments.map((p) => ({ id: p.id, reference: String(p.reference) })),
      ),
    );
    if (ctx.webhooks === undefined) {
      findings.push(
        notApplicable(
          'the references in the payment webhooks were not checked: no webhook listener is configured (set "webhookListen")',
          { requirement: 'PAYMENT-REFERENCE-ASSIGNED' },
        ),
      );
      return findings;
    }
    const listener = ctx.webhooks;
    await listener.waitFor((all) => payments.every((p) => paymentHooks(all, p.id).length > 0), {
      timeoutMs: waitBudget(ctx, env),
      signal: env.signal,
    });
    const hooks = payments.map((p) => paymentHooks(listener.received(), p.id)[0]);
    if (hooks.some((h) => h === undefined)) {
      findings.push(
        notApplicable(
          `a payment webhook for a COMPLETED payment did not arrive within ${ctx.webhookWaitMs} ms, so its reference was not checked (see webhook-payment-status-changes)`,
          { requirement: 'PAYMENT-REFERENCE-ASSIGNED' },
        ),
      );
      return findings;
    }
    const refs = hooks.map(
      (h) =>
        (h!.json as { paymentRequest?: { reference?: unknown } } | undefined)?.paymentRequest
          ?.reference,
    );
    if (refs.some((r) => r === undefined)) {
      findings.push(
        notApplicable(
          'the payment webhooks carry no paymentRequest.reference (optional in the payload)',
          { requirement: 'PAYMENT-REFERENCE-ASSIGNED' },
        ),
      );
      return findings;
    }
    const keptInHook = hooks.findIndex((_, i) => refs[i] === passed);
    findings.push(
      keptInHook >= 0
        ? violation(
            `the payment webhook reports the reference passed (${passed}) as paymentRequest.reference`,
            {
              requirement: 'PAYMENT-REFERENCE-ASSIGNED',
              expected: 'the reference the service assigned',
              received: show(refs[keptInHook]),
              evidence: webhookEvidence(hooks[keptInHook]!),
            },
          )
        : refs[0] === refs[1]
          ? violation(
              `the two payment webhooks report the same paymentRequest.reference ${show(refs[0])}`,
              {
                requirement: 'PAYMENT-REFERENCE-ASSIGNED',
                expected: 'a unique reference per payment',
                evidence: webhookEvidence(hooks[1]!),
              },
            )
          : pass(
              `the payment webhooks report the assigned references (${refs.map(show).join(', ')})`,
              { requirement: 'PAYMENT-REFERENCE-ASSIGNED' },
            ),
    );
    return findings;
  },
});

/** No other payment the target holds (any application, any merchant) carries one of these references. */
async function uniqueAmongAll(
  ctx: ServerAuditContext,
  env: CheckRunEnv,
  ours: ReadonlyArray<{ id: string; reference: string }>,
): Promise<Finding> {
  const listed = await exchange(ctx, env, sandboxRequest(ctx, 'GET', '/payments'), {
    maxResponseBytes: SANDBOX_LISTING_BYTES,
  });
  const all = listed.response?.json;
  if (!isSuccess(listed) || !Array.isArray(all))
    return notApplicable(
      `uniqueness among all payments not checked: GET /sandbox/payments gave ${describeOutcome(listed)}`,
      { requirement: 'PAYMENT-REFERENCE-ASSIGNED' },
    );
  const clashes = ours.flatMap((o) =>
    all
      .filter(
        (p): p is Record<string, unknown> =>
          typeof p === 'object' &&
          p !== null &&
          p['reference'] === o.reference &&
          p['paymentId'] !== o.id,
      )
      .map((p) => `${o.reference} also on payment ${show(p['paymentId'])}`),
  );
  return clashes.length > 0
    ? violation(
        `an assigned reference is not unique among the target's payments: ${clashes.slice(0, 3).join('; ')}`,
        {
          requirement: 'PAYMENT-REFERENCE-ASSIGNED',
          expected: 'a reference no other payment carries',
          evidence: evidenceOf(ctx, listed),
        },
      )
    : pass(
        `no other of the ${all.length} payments the target lists (every application) carries either reference`,
        { requirement: 'PAYMENT-REFERENCE-ASSIGNED' },
      );
}

export const paymentChecks = [
  paymentStatusChanges,
  refundToOriginalAccount,
  referenceAssigned,
] as const;
