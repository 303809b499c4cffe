// `payconform audit webhooks` in-process: a correct receiver passes; faulty receivers (accepting bad signatures,
// re-serialising before verifying, non-idempotent, rejecting unknown properties, ignoring the algorithm name,
// configured with another key) are each reported by check and requirement id. Loopback only, bounded waits.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditWebhookReceiver } from '../cli/commands/audit-webhooks.js';
import {
  webhookChecks,
  WEBHOOK_KINDS,
  type WebhookAuditContext,
  type WebhookKind,
} from '../conformance/checks/webhooks/index.js';
import { startKeyServer } from '../conformance/checks/webhooks/key-server.js';
import { exitCodeFor } from '../conformance/run/exit-code.js';
import { loadCatalogue } from '../conformance/requirements.js';
import type { RunSummary } from '../conformance/run/result.js';
import { validatePayloadText } from '../src/schemas/validate-payload.js';
import {
  exportTrimmedPublicKeyPem,
  parseRsaPrivateKey,
  parseRsaPublicKey,
  verifyWebhook,
  type ParsedRsaPublicKey,
} from '../src/webhooks/index.js';
import { loadTestKeys } from './fixtures/keys.js';

const keys = loadTestKeys();
const signingKey = parseRsaPrivateKey(keys.webhookRsa.privatePem);
const otherKey = parseRsaPrivateKey(keys.otherRsa.privatePem);
const servicePublic = parseRsaPublicKey(keys.webhookRsa.publicPem);
const otherPublic = parseRsaPublicKey(keys.otherRsa.publicPem);
const schemaKind = {
  payment: 'payment-webhook',
  payout: 'payout-webhook',
  refund: 'refund-webhook',
} as const;

interface Behaviour {
  /**
   * raw: verify the exact bytes; string: verify the body decoded as UTF-8 and encoded again (the spec's "unchanged
   * JSON string", permitted); reserialised: verify JSON.stringify(JSON.parse(body)); latin1: decode the body as
   * Latin-1 before verifying; trimmed: verify the body with outer whitespace trimmed; none: accept any;
   * ignore-alg: verify whatever the algorithm name says; fail-open: verify, but accept when the header or the
   * signature cannot be parsed; if-signature-given: verify only when "Authorization" has a signature part.
   */
  readonly verify:
    | 'raw'
    | 'string'
    | 'reserialised'
    | 'latin1'
    | 'trimmed'
    | 'none'
    | 'ignore-alg'
    | 'fail-open'
    | 'if-signature-given';
  readonly publicKey?: ParsedRsaPublicKey;
  /** A second delivery of the same event gets 409. */
  readonly nonIdempotent?: boolean;
  /** Validates against the strict schema: unknown members give 400. */
  readonly rejectUnknown?: boolean;
  /** The answer to an accepted webhook (default 200, with no body). */
  readonly okStatus?: number;
  readonly okBody?: string;
  /** The answer to a refused one (default 401). */
  readonly rejectStatus?: number;
  /** Never answers (the connection stays open) or resets every connection: no answer at all. */
  readonly transport?: 'hang' | 'reset';
  /** Answers valid webhooks but never answers one it refuses (an unhandled verification error). */
  readonly hangOnReject?: boolean;
}

interface Received {
  readonly kind: WebhookKind;
  readonly body: Buffer;
  readonly authorization?: string;
  readonly status: number;
}

/** Whether a receiver with this behaviour takes the signature as valid. */
function verifies(b: Behaviour, body: Buffer, authorization: string | undefined): boolean {
  const key = b.publicKey ?? servicePublic;
  const bytes = new Uint8Array(body);
  switch (b.verify) {
    case 'raw':
      return verifyWebhook(bytes, authorization, key).ok;
    case 'string':
      return verifyWebhook(
        new TextEncoder().encode(new TextDecoder('utf-8').decode(bytes)),
        authorization,
        key,
      ).ok;
    case 'latin1':
      return verifyWebhook(new TextEncoder().encode(body.toString('latin1')), authorization, key)
        .ok;
    case 'trimmed':
      return verifyWebhook(
        new TextEncoder().encode(body.toString('utf8').trim()),
        authorization,
        key,
      ).ok;
    case 'none':
      return true;
    case 'ignore-alg':
      return verifyWebhook(bytes, authorization?.replace(/^\S+/, 'SHA256withRSA'), key).ok;
    case 'fail-open': {
      const r = verifyWebhook(bytes, authorization, key);
      return r.ok || r.code === 'AUTHORIZATION_MALFORMED' || r.code === 'SIGNATURE_MALFORMED';
    }
    case 'if-signature-given': {
      if (authorization === undefined) return false;
      const [, signature] = authorization.split(' ');
      return !signature || verifyWebhook(bytes, authorization, key).ok;
    }
    case 'reserialised':
      try {
        return verifyWebhook(
          new TextEncoder().encode(JSON.stringify(JSON.parse(body.toString('utf8')))),
          authorization,
          key,
        ).ok;
      } catch {
        return false;
      }
  }
}

