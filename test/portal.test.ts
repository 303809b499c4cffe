// The sandbox portal over HTTP (the browser flows are in portal-browser.test.ts): portal actions produce the same
// resources and webhooks as the API, the spec's refund rules with the API's messages, webhook URLs effective at once,
// cross-origin and foreign-host requests refused with nothing changed, the Requests view's diagnosis, no secret in any
// page, and the bounded live-event fan-out.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diagnoseForPortal } from '../cli/portal-diagnosis.js';
import { sendRequest, type RecordedExchange } from '../conformance/http/http-client.js';
import {
  startWebhookListener,
  type ReceivedWebhook,
  type WebhookListener,
} from '../conformance/http/webhook-listener.js';
import { createPortal } from '../server/portal/index.js';
import { startReferenceService, type RunningReferenceService } from '../server/index.js';
import { WEBHOOK_URLS_REFRESH_MS } from '../server/start-steps.js';
import { exportEd25519SeedBase64 } from '../src/keys/index.js';
import { applySignedHeaders, signRequest } from '../src/index.js';
import { redisTestsEnabled, startRedisServer } from './fixtures/redis-server.js';
import { until } from './fixtures/until.js';
import { startTestService, testApplication } from './reference-service-client.js';

const PAYOUT = 'application/vnd.service.v1.0+json';
const REFUND = 'application/vnd.service.v0.7+json';
const destination = {
  destinationType: 'toAccount',
  accountType: 'SCAN',
  holderName: 'Jane Payee',
  accountNumber: '12345678',
  sortCode: '040004',
  iban: null,
};

let service: RunningReferenceService;
let listener: WebhookListener;
let other: WebhookListener;

beforeAll(async () => {
  [listener, other] = await Promise.all([startWebhookListener(), startWebhookListener()]);
  service = await startReferenceService({
    webhookUrls: {
      payment: listener.urlFor('payment'),
      payout: listener.urlFor('payout'),
      refund: listener.urlFor('refund'),
    },
    retry: { initialDelayMs: 50, maxDelayMs: 100, maxAttempts: 3, requestTimeoutMs: 2_000 },
    extensions: [createPortal({ diagnose: diagnoseForPortal })],
  });
});
afterAll(async () => {
  await service?.close();
  await Promise.all([listener?.close(), other?.close()]);
});

const base = () => service.baseUrl;
const app = () => service.credentials;

async function get(path: string, headers: Record<string, string> = {}): Promise<RecordedExchange> {
  return sendRequest({ method: 'GET', url: `${base()}${path}`, headers }, { timeoutMs: 5_000 });
}

/** The CSRF token of the portal's forms, read from a page as a browser would. */
async function csrfToken(): Promise<string> {
  const page = (await get('/portal/balances')).response!.bodyText!;
  return /name="csrf" value="([^"]+)"/.exec(page)![1]!;
}

