// Every deliberate fault of the reference service shows its broken behaviour, and the clean service does not:
// the conformance runner relies on these faults to prove that each of its checks can fail.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validatePayload } from '../src/schemas/index.js';
import { verifyWebhook } from '../src/webhooks/index.js';
import { explorerFaults } from '../server/faults.js';
import {
  faultCatalogue,
  type FaultName,
  type MethodFaultName,
  type RunningReferenceService,
} from '../server/index.js';
import { EMBEDDED_TIMERS } from '../cli/commands/audit-server.js';
import { lateFaultTimings } from '../server/faults.js';
import { loadTestKeys } from './fixtures/keys.js';
import {
  appHeaders,
  deliveriesFinished,
  PAYOUT_TYPE,
  payoutBody,
  REFUND_TYPE,
  send,
  signed,
  signedCustom,
  startReceiver,
  startTestService,
  type RawRequest,
} from './reference-service-client.js';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;
interface World {
  readonly s: RunningReferenceService;
  readonly hooks: Receiver;
  /** Receiver answering 500 first, then 200. */
  readonly flaky: Receiver;
  readonly flakyService: RunningReferenceService;
}

const P = '/api/payouts';
const now = () => Math.floor(Date.now() / 1000);
const status = async (s: RunningReferenceService, req: RawRequest) =>
  (await send(s.baseUrl, req)).status;
const create = (s: RunningReferenceService, overrides: Record<string, unknown> = {}) =>
  send(s.baseUrl, signed(s, P, payoutBody(s, overrides)));
const refundReq = (s: RunningReferenceService, body: unknown) =>
  send(s.baseUrl, {
    method: 'POST',
    path: `/api/merchants/${s.credentials.merchantId}/applications/${s.credentials.applicationId}/refunds`,
    headers: appHeaders(s, REFUND_TYPE),
    body: JSON.stringify(body),
  });
const params = (s: RunningReferenceService, changes: Record<string, string | number | undefined>) =>
  Object.entries({
    created: now(),
    keyid: s.credentials.keyId,
    alg: 'ed25519',
    nonce: randomUUID(),
    ...changes,
  }).filter((e): e is [string, string | number] => e[1] !== undefined);
const held = async (s: RunningReferenceService) =>
  (await create(s, { destination: s.copDestinations.NO_MATCH, doNotCommitOnCoPMismatch: true }))
    .json.payoutId as string;
