// One option table (cli/command-table.ts) behind every parser, every --help, `payconform help`, docs/cli.md and the
// README's command table; and the private key from a file (PAYCONFORM_PRIVATE_KEY_FILE). All in-process, about 2 s.
import { readdirSync, readFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { main, usage } from '../cli/main.js';
import { COMMAND_TABLE, commandSpec, formatHelp, type CommandSpec } from '../cli/command-table.js';
import { looksLikeKeyPath } from '../cli/io.js';
import { EXPLORE_DEFAULTS } from '../conformance/explore/explorer.js';
import { DEFAULT_TIMEOUT_MS } from '../conformance/config/config.js';
import { STARTUP_TIMEOUT_MS } from '../vectors/harness/run.js';
import {
  CLIENT_AUDIT_TIMEOUT_MS,
  EMBEDDED_REQUEST_TIMEOUT_MS,
  SERVE_DEFAULTS,
  VECTOR_CASE_TIMEOUT_MS,
  WEBHOOK_TIMEOUT_MS,
} from '../cli/command-defaults.js';
import {
  helpSection,
  readmeTable,
  HELP_START,
  HELP_END,
  TABLE_START,
  TABLE_END,
} from '../scripts/cli-docs.js';
import { loadTestKeys } from './fixtures/keys.js';
import { memoryIo } from './fixtures/memory-io.js';
import { signingEnv } from './fixtures/cli.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const doc = (path: string): string => readFileSync(join(root, path), 'utf8');

async function run(
  args: readonly string[],
  env: Record<string, string | undefined> = {},
  stdin = '',
): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIo({ env, stdin });
  const code = await main(args, io);
  return { code, out: io.out.join(''), err: io.err.join('') };
}

const names = COMMAND_TABLE.map((c) => c.name);