/** Posts a portal form; returns the response and the flash text shown on the page it redirects to. */
async function portalPost(
  action: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<{ status: number; flash?: string }> {
  const token = fields.csrf ?? (await csrfToken());
  const body = new TextEncoder().encode(new URLSearchParams({ ...fields, csrf: token }).toString());
  const ex = await sendRequest(
    {
      method: 'POST',
      url: `${base()}/portal/actions/${action}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body,
    },
    { timeoutMs: 5_000 },
  );
  const status = ex.response!.status;
  const location = ex.response!.headers.find(([n]) => n.toLowerCase() === 'location')?.[1];
  if (status !== 303 || location === undefined) return { status };
  const page = (await get(location)).response!.bodyText!;
  const flash = /<p class="flash [a-z]+" role="status">([^<]*)<\/p>/.exec(page)?.[1];
  return {
    status,
    ...(flash !== undefined
      ? {
          flash: flash
            .replace(/&quot;/g, '"')
            .replace(/&#39;/g, "'")
            .replace(/&amp;/g, '&'),
        }
      : {}),
  };
}

async function signedPayout(
  body: Record<string, unknown>,
  path = '/api/payouts',
): Promise<RecordedExchange> {
  const c = app();
  const request = {
    method: 'POST',
    url: `${base()}${path}`,
    headers: [
      ['content-type', PAYOUT],
      ['accept', PAYOUT],
    ] as Array<[string, string]>,
    body: new TextEncoder().encode(JSON.stringify(body)),
  };
  const signed = signRequest(request, {
    applicationId: c.applicationId,
    applicationSecret: c.applicationSecret,
    keyId: c.keyId,
    privateKey: c.privateKey!,
  });
  return sendRequest(applySignedHeaders(request, signed.headers), { timeoutMs: 5_000 });
}

async function sandboxJson(path: string): Promise<Record<string, unknown>> {
  return (await get(path)).response!.json as Record<string, unknown>;
}

/** The webhooks received for a resource, as (status, payload keys) pairs. */
async function webhooksFor(
  resourceId: string,
  atLeast: number,
): Promise<Array<{ status: unknown; keys: string[] }>> {
  const mentions = (w: ReceivedWebhook) => JSON.stringify(w.json ?? {}).includes(resourceId);
  await listener.waitFor((all) => all.filter(mentions).length >= atLeast, { timeoutMs: 5_000 });
  return listener
    .received()
    .filter(mentions)
    .map((w) => {
      const j = w.json as Record<string, unknown>;
      return {
        status: j.payoutStatus ?? j.refundStatus ?? j.paymentStatus,
        keys: Object.keys(j).sort(),
      };
    });
}

/** A payout resource without what differs per payout (ids, times, trace). */
const comparable = (p: Record<string, unknown>) => {
  const { payoutId: _id, createdAt: _at, tracingId: _t, reference: _r, ...rest } = p;
  return rest;
};

describe('portal payouts are API payouts (spec: What the service does 2; Payout transitions)', () => {
  it('a held payout made in the portal equals one made through the API, with the same webhooks after commit', async () => {
    const apiAnswer = await signedPayout({
      applicationId: app().applicationId,
      payInAccountSelector: app().payInAccountSelector,
      amount: 12.5,
      reference: 'API-HELD',
      destination: { ...destination, holderName: 'CoP Partial Match' },
      doNotCommitOnCoPMismatch: true,
    });
    expect(apiAnswer.response?.status).toBe(201);
    const apiPayout = apiAnswer.response!.json as Record<string, unknown>;
    expect(apiPayout.status).toBe('AWAITING_COMMIT');

    const made = await portalPost('payout', {
      applicationId: app().applicationId,
      holderName: 'CoP Partial Match',
      accountNumber: '12345678',
      sortCode: '040004',
      amount: '12.50',
      reference: 'PORTAL-HELD',
      doNotCommitOnCoPMismatch: 'true',
    });
    expect(made.status).toBe(303);
    expect(made.flash).toMatch(/status AWAITING_COMMIT, copStatus PARTIAL_MATCH/);
    const portalId = /payout ([0-9a-f-]{36})/.exec(made.flash!)![1]!;
    const portalPayout = await sandboxJson(`/sandbox/payouts/${portalId}`);
    expect(comparable(portalPayout)).toEqual(comparable(apiPayout));

    // Commit both: the API one through the API, the portal one through the portal.
    const c = app();
    const commit = await sendRequest(
      {
        method: 'POST',
        url: `${base()}/api/payouts/${String(apiPayout.payoutId)}/commit`,
        headers: {
          'content-type': PAYOUT,
          accept: PAYOUT,
          'x-application-id': c.applicationId,
          'x-application-secret': c.applicationSecret,
        },
      },
      { timeoutMs: 5_000 },
    );
    expect(commit.response?.status).toBe(200);
    const committed = await portalPost('commit', { payoutId: portalId });
    expect(committed.flash).toMatch(/committed: status IN_PROGRESS/);
    expect(await webhooksFor(portalId, 1)).toEqual(
      await webhooksFor(String(apiPayout.payoutId), 1),
    );
  });

  it('the portal refuses what the API refuses, with the API message', async () => {
    const refused = await portalPost('payout', {
      applicationId: app().applicationId,
      holderName: 'Jane',
      accountNumber: '12345678',
      sortCode: '040004',
      amount: '-3',
      reference: 'NEG',
    });
    expect(refused.flash).toMatch(/^payout refused \(4\d\d\): /);
  });
});

describe('portal refunds are API refunds (spec: Limits; "a refund webhook is sent whether the refund was started in the portal or by API")', () => {
  it('a partial refund from the portal equals one from the API, and the one-active-refund rule speaks with the API message', async () => {
    const [first, second] = service.seededPayments.settled;
    const c = app();
    const apiRefund = await sendRequest(
      {
        method: 'POST',
        url: `${base()}/api/merchants/${c.merchantId}/applications/${c.applicationId}/refunds`,
        headers: {
          'content-type': REFUND,
          accept: REFUND,
          'x-application-id': c.applicationId,
          'x-application-secret': c.applicationSecret,
        },
        body: new TextEncoder().encode(
          JSON.stringify({ paymentId: first!.paymentId, amount: '1.00' }),
        ),
      },
      { timeoutMs: 5_000 },
    );
    expect(apiRefund.response?.status).toBe(201);
    const portalRefund = await portalPost('refund', {
      paymentId: second!.paymentId,
      amount: '1.00',
    });
    expect(portalRefund.flash).toMatch(
      /refund [0-9a-f-]{36} of 1.00 GBP started: status IN_PROGRESS/,
    );
    const portalId = /refund ([0-9a-f-]{36})/.exec(portalRefund.flash!)![1]!;
    const a = apiRefund.response!.json as Record<string, unknown>;
    const p = await sandboxJson(`/sandbox/refunds/${portalId}`);
    const strip = ({
      refundPaymentId: _r,
      refundedPaymentId: _p,
      createdAtUtc: _c,
      refundRequestDetails,
      ...rest
    }: Record<string, unknown>) => ({
      ...rest,
      details: Object.keys(refundRequestDetails as object).sort(),
    });
    expect(strip(p)).toEqual(strip(a));
    expect(await webhooksFor(portalId, 1)).toEqual(await webhooksFor(String(a.refundPaymentId), 1));

    // A second refund while the first is active: refused, with the same message the API gives.
    const apiSecond = await sendRequest(
      {
        method: 'POST',
        url: `${base()}/api/merchants/${c.merchantId}/applications/${c.applicationId}/refunds`,
        headers: {
          'content-type': REFUND,
          accept: REFUND,
          'x-application-id': c.applicationId,
          'x-application-secret': c.applicationSecret,
        },
        body: new TextEncoder().encode(
          JSON.stringify({ paymentId: first!.paymentId, amount: '1.00' }),
        ),
      },
      { timeoutMs: 5_000 },
    );
    const apiMessage = (apiSecond.response!.json as { errorMessage: string }).errorMessage;
    const portalSecond = await portalPost('refund', {
      paymentId: second!.paymentId,
      amount: '1.00',
    });
    expect(portalSecond.flash).toBe(
      `refund refused (${apiSecond.response!.status}): ${apiMessage.replace('"' + first!.paymentId + '"', '"' + second!.paymentId + '"').replace(first!.paymentId, second!.paymentId)}`,
    );
  });
});

describe('Settings → Webhooks And Callbacks', () => {
  it('a payout webhook URL set in the portal is used for the next webhook, and resend repeats a delivery there', async () => {
    const saved = await portalPost('webhook-urls', {
      applicationId: app().applicationId,
      payment: '',
      payout: other.urlFor('payout'),
      refund: '',
    });
    expect(saved.flash).toMatch(/saved/);
    const made = await portalPost('payout', {
      applicationId: app().applicationId,
      holderName: 'Jane Payee',
      accountNumber: '12345678',
      sortCode: '040004',
      amount: '2.00',
      reference: 'TO-OTHER',
    });
    const id = /payout ([0-9a-f-]{36})/.exec(made.flash!)![1]!;
    expect(
      await other.waitFor((all) => all.some((w) => JSON.stringify(w.json).includes(id)), {
        timeoutMs: 5_000,
      }),
    ).toBe(true);
    expect(listener.received().some((w) => JSON.stringify(w.json).includes(id))).toBe(false);
    const delivery = (await sandboxJson(
      `/sandbox/deliveries?resourceId=${id}`,
    )) as unknown as Array<{ id: number }>;
    const resent = await portalPost('resend', { id: String(delivery[0]!.id) });
    expect(resent.flash).toMatch(
      new RegExp(
        `queued again as #\\d+ to ${other.urlFor('payout').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`,
      ),
    );
    expect(
      await other.waitFor(
        (all) => all.filter((w) => JSON.stringify(w.json).includes(id)).length >= 2,
        { timeoutMs: 5_000 },
      ),
    ).toBe(true);
    await portalPost('webhook-urls', {
      applicationId: app().applicationId,
      payment: '',
      payout: '',
      refund: '',
    });
  });
});