const settle = async (s: RunningReferenceService) => {
  const p = await send(s.baseUrl, {
    method: 'POST',
    path: '/sandbox/payments',
    body: '{"amount":"10.00","status":"SETTLED"}',
  });
  return p.json.paymentId as string;
};
/** Webhooks (any kind) mentioning `id`, once `count` have arrived. */
async function payoutHooks(w: World, id: string, count: number) {
  await w.hooks.waitFor(
    (all) => all.filter((h) => h.body.toString().includes(id)).length >= count,
    3000,
  );
  return w.hooks.received.filter((h) => h.body.toString().includes(id));
}
const settleMs = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** For each fault: true when the service shows the broken behaviour. */
const exhibits: Record<Exclude<FaultName, MethodFaultName>, (w: World) => Promise<boolean>> = {
  'accept-unsigned': async ({ s }) => {
    const none = await status(s, {
      method: 'POST',
      path: P,
      headers: appHeaders(s, PAYOUT_TYPE),
      body: JSON.stringify(payoutBody(s)),
    });
    const req = signed(s, P, payoutBody(s));
    const noSignature = await status(s, {
      ...req,
      headers: req.headers!.filter(([n]) => n !== 'signature'),
    });
    return none === 201 && noSignature === 201;
  },
  'no-replay-check': async ({ s }) => {
    const req = signed(s, P, payoutBody(s));
    return (await status(s, req)) === 201 && (await status(s, req)) === 201;
  },
  'nonce-race': async ({ s }) => {
    const req = signed(s, P, payoutBody(s));
    const all = await Promise.all(Array.from({ length: 8 }, () => status(s, req)));
    return all.filter((c) => c === 201).length > 1;
  },
  'no-created-window': async ({ s }) =>
    (await status(s, signed(s, P, payoutBody(s), { created: now() - 301 }))) === 201,
  'no-future-check': async ({ s }) =>
    (await status(s, signed(s, P, payoutBody(s), { created: now() + 3600 }))) === 201,
  'no-digest-check': async ({ s }) => {
    // Body changed after signing, same length (content-length is covered): only the digest can notice.
    const req = signed(s, P, payoutBody(s, { reference: 'INV-1' }));
    return (
      (await status(s, {
        ...req,
        body: new TextEncoder().encode(JSON.stringify(payoutBody(s, { reference: 'INV-9' }))),
      })) === 201
    );
  },
  'no-signature-check': async ({ s }) =>
    (await status(
      s,
      signed(s, P, payoutBody(s), { privateKey: loadTestKeys().rfc9421Ed25519.privateKey }),
    )) === 201,
  'no-secret-check': async ({ s }) =>
    (await status(s, signed(s, P, payoutBody(s), { secret: 'wrong-secret' }))) === 201,
  'no-application-id-check': async ({ s }) => {
    const req = signed(s, P, payoutBody(s));
    return (
      (await status(s, {
        ...req,
        headers: req.headers!.filter(([n]) => n !== 'x-application-id'),
      })) === 201
    );
  },
  'no-key-check': async ({ s }) =>
    (await status(s, signed(s, P, payoutBody(s), { keyId: 'no-such-key' }))) === 201,
  'accept-any-alg': async ({ s }) =>
    (await status(
      s,
      signedCustom(s, P, payoutBody(s), { params: params(s, { alg: 'rsa-pss-sha512' }) }),
    )) === 201,
  'accept-any-label': async ({ s }) =>
    (await status(s, signedCustom(s, P, payoutBody(s), { label: 'sig2' }))) === 201,
  'accept-any-components': async ({ s }) =>
    (await status(
      s,
      signedCustom(s, P, payoutBody(s), {
        components: [
          '@method',
          '@path',
          '@authority',
          'content-digest',
          'x-application-id',
          'x-application-secret',
        ],
      }),
    )) === 201,
  'no-nonce-length-check': async ({ s }) =>
    (await status(
      s,
      signedCustom(s, P, payoutBody(s), { params: params(s, { nonce: 'n'.repeat(51) }) }),
    )) === 201,
  'allow-missing-nonce': async ({ s }) =>
    (await status(
      s,
      signedCustom(s, P, payoutBody(s), { params: params(s, { nonce: undefined }) }),
    )) === 201,
  'creates-on-rejection': async ({ s }) => {
    const before = (await send(s.baseUrl, { method: 'GET', path: '/sandbox/payouts' })).json
      .length as number;
    const rejected = await status(s, signed(s, P, payoutBody(s), { secret: 'wrong-secret' }));
    const after = (await send(s.baseUrl, { method: 'GET', path: '/sandbox/payouts' })).json
      .length as number;
    return rejected === 401 && after > before;
  },
  'no-cop-hold': async ({ s }) =>
    (await create(s, { destination: s.copDestinations.NO_MATCH, doNotCommitOnCoPMismatch: true }))
      .json.status === 'IN_PROGRESS',
  'hold-without-flag': async ({ s }) =>
    (await create(s, { destination: s.copDestinations.PARTIAL_MATCH })).json.status ===
    'AWAITING_COMMIT',
  'hold-on-not-checked': async ({ s }) =>
    (
      await create(s, {
        destination: s.copDestinations.NOT_CHECKED,
        doNotCommitOnCoPMismatch: true,
      })
    ).json.status === 'AWAITING_COMMIT' &&
    (await create(s, { destination: s.copDestinations.null, doNotCommitOnCoPMismatch: true })).json
      .status === 'AWAITING_COMMIT',
  'hold-on-full-match': async ({ s }) =>
    (await create(s, { doNotCommitOnCoPMismatch: true })).json.status === 'AWAITING_COMMIT',
  'commit-changes-cop': async ({ s }) => {
    const res = await send(s.baseUrl, {
      method: 'POST',
      path: `${P}/${await held(s)}/commit`,
      headers: appHeaders(s),
    });
    return res.json.copStatus !== 'NO_MATCH';
  },
  'cancel-without-reason': async ({ s }) => {
    const res = await send(s.baseUrl, {
      method: 'POST',
      path: `${P}/${await held(s)}/cancel`,
      headers: appHeaders(s),
    });
    return res.json.statusReason === null;
  },
  'refund-unsettled': async ({ s }) =>
    (await refundReq(s, { paymentId: s.seededPayments.unsettled[0]!.paymentId, amount: '1.00' }))
      .status === 201,
  'refund-over-amount': async ({ s }) =>
    (await refundReq(s, { paymentId: await settle(s), amount: '10.01' })).status === 201,
  'refund-concurrent': async ({ s }) => {
    const id = await settle(s);
    return (
      (await refundReq(s, { paymentId: id, amount: '1.00' })).status === 201 &&
      (await refundReq(s, { paymentId: id, amount: '1.00' })).status === 201
    );
  },
  'refund-partial-rejected': async ({ s }) =>
    (await refundReq(s, { paymentId: await settle(s), amount: '4.00' })).status !== 201,
  'refund-arbitrary-destination': async ({ s }) => {
    const payer = { name: 'Original Payer', accountNumber: '31415926', sortCode: '271828' };
    const p = await send(s.baseUrl, {
      method: 'POST',
      path: '/sandbox/payments',
      body: JSON.stringify({ amount: '10.00', status: 'SETTLED', payer }),
    });
    const destination = (await refundReq(s, { paymentId: p.json.paymentId, amount: '1.00' })).json
      .refundRequestDetails.destination;
    return (
      destination.accountNumber !== payer.accountNumber ||
      destination.sortCode !== payer.sortCode ||
      destination.name !== payer.name
    );
  },
  'payment-webhook-missing': async (w) => {
    const id = (
      await send(w.s.baseUrl, {
        method: 'POST',
        path: '/sandbox/payments',
        body: '{"amount":"10.00","status":"SETTLED"}',
      })
    ).json.paymentId as string;
    const hooks = await payoutHooks(w, id, 1);
    // Every webhook queued for the payment answered: none is still to come.
    await deliveriesFinished(w.s, id);
    const statuses = w.hooks.received
      .filter((h) => h.body.toString().includes(id))
      .map((h) => JSON.parse(h.body.toString()).paymentStatus);
    return hooks.length > 0 && statuses.includes('COMPLETED') && !statuses.includes('SETTLED');
  },
  'payment-reference-kept': async ({ s }) => {
    const make = () =>
      send(s.baseUrl, {
        method: 'POST',
        path: '/sandbox/payments',
        body: '{"amount":"10.00","reference":"CUSTOM-REF-1"}',
      });
    const [a, b] = [await make(), await make()];
    return a.json.reference === 'CUSTOM-REF-1' && b.json.reference === 'CUSTOM-REF-1';
  },
  'refund-error-shape': async ({ s }) => {
    const res = await refundReq(s, {
      paymentId: s.seededPayments.unsettled[0]!.paymentId,
      amount: '1.00',
    });
    return !validatePayload('error', res.json).valid;
  },
  'refund-unsettled-message': async ({ s }) => {
    const { paymentId, status: st } = s.seededPayments.unsettled[0]!;
    const res = await refundReq(s, { paymentId, amount: '1.00' });
    return res.status === 422 && !String(res.json.errorMessage).includes(st);
  },
  'webhook-bad-signature': async (w) => {
    const [hook] = await payoutHooks(w, (await create(w.s)).json.payoutId, 1);
    return !verifyWebhook(
      new Uint8Array(hook!.body),
      hook!.headers.authorization,
      w.s.webhookPublicKeyTrimmedPem,
    ).ok;
  },
  'webhook-reserialised': async (w) => {
    const [hook] = await payoutHooks(w, (await create(w.s)).json.payoutId, 1);
    return !verifyWebhook(
      new Uint8Array(hook!.body),
      hook!.headers.authorization,
      w.s.webhookPublicKeyTrimmedPem,
    ).ok;
  },
  'webhook-no-retry': async (w) => {
    const id = (await create(w.flakyService)).json.payoutId as string;
    // Finished: delivered after a retry, or failed for good after the one attempt.
    await deliveriesFinished(w.flakyService, id);
    return w.flaky.received.filter((h) => h.body.toString().includes(id)).length === 1;
  },
  'webhook-counter-fixed': async (w) => {
    const id = (await create(w.flakyService)).json.payoutId as string;
    await w.flaky.waitFor(
      (all) => all.filter((h) => h.body.toString().includes(id)).length >= 2,
      3000,
    );
    const counters = w.flaky.received
      .filter((h) => h.body.toString().includes(id))
      .map((h) => JSON.parse(h.body.toString()).payoutWebhookDeliveryAttempt);
    return counters[0] === counters[1];
  },
  'webhook-post': async (w) =>
    (await payoutHooks(w, (await create(w.s)).json.payoutId, 1))[0]!.method !== 'PUT',
  'webhook-content-type': async (w) =>
    (await payoutHooks(w, (await create(w.s)).json.payoutId, 1))[0]!.headers['content-type'] !==
    'application/json',
  'webhook-missing-event': async (w) => {
    const id = (await create(w.s)).json.payoutId as string;
    await payoutHooks(w, id, 1);
    await send(w.s.baseUrl, {
      method: 'POST',
      path: `/sandbox/payouts/${id}/advance`,
      body: '{"status":"PROCESSED"}',
    });
    // Every webhook queued for the payout (the change's is queued as it is made) answered.
    await deliveriesFinished(w.s, id);
    return w.hooks.received.filter((h) => h.body.toString().includes(id)).length === 1;
  },
  'webhook-payload-shape': async (w) => {
    const [hook] = await payoutHooks(w, (await create(w.s)).json.payoutId, 1);
    return !validatePayload('payout-webhook', JSON.parse(hook!.body.toString())).valid;
  },
  'payout-response-shape': async ({ s }) =>
    !validatePayload('payout', (await create(s)).json).valid,
  'tracing-id-fixed': async ({ s }) =>
    (await create(s)).json.tracingId === (await create(s)).json.tracingId,
  'refund-timestamp-zoned': async ({ s }) =>
    String(
      (await refundReq(s, { paymentId: await settle(s), amount: '1.00' })).json.createdAtUtc,
    ).endsWith('Z'),
  'public-key-full-pem': async ({ s }) =>
    (await send(s.baseUrl, { method: 'GET', path: '/.well-known/signature/pem' })).text.includes(
      'BEGIN PUBLIC KEY',
    ),
};

