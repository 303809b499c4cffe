// The scale-out on a real three-node Redis Cluster (loopback, no replicas): a signed request is accepted once across
// instances, a payout held through one instance is committed through another once, of concurrent refunds of one
// payment one is accepted (each script touches the keys of one hash-tagged partition, so it stays atomic on its
// shard), and a node restart makes the nonce store fail closed, then refuse what that node forgot, then recover.
// Budget: one cluster for the file (forms in about a second), four tests of a few seconds each.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../cli/main.js';
import {
  CLUSTER_PARTITIONS,
  connectRedis,
  partitionOf,
  type RedisConnection,
} from '../redis/commander.js';
import { NonceStoreResetError, RedisNonceStore } from '../redis/nonce-store.js';
import { expectHeldPayoutCommittedOnce } from './fixtures/cross-instance.js';
import { loadTestKeys } from './fixtures/keys.js';
import { startRedisCluster, type RunningRedisCluster } from './fixtures/redis-cluster.js';
import { CLI_ARGS } from './fixtures/cli.js';
import { memoryIo } from './fixtures/memory-io.js';
import { redisTestsEnabled } from './fixtures/redis-server.js';
import {
  payoutBody,
  send,
  signed,
  startReceiver,
  startTestService,
} from './reference-service-client.js';

const webhookSigningKey = loadTestKeys().webhookRsa.privatePem;

describe('payconform serve --redis-url redis+cluster://: refusals', () => {
  it('refuses a cluster URL without host:port pairs, and a password on the command line', async () => {
    const io = memoryIo();
    expect(await main(['serve', '--redis-url', 'redis+cluster://127.0.0.1'], io)).toBe(2);
    expect(io.err.join('')).toMatch(/host:port,host:port/);
    const secret = memoryIo();
    expect(
      await main(['serve', '--redis-url', 'redis+cluster://u:hunter2@127.0.0.1:7000'], secret),
    ).toBe(2);
    expect(secret.err.join('')).toMatch(/PAYCONFORM_REDIS_URL/);
    expect(secret.err.join('') + secret.out.join('')).not.toContain('hunter2');
  });
});