describe('safe by default: nothing changes without the portal page and its token', () => {
  it('refuses a cross-origin POST, a cross-site fetch, a missing token and a foreign Host header, with no payout created', async () => {
    const before = ((await get('/sandbox/payouts')).response!.json as unknown[]).length;
    const token = await csrfToken();
    const fields = {
      applicationId: app().applicationId,
      holderName: 'Evil',
      accountNumber: '12345678',
      sortCode: '040004',
      amount: '9.99',
      reference: 'CSRF',
    };
    expect(
      (await portalPost('payout', { ...fields, csrf: token }, { origin: 'http://evil.example' }))
        .status,
    ).toBe(403);
    expect(
      (await portalPost('payout', { ...fields, csrf: token }, { 'sec-fetch-site': 'cross-site' }))
        .status,
    ).toBe(403);
    expect((await portalPost('payout', { ...fields, csrf: 'not-the-token' })).status).toBe(403);
    expect(
      (await portalPost('payout', { ...fields, csrf: token }, { host: 'rebound.example:80' }))
        .status,
    ).toBe(403);
    expect((await get('/portal/balances', { host: 'rebound.example' })).response!.status).toBe(403);
    expect(((await get('/sandbox/payouts')).response!.json as unknown[]).length).toBe(before);
  });

  it('never shows the application secret or the private key, on any view', async () => {
    const c = app();
    await signedPayout({
      applicationId: c.applicationId,
      payInAccountSelector: 'main',
      amount: 1,
      reference: 'SECRET-CHECK',
      destination,
    });
    for (const view of ['balances', 'payments', 'settings', 'requests', 'webhooks', 'sandbox']) {
      const text = (await get(`/portal/${view}`)).response!.bodyText!;
      expect(text).not.toContain(c.applicationSecret);
      expect(text).not.toContain(exportEd25519SeedBase64(c.privateKey!));
    }
  });

  it('frames are refused and scripts come only from the portal itself', async () => {
    const r = (await get('/portal/balances')).response!;
    const header = (n: string) => r.headers.find(([k]) => k.toLowerCase() === n)?.[1];
    expect(header('content-security-policy')).toMatch(/frame-ancestors 'none'/);
    expect(header('x-frame-options')).toBe('DENY');
  });
});

