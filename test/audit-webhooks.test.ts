// `payconform audit webhooks` in-process: a correct receiver passes; faulty receivers (accepting bad signatures,
// re-serialising before verifying, non-idempotent, rejecting unknown properties, ignoring the algorithm name,
// configured with another key) are each reported by check and requirement id. Loopback only, bounded waits.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditWebhookReceiver } from '../cli/commands/audit-webhooks.js';
import { webhookChecks, WEBHOOK_KINDS, type WebhookAuditContext, type WebhookKind } from '../conformance/checks/webhooks/index.js';
import { startKeyServer } from '../conformance/checks/webhooks/key-server.js';
import { exitCodeFor } from '../conformance/exit-code.js';
import type { RunSummary } from '../conformance/result.js';
import { validatePayloadText } from '../src/schemas/validate-payload.js';
import { exportTrimmedPublicKeyPem, parseRsaPrivateKey, parseRsaPublicKey, verifyWebhook, type ParsedRsaPublicKey } from '../src/webhooks/index.js';
import { loadTestKeys } from './fixtures/keys.js';

const keys = loadTestKeys();
const signingKey = parseRsaPrivateKey(keys.webhookRsa.privatePem);
const otherKey = parseRsaPrivateKey(keys.otherRsa.privatePem);
const servicePublic = parseRsaPublicKey(keys.webhookRsa.publicPem);
const otherPublic = parseRsaPublicKey(keys.otherRsa.publicPem);
const schemaKind = { payment: 'payment-webhook', payout: 'payout-webhook', refund: 'refund-webhook' } as const;

interface Behaviour {
  /** raw: verify the exact bytes; reserialised: verify JSON.stringify(JSON.parse(body)); none: accept any; ignore-alg: verify whatever the algorithm name says. */
  readonly verify: 'raw' | 'reserialised' | 'none' | 'ignore-alg';
  readonly publicKey?: ParsedRsaPublicKey;
  /** A second delivery of the same event gets 409. */
  readonly nonIdempotent?: boolean;
  /** Validates against the strict schema: unknown members give 400. */
  readonly rejectUnknown?: boolean;
}

interface Received {
  readonly kind: WebhookKind;
  readonly body: Buffer;
  readonly authorization?: string;
  readonly status: number;
}

async function startReceiver(b: Behaviour): Promise<{ url: (k: WebhookKind) => string; received: Received[]; close: () => Promise<void> }> {
  const received: Received[] = [];
  const seen = new Set<string>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const kind = (req.url ?? '').slice(1) as WebhookKind;
      const authorization = req.headers.authorization;
      const answer = (status: number): void => {
        received.push({ kind, body, ...(authorization !== undefined ? { authorization } : {}), status });
        res.writeHead(status).end();
      };
      if (req.method !== 'PUT' || !WEBHOOK_KINDS.includes(kind)) return answer(404);
      const key = b.publicKey ?? servicePublic;
      let verified = true;
      if (b.verify === 'raw') verified = verifyWebhook(new Uint8Array(body), authorization, key).ok;
      if (b.verify === 'ignore-alg') verified = verifyWebhook(new Uint8Array(body), authorization?.replace(/^\S+/, 'SHA256withRSA'), key).ok;
      if (b.verify === 'reserialised') {
        try {
          verified = verifyWebhook(new TextEncoder().encode(JSON.stringify(JSON.parse(body.toString('utf8')))), authorization, key).ok;
        } catch {
          verified = false;
        }
      }
      if (!verified) return answer(401);
      let event: Record<string, unknown>;
      try {
        event = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
      } catch {
        return answer(400);
      }
      if (b.rejectUnknown && !validatePayloadText(schemaKind[kind], body.toString('utf8'), { strict: true }).valid) return answer(400);
      const id = `${kind}:${String(event.paymentId ?? event.payoutId ?? event.refundId)}`;
      if (b.nonIdempotent && seen.has(id)) return answer(409);
      seen.add(id);
      answer(200);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (k) => `http://127.0.0.1:${port}/${k}`,
    received,
    close: () => new Promise<void>((r) => {
      server.close(() => r());
      server.closeAllConnections();
    }),
  };
}

