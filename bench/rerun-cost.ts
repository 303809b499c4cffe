// `npx tsx bench/rerun-cost.ts [--rounds N] [--fault NAME] [--seed N]`: what running a failure once more
// (conformance/run/flaky.ts) adds to a default `audit server` (every fixed check, then the explorer at its default budget,
// from a fixed seed so that both runs explore alike) of the embedded reference service with one fault. Each round audits a fresh faulty service twice, with the second run and without
// it (the order alternating round by round, so a noisy neighbour hits both alike), and prints the median wall time of
// each, the median per-round difference, and what failed.
import { generateKeyPairSync } from 'node:crypto';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { auditTarget, startEmbeddedTarget } from '../cli/commands/audit-server.js';
import { EXPLORE_DEFAULTS } from '../conformance/explore/explore-defaults.js';
import type { SuiteRerun } from '../conformance/run/flaky.js';
import { isFaultName, type FaultName } from '../server/index.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    fault: { type: 'string', default: 'no-nonce-length-check' },
    seed: { type: 'string', default: '1' },
  },
});
const seed = Number(values.seed) >>> 0;
const rounds = Math.max(1, Math.min(50, Number(values.rounds) || 3));
if (!isFaultName(values.fault)) {
  process.stderr.write(`rerun-cost: unknown fault ${values.fault}\n`);
  process.exit(2);
}
const fault: FaultName = values.fault;
const webhookSigningKey = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();

/** Milliseconds of one default audit of a fresh service with the fault, and the checks that failed or were flaky. */
async function timedAudit(rerunFailures: SuiteRerun): Promise<{ ms: number; caught: string }> {
  const target = await startEmbeddedTarget({ faults: [fault], webhookSigningKey });
  try {
    const started = performance.now();
    const summary = await auditTarget(target, {
      explore: { ...EXPLORE_DEFAULTS, only: false, seed },
      rerunFailures,
    });
    const caught = summary.results
      .filter((r) => r.outcome === 'fail' || r.flaky === true)
      .map((r) => `${r.id}${r.flaky === true ? ' (flaky)' : ''}`)
      .join(', ');
    return { ms: performance.now() - started, caught };
  } finally {
    await target.close();
  }
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1
    ? s[(s.length - 1) / 2]!
    : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const NEVER: SuiteRerun = { never: 'measured without the second run' };
const withTimes: number[] = [];
const withoutTimes: number[] = [];
const caught = new Set<string>();
for (let round = 0; round < rounds; round++) {
  const order: SuiteRerun[] = round % 2 === 0 ? ['again', NEVER] : [NEVER, 'again'];
  for (const mode of order) {
    const t = await timedAudit(mode);
    (mode === 'again' ? withTimes : withoutTimes).push(t.ms);
    caught.add(`${mode === 'again' ? 'with' : 'without'}: ${t.caught || 'nothing'}`);
  }
}
const diffs = withTimes.map((w, i) => w - withoutTimes[i]!);
const ms = (x: number): string => `${Math.round(x)} ms`;
process.stdout.write(
  [
    `rerun-cost: fault ${fault}, explorer seed ${seed}, ${rounds} round(s), ${cpus().length} CPU(s) (${cpus()[0]?.model ?? 'unknown'}), Node ${process.version}`,
    `  with the second run:    median ${ms(median(withTimes))} (${withTimes.map(ms).join(', ')})`,
    `  without the second run: median ${ms(median(withoutTimes))} (${withoutTimes.map(ms).join(', ')})`,
    `  difference per round:   median ${ms(median(diffs))} (${ms(Math.min(...diffs))} to ${ms(Math.max(...diffs))})`,
    ...[...caught].map((c) => `  caught ${c}`),
    '',
  ].join('\n'),
);
