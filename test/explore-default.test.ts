// `audit server` explores by default (docs/explorer.md): the explorer (check explore-model) runs after the fixed
// checks unless --no-explore is given, which cannot be combined with the options that configure the explorer.
import { describe, expect, it } from 'vitest';
import { main } from '../cli/main.js';
import { memoryIo } from './fixtures/memory-io.js';

interface Report {
  readonly results: ReadonlyArray<{ readonly id: string; readonly outcome: string }>;
}

async function audit(args: readonly string[]) {
  const io = memoryIo({});
  const code = await main(['audit', 'server', ...args, '--report', 'json:-'], io);
  return { code, io };
}

describe('audit server explores by default', () => {
  it('the explorer runs after the fixed checks; --no-explore leaves it out', async () => {
    const [explored, fixed] = await Promise.all([
      audit(['--only', 'payout-signed-accepted,explore-model', '--explore-seconds', '3']),
      audit(['--no-explore', '--only', 'payout-signed-accepted']),
    ]);
    const ids = (r: typeof explored) =>
      (JSON.parse(r.io.out.join('')) as Report).results.map((x) => `${x.id}:${x.outcome}`);
    expect(explored.code, explored.io.err.join('')).toBe(0);
    expect(ids(explored)).toEqual(['payout-signed-accepted:pass', 'explore-model:pass']);
    expect(fixed.code, fixed.io.err.join('')).toBe(0);
    expect(ids(fixed)).toEqual(['payout-signed-accepted:pass']);
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