async function auditReceiver(b: Behaviour, kinds: readonly WebhookKind[] = WEBHOOK_KINDS): Promise<{ summary: RunSummary; received: Received[] }> {
  const receiver = await startReceiver(b);
  try {
    const context: WebhookAuditContext = {
      targets: Object.fromEntries(kinds.map((k) => [k, receiver.url(k)])),
      signingKey,
      otherKey,
      applicationId: '6f1c2a34-5b6d-4e7f-8a9b-0c1d2e3f4a5b',
      requestTimeoutMs: 3_000,
    };
    return { summary: await auditWebhookReceiver(context, kinds), received: receiver.received };
  } finally {
    await receiver.close();
  }
}

const NEGATIVE = ['wrong-signature', 'body-changed', 'reserialised', 'missing-authorization', 'wrong-algorithm', 'other-key'] as const;

function outcomes(summary: RunSummary): Record<string, string> {
  return Object.fromEntries(summary.results.map((r) => [r.id, r.outcome]));
}

function expectFinding(summary: RunSummary, id: string, outcome: 'fail' | 'warn', requirement: string): void {
  const r = summary.results.find((x) => x.id === id);
  expect(r?.outcome, `${id}: ${r?.message}`).toBe(outcome);
  expect(r?.findings.some((f) => f.outcome === outcome && f.requirement === requirement && f.evidence?.request !== undefined), `${id} names ${requirement} with evidence`).toBe(true);
}

describe('audit webhooks: a correct receiver (spec: Webhook authentication, Events)', () => {
  let run: { summary: RunSummary; received: Received[] };
  beforeAll(async () => {
    run = await auditReceiver({ verify: 'raw' });
  });

  it('passes all 30 checks (10 per kind) with exit code 0', () => {
    expect(run.summary.results).toHaveLength(30);
    const bad = run.summary.results.filter((r) => r.outcome !== 'pass');
    expect(bad.map((r) => `${r.id}: ${r.message}`)).toEqual([]);
    expect(exitCodeFor(run.summary)).toBe(0);
  });

  it('sent every payload schema-valid, as PUT application/json, and signed valid ones over the exact bytes', () => {
    expect(run.received.length).toBeGreaterThanOrEqual(33); // 11 deliveries per kind (redelivery sends two)
    for (const r of run.received) {
      const v = validatePayloadText(schemaKind[r.kind], r.body.toString('utf8'));
      expect(v.valid, `${r.kind}: ${r.body.toString('utf8').slice(0, 120)}`).toBe(true);
    }
    const accepted = run.received.filter((r) => r.status === 200);
    expect(accepted.length).toBe(15); // accepted, exact-bytes, redelivery x2, unknown-properties per kind
    for (const r of accepted) expect(verifyWebhook(new Uint8Array(r.body), r.authorization, servicePublic).ok).toBe(true);
    // The exact-bytes case sends indented JSON with money written as 10.50: a re-serialising receiver cannot reproduce it.
    expect(accepted.some((r) => r.body.toString('utf8').includes('\n  ') && /: 10\.50\b/.test(r.body.toString('utf8')))).toBe(true);
  });
});

