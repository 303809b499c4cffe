// The portal's views, rendered on the server from the service's state: what the spec's merchant portal shows
// (Balances, Payments, Settings → Webhooks And Callbacks) and what a developer needs beside it (Requests, Webhooks,
// Sandbox). Nothing here changes state; every button posts to an action in actions.ts.
import { copTriggers } from '../cop-triggers.js';
import type { ServiceContext } from '../context.js';
import type { Application, Payment, Payout, Refund } from '../state.js';
import { WEBHOOK_KINDS } from '../../src/webhooks/kinds.js';
import type { DeliveryRecord } from '../webhook-delivery.js';
import { accountBalance } from './balances.js';
import { actionForm, html, Html } from './html.js';
import type { LoggedRequest, RequestLog } from './request-log.js';
import type { PortalState } from './snapshot.js';

export interface ViewInput {
  readonly ctx: ServiceContext;
  /** The state as the store holds it, read once for this page. */
  readonly state: PortalState;
  readonly csrf: string;
  readonly requests: RequestLog;
}

const MOVE_TARGETS = ['PROCESSED', 'FAILED', 'HELD', 'RETURNED'] as const;
const PAYMENT_TARGETS = ['COMPLETED', 'SETTLED', 'FAILED'] as const;

const short = (id: string): string => id.slice(0, 8);
const time = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').slice(0, 19);
const status = (s: string | null): Html => html`<span class="status">${s ?? 'null'}</span>`;
const apps = (state: PortalState): Application[] => [...state.applications.values()];

function payoutRows(input: ViewInput, payouts: readonly Payout[]): Html {
  if (payouts.length === 0) return html`<p class="muted">No payouts yet.</p>`;
  const rows = [...payouts].reverse().map((p) => {
    const decide =
      p.status === 'AWAITING_COMMIT'
        ? html`${actionForm('/portal/actions/commit', input.csrf, { payoutId: p.payoutId }, html`<button>Commit</button>`, 'class="inline"')} ${actionForm('/portal/actions/cancel', input.csrf, { payoutId: p.payoutId }, html`<button>Cancel</button>`, 'class="inline"')}`
        : '';
    return html`<tr data-payout="${p.payoutId}"><td><code title="${p.payoutId}">${short(p.payoutId)}</code></td><td>${time(p.createdAt)}</td><td>${p.destination.name}</td><td class="num">${p.amount} ${p.currency}</td><td>${status(p.status)}</td><td>${status(p.copStatus)}</td><td>${p.statusReason ?? ''}</td><td>${decide}</td></tr>`;
  });
  return html`<table><thead><tr><th>Payout</th><th>Created (UTC)</th><th>Payee</th><th>Amount</th><th>Status</th><th>CoP</th><th>Status reason</th><th></th></tr></thead><tbody>${rows}</tbody></table>`;
}

export function balancesView(input: ViewInput): Html {
  const { ctx, state } = input;
  const triggers = copTriggers.map(
    (t) => html`<code>${t.holderName}</code> → ${String(t.copStatus)}`,
  );
  const sections = apps(state).map((app) => {
    const b = accountBalance(state, app.applicationId);
    const account = app.virtualAccount;
    const payouts = [...state.payouts.values()].filter(
      (p) => p.applicationId === app.applicationId,
    );
    const form = actionForm(
      '/portal/actions/payout',
      input.csrf,
      { applicationId: app.applicationId },
      html`<label>Payee name <input type="text" name="holderName" required value="Jane Payee"></label>
<label>Account number <input type="text" name="accountNumber" required pattern="[0-9]{8}" value="12345678"></label>
<label>Sort code <input type="text" name="sortCode" required pattern="[0-9]{6}" value="040004"></label>
<label>Amount (GBP) <input type="text" name="amount" required inputmode="decimal" value="10.00"></label>
<label>Reference <input type="text" name="reference" required value="PORTAL-PAYOUT"></label>
<label><input type="checkbox" name="doNotCommitOnCoPMismatch" value="true"> Hold on a CoP mismatch (doNotCommitOnCoPMismatch)</label>
<button>Make Payout</button>`,
    );
    return html`<section data-application="${app.applicationId}"><h2>Virtual account "${account.alias}" <span class="muted">${account.name}, ${account.sortCode} ${account.accountNumber}</span></h2>
<p>Application <code>${app.applicationId}</code></p>
<p>Balance <span class="balance" data-balance>${b.balance}</span> GBP <span class="muted">(settled in ${b.settledIn}, paid out ${b.paidOut}; under way ${b.pending}, available ${b.available})</span></p>
<details id="payout-${app.applicationId}" open><summary>Make Payout</summary>${form}<p class="muted">CoP triggers (payee name): ${triggers.flatMap((t, i) => (i === 0 ? [t] : [html`, `, t]))}; any other name → FULL_MATCH.</p></details>
<h3>Payouts</h3>${payoutRows(input, payouts)}</section>`;
  });
  return html`<h1>Balances</h1><p class="muted">The balance counts settled payments in and payouts and refunds out once they are PROCESSED, so it changes on this page when a payout finishes.</p>${sections}`;
}

