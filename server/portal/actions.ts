// The portal's actions: each calls the very route handler the HTTP API calls (same validation, rules, faults,
// lifecycle and webhooks), acting for the portal's merchant instead of checking credentials, so the portal and the
// API cannot disagree. Only the webhook settings, which the spec shows no API for, write state directly.
import {
  SANDBOX_ENDPOINTS,
  sandboxPath,
  type SandboxEndpointName,
} from '../../net/sandbox-protocol.js';
import { createRouter } from '../app.js';
import type { RouteHandler, ServiceContext } from '../context.js';
import { HttpError } from '../error-body.js';
import { PAYOUT_MEDIA_TYPE, REFUND_MEDIA_TYPE } from '../representations.js';
import type { Router } from '../router.js';
import type { Application } from '../state.js';
import { WEBHOOK_KINDS, type WebhookKind } from '../../src/webhooks/kinds.js';

/** What an action tells the page it returns to. */
export interface ActionResult {
  readonly ok: boolean;
  readonly text: string;
  /** The view to show next. */
  readonly back: string;
}

interface RouteAnswer {
  readonly status: number;
  readonly json?: Record<string, unknown>;
  /** The error message as the API gives it (`errorMessage` of the spec's error body). */
  readonly error?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export class PortalActions {
  private readonly router: Router<RouteHandler> = createRouter();

  constructor(private readonly ctx: ServiceContext) {}

  /** Runs the action named by the path (`/portal/actions/<name>`) with the posted form. */
  async run(name: string, form: URLSearchParams): Promise<ActionResult> {
    switch (name) {
      case 'payout':
        return this.payout(form);
      case 'commit':
      case 'cancel':
        return this.decide(name, form);
      case 'refund':
        return this.refund(form);
      case 'webhook-urls':
        return this.webhookUrls(form);
      case 'resend':
        return this.resend(form);
      case 'create-payment':
        return this.sandbox(
          '/portal/sandbox',
          'createPayment',
          {},
          {
            applicationId: field(form, 'applicationId'),
            amount: field(form, 'amount'),
            status: field(form, 'status'),
          },
          (j) => `payment ${String(j.paymentId)} created: ${String(j.status)}`,
        );
      case 'move-payment':
        return this.sandbox(
          '/portal/sandbox',
          'movePayment',
          { paymentId: idField(form, 'paymentId') },
          { status: field(form, 'status') },
          (j) => `payment ${String(j.paymentId)} is now ${String(j.status)}`,
        );
      case 'advance-payout':
        return this.sandbox(
          '/portal/sandbox',
          'advancePayout',
          { payoutId: idField(form, 'payoutId') },
          { status: field(form, 'status') },
          (j) => `payout ${String(j.payoutId)} is now ${String(j.status)}`,
        );
      case 'advance-refund':
        return this.sandbox(
          '/portal/sandbox',
          'advanceRefund',
          { refundId: idField(form, 'refundId') },
          { status: field(form, 'status') },
          (j) => `refund ${String(j.refundPaymentId)} is now ${String(j.status)}`,
        );
      default:
        throw new HttpError(404, 'route_not_found', `no portal action "${name}"`);
    }
  }

  private application(id: string): Application {
    const app = this.ctx.state.applications.get(id);
    if (app === undefined)
      throw new HttpError(404, 'application_not_found', `no application "${id}"`);
    return app;
  }

  /** Calls the API route at `path` in-process, as the application when given. Never throws for a refusal. */
  private async call(
    method: string,
    path: string,
    body: unknown,
    mediaType: string,
    asApplication?: Application,
  ): Promise<RouteAnswer> {
    const bytes =
      body === undefined ? new Uint8Array(0) : new TextEncoder().encode(JSON.stringify(body));
    const headers: Array<[string, string]> = [
      ['accept', mediaType],
      ...(bytes.length > 0 ? ([['content-type', mediaType]] as Array<[string, string]>) : []),
    ];
    try {
      const route = this.router.match(method, path);
      const answer = await route.handler(this.ctx, {
        http: { method, url: `http://portal.invalid${path}`, headers, body: bytes },
        params: route.params,
        target: path,
        ...(asApplication !== undefined ? { asApplication } : {}),
      });
      let json: Record<string, unknown> | undefined;
      try {
        json = JSON.parse(answer.body) as Record<string, unknown>;
      } catch {
        json = undefined;
      }
      const error =
        answer.status >= 400 ? String(json?.errorMessage ?? json?.error ?? answer.body) : undefined;
      return {
        status: answer.status,
        ...(json !== undefined ? { json } : {}),
        ...(error !== undefined ? { error } : {}),
      };
    } catch (error) {
      if (error instanceof HttpError) return { status: error.status, error: error.message };
      throw error;
    }
  }

  private async payout(form: URLSearchParams): Promise<ActionResult> {
    const app = this.application(field(form, 'applicationId'));
    const body = {
      applicationId: app.applicationId,
      payInAccountSelector: app.virtualAccount.id,
      amount: field(form, 'amount'),
      reference: field(form, 'reference'),
      destination: {
        destinationType: 'toAccount',
        accountType: 'SCAN',
        holderName: field(form, 'holderName'),
        accountNumber: field(form, 'accountNumber'),
        sortCode: field(form, 'sortCode'),
        iban: null,
      },
      doNotCommitOnCoPMismatch: form.get('doNotCommitOnCoPMismatch') === 'true',
    };
    // The form's amount is text; the API takes a JSON number, as the spec's examples send it.
    const amount = Number(body.amount);
    const answer = await this.call(
      'POST',
      '/api/payouts',
      {
        ...body,
        amount: Number.isFinite(amount) && body.amount.trim() !== '' ? amount : body.amount,
      },
      PAYOUT_MEDIA_TYPE,
      app,
    );
    if (answer.error !== undefined)
      return {
        ok: false,
        text: `payout refused (${answer.status}): ${answer.error}`,
        back: '/portal/balances',
      };
    const p = answer.json!;
    const held = p.status === 'AWAITING_COMMIT' ? ': held until you commit or cancel it' : '';
    return {
      ok: true,
      text: `payout ${String(p.payoutId)} created: status ${String(p.status)}, copStatus ${String(p.copStatus)}${held}`,
      back: '/portal/balances',
    };
  }

  private async decide(
    decision: 'commit' | 'cancel',
    form: URLSearchParams,
  ): Promise<ActionResult> {
    const id = idField(form, 'payoutId');
    const payout = await this.ctx.store.getPayout(id.toLowerCase());
    if (payout === undefined)
      return { ok: false, text: `no payout "${id}"`, back: '/portal/balances' };
    const answer = await this.call(
      'POST',
      `/api/payouts/${id}/${decision}`,
      undefined,
      PAYOUT_MEDIA_TYPE,
      this.application(payout.applicationId),
    );
    if (answer.error !== undefined)
      return {
        ok: false,
        text: `${decision} refused (${answer.status}): ${answer.error}`,
        back: '/portal/balances',
      };
    return {
      ok: true,
      text: `payout ${id} ${decision === 'commit' ? 'committed' : 'cancelled'}: status ${String(answer.json!.status)}`,
      back: '/portal/balances',
    };
  }

  private async refund(form: URLSearchParams): Promise<ActionResult> {
    const paymentId = idField(form, 'paymentId');
    const payment = await this.ctx.store.getPayment(paymentId.toLowerCase());
    if (payment === undefined)
      return { ok: false, text: `no payment "${paymentId}"`, back: '/portal/payments' };
    const app = this.application(payment.applicationId);
    const answer = await this.call(
      'POST',
      `/api/merchants/${encodeURIComponent(app.merchantId)}/applications/${app.applicationId}/refunds`,
      { paymentId: payment.paymentId, amount: field(form, 'amount') },
      REFUND_MEDIA_TYPE,
      app,
    );
    if (answer.error !== undefined)
      return {
        ok: false,
        text: `refund refused (${answer.status}): ${answer.error}`,
        back: '/portal/payments',
      };
    return {
      ok: true,
      text: `refund ${String(answer.json!.refundPaymentId)} of ${field(form, 'amount')} GBP started: status ${String(answer.json!.status)}`,
      back: '/portal/payments',
    };
  }

  private async webhookUrls(form: URLSearchParams): Promise<ActionResult> {
    const app = this.application(field(form, 'applicationId'));
    const urls: Partial<Record<WebhookKind, string>> = {};
    for (const kind of WEBHOOK_KINDS) {
      const value = (form.get(kind) ?? '').trim();
      if (value === '') continue;
      let url: URL;
      try {
        url = new URL(value);
      } catch {
        return {
          ok: false,
          text: `${kind} webhook URL "${value}" is not a URL`,
          back: '/portal/settings',
        };
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:')
        return {
          ok: false,
          text: `${kind} webhook URL must be http or https`,
          back: '/portal/settings',
        };
      urls[kind] = value;
    }
    // Through the store: on Redis every instance sends its next webhooks there too (each rereads the settings twice a second).
    await this.ctx.store.setWebhookUrls(app.applicationId, urls);
    this.ctx.log(
      `portal: webhook URLs of application ${app.applicationId} set (${Object.keys(urls).join(', ') || 'all defaults'})`,
    );
    return {
      ok: true,
      text: `webhook URLs of application ${app.applicationId} saved`,
      back: '/portal/settings',
    };
  }

  private resend(form: URLSearchParams): ActionResult {
    const id = Number(field(form, 'id'));
    const record = Number.isSafeInteger(id) ? this.ctx.queue.resend(id) : undefined;
    if (record === undefined)
      return {
        ok: false,
        text: `no delivery #${field(form, 'id')} to resend`,
        back: '/portal/webhooks',
      };
    return {
      ok: true,
      text: `delivery #${id} queued again as #${record.id}${record.url === null ? ' (no URL configured: nothing sent)' : ` to ${record.url}`}`,
      back: '/portal/webhooks',
    };
  }

  /** Calls the /sandbox/ route `endpoint` (the portal's router serves it at the default path). */
  private async sandbox(
    back: string,
    endpoint: SandboxEndpointName,
    params: Readonly<Record<string, string>>,
    body: Record<string, string>,
    describe: (json: Record<string, unknown>) => string,
  ): Promise<ActionResult> {
    const { method } = SANDBOX_ENDPOINTS[endpoint];
    const answer = await this.call(method, sandboxPath(endpoint, params), body, 'application/json');
    if (answer.error !== undefined)
      return { ok: false, text: `refused (${answer.status}): ${answer.error}`, back };
    return { ok: true, text: describe(answer.json!), back };
  }
}

function field(form: URLSearchParams, name: string): string {
  const value = form.get(name);
  if (value === null) throw new HttpError(400, 'invalid_body', `form field "${name}" is missing`);
  return value;
}

/** A form field that names a resource: a UUID, so it is safe in a path. */
function idField(form: URLSearchParams, name: string): string {
  const value = field(form, name);
  if (!UUID.test(value))
    throw new HttpError(400, 'invalid_body', `form field "${name}" is not a UUID`);
  return value;
}