describe('audit webhooks: faulty receivers, each fault reported by check and requirement id', () => {
  it('accepts anything (no verification): six warnings per kind, never a MUST failure', async () => {
    const { summary } = await auditReceiver({ verify: 'none' });
    for (const kind of WEBHOOK_KINDS) for (const n of NEGATIVE) expect(outcomes(summary)[`webhook-${kind}-${n}`], `${kind} ${n}`).toBe('warn');
    expectFinding(summary, 'webhook-payout-missing-authorization', 'warn', 'WEBHOOK-VERIFY-RECOMMENDED');
    expectFinding(summary, 'webhook-refund-other-key', 'warn', 'WEBHOOK-VERIFY-WITH-PUBLIC-KEY');
    expect(exitCodeFor(summary)).toBe(0);
    expect(summary.counts.warn).toBe(18);
  });

  it('re-serialises before verifying: the exact-bytes check fails (MUST), the re-serialised body is accepted (warn)', async () => {
    const { summary } = await auditReceiver({ verify: 'reserialised' }, ['payout']);
    expectFinding(summary, 'webhook-payout-exact-bytes', 'fail', 'WEBHOOK-VERIFY-EXACT-BYTES');
    expectFinding(summary, 'webhook-payout-reserialised', 'warn', 'WEBHOOK-PROFILE-REJECT-UNVERIFIED');
    expect(summary.results.find((r) => r.id === 'webhook-payout-exact-bytes')?.message).toContain('re-serialised');
    expect(outcomes(summary)['webhook-payout-accepted']).toBe('pass');
    expect(exitCodeFor(summary)).toBe(1);
  });

  it('is not idempotent: the redelivery check fails (WEBHOOK-IDEMPOTENT)', async () => {
    const { summary } = await auditReceiver({ verify: 'raw', nonIdempotent: true }, ['refund']);
    expectFinding(summary, 'webhook-refund-redelivery', 'fail', 'WEBHOOK-IDEMPOTENT');
    expect(Object.entries(outcomes(summary)).filter(([, o]) => o !== 'pass').map(([id]) => id)).toEqual(['webhook-refund-redelivery']);
    expect(exitCodeFor(summary)).toBe(1);
  });

  it('rejects unknown properties: the unknown-properties check fails (WEBHOOK-IGNORE-UNKNOWN)', async () => {
    const { summary } = await auditReceiver({ verify: 'raw', rejectUnknown: true }, ['payment']);
    expectFinding(summary, 'webhook-payment-unknown-properties', 'fail', 'WEBHOOK-IGNORE-UNKNOWN');
    expect(Object.entries(outcomes(summary)).filter(([, o]) => o !== 'pass').map(([id]) => id)).toEqual(['webhook-payment-unknown-properties']);
  });

  it('ignores the algorithm name: only the wrong-algorithm check warns', async () => {
    const { summary } = await auditReceiver({ verify: 'ignore-alg' }, ['payout']);
    expect(Object.entries(outcomes(summary)).filter(([, o]) => o !== 'pass').map(([id]) => id)).toEqual(['webhook-payout-wrong-algorithm']);
    expectFinding(summary, 'webhook-payout-wrong-algorithm', 'warn', 'WEBHOOK-PROFILE-REJECT-UNVERIFIED');
  });

  it('configured with another public key: valid webhooks are refused (WEBHOOK-RECEIVER-200, exit 1)', async () => {
    const { summary } = await auditReceiver({ verify: 'raw', publicKey: otherPublic }, ['payment']);
    expectFinding(summary, 'webhook-payment-accepted', 'fail', 'WEBHOOK-RECEIVER-200');
    expectFinding(summary, 'webhook-payment-redelivery', 'fail', 'WEBHOOK-RECEIVER-200');
    expect(outcomes(summary)['webhook-payment-other-key']).toBe('warn'); // signed by the key it (wrongly) trusts
    expect(exitCodeFor(summary)).toBe(1);
  });

  it('an unreachable receiver: the positive checks fail within the timeout, never hang', async () => {
    const receiver = await startReceiver({ verify: 'raw' });
    const url = receiver.url('payout');
    await receiver.close();
    const started = Date.now();
    const summary = await auditWebhookReceiver({ targets: { payout: url }, signingKey, otherKey, applicationId: '6f1c2a34-5b6d-4e7f-8a9b-0c1d2e3f4a5b', requestTimeoutMs: 1_000 }, ['payout']);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(outcomes(summary)['webhook-payout-accepted']).toBe('fail');
    expect(outcomes(summary)['webhook-payout-wrong-signature']).toBe('pass'); // not accepted (observed: no answer)
  });
});

describe('audit webhooks: suite and key endpoint', () => {
  it('builds 10 checks per kind with unique ids and catalogue requirements', () => {
    const checks = webhookChecks(['payment', 'refund']);
    expect(checks).toHaveLength(20);
    expect(new Set(checks.map((c) => c.id)).size).toBe(20);
    expect(checks.every((c) => c.appliesTo === 'receiver')).toBe(true);
  });

  let keyServer: Awaited<ReturnType<typeof startKeyServer>>;
  beforeAll(async () => {
    keyServer = await startKeyServer(exportTrimmedPublicKeyPem(signingKey), '127.0.0.1', 0);
  });
  afterAll(async () => keyServer.close());

  it('serves the trimmed PEM at /.well-known/signature/pem, and 404 elsewhere', async () => {
    const res = await fetch(keyServer.url, { signal: AbortSignal.timeout(3_000) });
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(text).not.toContain('BEGIN');
    expect(verifyWebhook(new TextEncoder().encode('{}'), undefined, text).ok).toBe(false); // parses as a key: fails on the header, not the key
    expect(verifyWebhook(new TextEncoder().encode('{}'), undefined, text).ok === false && parseRsaPublicKey(text).modulusBits).toBe(2048);
    expect(keyServer.fetches()).toBe(1);
    const other = await fetch(keyServer.url.replace('/.well-known/signature/pem', '/other'), { signal: AbortSignal.timeout(3_000) });
    expect(other.status).toBe(404);
  });
});