function refundList(refunds: readonly Refund[]): Html {
  if (refunds.length === 0) return html``;
  return html`<ul>${refunds.map((r) => html`<li data-refund="${r.refundId}"><code title="${r.refundId}">${short(r.refundId)}</code> ${r.amount} ${r.currency} ${status(r.status)} → ${r.destination.name} ${r.destination.sortCode} ${r.destination.accountNumber}</li>`)}</ul>`;
}

export function paymentsView(input: ViewInput): Html {
  const { ctx, state } = input;
  const payments = [...state.payments.values()].sort((a, b) => b.createdAt - a.createdAt);
  const rows = payments.map((p: Payment) => {
    const refunds = state.refundsOf(p.paymentId);
    const dialogId = `refund-${p.paymentId}`;
    const action =
      p.status === 'SETTLED'
        ? html`<button type="button" data-open-dialog="${dialogId}">Refund…</button><dialog id="${dialogId}">${actionForm(
            '/portal/actions/refund',
            input.csrf,
            { paymentId: p.paymentId },
            html`<p>Refund payment <code>${short(p.paymentId)}</code> (${p.amount} ${p.currency}) to ${p.payer.name}, ${p.payer.sortCode} ${p.payer.accountNumber}</p>
<label>Amount (GBP) <input type="text" name="amount" required inputmode="decimal" value="${p.amount}"></label>
<button>Refund</button> <button type="button" data-close-dialog>Close</button>`,
          )}</dialog>`
        : '';
    return html`<tr data-payment="${p.paymentId}"><td><code title="${p.paymentId}">${short(p.paymentId)}</code></td><td>${time(p.createdAt)}</td><td>${p.payer.name}</td><td class="num">${p.amount} ${p.currency}</td><td>${status(p.status)}</td><td><code>${p.reference}</code></td><td>${refundList(refunds)}</td><td>${action}</td></tr>`;
  });
  return html`<h1>Payments</h1><p class="muted">A refund can be started only for a SETTLED payment; it always goes to the paying account (spec, Limits).</p>
<table><thead><tr><th>Payment</th><th>Created (UTC)</th><th>Payer</th><th>Amount</th><th>Status</th><th>Reference</th><th>Refunds</th><th></th></tr></thead><tbody>${rows}</tbody></table>`;
}

export function settingsView(input: ViewInput): Html {
  const { ctx, state } = input;
  const sections = apps(state).map((app) => {
    const own = state.webhookUrls.get(app.applicationId) ?? {};
    const fields = WEBHOOK_KINDS.map(
      (kind) =>
        html`<p><label>${kind[0]!.toUpperCase() + kind.slice(1)} Webhook URL <input type="url" size="60" name="${kind}" value="${own[kind] ?? ''}" placeholder="${ctx.defaultWebhookUrls[kind] ?? '(none)'}"></label></p>`,
    );
    return html`<section data-application="${app.applicationId}"><h2>Application <code>${app.applicationId}</code></h2>${actionForm('/portal/actions/webhook-urls', input.csrf, { applicationId: app.applicationId }, html`${fields}<button>Save</button>`)}</section>`;
  });
  return html`<h1>Settings: Webhooks And Callbacks</h1><p class="muted">Effective for the next webhook queued. An empty field uses the URL the service was started with (shown as the placeholder).</p>${sections}`;
}

