// Proves how the server checks are put together: each run of the checks keeps its state (the refunds it created, the
// payments it made or lost track of) on its own context, shared by the checks of that run and by no other run; no
// check module is another check's library (shared actions live in modules that declare no check); and no module
// writes its own list of statuses (the spec model and src/schemas/statuses.ts hold them).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { pass } from '../conformance/run/check.js';
import { runChecks } from '../conformance/run/engine.js';
import {
  serverCheck,
  startRun,
  type ServerAuditContext,
} from '../conformance/checks/server/index.js';
import { copStatuses, paymentStatuses, payoutStatuses } from '../src/schemas/statuses.js';

const SERVER_CHECKS = fileURLToPath(new URL('../conformance/checks/server/', import.meta.url));

/** Two checks of one run: the first notes a refund in the run's state, the second reports how many it sees. */
function notingSuite(seen: number[]) {
  const note = serverCheck({
    id: 'note-a-refund',
    title: 'notes a refund',
    area: 'synthetic',
    requirements: ['REFUND-ONE-ACTIVE'],
    level: 'MUST',
    run: async (ctx) => {
      ctx.run.refunds.set('payment-1', [
        ...(ctx.run.refunds.get('payment-1') ?? []),
        { id: 'refund-1', amount: '0.01' },
      ]);
      return [pass('noted')];
    },
  });
  const count = serverCheck({
    id: 'count-refunds',
    title: 'counts the refunds noted in this run',
    area: 'synthetic',
    requirements: ['REFUND-ONE-ACTIVE'],
    level: 'MUST',
    run: async (ctx) => {
      seen.push(ctx.run.refunds.get('payment-1')?.length ?? 0);
      return [pass('counted')];
    },
  });
  return [note, count];
}

const run = (checks: ReturnType<typeof notingSuite>, context: ServerAuditContext) =>
  runChecks({
    checks,
    context,
    role: 'server',
    target: 'http://127.0.0.1:1',
    toolVersion: '0.0.0-test',
    concurrency: 1,
  });

describe('the run state of the server audit (docs/verdicts.md, "A check owns what it judges, so runs repeat")', () => {
  const base = { baseUrl: 'http://127.0.0.1:1' } as ServerAuditContext;

  it('is shared by the checks of one run and starts empty in every run of the same context', async () => {
    const seen: number[] = [];
    const suite = notingSuite(seen);
    await run(suite, startRun(base));
    await run(suite, startRun(base));
    expect(seen).toEqual([1, 1]);
  });

  it('is a fresh state per check when the context carries none (a check called on its own is a run of its own)', async () => {
    const seen: number[] = [];
    await run(notingSuite(seen), base);
    expect(seen).toEqual([0]);
    expect(base.run).toBeUndefined();
  });

  it('startRun never hands out a state another run holds', () => {
    const a = startRun(base);
    const b = startRun(a);
    expect(b.run).not.toBe(a.run);
    a.run.owned.add('payment-1');
    a.run.tainted.add('payment-2');
    expect([...b.run.owned, ...b.run.tainted, ...b.run.refunds.keys()]).toEqual([]);
  });
});

describe('the server check modules', () => {
  const files = readdirSync(SERVER_CHECKS).filter((f) => f.endsWith('.ts'));
  const text = new Map(files.map((f) => [f, readFileSync(join(SERVER_CHECKS, f), 'utf8')]));
  /** Modules that declare checks (the list in index.ts imports them). */
  const checkModules = files.filter((f) => /\bserverCheck\(\{/.test(text.get(f)!));

  it('declare checks in several modules (the test sees them)', () => {
    expect(checkModules).toEqual(
      expect.arrayContaining(['refunds.ts', 'webhooks.ts', 'payments.ts']),
    );
  });

  it('no check module imports another check module: shared actions live in modules with no check', () => {
    const leaning = files
      .filter((f) => f !== 'index.ts')
      .flatMap((f) =>
        [...text.get(f)!.matchAll(/from '\.\/([\w-]+)\.js'/g)]
          .map((m) => `${m[1]}.ts`)
          .filter((imported) => checkModules.includes(imported))
          .map((imported) => `${f} imports ${imported}`),
      );
    expect(leaning).toEqual([]);
  });

  it('keep no run state at module level (it lives on the run context)', () => {
    // A weak map keyed by context, or an empty map or set filled as checks run (a constant table is not state).
    const state =
      /^(?:export )?(?:const|let) \w+(?:: [^=]+)? = new (?:Weak(?:Map|Set)\b|(?:Map|Set)(?:<[^;]*?>)?\(\))/m;
    expect(files.filter((f) => state.test(text.get(f)!))).toEqual([]);
  });

  it('write no list of statuses of their own (one source: the spec model, src/schemas/statuses.ts)', () => {
    const names = [...new Set([...payoutStatuses, ...copStatuses, ...paymentStatuses])].join('|');
    // A module-level constant whose value is a list opening with two status names (a path driven is not a constant).
    const list = new RegExp(
      `^(?:export )?const \\w+[^=]*= \\[\\s*'(?:${names})',\\s*'(?:${names})'`,
      'm',
    );
    expect(files.filter((f) => list.test(text.get(f)!))).toEqual([]);
  });
});