const fast = { initialDelayMs: 10, maxDelayMs: 20, maxAttempts: 3, requestTimeoutMs: 1000 };

async function world(faults: FaultName[]): Promise<World & { close: () => Promise<void> }> {
  const hooks = await startReceiver();
  // Answers 500 to the first delivery of each payout, 200 afterwards.
  const seen = new Set<string>();
  const flaky = await startReceiver((body) => {
    const id = (JSON.parse(body.toString()) as { payoutId?: string }).payoutId ?? '';
    if (seen.has(id)) return 200;
    seen.add(id);
    return 500;
  });
  const s = await startTestService({
    faults,
    webhookUrls: { payout: hooks.url, refund: hooks.url, payment: hooks.url },
    retry: fast,
  });
  const flakyService = await startTestService({
    faults,
    webhookUrls: { payout: flaky.url },
    retry: fast,
  });
  return {
    s,
    hooks,
    flaky,
    flakyService,
    close: async () => {
      await Promise.all([s.close(), flakyService.close()]);
      await Promise.all([hooks.close(), flaky.close()]);
    },
  };
}

/** The faults with a direct scenario here; those found by method (`how`) are proven in test/audit-server-faults.test.ts. */
const direct = faultCatalogue
  .filter((f) => !('how' in f))
  .map((f) => f.name as Exclude<FaultName, MethodFaultName>);

