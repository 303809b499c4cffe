// POST /api/payouts (signed, strict), POST /api/payouts/{payoutId}/commit and /cancel (spec: Endpoints 1-3).
import { randomUUID } from 'node:crypto';
import type { RouteHandler, RouteRequest, RouteResponse, ServiceContext } from '../context.js';
import { confirmPayee } from '../cop-triggers.js';
import { HttpError } from '../error-body.js';
import { parseJsonBody, requireAcceptable, requireContentType } from '../../net/http-io.js';
import { stringifyJson } from '../json-writer.js';
import { plannedOutcome } from '../lifecycle.js';
import {
  cancelPayout as cancelRule,
  commitPayout as commitRule,
  initialPayoutStatus,
  PAYOUT_CANCEL_STATUS_REASON,
} from '../../src/rules/index.js';
import { positiveAmount } from '../amounts.js';
import { PAYOUT_MEDIA_TYPE, payoutResource, withCharset } from '../representations.js';
import { validateRequestBody } from '../request-validation.js';
import type { FaultSet } from '../faults.js';
import {
  isUuid,
  type Application,
  type CopStatus,
  type Payout,
  type PayoutStatus,
} from '../state.js';

const json = (ctx: ServiceContext, status: number, payout: Payout): RouteResponse => ({
  status,
  contentType: withCharset(ctx.faults, PAYOUT_MEDIA_TYPE),
  body: stringifyJson(payoutResource(payout, ctx.faults)),
});

interface PayoutRequestBody {
  readonly applicationId: string;
  readonly payInAccountSelector: string;
  readonly amount: number | string;
  readonly reference: string;
  readonly destination: {
    readonly holderName: string;
    readonly accountNumber: string;
    readonly sortCode: string;
    readonly iban?: string | null;
  };
  readonly doNotCommitOnCoPMismatch?: boolean;
}

/** Parse: the create-payout body, checked against the application (its id, its account); the amount asked. */
function readPayoutRequest(
  app: Application,
  request: RouteRequest,
): { body: PayoutRequestBody; amount: string } {
  requireContentType(request.http.headers, [PAYOUT_MEDIA_TYPE]);
  requireAcceptable(request.http.headers, [PAYOUT_MEDIA_TYPE, 'application/json']);
  const body = validateRequestBody<PayoutRequestBody>(
    'payout-create-request',
    parseJsonBody(request.http.body),
  );
  if (body.applicationId !== app.applicationId) {
    throw new HttpError(
      403,
      'application_mismatch',
      `body applicationId "${body.applicationId}" is not the authenticated application`,
    );
  }
  const account = app.virtualAccount;
  if (body.payInAccountSelector !== account.id && body.payInAccountSelector !== account.alias) {
    throw new HttpError(
      422,
      'unknown_account',
      `payInAccountSelector "${body.payInAccountSelector}" selects no virtual account of this application`,
    );
  }
  const amount = positiveAmount(body.amount);
  if (amount === undefined) {
    throw new HttpError(
      422,
      'invalid_amount',
      'amount must be a positive decimal with at most two fractional digits',
    );
  }
  return { body, amount };
}

/** Resolve: the status a new payout starts in (the rule on the CoP result and the flag, as the faults bend it). */
function startingStatus(
  faults: FaultSet,
  body: PayoutRequestBody,
  copStatus: CopStatus | null,
  pounds: number,
): PayoutStatus {
  const doNotCommit =
    (body.doNotCommitOnCoPMismatch === true && !faults.has('no-cop-hold')) ||
    faults.has('hold-without-flag');
  let status: PayoutStatus = initialPayoutStatus({
    copStatus,
    doNotCommitOnCoPMismatch: doNotCommit,
  });
  // Faults that hold what the spec executes automatically.
  if (doNotCommit && copStatus === 'FULL_MATCH' && faults.has('hold-on-full-match'))
    status = 'AWAITING_COMMIT';
  if (
    doNotCommit &&
    (copStatus === 'NOT_CHECKED' || copStatus === null) &&
    faults.has('hold-on-not-checked')
  )
    status = 'AWAITING_COMMIT';
  if (copStatus === 'PARTIAL_MATCH' && faults.has('no-hold-on-partial')) status = 'IN_PROGRESS';
  // Fault only the explorer finds: it depends on the value asked.
  if (status === 'AWAITING_COMMIT' && pounds >= 10_000 && faults.has('hold-skipped-large-amount'))
    status = 'IN_PROGRESS';
  return status;
}

/** Checks the body of a create-payout request and builds the payout (not yet stored). Throws HttpError. */
function buildPayout(ctx: ServiceContext, app: Application, request: RouteRequest): Payout {
  const { body, amount } = readPayoutRequest(app, request);
  const { faults } = ctx;
  const copStatus = confirmPayee(body.destination.holderName, app.cop);
  const pounds = Number(amount.split('.')[0]);
  // Faults only the explorer finds: they depend on the value asked.
  const storedAmount =
    pounds >= 1_000 && faults.has('amount-large-pence-dropped') ? `${pounds}.00` : amount;
  const reference =
    body.reference.length > 24 && faults.has('reference-long-truncated')
      ? body.reference.slice(0, 24)
      : body.reference;
  return {
    payoutId: randomUUID(),
    applicationId: app.applicationId,
    createdAt: ctx.now(),
    status: startingStatus(faults, body, copStatus, pounds),
    amount: storedAmount,
    reference,
    currency: 'GBP',
    source: app.virtualAccount,
    destination: {
      name: body.destination.holderName,
      accountNumber: body.destination.accountNumber,
      sortCode: body.destination.sortCode,
      iban: body.destination.iban ?? null,
    },
    copStatus,
    statusReason: null,
    plannedOutcome: plannedOutcome(storedAmount),
  };
}

