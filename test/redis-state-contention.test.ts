// RedisStateStore's optimistic writes under contention, on a real redis-server: a change whose resource another
// writer keeps changing is retried, and after 50 lost races is refused with 503 STATE_CONTENTION, writing nothing.
// The other writer is made deterministic: a commander that, before forwarding each conditional write, changes what
// the write is conditional on through the same Redis (what a competing instance's successful write does): a
// payment's version, or a payout's stored JSON (a payout is compared by its content).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis, type RedisCommander, type RedisConnection } from '../redis/commander.js';
import { HttpError } from '../server/error-body.js';
import { RedisStateStore } from '../server/redis-state-store.js';
import {
  ServiceState,
  type Account,
  type Payment,
  type Payout,
  type Refund,
} from '../server/state.js';
import { redisTestsEnabled, startRedisServer, type RunningRedis } from './fixtures/redis-server.js';

const account: Account = {
  name: 'Jane Doe',
  accountNumber: '12345678',
  sortCode: '040004',
  iban: null,
};

/**
 * Forwards to `inner`; before each of the first `races` conditional writes, makes another writer win: for the
 * compare-and-set on a version (told from the read by its arguments: a guard, a version and at least one field and
 * value) bumps the guard's version; for a payout's compare-and-set on content (first key the payouts hash; a field,
 * the SHA-1 of the JSON read and the new JSON) stores a changed payout.
 */
function racingCommander(
  inner: RedisCommander,
  races: number,
): RedisCommander & { writes: number; lost: number } {
  const commander = {
    writes: 0,
    lost: 0,
    async sendCommand(args: readonly string[]): Promise<unknown> {
      // The optimistic writes: scripts whose first key is the versions hash (not the counted add of a payout).
      const keys = Number(args[2]);
      const isScript = args[0] === 'EVALSHA' || args[0] === 'EVAL';
      const onVersion = isScript && args[3]!.endsWith('versions') && args.length - 3 - keys >= 4;
      const onContent = isScript && args[3]!.endsWith('payouts') && args.length - 3 - keys === 3;
      const isWrite = onVersion || onContent;
      // An EVALSHA of a script this Redis has not cached yet fails (NOSCRIPT) and is sent again as EVAL: one write.
      const cached =
        args[0] !== 'EVALSHA' ||
        ((await inner.sendCommand(['SCRIPT', 'EXISTS', args[1]!])) as number[])[0] === 1;
      if (isWrite && cached) {
        commander.writes += 1;
        if (commander.lost < races) {
          commander.lost += 1;
          if (onVersion) {
            const guard = args[3 + keys]!;
            await inner.sendCommand(['HINCRBY', args[3]!, guard, '1']);
          } else {
            const field = args[3 + keys]!;
            const stored = JSON.parse(
              (await inner.sendCommand(['HGET', args[3]!, field])) as string,
            ) as Record<string, unknown>;
            stored.reference = `${String(stored.reference)}+`;
            await inner.sendCommand(['HSET', args[3]!, field, JSON.stringify(stored)]);
          }
        }
      }
      return inner.sendCommand(args);
    },
  };
  return commander;
}

describe.runIf(redisTestsEnabled())(
  'RedisStateStore: optimistic writes under contention (real redis-server)',
  () => {
    let redis: RunningRedis;
    let connection: RedisConnection;
    let prefix = 0;
    beforeAll(async () => {
      redis = await startRedisServer();
      connection = await connectRedis(redis.url);
    });
    afterAll(async () => {
      await connection?.close();
      await redis?.close();
    });

    async function storeWithPayout(races: number) {
      const client = racingCommander(connection, races);
      const store = new RedisStateStore({
        client,
        keyPrefix: `t${prefix++}:`,
        state: new ServiceState(),
      });
      const payout: Payout = {
        payoutId: 'payout-1',
        applicationId: 'app-1',
        createdAt: 1,
        status: 'IN_PROGRESS',
        amount: '10.00',
        reference: 'R-1',
        currency: 'GBP',
        source: account,
        destination: account,
        copStatus: null,
        statusReason: null,
        plannedOutcome: 'PROCESSED',
      };
      await store.addPayout(payout);
      return { client, store };
    }

    it('a change that loses every race: 503 STATE_CONTENTION after 50 attempts, the payout unchanged', async () => {
      const { client, store } = await storeWithPayout(Number.POSITIVE_INFINITY);
      const error = await store
        .changePayout('payout-1', (p) => {
          p.status = 'PROCESSED';
        })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(error).toBeInstanceOf(HttpError);
      expect(error).toMatchObject({ status: 503, code: 'STATE_CONTENTION' });
      expect(client.writes).toBe(50);
      expect((await store.getPayout('payout-1'))?.status).toBe('IN_PROGRESS');
    });

    it('a change that loses three races is applied once, on the fourth attempt, to the fresh copy', async () => {
      const { client, store } = await storeWithPayout(3);
      let applied = 0;
      const changed = await store.changePayout('payout-1', (p) => {
        applied += 1;
        p.status = 'PROCESSED';
        return applied;
      });
      expect(changed?.result).toBe(4);
      expect(client.writes).toBe(4);
      const stored = await store.getPayout('payout-1');
      expect(stored?.status).toBe('PROCESSED');
      // Applied to the copy the three winners left, not over it.
      expect(stored?.reference).toBe('R-1+++');
    });

    it('creating a refund that loses every race: 503 STATE_CONTENTION, no refund stored', async () => {
      const { client, store } = await storeWithPayout(Number.POSITIVE_INFINITY);
      const payment: Payment = {
        paymentId: 'payment-1',
        applicationId: 'app-1',
        status: 'SETTLED',
        errorDescription: null,
        amount: '100.00',
        currency: 'GBP',
        reference: 'P-1',
        payer: account,
        isExternal: false,
        createdAt: 1,
      };
      await store.addPayment(payment);
      const refund = (p: Payment): Refund => ({
        refundId: 'refund-1',
        paymentId: p.paymentId,
        applicationId: p.applicationId,
        createdAt: 2,
        status: 'IN_PROGRESS',
        amount: '5.00',
        currency: 'GBP',
        reference: 'RF-1',
        destination: p.payer,
        plannedOutcome: 'PROCESSED',
      });
      await expect(store.createRefund('payment-1', refund)).rejects.toMatchObject({
        status: 503,
        code: 'STATE_CONTENTION',
      });
      expect(client.writes).toBe(50);
      expect(await store.getRefund('refund-1')).toBeUndefined();
    });
  },
);