async function startReceiver(
  b: Behaviour,
): Promise<{ url: (k: WebhookKind) => string; received: Received[]; close: () => Promise<void> }> {
  const received: Received[] = [];
  const seen = new Set<string>();
  const server = http.createServer((req, res) => {
    if (b.transport === 'reset') {
      req.socket.resetAndDestroy();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (b.transport === 'hang') return; // read the webhook, never answer
      const body = Buffer.concat(chunks);
      const kind = (req.url ?? '').slice(1) as WebhookKind;
      const authorization = req.headers.authorization;
      const answer = (status: number, text = ''): void => {
        received.push({
          kind,
          body,
          ...(authorization !== undefined ? { authorization } : {}),
          status,
        });
        res.writeHead(status, text === '' ? {} : { 'content-type': 'application/json' }).end(text);
      };
      if (req.method !== 'PUT' || !WEBHOOK_KINDS.includes(kind)) return answer(404);
      if (!verifies(b, body, authorization))
        return b.hangOnReject ? undefined : answer(b.rejectStatus ?? 401);
      let event: Record<string, unknown>;
      try {
        event = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
      } catch {
        return answer(400);
      }
      if (
        b.rejectUnknown &&
        !validatePayloadText(schemaKind[kind], body.toString('utf8'), { strict: true }).valid
      )
        return answer(400);
      const id = `${kind}:${String(event.paymentId ?? event.payoutId ?? event.refundId)}`;
      if (b.nonIdempotent && seen.has(id)) return answer(409);
      seen.add(id);
      answer(b.okStatus ?? 200, b.okBody);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (k) => `http://127.0.0.1:${port}/${k}`,
    received,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

async function auditReceiver(
  b: Behaviour,
  kinds: readonly WebhookKind[] = WEBHOOK_KINDS,
  requestTimeoutMs = 3_000,
): Promise<{ summary: RunSummary; received: Received[] }> {
  const receiver = await startReceiver(b);
  try {
    const context: WebhookAuditContext = {
      targets: Object.fromEntries(kinds.map((k) => [k, receiver.url(k)])),
      signingKey,
      otherKey,
      applicationId: '6f1c2a34-5b6d-4e7f-8a9b-0c1d2e3f4a5b',
      requestTimeoutMs,
    };
    const summary = await auditWebhookReceiver(context, kinds);
    summaries.push(summary);
    return { summary, received: receiver.received };
  } finally {
    await receiver.close();
  }
}

/** Every summary produced in this file, for the "no failure without a spec sentence" test at the end. */
const summaries: RunSummary[] = [];

const NEGATIVE = [
  'wrong-signature',
  'body-changed',
  'reserialised',
  'missing-authorization',
  'empty-authorization',
  'malformed-authorization',
  'wrong-algorithm',
  'other-key',
] as const;
const POSITIVE = ['accepted', 'exact-bytes', 'redelivery', 'unknown-properties'] as const;

/** The ids of the checks whose outcome is not `pass`. */
const notPassing = (summary: RunSummary): string[] =>
  summary.results.filter((r) => r.outcome !== 'pass').map((r) => r.id);

function outcomes(summary: RunSummary): Record<string, string> {
  return Object.fromEntries(summary.results.map((r) => [r.id, r.outcome]));
}

function expectFinding(
  summary: RunSummary,
  id: string,
  outcome: 'fail' | 'warn',
  requirement: string,
): void {
  const r = summary.results.find((x) => x.id === id);
  expect(r?.outcome, `${id}: ${r?.message}`).toBe(outcome);
  expect(
    r?.findings.some(
      (f) =>
        f.outcome === outcome && f.requirement === requirement && f.evidence?.request !== undefined,
    ),
    `${id} names ${requirement} with evidence`,
  ).toBe(true);
}

describe('audit webhooks: a correct receiver (spec: Webhook authentication, Events)', () => {
  let run: { summary: RunSummary; received: Received[] };
  beforeAll(async () => {
    run = await auditReceiver({ verify: 'raw' });
  });

  it('passes all 36 checks (12 per kind) with exit code 0', () => {
    expect(run.summary.results).toHaveLength(36);
    expect(notPassing(run.summary)).toEqual([]);
    expect(exitCodeFor(run.summary)).toBe(0);
  });

  it('sent every payload schema-valid, as PUT application/json, and signed valid ones over the exact bytes', () => {
    expect(run.received.length).toBeGreaterThanOrEqual(3 * 18); // 18 deliveries per kind
    for (const r of run.received) {
      const v = validatePayloadText(schemaKind[r.kind], r.body.toString('utf8'));
      expect(v.valid, `${r.kind}: ${r.body.toString('utf8').slice(0, 120)}`).toBe(true);
    }
    const accepted = run.received.filter((r) => r.status === 200);
    expect(accepted.length).toBe(3 * 7); // accepted, exact-bytes x3, redelivery x2, unknown-properties per kind
    for (const r of accepted)
      expect(verifyWebhook(new Uint8Array(r.body), r.authorization, servicePublic).ok).toBe(true);
    const texts = accepted.map((r) => r.body.toString('utf8'));
    // The exact-bytes forms: indented with money as 10.50, non-ASCII UTF-8, a final newline.
    expect(texts.some((t) => t.includes('\n  ') && /: 10\.50\b/.test(t))).toBe(true);
    expect(texts.some((t) => /[^\x00-\x7f]/.test(t))).toBe(true);
    expect(texts.some((t) => t.endsWith('}\n'))).toBe(true);
  });
});

describe('audit webhooks: correct receivers that made other permitted choices pass with no failure', () => {
  const choices: ReadonlyArray<readonly [string, Behaviour]> = [
    [
      'verifies the unchanged JSON string (decoded as UTF-8), rejects with 400, answers 200 with a JSON body',
      { verify: 'string', rejectStatus: 400, okBody: '{"received":true}' },
    ],
    ['rejects with 403', { verify: 'raw', rejectStatus: 403 }],
    ['rejects unverified webhooks with 500', { verify: 'raw', rejectStatus: 500 }],
  ];
  for (const [name, b] of choices) {
    it(name, async () => {
      const { summary } = await auditReceiver(b, ['payout']);
      expect(notPassing(summary)).toEqual([]);
      expect(exitCodeFor(summary)).toBe(0);
    });
  }

  it('does not verify at all (verification is recommended, not required): warnings only, exit 0', async () => {
    const { summary } = await auditReceiver({ verify: 'none' });
    for (const kind of WEBHOOK_KINDS) {
      for (const n of NEGATIVE)
        expect(outcomes(summary)[`webhook-${kind}-${n}`], `${kind} ${n}`).toBe('warn');
      for (const n of POSITIVE)
        expect(outcomes(summary)[`webhook-${kind}-${n}`], `${kind} ${n}`).toBe('pass');
    }
    expectFinding(
      summary,
      'webhook-payout-missing-authorization',
      'warn',
      'WEBHOOK-VERIFY-RECOMMENDED',
    );
    expectFinding(summary, 'webhook-refund-other-key', 'warn', 'WEBHOOK-VERIFY-WITH-PUBLIC-KEY');
    expect(exitCodeFor(summary)).toBe(0);
    expect(summary.counts.warn).toBe(3 * NEGATIVE.length);
  });
});

interface ReceiverFault {
  readonly name: string;
  readonly behaviour: Behaviour;
  /** Every check that does not pass, with its outcome and the requirement of a finding with evidence. */
  readonly caught: Readonly<Record<string, readonly ['fail' | 'warn', string]>>;
  /** Text the decisive finding of the first caught check carries. */
  readonly says?: string;
}

const R = 'WEBHOOK-PROFILE-REJECT-UNVERIFIED';
const receiverFaults: readonly ReceiverFault[] = [
  {
    name: 're-serialises before verifying',
    behaviour: { verify: 'reserialised' },
    caught: { 'exact-bytes': ['fail', 'WEBHOOK-VERIFY-EXACT-BYTES'], reserialised: ['warn', R] },
    says: 're-serialised',
  },
  {
    name: 'decodes the body as Latin-1 before verifying',
    behaviour: { verify: 'latin1' },
    caught: { 'exact-bytes': ['fail', 'WEBHOOK-VERIFY-EXACT-BYTES'] },
    says: 'another charset',
  },
  {
    name: 'trims the body before verifying',
    behaviour: { verify: 'trimmed' },
    caught: { 'exact-bytes': ['fail', 'WEBHOOK-VERIFY-EXACT-BYTES'] },
    says: 'trims the body',
  },
  {
    name: 'is not idempotent (409 on a repeated delivery)',
    behaviour: { verify: 'raw', nonIdempotent: true },
    caught: { redelivery: ['fail', 'WEBHOOK-IDEMPOTENT'] },
  },
  {
    name: 'rejects unknown properties',
    behaviour: { verify: 'raw', rejectUnknown: true },
    caught: { 'unknown-properties': ['fail', 'WEBHOOK-IGNORE-UNKNOWN'] },
  },
  {
    name: 'answers 204 No Content to a valid webhook',
    behaviour: { verify: 'raw', okStatus: 204 },
    caught: {
      accepted: ['fail', 'WEBHOOK-RECEIVER-200'],
      'exact-bytes': ['fail', 'WEBHOOK-VERIFY-EXACT-BYTES'],
      redelivery: ['fail', 'WEBHOOK-RECEIVER-200'],
      'unknown-properties': ['fail', 'WEBHOOK-IGNORE-UNKNOWN'],
    },
    says: 'answered 204',
  },
  {
    name: 'answers 202 Accepted to a valid webhook',
    behaviour: { verify: 'raw', okStatus: 202 },
    caught: {
      accepted: ['fail', 'WEBHOOK-RECEIVER-200'],
      'exact-bytes': ['fail', 'WEBHOOK-VERIFY-EXACT-BYTES'],
      redelivery: ['fail', 'WEBHOOK-RECEIVER-200'],
      'unknown-properties': ['fail', 'WEBHOOK-IGNORE-UNKNOWN'],
    },
  },
  {
    name: 'ignores the algorithm name',
    behaviour: { verify: 'ignore-alg' },
    caught: { 'wrong-algorithm': ['warn', R] },
  },
  {
    name: 'accepts when the Authorization header or signature cannot be parsed (fails open)',
    behaviour: { verify: 'fail-open' },
    caught: { 'malformed-authorization': ['warn', R] },
    says: 'not base64',
  },
  {
    name: 'verifies only when Authorization has a signature part (accepts an empty or algorithm-only header)',
    behaviour: { verify: 'if-signature-given' },
    caught: {
      'empty-authorization': ['warn', 'WEBHOOK-VERIFY-RECOMMENDED'],
      'malformed-authorization': ['warn', R],
    },
    says: 'empty value',
  },
  {
    name: 'configured with another public key: valid webhooks are refused',
    behaviour: { verify: 'raw', publicKey: otherPublic },
    caught: {
      accepted: ['fail', 'WEBHOOK-RECEIVER-200'],
      'exact-bytes': ['fail', 'WEBHOOK-VERIFY-EXACT-BYTES'],
      redelivery: ['fail', 'WEBHOOK-RECEIVER-200'],
      'unknown-properties': ['fail', 'WEBHOOK-IGNORE-UNKNOWN'],
      'other-key': ['warn', 'WEBHOOK-VERIFY-WITH-PUBLIC-KEY'], // signed by the key it (wrongly) trusts
    },
  },
];

describe('audit webhooks: faulty receivers, each fault caught by a named check with its requirement id', () => {
  receiverFaults.forEach((f, i) => {
    const kind = WEBHOOK_KINDS[i % WEBHOOK_KINDS.length]!;
    it(`${f.name} → ${Object.keys(f.caught).join(', ')} (${kind} webhooks)`, async () => {
      const { summary } = await auditReceiver(f.behaviour, [kind]);
      const expected = Object.keys(f.caught).map((c) => `webhook-${kind}-${c}`);
      expect(notPassing(summary).sort()).toEqual(expected.sort());
      for (const [c, [outcome, requirement]] of Object.entries(f.caught))
        expectFinding(summary, `webhook-${kind}-${c}`, outcome, requirement);
      if (f.says !== undefined) {
        const first = summary.results.find((r) => r.id === expected[0])!;
        expect(
          first.findings
            .filter((x) => x.outcome !== 'pass')
            .map((x) => x.message)
            .join('\n'),
        ).toContain(f.says);
      }
      expect(exitCodeFor(summary)).toBe(
        Object.values(f.caught).some(([o]) => o === 'fail') ? 1 : 0,
      );
    });
  });

  it('every check is caught by at least one faulty receiver above', () => {
    const caught = new Set(receiverFaults.flatMap((f) => Object.keys(f.caught)));
    expect(
      [...POSITIVE, ...NEGATIVE].filter(
        (c) =>
          !caught.has(c) &&
          !['wrong-signature', 'body-changed', 'missing-authorization'].includes(c),
      ),
    ).toEqual([]);
    // wrong-signature, body-changed and missing-authorization are caught by the receiver that does not verify (above).
  });
});

describe('audit webhooks: no answer is not a rejection (timeouts and resets are errors, never a pass)', () => {
  const noAnswer: ReadonlyArray<readonly [string, Behaviour, string]> = [
    [
      'a receiver that reads the webhook and never answers',
      { verify: 'raw', transport: 'hang' },
      'TIMEOUT',
    ],
    [
      'a receiver that resets every connection',
      { verify: 'raw', transport: 'reset' },
      'CONNECTION_RESET',
    ],
  ];
  for (const [name, b, code] of noAnswer) {
    it(`${name}: every check is an error (exit 1), none fails or passes: no answer is not evidence`, async () => {
      const started = Date.now();
      const { summary } = await auditReceiver(b, ['refund'], 400);
      expect(Date.now() - started).toBeLessThan(20_000);
      for (const n of POSITIVE) {
        const r = summary.results.find((x) => x.id === `webhook-refund-${n}`)!;
        expect(r.outcome, `${n}: ${r.message}`).toBe('error');
        expect(r.message).toContain('no answer is not a refusal');
      }
      for (const n of NEGATIVE) {
        const r = summary.results.find((x) => x.id === `webhook-refund-${n}`)!;
        expect(r.outcome, `${n}: ${r.message}`).toBe('error');
        expect(r.message).toContain('no answer is not a rejection');
        expect(r.findings[0]?.received).toBe(code);
        expect(r.findings[0]?.evidence?.request).toBeDefined();
      }
      expect(summary.counts.pass).toBe(0);
      expect(exitCodeFor(summary)).toBe(1);
    });
  }

  it('a receiver that answers valid webhooks but never answers one it refuses: every tampering check is an error, exit 1', async () => {
    const { summary } = await auditReceiver(
      { verify: 'raw', hangOnReject: true },
      ['payment'],
      400,
    );
    for (const n of POSITIVE) expect(outcomes(summary)[`webhook-payment-${n}`], n).toBe('pass');
    for (const n of NEGATIVE) expect(outcomes(summary)[`webhook-payment-${n}`], n).toBe('error');
    expect(exitCodeFor(summary)).toBe(1);
  });

  it('an unreachable receiver: every check is an error (no answer decides nothing), within the timeout', async () => {
    const receiver = await startReceiver({ verify: 'raw' });
    const url = receiver.url('payout');
    await receiver.close();
    const started = Date.now();
    const summary = await auditWebhookReceiver(
      {
        targets: { payout: url },
        signingKey,
        otherKey,
        applicationId: '6f1c2a34-5b6d-4e7f-8a9b-0c1d2e3f4a5b',
        requestTimeoutMs: 1_000,
      },
      ['payout'],
    );
    summaries.push(summary);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(outcomes(summary)['webhook-payout-accepted']).toBe('error');
    expect(outcomes(summary)['webhook-payout-wrong-signature']).toBe('error');
    expect(summary.counts.pass).toBe(0);
  });
});

describe('audit webhooks: suite and key endpoint', () => {
  it('builds 12 checks per kind with unique ids and catalogue requirements', () => {
    const checks = webhookChecks(['payment', 'refund']);
    expect(checks).toHaveLength(24);
    expect(new Set(checks.map((c) => c.id)).size).toBe(24);
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
    expect(
      verifyWebhook(new TextEncoder().encode('{}'), undefined, text).ok === false &&
        parseRsaPublicKey(text).modulusBits,
    ).toBe(2048);
    expect(keyServer.fetches()).toBe(1);
    const other = await fetch(keyServer.url.replace('/.well-known/signature/pem', '/other'), {
      signal: AbortSignal.timeout(3_000),
    });
    expect(other.status).toBe(404);
  });
});

describe('audit webhooks: no failure without a sentence of the spec', () => {
  it('no failing finding in any run of this file cites a payconform choice or a "not shown" requirement', () => {
    const catalogue = loadCatalogue();
    expect(summaries.length).toBeGreaterThan(10);
    const offending = summaries
      .flatMap((s) =>
        s.results.flatMap((r) =>
          r.findings
            .filter((f) => f.outcome === 'fail')
            .map((f) => ({ id: r.id, requirement: f.requirement })),
        ),
      )
      .filter(
        ({ requirement }) =>
          requirement === undefined ||
          catalogue.byId.get(requirement)?.source === 'payconform' ||
          catalogue.byId.get(requirement)?.shown === false,
      );
    expect(offending).toEqual([]);
  });

  it('the MUST checks of the suite rest only on requirements the spec states', () => {
    const catalogue = loadCatalogue();
    for (const c of webhookChecks().filter((x) => x.level === 'MUST')) {
      for (const id of c.requirements)
        expect(catalogue.byId.get(id)?.source, `${c.id} cites ${id}`).toBeUndefined();
    }
  });
});