describe('Requests view', () => {
  it('shows a rejected signed request with its step and code, and diagnoses a query left out of @path', async () => {
    const c = app();
    const body = new TextEncoder().encode(
      JSON.stringify({
        applicationId: c.applicationId,
        payInAccountSelector: 'main',
        amount: 1,
        reference: 'DIAG',
        destination,
      }),
    );
    // Signed for /api/payouts, sent to /api/payouts?trace=1: the classic RFC 9421 @path default.
    const request = {
      method: 'POST',
      url: `${base()}/api/payouts`,
      headers: [['content-type', PAYOUT]] as Array<[string, string]>,
      body,
    };
    const signed = applySignedHeaders(
      request,
      signRequest(request, {
        applicationId: c.applicationId,
        applicationSecret: c.applicationSecret,
        keyId: c.keyId,
        privateKey: c.privateKey!,
      }).headers,
    );
    const sent = await sendRequest(
      { ...signed, url: `${base()}/api/payouts?trace=1` },
      { timeoutMs: 5_000 },
    );
    expect(sent.response?.status).toBe(401);
    const list = (await get('/portal/requests')).response!.bodyText!;
    const row =
      /<tr data-request="(\d+)"><td>[^<]*<\/td><td>POST<\/td><td><code>\/api\/payouts\?trace=1<\/code><\/td><td>401<\/td><td><code>SIGNATURE_INVALID<\/code>/.exec(
        list,
      );
    expect(row).not.toBeNull();
    const detail = (await get(`/portal/requests/${row![1]}`)).response!.bodyText!;
    expect(detail).toMatch(/@path signed without the query string/);
    expect(detail).toMatch(/path-without-query/);
    expect(detail).not.toContain(c.applicationSecret);
  });
});