function requestRow(r: LoggedRequest): Html {
  const diagnose =
    r.signed && r.status >= 400
      ? html` <a href="/portal/requests/${String(r.id)}">diagnose</a>`
      : '';
  const path = r.target.length > 90 ? `${r.target.slice(0, 87)}...` : r.target;
  return html`<tr data-request="${String(r.id)}"><td>${time(r.at)}</td><td>${r.http.method}</td><td><code>${path}</code></td><td>${String(r.status)}</td><td>${r.code ? html`<code>${r.code}</code>` : ''}</td><td>${r.message ?? ''}${diagnose}</td></tr>`;
}

export function requestsView(input: ViewInput): Html {
  const list = input.requests.list();
  return html`<h1>Requests</h1><p class="muted">The last ${String(list.length)} API requests, newest first; a rejected signed request names the failing step and code, and its diagnosis says under which mistake the signature would verify. Secrets are never shown.</p>
<table><thead><tr><th>Time (UTC)</th><th>Method</th><th>Path</th><th>Status</th><th>Code</th><th>Message</th></tr></thead><tbody>${list.map(requestRow)}</tbody></table>`;
}

export function requestDetailView(input: ViewInput, r: LoggedRequest, diagnosis: string): Html {
  const headers = r.http.headers.map(([n, v]) => `${n}: ${v}`).join('\n');
  return html`<h1>Request #${String(r.id)}: ${r.http.method} <code>${r.target}</code> → ${String(r.status)}</h1>
<section><h2>Verdict</h2><p>${r.code ? html`<code>${r.code}</code>: ` : ''}${r.message ?? 'accepted'}</p></section>
<section><h2>Diagnosis</h2><pre data-diagnosis>${diagnosis}</pre></section>
<section><h2>Headers as received</h2><pre>${headers}</pre>${r.truncated ? html`<p class="muted">body truncated</p>` : ''}</section>
<p><a href="/portal/requests">All requests</a></p>`;
}

function deliveryRow(input: ViewInput, d: DeliveryRecord): Html {
  const attempts = d.attempts.map(
    (a) =>
      html`<li>attempt ${String(a.attempt)} at ${a.startedAt}: ${a.responseStatus !== undefined ? `HTTP ${a.responseStatus}` : (a.error ?? 'pending')}<pre>${a.body}</pre></li>`,
  );
  const resend = actionForm(
    '/portal/actions/resend',
    input.csrf,
    { id: String(d.id) },
    html`<button>Resend</button>`,
    'class="inline"',
  );
  return html`<tr data-delivery="${String(d.id)}"><td>${String(d.id)}${d.resendOf !== undefined ? html` <span class="muted">(resend of ${String(d.resendOf)})</span>` : ''}</td><td>${d.kind}</td><td><code title="${d.resourceId}">${short(d.resourceId)}</code> ${status(d.eventStatus)}</td><td><code>${d.url ?? '(no URL)'}</code></td><td>${status(d.state)}</td><td>${d.nextAttemptAt ?? ''}</td>
<td><details id="delivery-${String(d.id)}"><summary>${String(d.attempts.length)} attempt(s)</summary><ul>${attempts}</ul></details></td><td>${resend}</td></tr>`;
}

export function webhooksView(input: ViewInput): Html {
  const deliveries = [...input.ctx.queue.deliveries()].reverse().slice(0, 200);
  return html`<h1>Webhooks</h1><p class="muted">Each delivery with its attempts: the exact payload sent, the receiver's answer, the next retry. "Resend" queues the same event again to the URL configured now.</p>
<table><thead><tr><th>#</th><th>Kind</th><th>Resource</th><th>URL</th><th>State</th><th>Next retry</th><th>Attempts</th><th></th></tr></thead><tbody>${deliveries.map((d) => deliveryRow(input, d))}</tbody></table>`;
}

