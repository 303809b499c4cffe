// `npm run faults`: the detection table, generated. Each reference-service fault is switched on alone and the whole
// server audit runs against it; the table lists the checks that fail (or warn) on it. The clean, alt and lenient
// services must show no failure. Exit 1 when a fault is caught by no check or clean/alt/lenient fail anything.
// The explorer column: for the faults only the explorer finds (and for clean, alt and lenient), the explorer runs with its
// default budget on seeds 1..N (--explore-seeds=N, default 10) and the column says in how many it found the fault
// and the longest shrunk sequence; --explore-all runs it (one seed) for every other fault too.
import { generateKeyPairSync } from 'node:crypto';
import { auditTarget, startEmbeddedTarget } from '../cli/commands/audit-server.js';
import type { RunSummary } from '../conformance/run/result.js';
import { EXPLORE_DEFAULTS, explore } from '../conformance/explore/explorer.js';
import {
  faultCatalogue,
  type ExplorerFaultName,
  type FaultName,
  type ServiceVariant,
} from '../server/index.js';
import { explorerFaults } from '../server/faults.js';

const args = process.argv.slice(2);
const concurrency = Math.max(
  1,
  Math.min(8, Number(process.env['PAYCONFORM_FAULTS_CONCURRENCY'] ?? 3) || 3),
);
const onlyArg = args.find((a) => a.startsWith('--only='))?.slice('--only='.length);
const wanted =
  onlyArg === undefined ? faultCatalogue.map((f) => f.name) : (onlyArg.split(',') as FaultName[]);
const webhookSigningKey = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();

interface Row {
  readonly name: string;
  readonly summary: RunSummary;
  /** The explorer's column. */
  readonly explored?: string;
}

const seedsArg = Number(args.find((a) => a.startsWith('--explore-seeds='))?.slice(16) ?? 10);
const exploreAll = args.includes('--explore-all');

/** Explores a fresh service per seed (its own state, as a user's first run would meet it). */
async function exploreColumn(
  faults: readonly FaultName[],
  variant: ServiceVariant,
  seeds: number,
): Promise<string> {
  let found = 0;
  let longest = 0;
  let cost = { payouts: 0, refunds: 0, payments: 0, seconds: 0 };
  for (let seed = 1; seed <= seeds; seed++) {
    const target = await startEmbeddedTarget({ faults, variant, webhookSigningKey });
    try {
      const o = await explore(
        target.context,
        { signal: new AbortController().signal, deadline: Date.now() + 300_000 },
        { ...EXPLORE_DEFAULTS, seed },
      );
      if (o.failure !== undefined) {
        found++;
        longest = Math.max(
          longest,
          o.failure.steps.filter((st) => !st.command.startsWith('end of sequence')).length,
        );
      }
      cost = {
        payouts: cost.payouts + o.cost.payouts,
        refunds: cost.refunds + o.cost.refunds,
        payments: cost.payments + o.cost.payments,
        seconds: cost.seconds + o.elapsedMs / 1000,
      };
    } finally {
      await target.close();
    }
  }
  const rate = (n: number): string => (n / Math.max(cost.seconds, 0.001)).toFixed(1);
  return faults.length === 0
    ? `${found}/${seeds} seeds with a finding (${rate(cost.payouts)} payouts/s, ${rate(cost.refunds)} refunds/s, ${rate(cost.payments)} payments/s)`
    : `found in ${found}/${seeds} seeds${found > 0 ? `, shrunk to ≤ ${longest} steps` : ''}`;
}

async function audit(
  name: string,
  faults: readonly FaultName[],
  variant: ServiceVariant,
): Promise<Row> {
  const target = await startEmbeddedTarget({ faults, variant, webhookSigningKey });
  let summary: RunSummary;
  try {
    summary = await auditTarget(target);
  } finally {
    await target.close();
  }
  const forExplorer =
    faults.length === 0 || explorerFaults.includes(faults[0] as ExplorerFaultName);
  const explored =
    forExplorer || exploreAll
      ? await exploreColumn(faults, variant, forExplorer ? seedsArg : 1)
      : undefined;
  return { name, summary, ...(explored !== undefined ? { explored } : {}) };
}