describe('live views (server-sent events, bounded fan-out)', () => {
  it('tells an open view that something changed, and refuses streams beyond the cap', async () => {
    const capped = await startReferenceService({
      seedPayments: false,
      extensions: [createPortal({ maxLiveViews: 2 })],
    });
    const open: http.ClientRequest[] = [];
    try {
      const stream = (): Promise<{ status: number; events: () => string }> =>
        new Promise((resolve, reject) => {
          const req = http.get(`${capped.baseUrl}/portal/events`, (res) => {
            let text = '';
            res.on('data', (b: Buffer) => (text += b.toString('utf8')));
            resolve({ status: res.statusCode ?? 0, events: () => text });
          });
          req.on('error', reject);
          open.push(req);
        });
      const first = await stream();
      const second = await stream();
      expect([first.status, second.status]).toEqual([200, 200]);
      expect((await stream()).status).toBe(503);
      await sendRequest(
        { method: 'GET', url: `${capped.baseUrl}/.well-known/signature/pem`, headers: {} },
        { timeoutMs: 5_000 },
      );
      const deadline = Date.now() + 5_000;
      while (!first.events().includes('event: change') && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      expect(first.events()).toContain('event: change');
    } finally {
      for (const req of open) req.destroy();
      await capped.close();
    }
  });
});

describe.skipIf(!redisTestsEnabled())(
  'the portal on Redis: every instance shows and moves the same state',
  () => {
    /** Posts a portal form on instance `s` (with its page's CSRF token) and returns the flash message it leads to. */
    const post = async (
      s: RunningReferenceService,
      action: string,
      fields: Record<string, string>,
    ) => {
      const page = (
        await sendRequest(
          { method: 'GET', url: `${s.baseUrl}/portal/balances`, headers: {} },
          { timeoutMs: 5_000 },
        )
      ).response!.bodyText!;
      const csrf = /name="csrf" value="([^"]+)"/.exec(page)![1]!;
      const body = new TextEncoder().encode(new URLSearchParams({ ...fields, csrf }).toString());
      const ex = await sendRequest(
        {
          method: 'POST',
          url: `${s.baseUrl}/portal/actions/${action}`,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body,
        },
        { timeoutMs: 5_000 },
      );
      const location = ex.response!.headers.find(([n]) => n.toLowerCase() === 'location')![1];
      return (
        /<p class="flash [a-z]+" role="status">([^<]*)<\/p>/.exec(
          (
            await sendRequest(
              { method: 'GET', url: `${s.baseUrl}${location}`, headers: {} },
              { timeoutMs: 5_000 },
            )
          ).response!.bodyText!,
        )?.[1] ?? ''
      );
    };

    it("a payout held through one instance's portal is listed and committed in the other instance's portal", async () => {
      const redis = await startRedisServer();
      const instances = await Promise.all(
        [0, 1].map(() => startTestService({ redisUrl: redis.url, extensions: [createPortal()] })),
      );
      try {
        const [a, b] = instances as [RunningReferenceService, RunningReferenceService];
        const made = await post(a, 'payout', {
          applicationId: testApplication().applicationId,
          holderName: 'CoP No Match',
          accountNumber: '12345678',
          sortCode: '040004',
          amount: '6.00',
          reference: 'TWO',
          doNotCommitOnCoPMismatch: 'true',
        });
        expect(made).toMatch(/status AWAITING_COMMIT/);
        const id = /payout ([0-9a-f-]{36})/.exec(made)![1]!;
        const onB = (
          await sendRequest(
            { method: 'GET', url: `${b.baseUrl}/portal/balances`, headers: {} },
            { timeoutMs: 5_000 },
          )
        ).response!.bodyText!;
        expect(onB).toContain(`data-payout="${id}"`);
        expect(await post(b, 'commit', { payoutId: id })).toMatch(/committed: status IN_PROGRESS/);
        const seenByA = (
          await sendRequest(
            { method: 'GET', url: `${a.baseUrl}/sandbox/payouts/${id}`, headers: {} },
            { timeoutMs: 5_000 },
          )
        ).response!.json as { status: string };
        expect(seenByA.status).toBe('IN_PROGRESS');
      } finally {
        await Promise.all(instances.map((s) => s.close()));
        await redis.close();
      }
    });

    it("a webhook URL set through one instance's portal is where the other instance sends its next webhook", async () => {
      const redis = await startRedisServer();
      const receiver = await startWebhookListener();
      // Long lifecycle: nothing moves by itself, so the webhook below is queued by the instance the test asks.
      const instances = await Promise.all(
        [0, 1].map(() =>
          startTestService({
            redisUrl: redis.url,
            lifecycleDelayMs: 600_000,
            extensions: [createPortal()],
          }),
        ),
      );
      try {
        const [a, b] = instances as [RunningReferenceService, RunningReferenceService];
        const applicationId = testApplication().applicationId;
        expect(
          await post(a, 'webhook-urls', {
            applicationId,
            payment: '',
            payout: receiver.urlFor('payout'),
            refund: '',
          }),
        ).toMatch(/saved/);
        // B's Settings page reads the store: the URL shows at once.
        const settings = (
          await sendRequest(
            { method: 'GET', url: `${b.baseUrl}/portal/settings`, headers: {} },
            { timeoutMs: 5_000 },
          )
        ).response!.bodyText!;
        expect(settings).toContain(receiver.urlFor('payout'));
        // B rereads its own view every WEBHOOK_URLS_REFRESH_MS: the first payout it makes once it has (asked until
        // then, bounded) queues its webhook for the URL set through A.
        let made = 0;
        const id = await until(
          'a payout made through B queued for the URL set through A',
          async () => {
            const flash = await post(b, 'payout', {
              applicationId,
              holderName: 'Jane Payee',
              accountNumber: '12345678',
              sortCode: '040004',
              amount: '4.00',
              reference: `SHARED-URL-${(made += 1)}`,
            });
            const payoutId = /payout ([0-9a-f-]{36})/.exec(flash)![1]!;
            const queued = b.deliveries().find((d) => d.resourceId === payoutId);
            return queued?.url === receiver.urlFor('payout') && payoutId;
          },
          20 * WEBHOOK_URLS_REFRESH_MS,
          WEBHOOK_URLS_REFRESH_MS / 5,
        );
        expect(await post(b, 'advance-payout', { payoutId: id, status: 'PROCESSED' })).toMatch(
          /PROCESSED/,
        );
        await receiver.waitFor(
          (all) => all.some((w) => JSON.stringify(w.json ?? {}).includes(id)),
          { timeoutMs: 10_000 },
        );
        expect(receiver.received().some((w) => JSON.stringify(w.json ?? {}).includes(id))).toBe(
          true,
        );
      } finally {
        await Promise.all(instances.map((s) => s.close()));
        await receiver.close();
        await redis.close();
      }
    }, 60_000);
  },
);
