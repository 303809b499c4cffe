// Proves the payload vectors (vectors/payloads/*.json) are current with their generator and pass or fail exactly as
// labelled, with exactly the labelled pointers; and that they cover every status and copStatus value of the spec.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  copStatuses,
  paymentWebhookStatuses,
  payloadKinds,
  payoutStatuses,
  payoutWebhookStatuses,
  refundStatuses,
  validateAgainst,
  validatePayload,
} from '../src/schemas/index.js';
import {
  buildPayloadVectors,
  payloadVectorText,
  payloadVectorsDir,
  type PayloadVectorCase,
  type PayloadVectorFile,
} from '../vectors/payloads/generate.js';

const built = buildPayloadVectors();
const files: PayloadVectorFile[] = payloadKinds.map(
  (kind) =>
    JSON.parse(readFileSync(`${payloadVectorsDir}${kind}.json`, 'utf8')) as PayloadVectorFile,
);
const allCases: (readonly [string, PayloadVectorFile, PayloadVectorCase])[] = files.flatMap((f) =>
  f.cases.map((c) => [c.id, f, c] as const),
);

describe('vectors/payloads: files', () => {
  it('one file per payload kind, and no other JSON file', () => {
    const json = readdirSync(payloadVectorsDir)
      .filter((f) => f.endsWith('.json'))
      .sort();
    expect(json).toEqual(payloadKinds.map((k) => `${k}.json`).sort());
  });

  it.each(payloadKinds)(
    '%s.json is what the generator writes (regenerate with npx tsx vectors/payloads/generate.ts)',
    (kind) => {
      expect(readFileSync(`${payloadVectorsDir}${kind}.json`, 'utf8')).toBe(
        payloadVectorText(built[kind]),
      );
    },
  );

  it('case ids are unique and shaped <kind>-[strict-]valid|invalid-<slug>', () => {
    const ids = allCases.map(([id]) => id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const [id, file] of allCases)
      expect(id).toMatch(
        new RegExp(`^${file.kind}-(strict-)?(valid|invalid)-[a-z0-9]+(-[a-z0-9]+)*$`),
      );
  });

  it('every case has a description, a source, a result; invalid ones their expected errors', () => {
    for (const [, , c] of allCases) {
      expect(c.description.length).toBeGreaterThan(5);
      expect(c.source).toMatch(/^(spec: |payconform strict variant; spec: )/);
      expect(c.id.includes('-valid-')).toBe(c.result === 'valid');
      if (c.result === 'invalid') expect(c.expectedErrors?.length).toBeGreaterThan(0);
      else expect(c.expectedErrors).toBeUndefined();
    }
  });
});

describe('vectors/payloads: every case passes or fails exactly as labelled', () => {
  it.each(allCases)('%s', (_id, file, c) => {
    const schemaId = c.schema ?? file.schema;
    const result = validateAgainst(schemaId, c.payload);
    // The same answer through the kind-based API.
    expect(
      validatePayload(file.kind, c.payload, { strict: schemaId === file.strictSchema }),
    ).toEqual(result);
    if (c.result === 'valid') {
      expect(result).toEqual({ valid: true });
      return;
    }
    expect(result.valid).toBe(false);
    const reported = result.valid ? [] : result.errors;
    const expected = c.expectedErrors ?? [];
    // Exactly the labelled pointers are reported (no more, no fewer) ...
    expect([...new Set(reported.map((e) => e.pointer))].sort()).toEqual(
      [...new Set(expected.map((e) => e.pointer))].sort(),
    );
    // ... and at each, the labelled keyword.
    for (const e of expected)
      expect(reported).toContainEqual(
        expect.objectContaining({ pointer: e.pointer, keyword: e.keyword }),
      );
  });
});

describe('vectors/payloads: coverage of the spec tables', () => {
  const validPayloads = (kind: string): Record<string, unknown>[] =>
    allCases
      .filter(([, f, c]) => f.kind === kind && c.result === 'valid' && c.schema === undefined)
      .map(([, , c]) => c.payload as Record<string, unknown>);

  it('payout: every status and every copStatus (and null) appears in a valid case', () => {
    expect(new Set(validPayloads('payout').map((p) => p['status']))).toEqual(
      new Set(payoutStatuses),
    );
    expect(new Set(validPayloads('payout').map((p) => p['copStatus']))).toEqual(
      new Set([...copStatuses, null]),
    );
  });
  it('refund, payout webhook, refund webhook, payment webhook: every status value', () => {
    expect(new Set(validPayloads('refund').map((p) => p['status']))).toEqual(
      new Set(refundStatuses),
    );
    expect(new Set(validPayloads('payout-webhook').map((p) => p['payoutStatus']))).toEqual(
      new Set(payoutWebhookStatuses),
    );
    expect(new Set(validPayloads('refund-webhook').map((p) => p['refundStatus']))).toEqual(
      new Set(refundStatuses),
    );
    expect(new Set(validPayloads('payment-webhook').map((p) => p['paymentStatus']))).toEqual(
      new Set(paymentWebhookStatuses),
    );
  });
  it.each(payloadKinds)(
    '%s: valid and invalid cases, a wrong-type case, and strict-variant cases',
    (kind) => {
      const cases = allCases.filter(([, f]) => f.kind === kind).map(([, , c]) => c);
      expect(cases.some((c) => c.result === 'valid')).toBe(true);
      expect(
        cases.some(
          (c) => c.result === 'invalid' && c.expectedErrors?.some((e) => e.keyword === 'type'),
        ),
      ).toBe(true);
      expect(cases.some((c) => c.schema !== undefined)).toBe(true);
    },
  );
  it('the invalid variants the issue asks for are present: missing field, bad enum, bad timestamp, number for string and the reverse', () => {
    const has = (kind: string, id: string): boolean =>
      allCases.some(([caseId, f]) => f.kind === kind && caseId === id);
    expect(has('payout', 'payout-invalid-missing-status')).toBe(true);
    expect(has('payout', 'payout-invalid-cop-status-unknown')).toBe(true);
    expect(has('payout', 'payout-invalid-created-at-no-fraction')).toBe(true);
    expect(has('refund', 'refund-invalid-created-at-with-z')).toBe(true);
    expect(has('payout', 'payout-invalid-reference-number')).toBe(true);
    expect(has('payout', 'payout-invalid-amount-string')).toBe(true);
    expect(has('refund-request', 'refund-request-strict-invalid-amount-number')).toBe(true);
  });
});
