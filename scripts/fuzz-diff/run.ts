// The differential fuzzer's loop (npm run fuzz:diff -- --seconds N): fast-check draws cases, every implementation
// answers each, and a case with a new, unstated disagreement fails the property, so fast-check minimises it; the
// minimal case is printed as a ready-to-commit candidate vector, its kind remembered, and the search goes on until
// the time is spent. Stated disagreements (the one table of departures explains them) are counted, not printed.
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { fuzzCaseArb, type FuzzCase } from './generate.js';
import {
  payconform,
  startMatrixImplementations,
  type Implementation,
  type Verdict,
} from './implementations.js';
import { judgeBase, judgeFields, judgeVerify, type Disagreement } from './judge.js';

export interface Finding {
  readonly disagreements: readonly Disagreement[];
  readonly fuzzCase: FuzzCase;
  /** payconform's answer: the candidate vector's expected value. */
  readonly expected: Record<string, unknown>;
  /** payconform's signature base answer, when a base disagreement is among them. */
  readonly expectedBase?: Record<string, unknown>;
}

export interface FuzzReport {
  readonly seed: number;
  readonly cases: number;
  readonly answered: Readonly<Record<string, number>>;
  /** Disagreements explained by a stated departure, per implementation and departure. */
  readonly stated: Readonly<Record<string, number>>;
  readonly findings: readonly Finding[];
}

export interface FuzzOptions {
  readonly seconds: number;
  readonly seed?: number;
  /** Matrix implementations to ask (default: every one that verifies). */
  readonly only?: readonly string[];
  /** Replaces payconform's matrix peers (tests: a deliberately broken implementation). */
  readonly implementations?: readonly Implementation[];
  readonly print?: (line: string) => void;
  /** Stop after this many findings (default: search until the time is spent). */
  readonly maxFindings?: number;
}

/** Everyone's answers to one case (verify; signature-base for a profile-signed one), and what disagrees. */
async function ask(impls: readonly Implementation[], c: FuzzCase) {
  const everyone = [payconform, ...impls];
  const [ours, ...answers] = (await Promise.all(everyone.map((i) => i.answer(c)))) as [
    Verdict,
    ...Verdict[],
  ];
  if (ours.kind !== 'result') throw new Error(`payconform did not answer: ${JSON.stringify(ours)}`);
  const disagreements = [...judgeVerify(c, impls, ours.result, answers), ...judgeFields(c)];
  let ourBase: Record<string, unknown> | undefined;
  if (c.base) {
    const [b, ...bases] = await Promise.all(everyone.map((i) => i.answerBase(c.base!)));
    if (b!.kind !== 'result') throw new Error(`payconform built no base: ${JSON.stringify(b)}`);
    ourBase = b!.result;
    disagreements.push(...judgeBase(impls, ourBase, bases));
  }
  return { ours: ours.result, ourBase, answers, disagreements };
}

/** The minimal case as a vector of request-signing.json (its expected value is payconform's answer). */
export function candidateVector(f: Finding): Record<string, unknown> {
  const { request, now, nonceState, verifier } = f.fuzzCase;
  const hash = createHash('sha256').update(JSON.stringify(request)).digest('hex').slice(0, 8);
  const who = f.disagreements.map((d) => `${d.implementation} answers ${d.other}`).join('; ');
  return {
    id: `verify-fuzz-${hash}`,
    op: 'verify',
    description: `Found by npm run fuzz:diff (${f.fuzzCase.origin}): payconform answers ${f.disagreements[0]!.payconform}; ${who}.`,
    source: 'npm run fuzz:diff',
    result: f.expected.ok === true ? 'valid' : 'invalid',
    flags: ['Fuzz'],
    input: { request, now, nonceState, verifier },
    expected: f.expected,
  };
}

/** The minimal case as a vector of signature-base.json (a base disagreement). */
export function candidateBaseVector(f: Finding): Record<string, unknown> {
  const verify = candidateVector(f);
  return {
    ...verify,
    id: String(verify.id).replace(/^verify-/, 'base-'),
    op: 'signature-base',
    result: f.expectedBase?.error === undefined ? 'valid' : 'invalid',
    input: f.fuzzCase.base,
    expected: f.expectedBase,
  };
}

function tally(report: { answered: Record<string, number>; stated: Record<string, number> }) {
  return (impls: readonly Implementation[], answers: readonly Verdict[], ds: Disagreement[]) => {
    impls.forEach((impl, i) => {
      if (answers[i]!.kind === 'result')
        report.answered[impl.id] = (report.answered[impl.id] ?? 0) + 1;
    });
    for (const d of ds)
      if (d.stated) {
        const key = `${d.implementation}/${d.stated}`;
        report.stated[key] = (report.stated[key] ?? 0) + 1;
      }
  };
}

/** Runs for `seconds`; resolves with what was asked and found. Every implementation is closed at the end. */
export async function runDifferentialFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const print = options.print ?? (() => {});
  const impls = options.implementations ?? startMatrixImplementations(options.only);
  const seed = options.seed ?? Date.now() % 2 ** 31;
  const report = { seed, cases: 0, answered: {}, stated: {}, findings: [] as Finding[] };
  const count = tally(report);
  const known = new Set<string>();
  try {
    await Promise.all(impls.map((i) => i.ready()));
    const deadline = Date.now() + options.seconds * 1000;
    for (let round = 0; Date.now() < deadline; round++) {
      const property = fc.asyncProperty(fuzzCaseArb, async (c) => {
        const asked = await ask(impls, c);
        report.cases++;
        count(impls, asked.answers, asked.disagreements);
        return asked.disagreements.every((d) => d.stated !== undefined || known.has(d.key));
      });
      const result = await fc.check(property, {
        seed: seed + round,
        numRuns: Number.MAX_SAFE_INTEGER,
        interruptAfterTimeLimit: Math.max(1, deadline - Date.now()),
        markInterruptAsFailure: false,
      });
      if (!result.failed || !result.counterexample) break;
      const [minimal] = result.counterexample;
      const asked = await ask(impls, minimal);
      const fresh = asked.disagreements.filter((d) => !d.stated && !known.has(d.key));
      for (const d of fresh) known.add(d.key);
      if (fresh.length === 0) continue;
      const finding = {
        disagreements: fresh,
        fuzzCase: minimal,
        expected: asked.ours,
        ...(asked.ourBase ? { expectedBase: asked.ourBase } : {}),
      };
      report.findings.push(finding);
      print(`DISAGREEMENT ${fresh.map((d) => d.key).join(', ')} (seed ${seed + round})`);
      print(JSON.stringify(candidateVector(finding), null, 2));
      if (fresh.some((d) => d.key.includes(':base:')))
        print(JSON.stringify(candidateBaseVector(finding), null, 2));
      if (report.findings.length >= (options.maxFindings ?? Infinity)) break;
    }
  } finally {
    await Promise.all(impls.map((i) => i.close()));
  }
  return report;
}
