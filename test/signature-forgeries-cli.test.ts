// signature-forgeries from the outside: `payconform audit server --only signature-forgeries --forge-seed N` against
// `payconform serve` on loopback (exit 1 with an edge fault, naming the form, the verifier's code and the command that
// draws it again; exit 0 on the clean service), its flags' usage errors, and a failure beyond an edge shrunk to the
// edge by fast-check (a loopback stand-in that judges by the profile's rules but takes nonces 5 characters too long).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../cli/main.js';
import { startEmbeddedTarget } from '../cli/commands/audit-server.js';
import { serverChecks } from '../conformance/checks/server/index.js';
import { evaluateRequest } from '../src/profile/profile-rules.js';
import { serviceProfile } from '../src/profile/service-profile.js';
import { startLongLivedTarget, type LongLivedTarget } from './fixtures/long-lived-target.js';
import { memoryIo } from './fixtures/memory-io.js';

const ONLY = ['--no-explore', '--only', 'signature-forgeries'];
const targets: LongLivedTarget[] = [];
afterAll(async () => {
  await Promise.all(targets.map((t) => t.close()));
});

describe('audit server --only signature-forgeries against payconform serve', () => {
  it.concurrent(
    'fails a service started with an edge fault, and says how to draw the failure again',
    async () => {
      const t = await startLongLivedTarget(['--fault', 'label-case-insensitive']);
      targets.push(t);
      const { code, out } = await t.audit([...ONLY, '--forge-seed', '7']).done;
      expect(code, out).toBe(1);
      expect(out).toContain('signature-forgeries');
      expect(out).toContain('SIGNATURE_INPUT_MALFORMED');
      expect(out).toContain('--forge-seed 7');
    },
    120_000,
  );
  it.concurrent(
    'passes the clean service',
    async () => {
      const t = await startLongLivedTarget();
      targets.push(t);
      const { code, out } = await t.audit([...ONLY, '--forge-seed', '7', '--forge-seconds', '1'])
        .done;
      expect(code, out).toBe(0);
    },
    120_000,
  );
  it('refuses a budget or a seed out of range (usage, exit 2)', async () => {
    for (const args of [
      ['--forge-seconds', '0'],
      ['--forge-seconds', 'many'],
      ['--forge-seed', '-1'],
      ['--forge-seed', '99999999999'],
    ]) {
      const io = memoryIo();
      expect(await main(['audit', 'server', ...ONLY, ...args], io), args.join(' ')).toBe(2);
      expect(io.err.join('')).toContain(args[0]);
    }
  });
});

describe('a failure beyond an edge is shrunk to the edge', () => {
  it('a verifier that takes nonces from 5 characters too long is shown one of exactly that length', async () => {
    const tooLong = serviceProfile.nonceMaxLength + 5;
    // Judges by the profile's rules, except that a nonce of `tooLong` characters or more passes.
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = req.rawHeaders;
        const headers = Array.from(
          { length: raw.length / 2 },
          (_, k) => [raw[2 * k]!, raw[2 * k + 1]!] as const,
        );
        const request = {
          method: req.method ?? 'POST',
          url: `http://${req.headers.host}${req.url}`,
          headers,
          body: new Uint8Array(Buffer.concat(chunks)),
        };
        const nonce = /;nonce="([^"]*)"/.exec(String(req.headers['signature-input']))?.[1] ?? '';
        const findings = evaluateRequest(request, Math.floor(Date.now() / 1000)).findings;
        const passes =
          findings.length === 0 ||
          (findings.every((f) => f.code === 'NONCE_TOO_LONG') && nonce.length >= tooLong);
        res.statusCode = passes ? 201 : 401;
        res.end('{}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const embedded = await startEmbeddedTarget();
    try {
      const { port } = server.address() as AddressInfo;
      const { webhooks: _unused, ...rest } = embedded.context;
      const ctx = {
        ...rest,
        baseUrl: `http://127.0.0.1:${port}`,
        sandbox: false,
        forgeries: { seed: 11, seconds: 20 },
      };
      const check = serverChecks.find((c) => c.id === 'signature-forgeries')!;
      const signal = new AbortController().signal;
      const findings = await check.run(ctx, { signal, deadline: Date.now() + 60_000 });
      const failing = findings.find((f) => f.outcome === 'violation');
      expect(failing?.message).toContain(`a nonce of ${tooLong} characters was accepted`);
      expect(failing?.message).toContain('NONCE_TOO_LONG');
      expect(failing?.evidence?.notes).toMatch(/shrunk in \d+ step/);
    } finally {
      await embedded.close();
      await new Promise((r) => server.close(r));
    }
  }, 90_000);
});
