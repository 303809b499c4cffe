// The command dispatcher: help, unknown commands and the command table, run in-process.
import { describe, expect, it } from 'vitest';
import { main } from '../cli/main.js';
import { memoryIo as createMemoryIo } from './fixtures/memory-io.js';

function capture() {
  const io = createMemoryIo();
  return { io, out: () => io.out.join(''), err: () => io.err.join('') };
}

describe('payconform <command>', () => {
  it('--help lists every command on stdout and exits 0', async () => {
    const c = capture();
    expect(await main(['--help'], c.io)).toBe(0);
    for (const name of [
      'serve',
      'sign',
      'verify',
      'validate',
      'audit server',
      'audit client',
      'audit webhooks',
      'vectors run',
    ]) {
      expect(c.out()).toContain(`payconform ${name} `);
    }
    expect(c.err()).toBe('');
  });

  it('an unknown command is named on stderr with the usage, exit 2', async () => {
    const c = capture();
    expect(await main(['frobnicate', '--x'], c.io)).toBe(2);
    expect(c.err()).toMatch(
      /^payconform: unknown command "frobnicate"\nusage: payconform <command>/,
    );
    expect(c.out()).toBe('');
  });

  it('no command at all is a usage error, exit 2', async () => {
    const c = capture();
    expect(await main([], c.io)).toBe(2);
    expect(c.err()).toContain('no command given');
  });

  it('a two-word command is dispatched with the remaining arguments (audit server --help exits 0)', async () => {
    const c = capture();
    expect(await main(['audit', 'server', '--help'], c.io)).toBe(0);
    expect(c.out()).toContain('usage: payconform audit server');
  });
});
