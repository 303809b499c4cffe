// The worker pool's messages (net/verify-pool/wire.ts): every record of both directions survives the trip through
// postMessage field for field, a field written on one side only is caught, and a batch that is not one never crashes
// the reader with anything but WireFormatError.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REQUEST_FACT_KINDS, type RequestFacts } from '../src/profile/request-facts.js';
import { defaultVerificationPolicy } from '../src/profile/verification-policy.js';
import {
  decode,
  encode,
  PARSED_ANSWER,
  TO_LOOP,
  TO_WORKER,
  transferOf,
  WireFormatError,
  type WireBatch,
  type WireKind,
  type WireSchema,
} from '../net/verify-pool/wire.js';
import { parseJob, register } from '../net/verify-pool/worker-steps.js';
import { nowSeconds, signedTestRequest } from './fixtures/signed-test-request.js';

/** Values of every kind, the awkward ones included (lone surrogates, -0, NaN, huge numbers, empty everything). */
const valueOf: Record<WireKind, fc.Arbitrary<unknown>> = {
  number: fc.double(),
  boolean: fc.boolean(),
  string: fc.string({ unit: 'binary' }),
  'string?': fc.option(fc.string({ unit: 'binary' }), { nil: undefined }),
  lines: fc.array(fc.tuple(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' })), {
    maxLength: 6,
  }),
  bytes: fc.uint8Array({ maxLength: 64 }),
};

const recordOf = (schema: WireSchema): fc.Arbitrary<Record<string, unknown>> =>
  fc.record(
    Object.fromEntries(Object.entries(schema).map(([name, kind]) => [name, valueOf[kind]])),
  );

const recordsOf = (direction: Readonly<Record<string, WireSchema>>) =>
  fc.record(
    Object.fromEntries(
      Object.entries(direction).map(([section, schema]) => [
        section,
        fc.array(recordOf(schema), { maxLength: 5 }),
      ]),
    ),
  );

/** What postMessage does to a batch: a structured clone, its buffers transferred. */
const sent = (batch: WireBatch): WireBatch =>
  structuredClone(batch, { transfer: transferOf(batch) });

describe('wire.ts: both directions round-trip every field of every record', () => {
  for (const [name, direction] of [
    ['event loop → worker', TO_WORKER],
    ['worker → event loop', TO_LOOP],
  ] as const) {
    it(name, () => {
      fc.assert(
        fc.property(recordsOf(direction), (records) => {
          const batch = encode(direction, records as never);
          expect(decode(direction, sent(batch))).toEqual(records);
        }),
        { numRuns: 300 },
      );
    });
  }
});

describe('wire.ts: a field on one side only is caught, not misread', () => {
  const record = (schema: WireSchema): Record<string, unknown> =>
    fc.sample(recordOf(schema), { numRuns: 1, seed: 7 })[0]!;
  for (const kind of Object.keys(valueOf) as WireKind[]) {
    it(`a ${kind} field the writer adds and the reader lacks, and the other way round`, () => {
      const wider = { ...TO_LOOP, parsed: { ...PARSED_ANSWER, added: kind } } as const;
      const answer = record(wider.parsed);
      const batch = encode(wider, { parsed: [answer], verified: [] } as never);
      expect(() => decode(TO_LOOP, sent(batch))).toThrow(WireFormatError);
      const narrow = encode(TO_LOOP, { parsed: [record(PARSED_ANSWER) as never], verified: [] });
      expect(() => decode(wider, sent(narrow))).toThrow(WireFormatError);
    });
  }

  it("the worker's own answer has exactly the wire's fields, the request's facts among them", () => {
    const empty = encode(TO_WORKER, { parse: [], verify: [], drop: [] });
    register({
      policies: [[1, defaultVerificationPolicy]],
      applications: [],
      forgetApplications: false,
      batch: empty,
    });
    const { method, url, headers, body } = signedTestRequest('wire-1');
    const answer = parseJob({ id: 1, now: nowSeconds(), policy: 1, method, url, headers, body });
    expect(answer.ok).toBe(true);
    expect(Object.keys(answer).sort()).toEqual(Object.keys(PARSED_ANSWER).sort());
    for (const fact of Object.keys(REQUEST_FACT_KINDS)) expect(PARSED_ANSWER).toHaveProperty(fact);
    const facts: RequestFacts = answer; // a parsed answer is the request's facts (compile-time)
    expect(decode(TO_LOOP, sent(encode(TO_LOOP, { parsed: [answer], verified: [] })))).toEqual({
      parsed: [facts],
      verified: [],
    });
  });
});

describe('wire.ts: a batch that is not one', () => {
  it('is refused with WireFormatError, never another exception, never a hang', () => {
    const batch = fc.record({
      counts: fc.oneof(
        fc.array(fc.integer({ min: -2, max: 40 }), { maxLength: 4 }),
        fc.constant(undefined),
      ),
      numbers: fc
        .array(fc.oneof(fc.double(), fc.integer({ min: -2, max: 30 })), { maxLength: 60 })
        .map((n) => Float64Array.from(n)),
      text: fc.string({ maxLength: 60 }),
      bytes: fc.uint8Array({ maxLength: 60 }),
    });
    fc.assert(
      fc.property(batch, (b) => {
        for (const direction of [TO_WORKER, TO_LOOP] as const) {
          try {
            decode(direction, b as WireBatch);
          } catch (error) {
            expect(error).toBeInstanceOf(WireFormatError);
          }
        }
      }),
      { numRuns: 500 },
    );
  });
});

// Compile-time: every fact travels in a parsed answer with its own kind.
const _factsTravel: { [K in keyof typeof REQUEST_FACT_KINDS]: (typeof PARSED_ANSWER)[K] } =
  REQUEST_FACT_KINDS;
void _factsTravel;
