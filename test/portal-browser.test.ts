// The sandbox portal in a real browser: Debian's Chromium driven by playwright-core (the system browser, nothing
// downloaded). A held payout made and committed with the balance changing on the same page, a partial refund from
// the Payments dialog, a webhook URL set in Settings and the delivery seen in Webhooks, a mis-signed request diagnosed
// in Requests, and a cross-origin form refused. Screenshots of every view go to reports/portal-screenshots/.
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diagnoseForPortal } from '../cli/portal-diagnosis.js';
import { sendRequest } from '../conformance/http/http-client.js';
import {
  startWebhookListener,
  type WebhookListener,
} from '../conformance/http/webhook-listener.js';
import { createPortal } from '../server/portal/index.js';
import { startReferenceService, type RunningReferenceService } from '../server/index.js';
import { applySignedHeaders, signRequest } from '../src/index.js';
import { CHROMIUM_ARGS, findChromium } from './fixtures/chromium.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const shots = join(root, 'reports', 'portal-screenshots');

const browserBinary = findChromium();
// In CI a missing browser is a failure, never a skip.
const skip = browserBinary.path === undefined && process.env.CI !== 'true';
if (browserBinary.path === undefined)
  console.warn(
    `${process.env.CI === 'true' ? 'FAILING' : 'SKIPPED'}: portal browser tests: ${browserBinary.missing}`,
  );

let service: RunningReferenceService;
let listener: WebhookListener;
let receiver: WebhookListener;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  if (skip) return;
  expect(browserBinary.missing).toBeUndefined();
  mkdirSync(shots, { recursive: true });
  [listener, receiver] = await Promise.all([startWebhookListener(), startWebhookListener()]);
  service = await startReferenceService({
    webhookUrls: {
      payment: listener.urlFor('payment'),
      payout: listener.urlFor('payout'),
      refund: listener.urlFor('refund'),
    },
    lifecycleDelayMs: 700,
    retry: { initialDelayMs: 100, maxDelayMs: 200, maxAttempts: 3, requestTimeoutMs: 2_000 },
    extensions: [createPortal({ diagnose: diagnoseForPortal })],
  });
  browser = await chromium.launch({
    executablePath: browserBinary.path!,
    headless: true,
    args: [...CHROMIUM_ARGS],
  });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(30_000);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await service?.close();
  await Promise.all([listener?.close(), receiver?.close()]);
});

const flash = () => page.locator('p.flash').textContent();

