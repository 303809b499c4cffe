import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
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
    expect(() => store.checkAndRecord('d', 1, 301)).toThrow(
      expect.objectContaining({ code: 'NONCE_STORE_FULL' }),
    );
    expect(store.checkAndRecord('a', 1, 301)).toBe(false);
    expect(store.checkAndRecord('d', 301, 601)).toBe(true);
    expect(() => new MemoryNonceStore({ maxEntries: 0 })).toThrow(TypeError);
  });

  it('each application holds at most its share; a full share refuses that application only (fail closed) until expiry', () => {
    const store = new MemoryNonceStore({ maxEntries: 100, maxEntriesPerApplication: 3 });
    const a = { applicationId: 'app-a', keyId: 'k1' };
    const aOtherKey = { applicationId: 'app-a', keyId: 'k2' };
    const b = { applicationId: 'app-b', keyId: 'k1' };
    for (const n of ['a1', 'a2']) expect(store.checkAndRecord(n, 0, 300, a)).toBe(true);
    expect(store.checkAndRecord('a3', 0, 600, aOtherKey)).toBe(true);
    expect(store.heldBy('app-a')).toBe(3);
    // The share is per application, whatever the key.
    expect(() => store.checkAndRecord('a4', 1, 301, aOtherKey)).toThrow(
      expect.objectContaining({ code: 'NONCE_SHARE_FULL' }),
    );
    expect(() => store.checkAndRecord('a4', 1, 301, a)).toThrow(/app-a.*share/);
    // A replay is still a replay (false), not a share error; nonces stay global across applications.
    expect(store.checkAndRecord('a1', 1, 301, a)).toBe(false);
    expect(store.checkAndRecord('a1', 1, 301, b)).toBe(false);
    expect(store.checkAndRecord('b1', 1, 301, b)).toBe(true);
    expect(store.checkAndRecord('free', 1, 301)).toBe(true);
    // Two of app-a's nonces expire at 300: it may record two more, not three.
    expect(store.checkAndRecord('a4', 301, 601, a)).toBe(true);
    expect(store.heldBy('app-a')).toBe(2);
    expect(store.checkAndRecord('a5', 301, 601, a)).toBe(true);
    expect(() => store.checkAndRecord('a6', 301, 601, a)).toThrow(
      expect.objectContaining({ code: 'NONCE_SHARE_FULL' }),
    );
    expect(store.heldBy('app-b')).toBe(1);
    expect(store.checkAndRecord('x', 700, 1000)).toBe(true);
    expect(store.heldBy('app-a')).toBe(0);
    expect(() => new MemoryNonceStore({ maxEntriesPerApplication: 0 })).toThrow(TypeError);
    expect(() => new MemoryNonceStore({ maxEntriesPerApplication: 1.5 })).toThrow(TypeError);
  });

  it('one client filling the store at full speed cannot lock another application out (default share: a tenth)', () => {
    const store = new MemoryNonceStore({ maxEntries: 1000 });
    const flooder = { applicationId: 'flooder', keyId: 'k' };
    let accepted = 0;
    let refused = 0;
    for (let i = 0; i < 2000; i++) {
      try {
        if (store.checkAndRecord(`f${i}`, 0, 600, flooder)) accepted++;
      } catch {
        refused++;
      }
    }
    expect(accepted).toBe(100);
    expect(refused).toBe(1900);
    for (let i = 0; i < 100; i++)
      expect(store.checkAndRecord(`o${i}`, 0, 300, { applicationId: 'other', keyId: 'k' })).toBe(
        true,
      );
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
    const results = await Promise.all(
      Array.from({ length: 50 }, () => asyncStore.checkAndRecord('same', 10, 310)),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('property: agrees with a store that never forgets, and holds exactly the unexpired nonces (time moving forward)', () => {
    const call = fc.record({
      op: fc.constantFrom('has', 'record'),
      nonce: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
      advance: fc.nat({ max: 40 }),
      ttl: fc.integer({ min: -5, max: 120 }),
      app: fc.constantFrom('p', 'q'),
    });
    fc.assert(
      fc.property(fc.array(call, { maxLength: 200 }), (calls) => {
        const store = new MemoryNonceStore();
        const model = new Map<string, number>();
        let now = 1000;
        for (const { op, nonce, advance, ttl, app } of calls) {
          now += advance;
          const live = (model.get(nonce) ?? -Infinity) >= now;
          if (op === 'has') {
            expect(store.has(nonce, now)).toBe(live);
            continue;
          }
          expect(
            store.checkAndRecord(nonce, now, now + ttl, { applicationId: app, keyId: 'k' }),
          ).toBe(!live);
          if (!live) model.set(nonce, now + ttl);
          const unexpired = [...model.values()].filter((expiresAt) => expiresAt >= now).length;
          // Everything expired before `now` was evicted; only the nonce just recorded may already be expired.
          expect(store.size - unexpired).toBeGreaterThanOrEqual(0);
          expect(store.size - unexpired).toBeLessThanOrEqual(!live && ttl < 0 ? 1 : 0);
          // The shares account for exactly the remembered nonces.
          expect(store.heldBy('p') + store.heldBy('q')).toBe(store.size);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('MemoryNonceStore memory per nonce (bench/nonce-memory.ts)', () => {
  it('a remembered nonce costs well under the old 336 B (the header it was parsed from is not kept alive)', () => {
    // A heap measurement, not a timing: 50,000 UUID nonces, each parsed out of its own Signature-Input header.
    const root = fileURLToPath(new URL('..', import.meta.url));
    const r = spawnSync(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', 'bench/nonce-memory.ts', '--count', '50000'],
      { cwd: root, encoding: 'utf8', timeout: 60_000 },
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const bytes = Number(/: ([\d.]+) B per remembered nonce/.exec(r.stdout)?.[1]);
    expect(bytes).toBeGreaterThan(40);
    expect(bytes).toBeLessThanOrEqual(150);
  }, 70_000);
});