describe.runIf(redisTestsEnabled())('instances sharing a three-node Redis Cluster', () => {
  let cluster: RunningRedisCluster;
  beforeAll(async () => {
    cluster = await startRedisCluster();
  }, 30_000);
  afterAll(async () => {
    await cluster?.close();
  });

  it('of 50 identical signed requests sent to two instances in turn, exactly one is accepted', async () => {
    const options = { redisUrl: cluster.url, webhookSigningKey, redisKeyPrefix: 'replay:' };
    const a = await startTestService(options);
    const b = await startTestService(options);
    try {
      const request = signed(
        { ...a, baseUrl: 'http://payments.test' },
        '/api/payouts',
        payoutBody(a, { reference: 'CLUSTER-50' }),
      );
      const withHost = {
        ...request,
        headers: [['host', 'payments.test'] as const, ...(request.headers ?? [])],
      };
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) => send((i % 2 === 0 ? a : b).baseUrl, withHost)),
      );
      const statuses = answers.map((r) => r.status);
      expect(
        statuses.filter((s) => s === 201),
        statuses.join(','),
      ).toHaveLength(1);
      expect(statuses.filter((s) => s === 401)).toHaveLength(49);
      // The payout is seen through the other instance (its partition, wherever it lives).
      const created = answers.find((r) => r.status === 201)!.json as { payoutId: string };
      const seen = await send(b.baseUrl, {
        method: 'GET',
        path: `/sandbox/payouts/${created.payoutId}`,
      });
      expect(seen.json).toMatchObject({ payoutId: created.payoutId, reference: 'CLUSTER-50' });
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }, 60_000);

  it('holds a payout through one instance and commits it through the other (once)', async () => {
    const options = { redisUrl: cluster.url, webhookSigningKey, redisKeyPrefix: 'hold:' };
    const a = await startTestService(options);
    const b = await startTestService(options);
    try {
      expect(b.seededPayments).toEqual(a.seededPayments);
      await expectHeldPayoutCommittedOnce(a, b);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }, 60_000);

  it('of concurrent refunds of one payment sent to different instances, exactly one is accepted', async () => {
    const options = { redisUrl: cluster.url, webhookSigningKey, redisKeyPrefix: 'refunds:' };
    const a = await startTestService(options);
    const b = await startTestService(options);
    try {
      const { paymentId } = a.seededPayments.settled[0]!;
      const request = {
        method: 'POST',
        path: `/api/merchants/${a.credentials.merchantId}/applications/${a.credentials.applicationId}/refunds`,
        headers: [
          ['content-type', 'application/json'],
          ['x-application-id', a.credentials.applicationId],
          ['x-application-secret', a.credentials.applicationSecret],
        ] as const,
        body: JSON.stringify({ paymentId, amount: '1.00' }),
      };
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) => send((i % 2 === 0 ? a : b).baseUrl, request)),
      );
      const statuses = answers.map((r) => r.status);
      expect(
        statuses.filter((s) => s === 201),
        statuses.join(','),
      ).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(9);
      const refunds = await send(a.baseUrl, { method: 'GET', path: '/sandbox/refunds' });
      const mine = refunds.json.filter(
        (r: { refundedPaymentId: string }) => r.refundedPaymentId === paymentId,
      );
      expect(mine).toHaveLength(1);
      // The refund, created through one instance, is found by id through both (by its payment's partition).
      const created = answers.find((r) => r.status === 201)!.json as { refundPaymentId: string };
      const one = await send(
        (answers.indexOf(answers.find((r) => r.status === 201)!) % 2 === 0 ? b : a).baseUrl,
        {
          method: 'GET',
          path: `/sandbox/refunds/${created.refundPaymentId}`,
        },
      );
      expect(one.status, one.text).toBe(200);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }, 60_000);

  it('lifecycle steps and their webhooks run on the cluster (each step and webhook in its payout partition)', async () => {
    const receiver = await startReceiver();
    const options = {
      redisUrl: cluster.url,
      webhookSigningKey,
      redisKeyPrefix: 'steps:',
      webhookUrls: { payout: receiver.url },
      lifecycleDelayMs: 200,
    };
    const a = await startTestService(options);
    try {
      // .93: IN_PROGRESS, then PROCESSED, then RETURNED (two automatic steps).
      const created = await send(
        a.baseUrl,
        signed(a, '/api/payouts', payoutBody(a, { reference: 'STEPS', amount: 12.93 })),
      );
      expect(created.status).toBe(201);
      const statuses = () =>
        receiver.received.map((w) => JSON.parse(w.body.toString('utf8')).payoutStatus as string);
      await receiver.waitFor(() => statuses().includes('RETURNED'), 15_000);
      expect(statuses()).toEqual(['IN_PROGRESS', 'PROCESSED', 'RETURNED']);
      const deliveries = await send(a.baseUrl, {
        method: 'GET',
        path: `/sandbox/deliveries?resourceId=${created.json.payoutId}`,
      });
      expect(deliveries.json.map((d: { state: string }) => d.state)).toEqual([
        'delivered',
        'delivered',
        'delivered',
      ]);
    } finally {
      await a.close();
      await receiver.close();
    }
  }, 60_000);

  it('payconform serve --redis-url redis+cluster://… starts on the cluster and says so', async () => {
    const child = spawn(
      process.execPath,
      [...CLI_ARGS, 'serve', '--port', '0', '--quiet', '--redis-url', cluster.url],
      { env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      let text = '';
      // Bounded: the banner within 30 s, or the exit.
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no banner in 30 s:\n${text}`)), 30_000);
        const add = (d: Buffer) => {
          text += d.toString();
          if (text.includes('Ctrl-C stops.')) {
            clearTimeout(timer);
            resolve();
          }
        };
        child.stdout.on('data', add);
        child.stderr.on('data', add);
        child.once('exit', (code) => reject(new Error(`serve exited ${code}:\n${text}`)));
      });
      expect(text).toContain('a Redis Cluster (16 hash-tagged partitions)');
      expect(text).toContain(cluster.url);
    } finally {
      child.kill('SIGKILL');
    }
  }, 60_000);

  it('a node restarted empty: its nonces fail closed while it is down, are refused after, and fresh ones are accepted', async () => {
    let connection: RedisConnection | undefined;
    try {
      connection = await connectRedis(cluster.url);
      const store = new RedisNonceStore({ client: connection, keyPrefix: 'restart:' });
      expect(connection.cluster).toBe(true);
      await store.open();
      // Which node holds each partition; then a nonce whose partition lives on node 0, and one on another node.
      const nodeOfPartition = await Promise.all(
        Array.from({ length: CLUSTER_PARTITIONS }, (_, k) => cluster.nodeOf(`restart:{p${k}}x`)),
      );
      const nonceOn = async (wanted: (node: number) => boolean): Promise<string> => {
        for (let i = 0; i < 1000; i += 1) {
          const nonce = `n-${i}-${Math.random().toString(36).slice(2)}`;
          if (wanted(nodeOfPartition[partitionOf(nonce, CLUSTER_PARTITIONS)]!)) return nonce;
        }
        throw new Error('no nonce found for that node in 1000 tries');
      };
      const onNode0 = await nonceOn((n) => n === 0);
      const elsewhere = await nonceOn((n) => n !== 0);
      const now = Math.floor(Date.now() / 1000);
      expect(await store.checkAndRecord(onNode0, now, now + 300)).toBe(true);
      expect(await store.checkAndRecord(elsewhere, now, now + 300)).toBe(true);

      await cluster.stopNode(0);
      const downNonce = await nonceOn((n) => n === 0);
      await expect(store.checkAndRecord(downNonce, now, now + 300)).rejects.toThrow();
      await cluster.startNode(0);

      // Bounded wait for the client to reach the node again (40 tries, 100 ms apart): the replay of the nonce that
      // node forgot is refused by its partition's horizon; the nonce kept on the other node is still a replay.
      let replay: unknown;
      for (let i = 0; i < 40; i += 1) {
        replay = await store.checkAndRecord(onNode0, now, now + 300).catch((e: unknown) => e);
        if (replay instanceof NonceStoreResetError) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(replay).toBeInstanceOf(NonceStoreResetError);
      expect(await store.checkAndRecord(elsewhere, now, now + 300)).toBe(false);
      // The refusal made every partition notice the loss now: a request signed after that second is accepted, in
      // whichever partition of the restarted node its nonce falls (bounded: 30 tries, 100 ms apart).
      const horizon = (replay as NonceStoreResetError).horizon;
      let accepted: unknown;
      for (let i = 0; i < 30 && accepted !== true; i += 1) {
        await new Promise((r) => setTimeout(r, 100));
        const fresh = Math.floor(Date.now() / 1000);
        const nonce = await nonceOn((n) => n === 0);
        accepted = await store.checkAndRecord(nonce, fresh, fresh + 300).catch((e: unknown) => e);
      }
      expect(accepted).toBe(true);
      expect(Math.floor(Date.now() / 1000)).toBeGreaterThan(horizon);
    } finally {
      await connection?.close();
    }
  }, 60_000);
});
