// `npx tsx bench/audit-checks-cost.ts [--rounds N] [--checks a,b]`: what some server checks add to the default
// audit's fixed checks, against the embedded reference service. Each round audits a fresh clean service twice, once
// with every fixed check and once without the named ones (the order alternating round by round, so a noisy neighbour
// hits both alike), and prints the median wall time of each and the median per-round difference. Default checks: the
// near-miss forgeries (credential-near-misses, client-mistake-forgeries).
import { generateKeyPairSync } from 'node:crypto';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { auditTarget, startEmbeddedTarget } from '../cli/commands/audit-server.js';
import { serverChecks } from '../conformance/checks/server/index.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    checks: { type: 'string', default: 'credential-near-misses,client-mistake-forgeries' },
  },
});
const rounds = Math.max(1, Math.min(50, Number(values.rounds) || 5));
const measured = new Set(values.checks.split(','));
const unknown = [...measured].filter((id) => !serverChecks.some((c) => c.id === id));
if (unknown.length > 0) {
  process.stderr.write(`audit-checks-cost: unknown check(s) ${unknown.join(', ')}\n`);
  process.exit(2);
}
const all = serverChecks.map((c) => c.id);
const without = all.filter((id) => !measured.has(id));
const webhookSigningKey = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();

/** Milliseconds of one audit of a fresh clean service with `only` these checks; throws when any fails. */
async function timedAudit(only: readonly string[]): Promise<number> {
  const target = await startEmbeddedTarget({ webhookSigningKey });
  try {
    const started = performance.now();
    const summary = await auditTarget(target, { only });
    const took = performance.now() - started;
    if (summary.counts.fail > 0) throw new Error(`the clean service failed ${summary.counts.fail}`);
    return took;
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

const withTimes: number[] = [];
const withoutTimes: number[] = [];
for (let round = 0; round < rounds; round++) {
  if (round % 2 === 0) {
    withTimes.push(await timedAudit(all));
    withoutTimes.push(await timedAudit(without));
  } else {
    withoutTimes.push(await timedAudit(without));
    withTimes.push(await timedAudit(all));
  }
}
const differences = withTimes.map((t, i) => t - withoutTimes[i]!);
process.stdout.write(
  [
    `machine: ${cpus().length} vCPU ${cpus()[0]?.model ?? ''}, Node ${process.version}; ${rounds} rounds`,
    `fixed checks (${all.length}): median ${median(withTimes).toFixed(0)} ms`,
    `without ${[...measured].join(', ')} (${without.length}): median ${median(withoutTimes).toFixed(0)} ms`,
    `added: median ${median(differences).toFixed(0)} ms per audit (per round: ${differences.map((d) => d.toFixed(0)).join(', ')})`,
    '',
  ].join('\n'),
);
