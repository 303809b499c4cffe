// `audit server` explores by default (docs/explorer.md): the explorer (check explore-model) runs after the fixed
// checks unless --no-explore is given, which cannot be combined with the options that configure the explorer; the HTML
// report's first screen says what happened (verdict, requirement summary, what the explorer did, its replay command).
// Each test has its own service and mostly waits on it (the explorer's patient lanes), so they run side by side.
import { describe, expect, it } from 'vitest';
import { NEXT_AFTER_EMBEDDED } from '../cli/commands/audit-server.js';
import { main } from '../cli/main.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { memoryIo } from './fixtures/memory-io.js';
import { startLongLivedTarget } from './fixtures/long-lived-target.js';

interface Report {
  readonly results: ReadonlyArray<{ readonly id: string; readonly outcome: string }>;
}

interface TableReport {
  readonly requirements: {
    readonly table: {
      readonly rows: ReadonlyArray<{ id: string; checks: string[]; explored?: string }>;
    };
  };
}

/**
 * A passing exploration's budget: two sequences per lane (12 sequences, 36 to 65 steps over six seeds measured, the
 * minimum for a pass 10), a count rather than 3 s of exploring, which cost more CPU and reached less on a loaded machine.
 * The 60 s only bound a broken run.
 */
const EXPLORE_BUDGET = ['--explore-runs', '2', '--explore-seconds', '60'];

async function audit(args: readonly string[]) {
  const io = memoryIo({});
  const code = await main(['audit', 'server', ...args, '--report', 'json:-'], io);
  return { code, io };
}

describe.concurrent('audit server explores by default', () => {
  it('the explorer runs after the fixed checks; --no-explore leaves it out', async () => {
    const [explored, fixed] = await Promise.all([
      audit(['--only', 'payout-signed-accepted,explore-model', ...EXPLORE_BUDGET]),
      audit(['--no-explore', '--only', 'payout-signed-accepted']),
    ]);
    const ids = (r: typeof explored) =>
      (JSON.parse(r.io.out.join('')) as Report).results.map((x) => `${x.id}:${x.outcome}`);
    expect(explored.code, explored.io.err.join('')).toBe(0);
    expect(ids(explored)).toEqual(['payout-signed-accepted:pass', 'explore-model:pass']);
    // The requirement table says how many of the explorer's steps judged each of its rules.
    const rows = (JSON.parse(explored.io.out.join('')) as TableReport).requirements.table.rows;
    const resource = rows.find((r) => r.id === 'PAYOUT-RESPONSE-RESOURCE');
    expect(resource?.checks).toContain('explore-model');
    expect(resource?.explored).toMatch(/^judged by the exploration in [1-9]\d* step\(s\)$/);
    expect(fixed.code, fixed.io.err.join('')).toBe(0);
    expect(ids(fixed)).toEqual(['payout-signed-accepted:pass']);
    // After the embedded service (`npm start`), the next thing to try.
    expect(fixed.io.err.join('')).toContain(`\nnext: ${NEXT_AFTER_EMBEDDED}\n`);
    const noExplorer = await audit(['--no-explore', '--only', 'explore-model']);
    expect(noExplorer.code).toBe(2);
    expect(noExplorer.io.err.join('')).toContain('--only names unknown check "explore-model"');
  }, 60_000);

  it('--no-explore with an option that configures the explorer is a usage error', async () => {
    for (const flag of [['--explore-seconds', '5'], ['--explore-only'], ['--explore']]) {
      const r = await audit(['--no-explore', ...flag]);
      expect(r.code, flag.join(' ')).toBe(2);
      expect(r.io.err.join('')).toContain(`--no-explore cannot be given with ${flag[0]}`);
    }
  }, 30_000);
});

describe.concurrent("the HTML report's first screen says what happened", () => {
  it('the verdict, the requirement summary and what the explorer did, above the checks', async () => {
    const io = memoryIo({});
    const code = await main(
      [
        'audit',
        'server',
        '--only',
        'payout-signed-accepted,explore-model',
        ...EXPLORE_BUDGET,
        '--explore-seed',
        '7',
        '--report',
        'html:-',
      ],
      io,
    );
    const html = io.out.join('');
    expect(code, io.err.join('')).toBe(0);
    const at = (pattern: RegExp): number => html.search(pattern);
    expect(at(/<h1>payconform audit server: PASS/)).toBeGreaterThan(0);
    const requirements = at(
      /<strong>Requirements:<\/strong> <a href="#requirements">\d+ of \d+ MUST requirements exercised<\/a>; 0 failed; \d+ not exercised/,
    );
    const explorer = at(
      /<strong>Explorer:<\/strong> <span class="o o-pass">PASS<\/span> <a href="#explore-model">no answer or webhook disagreed with the model \(seed 7: \d+ sequences, \d+ steps \(\d+ on refunds\) in [\d.]+ s; made \d+ payouts, \d+ payments, \d+ refunds\)/,
    );
    expect(requirements).toBeGreaterThan(0);
    expect(explorer).toBeGreaterThan(requirements);
    expect(explorer).toBeLessThan(at(/<h2>Checks/));
    expect(explorer).toBeLessThan(at(/<table><tr><td><span class="o o-error">/)); // above the counts
  }, 60_000);

  it('a failing exploration: the replay command of the shrunk sequence is on the first screen', async () => {
    const target = await startLongLivedTarget(['--fault', 'amount-large-pence-dropped']);
    try {
      const run = await target.audit([
        '--explore-only',
        '--explore-seconds',
        '10',
        // Seed 5 finds this fault within 11 sequences, shrinking included (seed 3 took 231, four times the CPU).
        '--explore-seed',
        '5',
        '--report',
        'html:run.html',
      ]).done;
      expect(run.code, run.out).toBe(1);
      const html = readFileSync(join(target.dir, 'run.html'), 'utf8');
      const explorer = html.search(
        /<strong>Explorer:<\/strong> <span class="o o-fail">FAIL<\/span>/,
      );
      const replay = html.search(
        /<div>replay the shrunk sequence:<\/div><pre>payconform audit server --target .{0,90}audit\.json.{0,10} --explore-only --explore-replay /,
      );
      expect(explorer).toBeGreaterThan(0);
      expect(replay).toBeGreaterThan(explorer);
      expect(replay).toBeLessThan(html.search(/<h2>Checks/));
    } finally {
      await target.close();
    }
  }, 120_000);
});
