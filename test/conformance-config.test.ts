// Audit config: the documented field names (docs/cli.md), env merging, secrets only from the environment, readable errors for hostile files.
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import {
  availableFields,
  describeNeed,
  loadConfig,
  normalizeAmount,
  parseHostPort,
  resolveConfig,
} from '../conformance/config/config.js';

const dir = mkdtempSync(join(tmpdir(), 'payconform-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

const destination = {
  destinationType: 'toAccount',
  accountType: 'SCAN',
  holderName: 'Jane Doe',
  accountNumber: '12345678',
  sortCode: '040004',
  iban: null,
};
const full = {
  target: 'http://127.0.0.1:8080',
  merchantId: 'm-1',
  applicationId: 'b7a3e0b4-1111-4222-8333-444455556666',
  keyId: 'key-1',
  payInAccountSelector: 'main',
  copDestinations: {
    FULL_MATCH: destination,
    PARTIAL_MATCH: { ...destination, holderName: 'J Doe' },
    null: destination,
  },
  payments: {
    settled: [
      { paymentId: 'p1', amount: 10.5 },
      { paymentId: 'p2', amount: '20.00' },
    ],
    unsettled: [{ paymentId: 'p3', status: 'COMPLETED' }],
  },
  webhookListen: '127.0.0.1:9090',
  timeoutMs: 5000,
};

describe('loadConfig', () => {
  it('loads every documented field, normalising amounts to decimal strings', async () => {
    const result = await loadConfig(file('full.json', JSON.stringify(full)), {});
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.config).toMatchObject({
      target: 'http://127.0.0.1:8080',
      keyId: 'key-1',
      timeoutMs: 5000,
      webhookListen: { host: '127.0.0.1', port: 9090 },
    });
    expect(result.config.payments.settled).toEqual([
      { paymentId: 'p1', amount: '10.5' },
      { paymentId: 'p2', amount: '20.00' },
    ]);
    expect(result.config.copDestinations.PARTIAL_MATCH?.holderName).toBe('J Doe');
    expect([...availableFields(result.config)].sort()).toEqual(
      [
        'applicationId',
        'copDestinations.FULL_MATCH',
        'copDestinations.PARTIAL_MATCH',
        'copDestinations.null',
        'keyId',
        'merchantId',
        'payInAccountSelector',
        'payments.settled',
        'payments.unsettled',
        'target',
        'webhookListen',
      ].sort(),
    );
  });

  it('lets the environment override identifiers and supply secrets, which never print', async () => {
    const env = {
      PAYCONFORM_TARGET: 'https://sandbox.example.com',
      PAYCONFORM_KEY_ID: 'env-key',
      PAYCONFORM_APPLICATION_SECRET: 's3cr3t-value',
      PAYCONFORM_PRIVATE_KEY: 'c2VlZA==',
    };
    const result = await loadConfig(file('env.json', JSON.stringify(full)), env);
    if (!result.ok) throw new Error(result.message);
    expect(result.config.target).toBe('https://sandbox.example.com');
    expect(result.config.keyId).toBe('env-key');
    expect(result.config.sources).toMatchObject({
      target: 'env',
      keyId: 'env',
      merchantId: 'config',
      applicationSecret: 'env',
      timeoutMs: 'config',
    });
    expect(result.config.applicationSecret?.reveal()).toBe('s3cr3t-value');
    const printed = [
      JSON.stringify(result.config),
      inspect(result.config, { depth: 5 }),
      `${result.config.applicationSecret}`,
    ].join('\n');
    expect(printed).not.toContain('s3cr3t-value');
    expect(printed).not.toContain('c2VlZA==');
  });

  it('"sandbox" (the target implements payconform\'s /sandbox/ endpoints): false by default, a need when true', () => {
    const off = resolveConfig(full, {});
    const on = resolveConfig({ ...full, sandbox: true }, {});
    if (!off.ok || !on.ok) throw new Error('config refused');
    expect(off.config.sandbox).toBe(false);
    expect(off.config.sources['sandbox']).toBe('default');
    expect(availableFields(off.config).has('sandbox')).toBe(false);
    expect(on.config.sandbox).toBe(true);
    expect(on.config.sources['sandbox']).toBe('config');
    expect(availableFields(on.config).has('sandbox')).toBe(true);
    expect(resolveConfig({ sandbox: 'yes' }, {})).toMatchObject({
      ok: false,
      message: expect.stringContaining('"sandbox" must be boolean'),
    });
  });

  it('works from the environment alone, with defaults', async () => {
    const result = await loadConfig(undefined, { PAYCONFORM_APPLICATION_ID: 'a' });
    expect(result).toMatchObject({
      ok: true,
      config: { applicationId: 'a', timeoutMs: 10_000, payments: { settled: [], unsettled: [] } },
    });
  });

  it('refuses a secret in the config file and says to use the environment', async () => {
    for (const doc of [
      { ...full, applicationSecret: 'x' },
      { ...full, privateKey: 'x' },
      { ...full, payments: { settled: [], password: 1 } },
    ]) {
      const result = await loadConfig(file('secret.json', JSON.stringify(doc)), {});
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.message).toMatch(/looks like a secret/);
        expect(result.message).toContain('PAYCONFORM_APPLICATION_SECRET');
        expect(result.message).not.toContain('"x"');
      }
    }
  });

  it('gives readable errors for hostile or broken files', async () => {
    mkdirSync(join(dir, 'a-directory'), { recursive: true });
    const cases: Array<[string, RegExp]> = [
      [join(dir, 'missing.json'), /no such file/],
      [join(dir, 'a-directory'), /not a regular file/],
      [file('not-json.json', '{ target: nope'), /": not JSON: /],
      [file('array.json', '[1,2]'), /top level must be a JSON object/],
      [file('types.json', JSON.stringify({ timeoutMs: 'soon' })), /"timeoutMs" must be integer/],
      [file('unknown.json', JSON.stringify({ tagret: 'x' })), /unknown field "tagret"/],
      [
        file('cop.json', JSON.stringify({ copDestinations: { MAYBE: destination } })),
        /not a copStatus value/,
      ],
      [
        file(
          'amount.json',
          JSON.stringify({ payments: { settled: [{ paymentId: 'p', amount: 1e21 }] } }),
        ),
        /without exponent/,
      ],
      [
        file(
          'amount2.json',
          JSON.stringify({ payments: { settled: [{ paymentId: 'p', amount: '1,50' }] } }),
        ),
        /amount/,
      ],
      [
        file('listen.json', JSON.stringify({ webhookListen: '127.0.0.1:99999' })),
        /port up to 65535/,
      ],
      [
        file('creds.json', JSON.stringify({ target: 'https://user:pw@example.com' })),
        /credentials/,
      ],
      [
        file('scheme.json', JSON.stringify({ target: 'ftp://example.com' })),
        /must match pattern|http or https/,
      ],
      [file('huge.json', `{"merchantId":"${'x'.repeat(1024 * 1024 + 10)}"}`), /limit is/],
    ];
    for (const [path, message] of cases) {
      const result = await loadConfig(path, {});
      expect(result.ok, path).toBe(false);
      if (!result.ok) expect(result.message, path).toMatch(message);
    }
  });

  it('validates PAYCONFORM_TARGET from the environment too', () => {
    const result = resolveConfig(undefined, { PAYCONFORM_TARGET: 'javascript:alert(1)' });
    expect(result).toMatchObject({
      ok: false,
      message: expect.stringContaining('PAYCONFORM_TARGET'),
    });
  });
});

describe('helpers', () => {
  it('normalizeAmount and parseHostPort', () => {
    expect(normalizeAmount(0.1)).toBe('0.1');
    expect(normalizeAmount('007')).toBeUndefined();
    expect(normalizeAmount(-1)).toBeUndefined();
    expect(normalizeAmount(Number.NaN)).toBeUndefined();
    expect(parseHostPort('[::1]:8080')).toEqual({ host: '::1', port: 8080 });
    expect(parseHostPort('localhost')).toBeUndefined();
  });
});

describe('describeNeed: skip reasons say where a missing field is set', () => {
  it('secrets only from the environment, identifiers from the config or the environment, the rest from the config', () => {
    expect(describeNeed('applicationSecret')).toBe(
      'PAYCONFORM_APPLICATION_SECRET (environment only)',
    );
    expect(describeNeed('privateKey')).toBe('PAYCONFORM_PRIVATE_KEY (environment only)');
    expect(describeNeed('keyId')).toBe('"keyId" (config or PAYCONFORM_KEY_ID)');
    expect(describeNeed('payments.settled')).toBe('"payments.settled" in the config');
  });
});