async function store(ctx: ServiceContext, payout: Payout): Promise<void> {
  // Within the application's share and the service's limit (507 state_full otherwise).
  await ctx.store.addPayout(payout);
  ctx.lifecycle.payoutChanged(payout, true);
  ctx.log(
    `payout ${payout.payoutId} created: ${payout.status} ${payout.amount} ${payout.currency} copStatus=${payout.copStatus}`,
  );
}

export const createPayout: RouteHandler = async (ctx, request) => {
  let app: Application;
  try {
    app = request.asApplication ?? (await ctx.auth.verifySigned(request.http));
  } catch (error) {
    if (
      ctx.faults.has('creates-on-rejection') &&
      error instanceof HttpError &&
      error.status === 401
    ) {
      // Fault: the rejected request still takes effect when its body is otherwise acceptable.
      const fallback = ctx.state.applications.values().next().value;
      if (fallback !== undefined) {
        try {
          await store(ctx, buildPayout(ctx, fallback, request));
        } catch {
          /* body not acceptable: nothing created */
        }
      }
    }
    throw error;
  }
  const payout = buildPayout(ctx, app, request);
  await store(ctx, payout);
  // The success status code is not shown: 201 (clean) or 200 (variant alt).
  return json(ctx, ctx.faults.alt ? 200 : 201, payout);
};

/**
 * The caller's payout moved by the rule (atomically in the store, so of concurrent commits and cancels, through any
 * instance, one wins): 404 when not theirs, 409 when not AWAITING_COMMIT. `also` runs inside the same change.
 */
async function moveOwnPayout(
  ctx: ServiceContext,
  request: RouteRequest,
  rule: typeof commitRule | typeof cancelRule,
  also: (payout: Payout) => void = () => {},
): Promise<Payout> {
  const app =
    request.asApplication ??
    (await ctx.auth.authenticate(request.http, ctx.requireSignatureOnCommitCancelRefund));
  requireAcceptable(request.http.headers, [PAYOUT_MEDIA_TYPE, 'application/json']);
  if (request.http.body.length > 0) requireContentType(request.http.headers, [PAYOUT_MEDIA_TYPE]);
  const id = request.params.payoutId ?? '';
  const notFound = () =>
    new HttpError(404, 'payout_not_found', `no payout "${id}" for this application`);
  if (!isUuid(id)) throw notFound();
  const changed = await ctx.store.changePayout(id.toLowerCase(), (payout) => {
    if (payout.applicationId !== app.applicationId) throw notFound();
    const moved = rule(payout);
    if (!moved.ok) throw new HttpError(ctx.faults.alt ? 422 : 409, moved.code, moved.message);
    Object.assign(payout, { status: moved.payout.status, statusReason: moved.payout.statusReason });
    also(payout);
  });
  if (changed === undefined) throw notFound();
  return changed.item;
}

export const commitPayout: RouteHandler = async (ctx, request) => {
  // Spec: copStatus keeps its earlier value. Fault commit-changes-cop rewrites it.
  const payout = await moveOwnPayout(ctx, request, commitRule, (p) => {
    if (ctx.faults.has('commit-changes-cop')) p.copStatus = 'FULL_MATCH';
    // Fault commit-late-resets-cop: only a commit that comes after a wait.
    if (ctx.faults.has('commit-late-resets-cop') && ctx.now() - p.createdAt > LATE_MS)
      p.copStatus = 'FULL_MATCH';
  });
  ctx.lifecycle.payoutChanged(payout, false);
  // Fault commit-processed: the answer says PROCESSED.
  return json(
    ctx,
    200,
    ctx.faults.has('commit-processed') ? { ...payout, status: 'PROCESSED' } : payout,
  );
};

/** The statusReason a cancelled payout carries (the spec: the amount was released). */
export const CANCEL_REASON = PAYOUT_CANCEL_STATUS_REASON;

/** How long after creation a commit or cancel counts as late for the faults that show only after a wait. */
const LATE_MS = 500;

export const cancelPayout: RouteHandler = async (ctx, request) => {
  const payout = await moveOwnPayout(ctx, request, cancelRule, (p) => {
    if (ctx.faults.has('cancel-without-reason')) p.statusReason = null;
  });
  // Fault cancel-late-no-webhook: a cancel after a wait changes the status without its webhook.
  const silent = ctx.faults.has('cancel-late-no-webhook') && ctx.now() - payout.createdAt > LATE_MS;
  ctx.lifecycle.payoutChanged(payout, false, silent);
  return json(ctx, 200, payout);
};
