import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryNonceStore, type NonceStore } from '../src/profile/nonce-store.js';

describe('MemoryNonceStore', () => {
  it('checkAndRecord is true once, then false until the nonce expires', () => {
    const store = new MemoryNonceStore();
    expect(store.has('a', 100)).toBe(false);
    expect(store.checkAndRecord('a', 100, 400)).toBe(true);
    expect(store.has('a', 100)).toBe(true);
    expect(store.checkAndRecord('a', 399, 700)).toBe(false);
    expect(store.checkAndRecord('a', 400, 700)).toBe(false);
    expect(store.has('a', 401)).toBe(false);
    expect(store.checkAndRecord('a', 401, 701)).toBe(true);
  });

  it('memory is bounded by the validity window: expired entries are evicted', () => {
    const store = new MemoryNonceStore();
    for (let i = 0; i < 1000; i++) store.checkAndRecord(`n${i}`, 1000 + (i % 10), 1300 + (i % 10));
    expect(store.size).toBe(1000);
    store.checkAndRecord('late', 2000, 2300);
    expect(store.size).toBe(1);
  });

  it('eviction also finds entries that expire out of insertion order', () => {
    const store = new MemoryNonceStore();
    store.checkAndRecord('long', 0, 1000);
    store.checkAndRecord('short', 0, 10);
    store.checkAndRecord('x', 20, 320);
    expect(store.size).toBe(2);
    expect(store.has('short', 20)).toBe(false);
  });

  it('a hard cap refuses new nonces when full of unexpired ones (fail closed), and recovers after expiry', () => {
    const store = new MemoryNonceStore({ maxEntries: 3 });
    for (const n of ['a', 'b', 'c']) expect(store.checkAndRecord(n, 0, 300)).toBe(true);
    expect(() => store.checkAndRecord('d', 1, 301)).toThrow(expect.objectContaining({ code: 'NONCE_STORE_FULL' }));
    expect(store.checkAndRecord('a', 1, 301)).toBe(false);
    expect(store.checkAndRecord('d', 301, 601)).toBe(true);
    expect(() => new MemoryNonceStore({ maxEntries: 0 })).toThrow(TypeError);
  });

  it('exactly one of many concurrent checkAndRecord calls with one nonce wins (through an async wrapper)', async () => {
    const store = new MemoryNonceStore();
    const asyncStore: NonceStore = {
      has: async (n, now) => store.has(n, now),
      checkAndRecord: async (n, now, exp) => {
        await new Promise((r) => setTimeout(r, Math.random() * 5));
        return store.checkAndRecord(n, now, exp);
      },
    };
    const results = await Promise.all(Array.from({ length: 50 }, () => asyncStore.checkAndRecord('same', 10, 310)));
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('property: agrees with a store that never forgets, and holds exactly the unexpired nonces (time moving forward)', () => {
    const call = fc.record({
      op: fc.constantFrom('has', 'record'),
      nonce: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
      advance: fc.nat({ max: 40 }),
      ttl: fc.integer({ min: -5, max: 120 }),
    });
    fc.assert(
      fc.property(fc.array(call, { maxLength: 200 }), (calls) => {
        const store = new MemoryNonceStore();
        const model = new Map<string, number>();
        let now = 1000;
        for (const { op, nonce, advance, ttl } of calls) {
          now += advance;
          const live = (model.get(nonce) ?? -Infinity) >= now;
          if (op === 'has') {
            expect(store.has(nonce, now)).toBe(live);
            continue;
          }
          expect(store.checkAndRecord(nonce, now, now + ttl)).toBe(!live);
          if (!live) model.set(nonce, now + ttl);
          const unexpired = [...model.values()].filter((expiresAt) => expiresAt >= now).length;
          // Everything expired before `now` was evicted; only the nonce just recorded may already be expired.
          expect(store.size - unexpired).toBeGreaterThanOrEqual(0);
          expect(store.size - unexpired).toBeLessThanOrEqual(!live && ttl < 0 ? 1 : 0);
        }
      }),
      { numRuns: 300 },
    );
  });
});
