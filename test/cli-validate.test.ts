// Proves `payconform validate KIND FILE|-` from the outside: exit 0 valid, 1 invalid with one "<pointer>: <message>"
// line per violation, 2 for an unknown kind (listing the kinds), unreadable JSON (with the offset) or a missing file.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../cli/main.js';
import { memoryIo as createMemoryIo } from './fixtures/memory-io.js';
import { runMain } from './fixtures/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'payconform-validate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const validPayout = {
  applicationId: '6f1c2b3a-4d5e-4f60-8a71-92b3c4d5e6f7',
  payoutId: '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
  createdAt: '2024-05-01T12:30:45.123Z',
  status: 'AWAITING_COMMIT',
  amount: 10.5,
  reference: 'INV-1',
  currency: 'GBP',
  source: {
    type: 'SCAN',
    name: 'Acme Ltd',
    accountNumber: '12345678',
    sortCode: '040004',
    iban: null,
    bic: null,
  },
  destination: {
    type: 'SCAN',
    name: 'Jane Doe',
    accountNumber: '87654321',
    sortCode: '200000',
    iban: null,
    bic: null,
  },
  tracingId: 'abc123',
  copStatus: 'PARTIAL_MATCH',
  statusReason: null,
};

function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

/** `payconform ARGS` through main() in-process (as the binary runs it), `stdin` on standard input. */
async function cli(
  args: readonly string[],
  stdin?: string,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const r = await runMain(
    args,
    { PATH: process.env.PATH ?? '' },
    { stdin: stdin ?? '', timeoutMs: 20_000 },
  );
  return { status: r.code, stdout: r.stdout, stderr: r.stderr };
}

describe('payconform validate (main() in-process)', () => {
  it('valid payload → exit 0', async () => {
    const r = await cli(['validate', 'payout', file('valid.json', JSON.stringify(validPayout))]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('valid payout (https://payconform.dev/schemas/payout.schema.json)\n');
  });

  it('invalid payload → exit 1, one line per violation with its pointer', async () => {
    const { status, ...rest } = validPayout;
    const bad = { ...rest, copStatus: 'MAYBE', source: { ...validPayout.source, iban: 7 } };
    const r = await cli(['validate', 'payout', file('invalid.json', JSON.stringify(bad))]);
    expect(r.status).toBe(1);
    expect(r.stdout.trimEnd().split('\n').sort()).toEqual([
      '/copStatus: must be one of "FULL_MATCH", "PARTIAL_MATCH", "NO_MATCH", "UNABLE_TO_MATCH", "NOT_CHECKED", "UNKNOWN", null; got string "MAYBE"',
      '/source/iban: must be a string or null, got number 7',
      '/status: missing required property "status"',
    ]);
  });

  it('a root-level violation is printed as (root); standard input is read for -', async () => {
    const r = await cli(['validate', 'refund', '-'], '[1]');
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('(root): must be an object, got an array\n');
  });

  it('--strict uses the strict variant: unknown properties are reported', async () => {
    const path = file('extra.json', JSON.stringify({ ...validPayout, extra: true }));
    expect((await cli(['validate', 'payout', path])).status).toBe(0);
    const r = await cli(['validate', '--strict', 'payout', path]);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('/extra: unexpected property "extra"\n');
  });

  it('unknown kind → exit 2 and the list of kinds', async () => {
    const r = await cli(['validate', 'payment', file('x.json', '{}')]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('unknown kind "payment"');
    expect(r.stderr).toContain(
      'payout-create-request, payout-destination, payout, account, refund-request, refund, error, payment-webhook, payout-webhook, refund-webhook',
    );
  });

  it('unreadable JSON → exit 2 with the offset', async () => {
    const r = await cli(['validate', 'payout', file('broken.json', '{"status": "IN_PROGRESS",}')]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('unreadable JSON at offset 25');
    expect(r.stdout).toBe('');
  });

  it('missing file or missing arguments → exit 2', async () => {
    expect((await cli(['validate', 'payout', join(dir, 'does-not-exist.json')])).status).toBe(2);
    expect((await cli(['validate', 'payout'])).status).toBe(2);
    expect((await cli(['validate', '--bogus', 'payout', '-'])).status).toBe(2);
  });
});

describe('payconform validate (in-process)', () => {
  const io = (stdin: string) => createMemoryIo({ stdin });

  it('--json prints the result with pointers, keywords and schema ids', async () => {
    const x = io(JSON.stringify({ paymentId: 'nope', amount: '1e3' }));
    expect(await main(['validate', '--json', 'refund-request', '-'], x)).toBe(1);
    const printed = JSON.parse(x.out.join('')) as {
      valid: boolean;
      errors: { pointer: string; keyword: string; schemaId: string }[];
    };
    expect(printed.valid).toBe(false);
    expect(printed.errors.map((e) => [e.pointer, e.keyword])).toEqual([
      ['/paymentId', 'pattern'],
      ['/amount', 'pattern'],
    ]);
    expect(printed.errors[0]?.schemaId).toBe('https://payconform.dev/schemas/common.schema.json');
  });

  it('--help exits 0', async () => {
    const x = io('');
    expect(await main(['validate', '--help'], x)).toBe(0);
    expect(x.out.join('')).toContain('KIND: payout-create-request');
  });
});
