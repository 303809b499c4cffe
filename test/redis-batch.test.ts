// RedisBatch: the writes of one turn are sent as plain commands in the order written (no script around them), plain
// ZADDs of one key are joined into one command unless another write to that key comes between, and each caller's
// promise waits for its own commands. A recording commander stands in for Redis.
import { describe, expect, it } from 'vitest';
import type { RedisCommander } from '../redis/commander.js';
import { RedisBatch } from '../server/redis-batch.js';

function recorder(fail?: string): RedisCommander & { sent: string[][] } {
  const sent: string[][] = [];
  return {
    sent,
    sendCommand: async (args) => {
      sent.push([...args]);
      if (fail !== undefined && args[0] === fail) throw new Error(`${fail} failed`);
      return 'OK';
    },
  };
}

describe('RedisBatch', () => {
  it('joins the plain ZADDs of one key (a webhook and a step: one command), never across another write to it', async () => {
    const client = recorder();
    const batch = new RedisBatch(client);
    await Promise.all([
      batch.write([
        { command: 'ZADD', key: 'due', args: ['1', 'a'] },
        { command: 'SET', key: 'item:a', args: ['{}'] },
      ]),
      batch.write([{ command: 'ZADD', key: 'due', args: ['2', 'b'] }]),
      batch.write([
        { command: 'ZADD', key: 'due', args: ['3', 'c'] },
        { command: 'ZREM', key: 'due', args: ['a'] },
      ]),
      batch.write([{ command: 'ZADD', key: 'due', args: ['4', 'd'] }]),
      batch.write([{ command: 'ZADD', key: 'due', args: ['XX', '5', 'd'] }]),
      batch.write([{ command: 'ZADD', key: 'due', args: ['6', 'e'] }]),
    ]);
    expect(client.sent).toEqual([
      ['ZADD', 'due', '1', 'a', '2', 'b', '3', 'c'],
      ['SET', 'item:a', '{}'],
      ['ZREM', 'due', 'a'],
      ['ZADD', 'due', '4', 'd'],
      ['ZADD', 'due', 'XX', '5', 'd'],
      ['ZADD', 'due', '6', 'e'],
    ]);
  });

  it("a group's promise rejects when one of its commands failed; the others' resolve", async () => {
    const client = recorder('SET');
    const batch = new RedisBatch(client);
    const [first, second] = await Promise.allSettled([
      batch.write([
        { command: 'ZADD', key: 'due', args: ['1', 'a'] },
        { command: 'SET', key: 'item:a', args: ['{}'] },
      ]),
      batch.write([{ command: 'ZADD', key: 'due', args: ['2', 'b'] }]),
    ]);
    expect(first).toMatchObject({ status: 'rejected', reason: { message: 'SET failed' } });
    expect(second).toMatchObject({ status: 'fulfilled' });
  });
});
