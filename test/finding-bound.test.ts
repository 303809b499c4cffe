// A check's findings bounded before they are graded (conformance/run/finding-bound.ts): whatever a target or adapter
// answers, a check keeps MAX_FINDINGS_PER_CHECK findings whole and counts the rest by kind; the verdict is the one it
// would have had with every finding kept.
import { describe, expect, it } from 'vitest';
import {
  observation,
  pass,
  violation,
  type Check,
  type Finding,
} from '../conformance/run/check.js';
import { runChecks } from '../conformance/run/engine.js';
import { boundFindings, MAX_FINDINGS_PER_CHECK } from '../conformance/run/finding-bound.js';

const padded = (n: number): Finding[] =>
  Array.from({ length: n }, (_, i) => observation(`the SDK did not pass on /x-pad-${i} as sent`));

describe('bounded findings', () => {
  it('within the bound: every finding, as given', () => {
    const few = padded(MAX_FINDINGS_PER_CHECK);
    expect(boundFindings(few)).toBe(few);
  });

  it('60,000 observations and a failure at the end: the failure kept, the rest counted in one line', () => {
    const fail = violation('the SDK lost /amount', { requirement: 'PAYOUT-RESPONSE-RESOURCE' });
    const bounded = boundFindings([...padded(60_000), fail]);
    expect(bounded.length).toBe(MAX_FINDINGS_PER_CHECK + 1);
    expect(bounded).toContain(fail);
    expect(bounded.at(-1)).toMatchObject({
      outcome: 'observation',
      message: expect.stringMatching(
        /^59801 more finding\(s\) like "the SDK did not pass on \/x-pad-\d+ as sent" not kept: a check keeps 200 findings whole/,
      ),
    });
  });

  it('more failures than the bound: each kind of those dropped summed up with its requirement and level', () => {
    const many = [
      ...Array.from({ length: 300 }, (_, i) =>
        violation(`a forged webhook ${i} accepted`, { requirement: 'A', level: 'SHOULD' }),
      ),
      violation('the amount changed', { requirement: 'B' }),
      pass('fine'),
    ];
    const bounded = boundFindings(many, 100);
    const summaries = bounded.filter((f) => /more finding\(s\) like/.test(f.message));
    expect(summaries).toEqual([
      expect.objectContaining({ outcome: 'violation', requirement: 'A', level: 'SHOULD' }),
      expect.objectContaining({ outcome: 'violation', requirement: 'B' }),
      expect.objectContaining({ outcome: 'pass' }),
    ]);
    expect(summaries[0]!.message).toMatch(/^200 more/);
  });

  it('through the engine: the verdict is the failure, the report holds the bound', async () => {
    const noisy: Check<object> = {
      id: 'noisy',
      title: 'a check whose target pads every answer',
      area: 'synthetic',
      requirements: ['SIG-VERIFY-CREATED-WINDOW'],
      level: 'MUST',
      appliesTo: 'server',
      run: () => Promise.resolve([...padded(60_000), violation('the window was not enforced')]),
    };
    const summary = await runChecks({
      checks: [noisy],
      context: {},
      role: 'server',
      target: 'http://127.0.0.1:1',
      toolVersion: '0.0.0-test',
    });
    expect(summary.results[0]?.outcome).toBe('fail');
    expect(summary.results[0]?.findings.length).toBeLessThanOrEqual(MAX_FINDINGS_PER_CHECK + 1);
    expect(JSON.stringify(summary).length).toBeLessThan(200_000);
  });
});
