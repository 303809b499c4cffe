// The target's clock read from its Date headers (conformance/checks/server/target-clock.ts): the bounds always hold
// the true offset, whatever it is; no Date or contradicting Dates fall back to payconform's tolerance; and a form near
// the 300 s window's edge is judged only where every clock the bounds allow gives the same answer.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { forgeryForms } from '../conformance/checks/server/forgery-kinds.js';
import { predict } from '../conformance/checks/server/signature-forgeries.js';
import {
  clockBounds,
  SAME_CLOCK,
  UNKNOWN_CLOCK,
  type ClockSample,
} from '../conformance/checks/server/target-clock.js';
import { generateEd25519PrivateKey } from '../src/keys/ed25519-keys.js';

/** What a target whose clock is `offsetMs` from this one answers at local time `atMs`, `latencyMs` on the way. */
const answer = (offsetMs: number, atMs: number, latencyMs: number): ClockSample => ({
  date: new Date(atMs + latencyMs / 2 + offsetMs).toUTCString(),
  sentAtMs: atMs,
  receivedAtMs: atMs + latencyMs,
});

describe('clockBounds', () => {
  it('holds the true offset for any offset, any time and any latency', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -600_000, max: 600_000 }),
        fc.array(
          fc.tuple(fc.integer({ min: 1.7e12, max: 1.9e12 }), fc.integer({ min: 0, max: 3000 })),
          { minLength: 1, maxLength: 5 },
        ),
        (offsetMs, reads) => {
          const b = clockBounds(reads.map(([at, latency]) => answer(offsetMs, at, latency)));
          expect(b.lo).toBeLessThanOrEqual(offsetMs / 1000);
          expect(b.hi).toBeGreaterThanOrEqual(offsetMs / 1000);
          // Each read narrows it to a second and its latency.
          expect(b.hi - b.lo).toBeLessThanOrEqual(
            1 + Math.min(...reads.map(([, l]) => l)) / 1000 + 1e-6,
          );
        },
      ),
    );
  });

  it('no Date, an unparseable one, or Dates that contradict each other: the tolerance, said so', () => {
    const at = 1.8e12;
    expect(clockBounds([])).toBe(UNKNOWN_CLOCK);
    expect(clockBounds([{ date: undefined, sentAtMs: at, receivedAtMs: at + 5 }])).toBe(
      UNKNOWN_CLOCK,
    );
    expect(clockBounds([{ date: 'yesterday', sentAtMs: at, receivedAtMs: at + 5 }])).toBe(
      UNKNOWN_CLOCK,
    );
    expect(clockBounds([answer(0, at, 5), answer(60_000, at + 10, 5)])).toBe(UNKNOWN_CLOCK);
    expect(UNKNOWN_CLOCK.source).toMatch(/no Date header/);
  });
});

describe('a form near the window edge, on a target whose clock differs', () => {
  const credentials = {
    applicationId: 'app-clock',
    applicationSecret: 'test-only-secret-clock-0123456789',
    keyId: 'key-clock',
    privateKey: generateEd25519PrivateKey(),
  };
  const unsigned = {
    method: 'POST',
    url: 'http://127.0.0.1:8080/api/payouts',
    headers: [['content-type', 'application/vnd.service.v1.0+json']] as [string, string][],
    body: new TextEncoder().encode('{"amount":0.01,"reference":"clock"}'),
  };
  const pastEdge = forgeryForms.find((f) => f.name === 'created-past-edge')!;
  const nowMs = 1_800_000_000_400;
  const kind = (size: number, clock = SAME_CLOCK) =>
    predict(
      pastEdge,
      pastEdge.build({ request: unsigned, credentials, now: Math.floor(nowMs / 1000), size }),
      nowMs,
      clock,
    ).kind;

  it('on this machine\'s clock, "created" 301 s old is refused at the edge', () => {
    expect(kind(0)).toBe('reject');
  });

  it('a target 2.5 s behind: within 3 s of the edge either answer conforms, beyond it a refusal is required', () => {
    const behind = clockBounds([answer(-2500, nowMs - 50, 4), answer(-2500, nowMs - 40, 4)]);
    expect(behind.lo).toBeLessThan(-2.4);
    expect([0, 1, 2].map((size) => kind(size, behind))).toEqual(['either', 'either', 'either']);
    expect([3, 4, 17].map((size) => kind(size, behind))).toEqual(['reject', 'reject', 'reject']);
  });

  it('a target ahead of this machine changes nothing at the past edge', () => {
    const ahead = clockBounds([answer(4000, nowMs - 50, 4)]);
    expect(kind(0, ahead)).toBe('reject');
  });
});
