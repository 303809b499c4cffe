// The defaults `--help` states are the ones the commands use (cli/command-table.ts shows each from its constant;
// here the command's own setup is run and read back): the per-request limit of `audit server`, with no target (the
// embedded service, started in-process) and with a config that sets none.
import { describe, expect, it } from 'vitest';
import { startEmbeddedTarget } from '../cli/commands/audit-server.js';
import { EMBEDDED_REQUEST_TIMEOUT_MS } from '../cli/command-defaults.js';
import { DEFAULT_TIMEOUT_MS, resolveConfig } from '../conformance/config/config.js';

describe('audit server --timeout-ms: the default the help states is the one used', () => {
  it('the per-request limit the help states is the one the audit uses, with a target and without', async () => {
    const embedded = await startEmbeddedTarget();
    try {
      expect(embedded.context.requestTimeoutMs).toBe(EMBEDDED_REQUEST_TIMEOUT_MS);
    } finally {
      await embedded.close();
    }
    const config = resolveConfig({ target: 'http://127.0.0.1:1' }, {});
    expect(config.ok && config.config.timeoutMs).toBe(DEFAULT_TIMEOUT_MS);
  });
});
