// Logs stay readable: repeated error lines are shown a few times per window and then summed up with a
// count; a 10 s Redis outage (compressed with an injected clock) and one client's bad requests leave a bounded log.
import { describe, expect, it } from 'vitest';
import { logLineKind, RateLimitedLog } from '../server/log-limiter.js';
import { until } from './fixtures/until.js';
import { appHeaders, send, startTestService } from './reference-service-client.js';

describe('RateLimitedLog', () => {
  it('a 10 s Redis outage at 80 lines a second leaves a bounded log, with the counts', () => {
    const lines: string[] = [];
    let now = 0;
    const log = new RateLimitedLog(
      (l) => lines.push(l),
      { lines: 20, windowMs: 10_000 },
      () => now,
    );
    // 10 s, a line every 12.5 ms: Redis errors, 503 answers, and a few successes that are never held back.
    for (let i = 0; i < 800; i++) {
      now = i * 12.5;
      if (i % 100 === 0) log.log(`GET /.well-known/signature/pem -> 200 (0.${i} ms)`);
      else if (i % 3 === 0) log.log(`redis: connect ECONNREFUSED 127.0.0.1:${6379 + (i % 7)}`);
      else log.log(`POST /api/payouts -> 503 (${(i % 9) + 0.5} ms)`);
    }
    now = 10_000;
    log.log('redis: ready');
    log.close();
    // 20 of each of the two error kinds, their two summaries, the successes, and the last line.
    const successes = lines.filter((l) => l.includes('-> 200')).length;
    expect(successes).toBe(8);
    expect(lines.length).toBe(20 + 20 + 2 + successes + 1);
    const summaries = lines.filter((l) => /more like this in the last 10 s\)$/.test(l));
    expect(summaries).toHaveLength(2);
    const held = summaries.map((l) => Number(/… (\d+) more/.exec(l)![1]));
    // Every line is either written or counted.
    expect(held.reduce((a, b) => a + b, 0) + 40 + successes).toBe(800);
  });

  it('a new window shows lines again; held lines are summed when the window ends, also by the timer', async () => {
    const lines: string[] = [];
    const log = new RateLimitedLog((l) => lines.push(l), { lines: 2, windowMs: 100 });
    for (let i = 0; i < 10; i++) log.log(`POST /x -> 401 (${i} ms)`);
    expect(lines).toHaveLength(2);
    // The window's own timer writes the summary when the window ends: awaited as that line (bounded), not a guess.
    await until('the summary line of the ended window', () => lines.length > 2, 5_000);
    expect(lines).toEqual([
      'POST /x -> 401 (0 ms)',
      'POST /x -> 401 (1 ms)',
      'POST /x -> 401 (9 ms) (… 8 more like this in the last 0 s)',
    ]);
    log.log('POST /x -> 401 (10 ms)');
    expect(lines).toHaveLength(4);
    log.close();
  });

  it('kinds: successes are never held; failures by method and status; other lines with numbers blanked', () => {
    expect(logLineKind('POST /api/payouts -> 201 (1.2 ms)')).toBeUndefined();
    expect(logLineKind('GET /a -> 404 (1 ms)')).toBe(logLineKind('GET /b/c -> 404 (7 ms)'));
    expect(logLineKind('GET /a -> 404 (1 ms)')).not.toBe(logLineKind('GET /a -> 401 (1 ms)'));
    expect(logLineKind('redis: connect ECONNREFUSED 127.0.0.1:6379')).toBe(
      logLineKind('redis: connect ECONNREFUSED 127.0.0.1:6380'),
    );
  });

  it('bounds the kinds it tracks: varied lines share one kind beyond 500', () => {
    const lines: string[] = [];
    const log = new RateLimitedLog(
      (l) => lines.push(l),
      { lines: 1, windowMs: 10_000 },
      () => 0,
    );
    for (let i = 0; i < 5_000; i++) log.log(`odd line ${'x'.repeat(i % 997)}`);
    expect(lines.length).toBeLessThanOrEqual(501);
    log.close();
  });
});

describe('reference service: one client repeating bad requests', () => {
  it('200 requests with a wrong secret: at most 20 access lines, then one line with the count', async () => {
    const lines: string[] = [];
    const service = await startTestService({ log: (l) => lines.push(l) });
    try {
      const headers = appHeaders(service).map(([n, v]) =>
        n === 'x-application-secret'
          ? ([n, 'wrong'] as [string, string])
          : ([n, v] as [string, string]),
      );
      for (let i = 0; i < 200; i++) {
        const answer = await send(service.baseUrl, {
          method: 'POST',
          path: `/api/payouts/${i}/commit`,
          headers,
        });
        expect([401, 404]).toContain(answer.status);
      }
    } finally {
      await service.close();
    }
    const failures = lines.filter((l) => / -> 40[14] /.test(l));
    expect(failures.length).toBeLessThanOrEqual(21);
    expect(lines.join('\n')).toMatch(/… \d+ more like this in the last 10 s\)/);
  });
});
