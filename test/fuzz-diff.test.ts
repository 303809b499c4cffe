// npm run fuzz:diff (scripts/fuzz-diff/): a bounded differential run against every interop-matrix implementation
// that verifies finds no unstated disagreement, and a deliberately broken implementation (one that accepts an empty
// covered list, as web-bot-auth shipped) is found, minimised and printed as a candidate vector.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { payconform, type Implementation } from '../scripts/fuzz-diff/implementations.js';
import { candidateVector, runDifferentialFuzz } from '../scripts/fuzz-diff/run.js';

function pythonMissing(): string | undefined {
  const r = spawnSync('python3', ['-c', 'import cryptography'], { timeout: 10_000 });
  if (r.error) return `python3 not found (${r.error.message})`;
  return r.status === 0 ? undefined : 'python3 cannot import the cryptography package';
}
const missing = pythonMissing();
if (missing && process.env.CI === 'true')
  throw new Error(`CI: the Python adapter is needed: ${missing}`);
if (missing) console.warn(`fuzz-diff: without the Python adapter: ${missing}`);

/** payconform's verifier, except that it accepts any request whose covered list is empty (`sig1=()`). */
const acceptsEmptyList: Implementation = {
  ...payconform,
  id: 'accepts-empty-list',
  compareCodes: false,
  answer: async (c) => {
    const input = c.request.headers.find(([n]) => n.toLowerCase() === 'signature-input');
    if (input && /^sig1=\(\)/.test(input[1])) return { kind: 'result', result: { ok: true } };
    return payconform.answer(c);
  },
};

describe('fuzz:diff, differential fuzzing across the interop matrix', () => {
  // 4 s: enough for a few hundred cases on the shared 2-core machine (each asked of every implementation), which
  // reaches every input source and mutation; the 10-minute run is documented in docs/vectors.md.
  it('a bounded run: every implementation answers, and every disagreement is a stated departure', async () => {
    const only = missing
      ? ['http-message-signatures', 'http-message-sig']
      : ['python', 'http-message-signatures', 'http-message-sig'];
    const report = await runDifferentialFuzz({ seconds: 4, seed: 7, only });
    expect(report.findings.map((f) => candidateVector(f))).toEqual([]);
    expect(report.cases).toBeGreaterThan(50);
    for (const id of only) expect(report.answered[id] ?? 0, id).toBeGreaterThan(20);
    expect(Object.keys(report.stated).length).toBeGreaterThan(0);
  }, 60_000);

  // 8 s at most, stopping at the first finding: an empty list (drawn by the grammar, or the vector) comes early.
  it('finds a verifier that accepts sig1=(), minimises the case and prints it as a candidate vector', async () => {
    const printed: string[] = [];
    const report = await runDifferentialFuzz({
      seconds: 8,
      seed: 7,
      implementations: [acceptsEmptyList],
      print: (line) => printed.push(line),
      maxFindings: 1,
    });
    expect(report.findings.length).toBeGreaterThanOrEqual(1);
    const finding = report.findings[0]!;
    expect(finding.disagreements[0]!.key).toBe('accepts-empty-list:COMPONENTS_MISMATCH@2:ok');
    const vector = candidateVector(finding);
    expect(vector).toMatchObject({ op: 'verify', result: 'invalid', flags: ['Fuzz'] });
    expect(vector.expected).toEqual({ ok: false, code: 'COMPONENTS_MISMATCH', step: 2 });
    // Minimised: the mutation drawn with it is shrunk away, leaving the empty list as the one fault.
    expect(finding.fuzzCase.origin).not.toContain(' + ');
    const input = finding.fuzzCase.request.headers.find(([n]) => n === 'signature-input')!;
    expect(input[1]).toMatch(/^sig1=\(\);/);
    expect(printed.join('\n')).toContain('"id": "verify-fuzz-');
  }, 60_000);
});