describe('every --help comes from the option table, in one format', () => {
  it.each(names)(
    'payconform %s --help is formatHelp of its table entry, and payconform help %s the same',
    async (name) => {
      const spec = commandSpec(name);
      const viaFlag = await run([...name.split(' '), '--help']);
      expect(viaFlag.code).toBe(0);
      expect(viaFlag.out).toBe(formatHelp(spec));
      const viaHelp = await run(['help', ...name.split(' ')]);
      expect(viaHelp.code).toBe(0);
      expect(viaHelp.out).toBe(formatHelp(spec));
    },
  );

  it.each(COMMAND_TABLE.map((c) => [c.name, c] as const))(
    '%s: synopsis, one line per shown option with its default, exit codes, an example',
    (_name, spec: CommandSpec) => {
      const text = formatHelp(spec);
      expect(text.split('\n')[0]).toBe(
        `usage: payconform ${spec.name}${spec.synopsis ? ` ${spec.synopsis}` : ''}`,
      );
      for (const o of spec.options.filter((x) => x.hidden !== true)) {
        const line = text
          .split('\n')
          .find((l) => new RegExp(`^ {2}(-\\w, )?--${o.name}(\\s|$)`).test(l));
        expect(line, `--${o.name}`).toBeDefined();
        expect(line).toContain(o.help);
        if (o.default !== undefined) expect(line).toContain(`(default: ${o.default})`);
      }
      expect(text).toMatch(/\nexit codes:\n {2}( |\d)\d {2}/);
      expect(text).toContain(`\nexample:\n  ${spec.example}\n`);
      expect(spec.example.startsWith(`payconform ${spec.name}`) || spec.name === 'verify').toBe(
        true,
      );
    },
  );

  it('no command source declares parser options of its own: they all come from the table', () => {
    const sources = [
      'cli/audit-command.ts',
      ...readdirSync(join(root, 'cli/audit-command')).map((f) => `cli/audit-command/${f}`),
      ...readdirSync(join(root, 'cli/commands')).map((f) => `cli/commands/${f}`),
    ];
    for (const file of sources) {
      const text = doc(file);
      expect(text, file).not.toMatch(/\{\s*type:\s*'(string|boolean)'/);
    }
  });

  it('an option not in the table is refused by the parser (exit 2), whatever the command', async () => {
    for (const name of names.filter((n) => n !== 'help')) {
      const r = await run([...name.split(' '), '--no-such-option']);
      expect(r.code, name).toBe(2);
      expect(r.err, name).toMatch(/Unknown option '--no-such-option'|unknown/i);
    }
  });

  it('--help shows the value the command uses when the flag is not given', async () => {
    const helpLine = async (command: string, flag: string): Promise<string> => {
      const { out } = await run([...command.split(' '), '--help']);
      return (
        out.split('\n').find((l) => new RegExp(`^ {2}(-\\w, )?--${flag}(\\s|$)`).test(l)) ?? ''
      );
    };
    const shown: [string, string, string | number][] = [
      ['audit server', 'timeout-ms', `else ${DEFAULT_TIMEOUT_MS};`],
      ['audit server', 'timeout-ms', `${EMBEDDED_REQUEST_TIMEOUT_MS} with no --target)`],
      ['audit server', 'explore-seconds', EXPLORE_DEFAULTS.seconds],
      ['audit server', 'explore-runs', EXPLORE_DEFAULTS.runs],
      ['audit client', 'timeout-ms', CLIENT_AUDIT_TIMEOUT_MS],
      ['audit webhooks', 'timeout-ms', WEBHOOK_TIMEOUT_MS],
      ['serve', 'port', SERVE_DEFAULTS.port],
      ['serve', 'workers', SERVE_DEFAULTS.workers],
      ['vectors run', 'timeout-ms', VECTOR_CASE_TIMEOUT_MS],
      ['vectors run', 'startup-timeout-ms', STARTUP_TIMEOUT_MS],
    ];
    for (const [command, flag, value] of shown) {
      const expected = typeof value === 'number' ? `(default: ${value})` : value;
      expect(await helpLine(command, flag), `${command} --${flag}`).toContain(expected);
    }
  });

  it('no default in the table is a number written as text: each is derived from the constant the command uses', () => {
    // A default: line with a number of two or more digits written out (not inside `${...}`) copies a value.
    const copied = /default: [^\n$]*\b\d{2,}\b(?![.\d])/;
    const table = [
      'cli/command-table.ts',
      ...readdirSync(join(root, 'cli/command-table')).map((f) => `cli/command-table/${f}`),
    ];
    for (const file of table) expect(doc(file), file).not.toMatch(copied);
    expect("      default: '120000',").toMatch(copied);
    expect("      default: 'the config\\'s \"timeoutMs\", else 10000',").toMatch(copied);
    expect("      default: '127.0.0.1, a free port',").not.toMatch(copied);
    expect('      default: `else ${DEFAULT_TIMEOUT_MS}`,').not.toMatch(copied);
  });

  it('payconform help lists every command; an unknown one is a usage error; a group lists its members', async () => {
    const list = await run(['help']);
    expect(list.out).toBe(usage());
    for (const name of names) expect(list.out).toContain(`payconform ${name} `);
    const unknown = await run(['help', 'frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('no command "frobnicate"');
    const group = await run(['help', 'audit']);
    expect(group.code).toBe(0);
    expect(group.out).toContain('payconform audit webhooks');
  });
});

describe('the README and docs/cli.md match the table', () => {
  const between = (text: string, start: string, end: string) =>
    text.slice(text.indexOf(start), text.indexOf(end) + end.length);

  it("the README's command table is the one generated from the table (npm run docs:cli)", () => {
    expect(between(doc('README.md'), TABLE_START, TABLE_END)).toBe(readmeTable());
  });

  it("docs/cli.md holds every command's --help verbatim (npm run docs:cli)", () => {
    expect(between(doc('docs/cli.md'), HELP_START, HELP_END)).toBe(helpSection());
  });

  it('the check can fail: a README row with a flag the table lacks differs', () => {
    const table = readmeTable().replace('[--now N]', '[--now N] [--later]');
    expect(table).not.toBe(readmeTable());
  });
});

describe('the private key from a file: PAYCONFORM_PRIVATE_KEY_FILE', () => {
  const keys = loadTestKeys();
  const env = signingEnv('test-only-key-file-secret', keys.clientEd25519);
  const dir = mkdtempSync(join(tmpdir(), 'payconform-keyfile-'));
  const keyFile = join(dir, 'client.key');
  writeFileSync(keyFile, `${env['PAYCONFORM_PRIVATE_KEY']}\n`, { mode: 0o600 });
  const request = JSON.stringify({
    method: 'POST',
    url: 'https://api.example.com/api/payouts',
    headers: { 'Content-Type': 'application/vnd.service.v1.0+json' },
    body: '{"amount":1}',
  });
  const sign = ['sign', '--request', '-', '--created', '1767225600', '--nonce', 'key-file-1'];

  it('signs exactly as the same key in PAYCONFORM_PRIVATE_KEY does', async () => {
    const inline = await run(sign, env, request);
    const { PAYCONFORM_PRIVATE_KEY: _, ...rest } = env;
    const fromFile = await run(sign, { ...rest, PAYCONFORM_PRIVATE_KEY_FILE: keyFile }, request);
    expect(inline.code, inline.err).toBe(0);
    expect(fromFile.code, fromFile.err).toBe(0);
    expect(fromFile.out).toBe(inline.out);
  });

  it('both set, an unreadable file, or a path in PAYCONFORM_PRIVATE_KEY: a usage error that never shows key material', async () => {
    const both = await run(sign, { ...env, PAYCONFORM_PRIVATE_KEY_FILE: keyFile }, request);
    expect(both.code).toBe(2);
    expect(both.err).toContain(
      'set PAYCONFORM_PRIVATE_KEY or PAYCONFORM_PRIVATE_KEY_FILE, not both',
    );
    const { PAYCONFORM_PRIVATE_KEY: key, ...rest } = env;
    const missing = await run(
      sign,
      { ...rest, PAYCONFORM_PRIVATE_KEY_FILE: join(dir, 'nope.pem') },
      request,
    );
    expect(missing.code).toBe(2);
    expect(missing.err).toContain(
      `cannot read PAYCONFORM_PRIVATE_KEY_FILE "${join(dir, 'nope.pem')}": ENOENT`,
    );
    const path = await run(sign, { ...rest, PAYCONFORM_PRIVATE_KEY: keyFile }, request);
    expect(path.code).toBe(2);
    expect(path.err).toContain('PAYCONFORM_PRIVATE_KEY looks like a file path, not a key');
    expect(path.err).toContain('set PAYCONFORM_PRIVATE_KEY_FILE to its path instead');
    for (const r of [both, missing, path]) expect(r.err + r.out).not.toContain(key!);
  });

  it('a path is told from a key: PEM and base64 seeds are keys, paths are not', () => {
    expect(looksLikeKeyPath(keys.clientEd25519.privatePem)).toBe(false);
    // A base64 seed may start with "/" (0xfd… encodes as "/…") and is still a key.
    const seed = Buffer.alloc(32, 0xfd).toString('base64');
    expect(seed.startsWith('/')).toBe(true);
    expect(looksLikeKeyPath(seed)).toBe(false);
    // Base64 of a key (raw, SPKI or PKCS#8 DER) may hold "/": still a key.
    const slashed = Buffer.alloc(32, 0xff).toString('base64');
    expect(slashed).toContain('/');
    expect(looksLikeKeyPath(slashed)).toBe(false);
    const der = Buffer.concat([Buffer.from([0x30, 0x2a]), Buffer.alloc(42, 0xff)]).toString(
      'base64',
    );
    expect(der).toContain('/');
    expect(looksLikeKeyPath(der)).toBe(false);
    for (const p of [
      '/etc/payconform/client.pem',
      './client.key',
      '~/keys/client.pem',
      'client.pem',
      'C:\\keys\\k.pem',
      'attest.pub',
      'conformance/attest.pub',
      'keys/attest',
    ])
      expect(looksLikeKeyPath(p), p).toBe(true);
  });
});