describe('faultCatalogue', () => {
  it('has a scenario here for every fault not found by method, names are kebab-case and unique', () => {
    expect(Object.keys(exhibits).sort()).toEqual([...direct].sort());
    for (const f of faultCatalogue) expect(f.name).toMatch(/^[a-z]+(-[a-z0-9]+)*$/);
  });
});

describe('the clean service shows none of the broken behaviours', () => {
  let clean: Awaited<ReturnType<typeof world>>;
  beforeAll(async () => {
    clean = await world([]);
  });
  afterAll(() => clean.close());
  it.each(direct)('not %s', async (name) => {
    expect(await exhibits[name](clean)).toBe(false);
  });
});

describe('each fault, switched on alone, shows its broken behaviour', () => {
  it.each(direct)('%s', async (name) => {
    const faulty = await world([name]);
    try {
      expect(await exhibits[name](faulty)).toBe(true);
    } finally {
      await faulty.close();
    }
  });
});

/** The faults that behave for the first second and misbehave later (server/faults.ts, `lateFaultTimings`). */
type LateFault = 'hold-lapses' | 'refund-active-lapses' | 'webhook-without-change';
/** How long a scenario watches for the late misbehaviour. */
const WATCH_MS = 3_500;
/** Polls (bounded) until a payout webhook for `id` announces IN_PROGRESS: when it was seen, else undefined. */
async function inProgressAt(hooks: Receiver, id: string): Promise<number | undefined> {
  const announces = (h: (typeof hooks.received)[number]) => {
    const body = JSON.parse(h.body.toString()) as Record<string, unknown>;
    return body['payoutId'] === id && body['payoutStatus'] === 'IN_PROGRESS';
  };
  for (const end = Date.now() + WATCH_MS; Date.now() < end; await settleMs(25))
    if (hooks.received.some(announces)) return Date.now();
  return undefined;
}
const stored = async (s: RunningReferenceService, kind: 'payouts' | 'refunds', id: string) =>
  (await send(s.baseUrl, { method: 'GET', path: `/sandbox/${kind}/${id}` })).json as Record<
    string,
    unknown
  >;