describe.skipIf(skip)('sandbox portal in headless Chromium', { timeout: 90_000 }, () => {
  it('Balances: a payout held by a CoP trigger is committed, and the balance changes on the same page when it finishes', async () => {
    await page.goto(`${service.baseUrl}/portal`);
    expect(page.url()).toMatch(/\/portal\/balances$/);
    const balance = page.locator('[data-balance]').first();
    const before = Number(await balance.textContent());
    await page.fill('input[name="holderName"]', 'CoP No Match');
    await page.fill('input[name="amount"]', '25.00');
    await page.check('input[name="doNotCommitOnCoPMismatch"]');
    await page.click('button:has-text("Make Payout")');
    expect(await flash()).toMatch(/status AWAITING_COMMIT, copStatus NO_MATCH/);
    const payoutId = /payout ([0-9a-f-]{36})/.exec((await flash()) ?? '')![1]!;
    const row = page.locator(`tr[data-payout="${payoutId}"]`);
    await row.locator('button:has-text("Commit")').click();
    expect(await flash()).toMatch(/committed: status IN_PROGRESS/);
    // From here no navigation: the lifecycle moves the payout to PROCESSED and the page learns it over SSE.
    // A marker in the page's global scope survives only if the page is never reloaded.
    await page.evaluate(() => {
      (globalThis as Record<string, unknown>).stayed = true;
    });
    await expect
      .poll(async () => Number(await balance.textContent()), { timeout: 30_000, interval: 100 })
      .toBe(before - 25);
    expect(await page.evaluate(() => (globalThis as Record<string, unknown>).stayed)).toBe(true);
    expect(await page.locator(`tr[data-payout="${payoutId}"] .status`).first().textContent()).toBe(
      'PROCESSED',
    );
    await page.screenshot({ path: join(shots, 'balances.png'), fullPage: true });
  });

  it('a live refresh keeps what was typed: the page waits until the form is sent or put back', async () => {
    await page.goto(`${service.baseUrl}/portal/balances`);
    const holder = page.locator('input[name="holderName"]');
    const initial = await holder.inputValue();
    await holder.fill('Typed But Not Sent');
    // Focus leaves the form, so only the typed value says that someone is editing.
    await page.locator('header').first().click();
    // This page's own listener for the change that another tab's payout makes.
    const changed = page.evaluate(
      () =>
        new Promise<boolean>((resolve) => {
          const events = new EventSource('/portal/events');
          events.addEventListener('change', () => {
            events.close();
            resolve(true);
          });
          setTimeout(() => resolve(false), 10_000);
        }),
    );
    await page.waitForTimeout(200); // the listener above connects
    const other = await browser.newPage();
    await other.goto(`${service.baseUrl}/portal/balances`);
    await other.fill('input[name="holderName"]', 'Other Tab');
    await other.fill('input[name="amount"]', '1.00');
    await other.click('button:has-text("Make Payout")');
    const otherId = /payout ([0-9a-f-]{36})/.exec(
      (await other.locator('p.flash').textContent()) ?? '',
    )![1]!;
    await other.close();
    expect(await changed).toBe(true);
    await page.waitForTimeout(750); // time for a refresh to load and replace the form, were it to
    expect(await holder.inputValue()).toBe('Typed But Not Sent');
    expect(await page.locator(`tr[data-payout="${otherId}"]`).count()).toBe(0);
    // Put back and left: the refresh that waited runs, and the other tab's payout shows.
    await holder.fill(initial);
    await page.locator('header').first().click();
    await expect
      .poll(() => page.locator(`tr[data-payout="${otherId}"]`).count(), { timeout: 10_000 })
      .toBe(1);
  });

  it('Payments: part of a settled payment is refunded through the row action and its dialog', async () => {
    await page.goto(`${service.baseUrl}/portal/payments`);
    const settled = service.seededPayments.settled[0]!;
    const row = page.locator(`tr[data-payment="${settled.paymentId}"]`);
    await row.locator('button[data-open-dialog]').click();
    const dialog = page.locator(`dialog#refund-${settled.paymentId}`);
    expect(await dialog.isVisible()).toBe(true);
    await page.screenshot({ path: join(shots, 'payments-refund-dialog.png') });
    await dialog.locator('input[name="amount"]').fill('3.25');
    await dialog.locator('button:has-text("Refund")').click();
    expect(await flash()).toMatch(/refund [0-9a-f-]{36} of 3.25 GBP started: status IN_PROGRESS/);
    expect(
      await page.locator(`tr[data-payment="${settled.paymentId}"] li[data-refund]`).count(),
    ).toBeGreaterThanOrEqual(1);
    await page.screenshot({ path: join(shots, 'payments.png'), fullPage: true });
  });

  it('Settings: a payout webhook URL set in the portal receives the next delivery, which shows in Webhooks', async () => {
    await page.goto(`${service.baseUrl}/portal/settings`);
    await page.fill('input[name="payout"]', receiver.urlFor('payout'));
    await page.click('button:has-text("Save")');
    expect(await flash()).toMatch(/saved/);
    await page.screenshot({ path: join(shots, 'settings.png'), fullPage: true });
    await page.goto(`${service.baseUrl}/portal/balances`);
    await page.fill('input[name="holderName"]', 'Jane Payee');
    await page.fill('input[name="amount"]', '4.00');
    await page.click('button:has-text("Make Payout")');
    const payoutId = /payout ([0-9a-f-]{36})/.exec((await flash()) ?? '')![1]!;
    expect(
      await receiver.waitFor((all) => all.some((w) => JSON.stringify(w.json).includes(payoutId)), {
        timeoutMs: 10_000,
      }),
    ).toBe(true);
    await page.goto(`${service.baseUrl}/portal/webhooks`);
    const delivered = page
      .locator('tr[data-delivery]', { hasText: receiver.urlFor('payout') })
      .first();
    expect(await delivered.locator('.status', { hasText: 'delivered' }).count()).toBe(1);
    await page.screenshot({ path: join(shots, 'webhooks.png'), fullPage: true });
  });

  it('Requests: a mis-signed request shows its code and its diagnosis', async () => {
    const c = service.credentials;
    const body = new TextEncoder().encode(
      JSON.stringify({
        applicationId: c.applicationId,
        payInAccountSelector: 'main',
        amount: 1,
        reference: 'MIS',
        destination: {
          destinationType: 'toAccount',
          accountType: 'SCAN',
          holderName: 'Jane Payee',
          accountNumber: '12345678',
          sortCode: '040004',
          iban: null,
        },
      }),
    );
    const request = {
      method: 'POST',
      url: `${service.baseUrl}/api/payouts`,
      headers: [['content-type', 'application/vnd.service.v1.0+json']] as Array<[string, string]>,
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
    expect(
      (
        await sendRequest(
          { ...signed, url: `${service.baseUrl}/api/payouts?page=2` },
          { timeoutMs: 5_000 },
        )
      ).response?.status,
    ).toBe(401);
    await page.goto(`${service.baseUrl}/portal/requests`);
    const row = page.locator('tr[data-request]', { hasText: '/api/payouts?page=2' }).first();
    expect(await row.textContent()).toContain('SIGNATURE_INVALID');
    await page.screenshot({ path: join(shots, 'requests.png'), fullPage: true });
    await row.locator('a:has-text("diagnose")').click();
    expect(await page.locator('[data-diagnosis]').textContent()).toContain(
      '@path signed without the query string',
    );
    expect(await page.content()).not.toContain(c.applicationSecret);
    await page.goto(`${service.baseUrl}/portal/sandbox`);
    await page.screenshot({ path: join(shots, 'sandbox.png'), fullPage: true });
  });

  it('a page on another origin cannot make the portal change state', async () => {
    const before = (
      (
        await sendRequest(
          { method: 'GET', url: `${service.baseUrl}/sandbox/payouts`, headers: {} },
          { timeoutMs: 5_000 },
        )
      ).response!.json as unknown[]
    ).length;
    const token = await page
      .goto(`${service.baseUrl}/portal/balances`)
      .then(() => page.locator('input[name="csrf"]').first().inputValue());
    // The attacker even knows the token: the Origin and Sec-Fetch-Site of a cross-site form give it away.
    const evil = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' })
        .end(`<form id="f" method="post" action="${service.baseUrl}/portal/actions/payout">
<input name="csrf" value="${token}"><input name="applicationId" value="${service.credentials.applicationId}"><input name="holderName" value="Evil">
<input name="accountNumber" value="12345678"><input name="sortCode" value="040004"><input name="amount" value="99.00"><input name="reference" value="CSRF"></form>
<script>document.getElementById('f').submit()</script>`);
    });
    await new Promise<void>((r) => evil.listen(0, 'localhost', r));
    try {
      const answered = page.waitForResponse((r) => r.url().includes('/portal/actions/payout'));
      await page.goto(`http://localhost:${(evil.address() as AddressInfo).port}/`);
      expect((await answered).status()).toBe(403);
      const after = (
        (
          await sendRequest(
            { method: 'GET', url: `${service.baseUrl}/sandbox/payouts`, headers: {} },
            { timeoutMs: 5_000 },
          )
        ).response!.json as unknown[]
      ).length;
      expect(after).toBe(before);
    } finally {
      await new Promise<void>((r) => evil.close(() => r()));
    }
  });
});
