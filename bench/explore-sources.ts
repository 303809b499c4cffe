// The explorer on targets without payconform's /sandbox/ (docs/explorer.md, "Refunds without /sandbox/"):
// `tsx bench/explore-sources.ts --mode config|hook [--seeds N] [--parallel P] [--seconds S] [--payments K]`. Each seed
// runs a default exploration (15 s) against a fresh embedded reference service whose /sandbox/ is off (mode config:
// two of its seeded settled payments in the config, or K of them) or served at a private path behind the starter state
// hook (vectors/adapters/python/state_hook.py as an HTTP server; mode hook). Prints per seed whether it passed, the
// steps, the share of steps on refunds, the payouts, payments and refunds made, and the config payments retired.
import { parseArgs } from 'node:util';
import { startEmbeddedTarget } from '../cli/commands/audit-server.js';
import type { ServerAuditContext } from '../conformance/checks/server/context.js';
import { EXPLORE_DEFAULTS, explore, exploreSummary } from '../conformance/explore/explorer.js';
import { startStarterHook } from '../test/fixtures/explore-targets.js';

const { values } = parseArgs({
  options: {
    mode: { type: 'string' },
    seeds: { type: 'string' },
    parallel: { type: 'string' },
    seconds: { type: 'string' },
    payments: { type: 'string' },
  },
});
const mode = values.mode === 'hook' ? 'hook' : 'config';
const seeds = Math.min(100, Math.max(1, Number(values.seeds ?? 20) || 20));
const parallel = Math.min(4, Math.max(1, Number(values.parallel ?? 2) || 2));
const seconds = Math.min(
  120,
  Math.max(1, Number(values.seconds ?? EXPLORE_DEFAULTS.seconds) || 15),
);
const PRIVATE = '/private-helpers';
/** Mode config: how many of the service's six seeded settled payments the config lists (default 2). */
const payments = Math.min(6, Math.max(1, Number(values.payments ?? 2) || 2));

async function one(seed: number): Promise<Record<string, unknown>> {
  const t = await startEmbeddedTarget({ sandboxPath: mode === 'hook' ? PRIVATE : false });
  const hook =
    mode === 'hook' ? await startStarterHook(`${t.context.baseUrl}${PRIVATE}`) : undefined;
  try {
    const ctx: ServerAuditContext = {
      ...t.context,
      ...(hook !== undefined ? { stateHook: { url: hook.url } } : {}),
      payments: {
        settled: hook !== undefined ? [] : t.context.payments.settled.slice(0, payments),
        unsettled: t.context.payments.unsettled,
      },
    };
    const env = { signal: new AbortController().signal, deadline: Date.now() + 600_000 };
    const o = await explore(ctx, env, { ...EXPLORE_DEFAULTS, seconds, seed });
    return {
      seed,
      passed: o.failure === undefined && o.error === undefined,
      steps: o.steps,
      refundShare: Number((o.refundSteps / Math.max(1, o.steps)).toFixed(3)),
      ...o.cost,
      // Config payments retired: each is named with its amount and when, "ID (AMOUNT) at S s".
      retired: (o.configPayments?.match(/\(\d+\.\d\d\) at \d/g) ?? []).length,
      summary: exploreSummary(o),
      ...(o.failure !== undefined
        ? {
            failure: o.failure.violation.message,
            shrunk: o.failure.steps.map((s) => s.command),
          }
        : {}),
      ...(o.error !== undefined ? { error: o.error } : {}),
    };
  } finally {
    await hook?.stop();
    await t.close();
  }
}

const rows: Array<Record<string, unknown>> = [];
for (let start = 1; start <= seeds; start += parallel) {
  const batch = Array.from({ length: Math.min(parallel, seeds - start + 1) }, (_, i) => start + i);
  for (const row of await Promise.all(batch.map(one))) {
    rows.push(row);
    console.log(JSON.stringify(row));
  }
}
const mean = (k: string): string =>
  (rows.reduce((n, r) => n + Number(r[k]), 0) / rows.length).toFixed(k === 'refundShare' ? 3 : 1);
console.log(
  `mode ${mode}: ${rows.filter((r) => r.passed === true).length} of ${rows.length} seeds passed; mean per run: ${mean('steps')} steps, refund share ${mean('refundShare')}, ${mean('payouts')} payouts, ${mean('payments')} payments, ${mean('refunds')} refunds, ${mean('retired')} config payments retired`,
);