/** What each scenario observed: when the late event came (ms after its start), and the stored status then. */
interface Seen {
  readonly lateAfterMs: number | undefined;
  readonly storedStatus: unknown;
  readonly early?: number;
}
const scenarios: Record<LateFault, (s: RunningReferenceService, h: Receiver) => Promise<Seen>> = {
  // A held payout left alone: an IN_PROGRESS webhook (and the hold gone) means it moved by itself.
  'hold-lapses': async (s, hooks) => {
    const id = await held(s);
    const start = Date.now();
    const at = await inProgressAt(hooks, id);
    const { status } = await stored(s, 'payouts', id);
    return { lateAfterMs: at === undefined ? undefined : at - start, storedStatus: status };
  },
  // A cancelled payout: a later IN_PROGRESS webhook while the payout stays CANCELLED.
  'webhook-without-change': async (s, hooks) => {
    const id = await held(s);
    const cancel = await send(s.baseUrl, {
      method: 'POST',
      path: `${P}/${id}/cancel`,
      headers: appHeaders(s),
    });
    expect(cancel.status).toBe(200);
    const start = Date.now();
    const at = await inProgressAt(hooks, id);
    const { status } = await stored(s, 'payouts', id);
    return { lateAfterMs: at === undefined ? undefined : at - start, storedStatus: status };
  },
  // A second refund at once (refused either way), then one after the lapse while the first is still IN_PROGRESS.
  'refund-active-lapses': async (s) => {
    const paymentId = await settle(s);
    // Before the first refund is asked: the lapse runs from its creation, so never from before this.
    const start = Date.now();
    const first = await refundReq(s, { paymentId, amount: '1.00' });
    expect(first.status).toBe(201);
    const early = (await refundReq(s, { paymentId, amount: '1.00' })).status;
    // A second refund asked again and again for WATCH_MS (well before the first leaves IN_PROGRESS): when it is
    // first accepted, if ever.
    let acceptedAt: number | undefined;
    for (const end = start + WATCH_MS; acceptedAt === undefined && Date.now() < end;) {
      if ((await refundReq(s, { paymentId, amount: '1.00' })).status === 201)
        acceptedAt = Date.now();
      else await settleMs(50);
    }
    const { status } = await stored(s, 'refunds', first.json.refundPaymentId as string);
    return {
      lateAfterMs: acceptedAt === undefined ? undefined : acceptedAt - start,
      storedStatus: status,
      early,
    };
  },
};
const late = Object.keys(scenarios) as LateFault[];

