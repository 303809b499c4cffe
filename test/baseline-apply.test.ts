// applyBaseline in process (conformance/report/baseline.ts): the judging the spawned `--baseline` tests cannot reach cheaply.
import { describe, expect, it } from 'vitest';
import { applyBaseline, type Baseline } from '../conformance/report/baseline.js';
import type { CheckResult, RunSummary } from '../conformance/run/result.js';

const finding = (message: string) => ({ outcome: 'fail' as const, message });

/** A run of one check whose two failing findings share one key (no status, pointer or header tells them apart). */
const run = {
  results: [
    {
      id: 'payout-resource-fields',
      requirements: ['PAYOUT-RESPONSE-RESOURCE'],
      outcome: 'fail',
      message: 'amount differs',
      findings: [finding('amount differs'), finding('reference differs')],
    } as unknown as CheckResult,
  ],
  counts: { pass: 0, fail: 1, warn: 0, error: 0, skip: 0, inconclusive: 0 },
  blocking: [],
} as unknown as RunSummary;

const entry = {
  check: 'payout-resource-fields',
  requirement: 'PAYOUT-RESPONSE-RESOURCE',
  class: 'fail',
  reason: 'accepted until the next release',
} as const;

describe('applyBaseline', () => {
  it('an expired entry naming two findings is listed, and blocks, once', () => {
    const baseline: Baseline = {
      baselineVersion: '1',
      entries: [{ ...entry, expires: '2020-01-01' }],
    };
    const out = applyBaseline(run, baseline, { file: 'b.json', now: new Date('2026-01-01') });
    expect(out.baseline?.expired).toHaveLength(1);
    expect(out.blocking).toHaveLength(1);
    expect(out.blocking[0]).toMatch(/expired on 2020-01-01/);
  });

  it('a live entry marks both findings known, each listed', () => {
    const baseline: Baseline = {
      baselineVersion: '1',
      entries: [{ ...entry, expires: '2099-01-01' }],
    };
    const out = applyBaseline(run, baseline, { file: 'b.json', now: new Date('2026-01-01') });
    expect(out.baseline?.known).toHaveLength(2);
    expect(out.blocking).toEqual([]);
    expect(out.results[0]?.outcome).toBe('pass');
  });

  it('a header or pointer discriminator names a finding only when it is there whole, not inside a longer name', () => {
    const one = (message: string) =>
      ({
        ...run,
        results: [{ ...run.results[0]!, findings: [finding(message)] }],
      }) as unknown as RunSummary;
    const known = (message: string, by: { header?: string; pointer?: string }) =>
      applyBaseline(
        one(message),
        { baselineVersion: '1', entries: [{ ...entry, ...by }] },
        { file: 'b.json', now: new Date('2026-01-01') },
      ).baseline?.known.length ?? 0;
    expect(known('the "date" header is missing', { header: 'date' })).toBe(1);
    expect(known('the "x-date" header is missing', { header: 'date' })).toBe(0);
    expect(known('lastupdate differs', { header: 'date' })).toBe(0);
    expect(known('/destination/name differs', { pointer: '/destination/name' })).toBe(1);
    expect(known('holderName differs', { pointer: '/destination/name' })).toBe(0);
    expect(known('nickname differs', { pointer: '/name' })).toBe(0);
  });
});
