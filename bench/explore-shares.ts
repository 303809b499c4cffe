// The explorer's steps by kind (docs/explorer.md, "What it draws"):
// `tsx bench/explore-shares.ts [--source sandbox|hook] [--seeds N] [--seconds S] [--fault NAME] [--json]`. Each seed
// runs a default exploration (15 s, every lane) of a fresh embedded reference service, through its /sandbox/ or
// behind the starter state hook (vectors/adapters/python/state_hook.py in front of /sandbox/ at a private path), with
// the explorer's own engine and server role; it counts the steps played by the command they belong to, and, of the
// refunds the target accepted, those sent once every earlier refund of the payment had finished and those of all
// that was left. Prints a table per kind (steps, share) and the refund counts, summed over the seeds.
import { parseArgs } from 'node:util';
import { startEmbeddedTarget } from '../cli/commands/audit-server.js';
import type { ServerAuditContext } from '../conformance/checks/server/context.js';
import type { StepRecord } from '../conformance/explore/commands.js';
import { lanesOf, search } from '../conformance/explore/engine.js';
import { EXPLORE_DEFAULTS } from '../conformance/explore/explore-defaults.js';
import { serverRole } from '../conformance/explore/lane.js';
import type { FaultName } from '../server/index.js';
import { startStarterHook } from '../test/fixtures/explore-targets.js';

const { values } = parseArgs({
  options: {
    source: { type: 'string' },
    seeds: { type: 'string' },
    seconds: { type: 'string' },
    fault: { type: 'string' },
    json: { type: 'boolean' },
  },
});
const source = values.source === 'hook' ? 'hook' : 'sandbox';
const seeds = Math.min(20, Math.max(1, Number(values.seeds ?? 2) || 2));
const seconds = Math.min(60, Math.max(1, Number(values.seconds ?? EXPLORE_DEFAULTS.seconds) || 15));
const PRIVATE = '/private-helpers';

/** The kind of each step, by the command it belongs to (the step's text up to " → "). */
const KINDS: ReadonlyArray<readonly [string, RegExp]> = [
  ['create payout', /^createPayout\(/],
  ['commit or cancel', /^(commit|cancel)\(|^(commit|cancel) of it /],
  ['wait', /^wait\(/],
  ['settled payment made', /^settledPayment\(/],
  ['configured payment taken', /^configuredPayment\(/],
  ['refund', /^refund\(/],
  ['two refunds at once', /^refundPairAtOnce\(/],
  ['refund, finished, another', /^refundAfterFinish\(/],
  ['refund in parts, then the rest', /^refundInParts\(/],
  ['refunds moved on', /^finishRefunds\(/],
  ['two refunds apart (patient)', /^refundTwice\(/],
  ['refund of an unsettled payment', /^refundUnsettled\(/],
  ['end of sequence', /^end of sequence/],
];

const kindOf = (s: StepRecord): string =>
  KINDS.find(([, re]) => re.test(s.command))?.[0] ?? 'other';

interface Tally {
  steps: number;
  readonly byKind: Map<string, number>;
  refundsAccepted: number;
  afterFinished: { accepted: number; refused: number };
  restAfterFinished: { accepted: number; refused: number };
}

/** The refund requests of a step and whether each was accepted (2xx). */
const refundAnswers = (s: StepRecord): boolean[] =>
  s.exchanges
    .filter((ex) => ex.request.method === 'POST' && /\/refunds$/.test(ex.request.url))
    .filter((ex) => ex.response !== undefined)
    .map((ex) => ex.response!.status >= 200 && ex.response!.status < 300);

function count(t: Tally, steps: readonly StepRecord[]): void {
  for (const s of steps) {
    t.steps++;
    t.byKind.set(kindOf(s), (t.byKind.get(kindOf(s)) ?? 0) + 1);
    const answers = refundAnswers(s);
    // The last answer is the one judged (an unsigned attempt answered 401 may come before it).
    const accepted = answers.at(-1);
    if (s.command.startsWith('refundPairAtOnce('))
      t.refundsAccepted += answers.filter(Boolean).length;
    else if (accepted === true) t.refundsAccepted++;
    if (accepted === undefined || !s.command.includes('every one finished')) continue;
    const into = s.command.includes('(all that is left)') ? t.restAfterFinished : t.afterFinished;
    if (accepted) into.accepted++;
    else into.refused++;
    if (into === t.restAfterFinished) t.afterFinished[accepted ? 'accepted' : 'refused']++;
  }
}

async function one(seed: number, t: Tally): Promise<string> {
  const faults = values.fault !== undefined ? [values.fault as FaultName] : [];
  const target = await startEmbeddedTarget({
    faults,
    ...(source === 'hook' ? { sandboxPath: PRIVATE } : {}),
  });
  const hook =
    source === 'hook' ? await startStarterHook(`${target.context.baseUrl}${PRIVATE}`) : undefined;
  try {
    const ctx: ServerAuditContext =
      hook === undefined
        ? target.context
        : {
            ...target.context,
            stateHook: { url: hook.url },
            payments: { settled: [], unsettled: target.context.payments.unsettled },
          };
    const env = { signal: new AbortController().signal, deadline: Date.now() + 600_000 };
    const role = serverRole(ctx, env, EXPLORE_DEFAULTS.maxCommands, undefined);
    // Every sequence played is counted, as the engine plays it (shrinking aside: the exploring time only).
    const counted: typeof role = {
      ...role,
      play: async (sequence, lane, until) => {
        const played = await role.play(sequence, lane, until);
        if (until !== undefined) count(t, played.record);
        return played;
      },
    };
    const found = await search(counted, {
      runs: EXPLORE_DEFAULTS.runs,
      seconds,
      shrinkSeconds: EXPLORE_DEFAULTS.shrinkSeconds,
      lanes: lanesOf(seed, EXPLORE_DEFAULTS.lanes, EXPLORE_DEFAULTS.patientLanes, undefined),
    });
    const failure =
      found.failure !== undefined ? `, fails ${role.requirementOf(found.failure.violation)}` : '';
    return `seed ${seed}: ${found.runs} sequences, ${found.steps} steps judged, ${role.tally.cost.refunds} refunds made${failure}`;
  } finally {
    await hook?.stop();
    await target.close();
  }
}

const total: Tally = {
  steps: 0,
  byKind: new Map(),
  refundsAccepted: 0,
  afterFinished: { accepted: 0, refused: 0 },
  restAfterFinished: { accepted: 0, refused: 0 },
};
for (let seed = 1; seed <= seeds; seed++) process.stderr.write(`${await one(seed, total)}\n`);

const rows = [...total.byKind].sort((a, b) => b[1] - a[1]);
const pct = (n: number, of: number): string => `${((100 * n) / Math.max(1, of)).toFixed(1)} %`;
if (values.json === true) {
  process.stdout.write(
    `${JSON.stringify({ source, seeds, seconds, ...total, byKind: Object.fromEntries(rows) }, null, 2)}\n`,
  );
} else {
  process.stdout.write(
    `steps by kind (${source}, ${seeds} seed(s) of ${seconds} s; ${total.steps} steps):\n`,
  );
  for (const [kind, n] of rows)
    process.stdout.write(`  ${kind.padEnd(32)} ${String(n).padStart(6)}  ${pct(n, total.steps)}\n`);
  const a = total.afterFinished;
  const r = total.restAfterFinished;
  process.stdout.write(
    `refunds accepted: ${total.refundsAccepted}; sent once every earlier refund had finished: ${a.accepted} accepted, ${a.refused} refused; of them all that was left: ${r.accepted} accepted, ${r.refused} refused\n`,
  );
}