/**
 * Each late fault, switched on alone, shows within a bounded wait, and the clean service shows none of them. Every
 * scenario is driven over loopback at once (the waits overlap): about 3.5 s in all.
 */
describe('late faults (explorer-only): right at first, wrong after a wait', () => {
  let hooks: Receiver;
  const services: RunningReferenceService[] = [];
  const seen = new Map<string, Seen>();

  beforeAll(async () => {
    hooks = await startReceiver();
    const start = (faults: FaultName[], lifecycleDelayMs: number) =>
      startTestService({
        faults,
        webhookUrls: { payout: hooks.url, refund: hooks.url, payment: hooks.url },
        retry: fast,
        lifecycleDelayMs,
      }).then((s) => (services.push(s), s));
    // Each fault alone, with the embedded audit service's lifecycle (refunds move on by themselves there). The
    // clean service moves nothing by itself, so its first refund is still IN_PROGRESS when the second comes.
    const [clean, ...faulty] = await Promise.all([
      start([], 0),
      ...late.map((f) => start([f], EMBEDDED_TIMERS.lifecycleDelayMs)),
    ]);
    await Promise.all([
      ...late.map(async (f) =>
        seen.set(`on ${f}`, await scenarios[f](faulty[late.indexOf(f)]!, hooks)),
      ),
      ...late.map(async (f) => seen.set(`off ${f}`, await scenarios[f](clean!, hooks))),
    ]);
  }, 20_000);
  afterAll(async () => {
    await Promise.all(services.map((s) => s.close()));
    await hooks?.close();
  });

  it('catalogues them as explorer-only', () => {
    for (const f of late) expect(explorerFaults).toContain(f);
  });
  it('hold-lapses: the untouched hold moves on to IN_PROGRESS after the lapse, with its webhook', () => {
    const on = seen.get('on hold-lapses')!;
    expect(on.lateAfterMs).toBeGreaterThanOrEqual(lateFaultTimings.holdLapsesMs - 100);
    expect(on.storedStatus).not.toBe('AWAITING_COMMIT');
    expect(seen.get('off hold-lapses')).toEqual({
      lateAfterMs: undefined,
      storedStatus: 'AWAITING_COMMIT',
    });
  });
  it('webhook-without-change: an IN_PROGRESS webhook after the cancel, the payout still CANCELLED', () => {
    const on = seen.get('on webhook-without-change')!;
    expect(on.lateAfterMs).toBeGreaterThanOrEqual(lateFaultTimings.webhookWithoutChangeMs - 100);
    expect(on.storedStatus).toBe('CANCELLED');
    expect(seen.get('off webhook-without-change')).toEqual({
      lateAfterMs: undefined,
      storedStatus: 'CANCELLED',
    });
  });
  it('refund-active-lapses: refused at once, accepted after the lapse while the first is IN_PROGRESS', () => {
    const on = seen.get('on refund-active-lapses')!;
    expect(on.early).toBe(409);
    expect(on.lateAfterMs).toBeGreaterThan(lateFaultTimings.refundActiveLapseMs);
    expect(on.storedStatus).toBe('IN_PROGRESS');
    expect(seen.get('off refund-active-lapses')).toEqual({
      lateAfterMs: undefined,
      storedStatus: 'IN_PROGRESS',
      early: 409,
    });
  });
});