/** Runs the jobs `concurrency` at a time, in order of the results. */
async function pool<T>(jobs: ReadonlyArray<() => Promise<T>>): Promise<T[]> {
  const results: T[] = new Array(jobs.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < jobs.length) {
      const i = next++;
      results[i] = await jobs[i]!();
      process.stderr.write('.');
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, jobs.length) }, worker));
  process.stderr.write('\n');
  return results;
}

const caughtBy = (s: RunSummary): string[] =>
  s.results
    .filter((r) => r.outcome === 'fail' || r.outcome === 'warn' || r.outcome === 'error')
    .map((r) => (r.outcome === 'fail' ? r.id : `${r.id} (${r.outcome})`));

const started = Date.now();
const [clean, alt, lenient, ...faulty] = await pool<Row>([
  () => audit('clean', [], 'clean'),
  () => audit('alt', [], 'alt'),
  () => audit('lenient', [], 'lenient'),
  ...wanted.map((f) => () => audit(f, [f], 'clean')),
]);

const how = new Map<string, string>(
  faultCatalogue.map((f) => [f.name, 'how' in f ? f.how : 'original']),
);
const lines: string[] = [
  '| Service | Caught by (checks that fail; warnings marked) | Explorer (`--explore`, default budget) |',
  '|---|---|---|',
];
const personalities = [clean!, alt!, lenient!];
for (const r of personalities) {
  const c = r.summary.counts;
  const skipped = r.summary.results
    .filter((x) => x.outcome === 'skip')
    .map((x) => `${x.id}: ${x.message}`);
  lines.push(
    `| **${r.name}** | ${c['fail'] ?? 0} failures, ${c['warn'] ?? 0} warnings${(c['warn'] ?? 0) > 0 ? ` (${caughtBy(r.summary).join(', ')})` : ''}, ${c['pass'] ?? 0} passes, ${c['skip'] ?? 0} skips${skipped.length > 0 ? ` (${skipped.join('; ')})` : ''} | ${r.explored ?? 'not run'} |`,
  );
}
const uncaught: string[] = [];
for (const r of faulty) {
  const by = caughtBy(r.summary);
  // A fault of a rule the spec leaves to payconform (SHOULD) is caught by a warning; of a spec sentence, by a failure.
  const explorerOnly = explorerFaults.includes(r.name as ExplorerFaultName);
  const fixedCaught = by.some((b) => !b.includes('(') || b.endsWith('(warn)'));
  const explorerCaught = r.explored?.startsWith('found in 0/') === false;
  // An explorer fault must pass every fixed check and be found by the explorer; every other fault by a check.
  if (explorerOnly ? fixedCaught || !explorerCaught : !fixedCaught) uncaught.push(r.name);
  lines.push(
    `| \`${r.name}\` (${how.get(r.name) ?? '?'}) | ${by.join(', ') || '**nothing**'} | ${r.explored ?? '—'} |`,
  );
}
process.stdout.write(
  `${lines.join('\n')}\n\n${faulty.length} faults, ${faulty.length - uncaught.length} caught (failed, or for payconform's SHOULD choices warned, by at least one check; the explorer's own faults: by the explorer and by no fixed check); clean ${clean!.summary.counts['fail'] ?? 0} and alt ${alt!.summary.counts['fail'] ?? 0} failures, lenient ${lenient!.summary.counts['fail'] ?? 0} (${((Date.now() - started) / 1000).toFixed(0)} s, ${concurrency} at a time).\n`,
);
const explorerFalse = personalities.some(
  (r) => r.explored !== undefined && !r.explored.startsWith('0/'),
);
if (explorerFalse)
  process.stderr.write('the explorer reported a finding on the clean, alt or lenient service\n');
const bad =
  explorerFalse ||
  uncaught.length > 0 ||
  personalities.some(
    (r) => (r.summary.counts['fail'] ?? 0) > 0 || (r.summary.counts['error'] ?? 0) > 0,
  );
if (uncaught.length > 0) process.stderr.write(`faults no check fails: ${uncaught.join(', ')}\n`);
process.exitCode = bad ? 1 : 0;