function options(values: readonly string[], label: (v: string) => string = (v) => v): Html {
  return html`${values.map((v) => html`<option value="${v}">${label(v)}</option>`)}`;
}

/** What a "Move a …" section of the sandbox view offers: the items that can move, and where to. */
interface MoveSection {
  readonly title: string;
  /** Shown instead of the form when no item can move. */
  readonly none: string;
  readonly action: string;
  /** The form field naming the item, and its label. */
  readonly field: string;
  readonly label: string;
  readonly items: ReadonlyArray<{
    readonly id: string;
    readonly amount: string;
    readonly status: string;
  }>;
  readonly targets: readonly string[];
  readonly button: string;
}

/** A "Move a …" section: a form over the items that can move (short id, amount, status), or why none can. */
function moveSection(csrf: string, m: MoveSection): Html {
  const byId = new Map(m.items.map((i) => [i.id, i]));
  return html`<section><h2>${m.title}</h2>${
    m.items.length === 0
      ? html`<p class="muted">${m.none}</p>`
      : actionForm(
          m.action,
          csrf,
          {},
          html`<label>${m.label} <select name="${m.field}">${options(
            m.items.map((i) => i.id),
            (id) => `${short(id)} ${byId.get(id)!.amount} ${byId.get(id)!.status}`,
          )}</select></label>
<label>To <select name="status">${options(m.targets)}</select></label> <button>${m.button}</button>`,
        )
  }</section>`;
}

export function sandboxView(input: ViewInput): Html {
  const { csrf, state } = input;
  const applications = apps(state).map((a) => a.applicationId);
  const payments = [...state.payments.values()].filter(
    (p) => p.status === 'AWAITING_AUTHORIZATION' || p.status === 'COMPLETED',
  );
  const payouts = [...state.payouts.values()].filter(
    (p) => p.status === 'IN_PROGRESS' || p.status === 'HELD',
  );
  const refunds = [...state.refunds.values()].filter(
    (r) => r.status === 'IN_PROGRESS' || r.status === 'HELD',
  );
  return html`<h1>Sandbox controls</h1><p class="muted">Each control calls the same /sandbox/ route as the HTTP API, so it produces exactly the webhooks that route produces.</p>
<section><h2>Create a payment</h2>${actionForm(
    '/portal/actions/create-payment',
    csrf,
    {},
    html`<label>Application <select name="applicationId">${options(applications)}</select></label>
<label>Amount (GBP) <input type="text" name="amount" required value="50.00"></label>
<label>Status <select name="status"><option value="AWAITING_AUTHORIZATION">AWAITING_AUTHORIZATION</option>${options(PAYMENT_TARGETS)}</select></label> <button>Create payment</button>`,
  )}</section>
${moveSection(csrf, {
  title: 'Move a payment',
  none: 'No payment can move (none is AWAITING_AUTHORIZATION or COMPLETED).',
  action: '/portal/actions/move-payment',
  field: 'paymentId',
  label: 'Payment',
  items: payments.map((p) => ({ id: p.paymentId, amount: p.amount, status: p.status })),
  targets: PAYMENT_TARGETS,
  button: 'Move payment',
})}
${moveSection(csrf, {
  title: 'Move a payout',
  none: 'No payout is IN_PROGRESS or HELD.',
  action: '/portal/actions/advance-payout',
  field: 'payoutId',
  label: 'Payout',
  items: payouts.map((p) => ({ id: p.payoutId, amount: p.amount, status: p.status })),
  targets: MOVE_TARGETS,
  button: 'Move payout',
})}
${moveSection(csrf, {
  title: 'Move a refund',
  none: 'No refund is IN_PROGRESS or HELD.',
  action: '/portal/actions/advance-refund',
  field: 'refundId',
  label: 'Refund',
  items: refunds.map((r) => ({ id: r.refundId, amount: r.amount, status: r.status })),
  targets: MOVE_TARGETS,
  button: 'Move refund',
})}`;
}
