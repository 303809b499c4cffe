// One style across commands: every command and subcommand answers --help (exit 0, usage on stdout), the README's
// command table names only flags that --help shows, an internal crash has its own exit code (70, not the usage 2),
// and the package names its repository, homepage and licence.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { main, usage } from '../cli/main.js';
import { EXIT } from '../cli/io.js';
import { EXIT_CODES } from '../conformance/exit-code-table.js';
import { memoryIo } from './fixtures/memory-io.js';
import { CLI_ARGS } from './fixtures/cli.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

/** Every command the dispatcher knows, from `payconform --help`. */
const commands = [...usage().matchAll(/^ {2}payconform (\S+(?: (?!\s)\S+)?)\s{2,}/gm)].map((m) =>
  m[1]!.trim(),
);

async function run(args: readonly string[]): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIo();
  const code = await main(args, io);
  return { code, out: io.out.join(''), err: io.err.join('') };
}

describe('--help on every command', () => {
  it('the dispatcher lists exactly these commands and help', () => {
    expect(commands.sort()).toEqual([
      'attest verify',
      'audit client',
      'audit server',
      'audit webhooks',
      'diff',
      'help',
      'replay',
      'report fields',
      'serve',
      'sign',
      'validate',
      'vectors run',
      'vectors starter',
      'verify',
    ]);
  });

  it.each(commands)(
    'payconform %s --help and -h: exit 0, its usage on stdout, nothing on stderr',
    async (command) => {
      for (const flag of ['--help', '-h']) {
        const r = await run([...command.split(' '), flag]);
        expect(r.code, `${command} ${flag}: ${r.err}`).toBe(0);
        expect(r.out).toMatch(new RegExp(`^usage: payconform ${command}\\b`));
        expect(r.err).toBe('');
      }
    },
  );

  it.each(commands)('payconform %s --help wins over missing or bad arguments', async (command) => {
    const r = await run([...command.split(' '), '--no-such-flag', '--help']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(new RegExp(`^usage: payconform ${command}\\b`));
  });

  it.each([
    ['audit', ['audit client', 'audit server', 'audit webhooks']],
    ['vectors', ['vectors run']],
  ] as const)(
    'payconform %s --help lists its subcommands (exit 0); alone it is a usage error (exit 2)',
    async (group, subs) => {
      const help = await run([group, '--help']);
      expect(help.code).toBe(0);
      for (const sub of subs) expect(help.out).toContain(`payconform ${sub} `);
      const alone = await run([group]);
      expect(alone.code).toBe(2);
      expect(alone.err).toContain(`payconform ${group}: which one?`);
    },
  );

  it('spawned (the CLI from sources): payconform audit --help exits 0', () => {
    const r = spawnSync(process.execPath, [...CLI_ARGS, 'audit', '--help'], {
      cwd: root,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('payconform audit server');
  });
});

describe("the README's command table agrees with --help", () => {
  const table = readme.slice(readme.indexOf('| Command | What it does | Exit codes |'));
  const rows = table.slice(0, table.indexOf('\n\n')).split('\n').slice(2);
  const parsed = rows.map((row) => {
    const cell = /^\| `payconform ([^`]+)`/.exec(row)?.[1] ?? '';
    const command = commands.find((c) => cell === c || cell.startsWith(`${c} `)) ?? cell;
    return {
      command,
      flags: [...new Set([...cell.matchAll(/(?<![\w-])--[a-z][a-z-]*/g)].map((m) => m[0]))],
    };
  });

  it('has one row per command', () => {
    expect(parsed.map((p) => p.command).sort()).toEqual([...commands].sort());
  });

  it.each(parsed.map((p) => [p.command, p.flags] as const))(
    'payconform %s: every flag in its row is in its --help',
    async (command, flags) => {
      const help = (await run([...command.split(' '), '--help'])).out;
      for (const flag of flags)
        expect(help, `${command} --help lacks ${flag}`).toMatch(new RegExp(`${flag}(?![a-z-])`));
    },
  );

  it("the README's table of audit exit codes lists exactly the exit-code table's codes, in its order", () => {
    const section = readme.slice(readme.indexOf('**Audit exit codes and gates.**'));
    const rows = section.slice(0, section.indexOf('\n## ')).match(/^\| \d+ \| [A-Z]+ \|/gm) ?? [];
    const documented = rows.map((row) => Number(/\d+/.exec(row)![0]));
    expect(documented).toEqual(Object.values(EXIT_CODES).map((e) => e.code));
    expect(readme).toMatch(new RegExp(`\\| ${EXIT.incomplete} \\| INCOMPLETE \\|`));
    expect(readme).toMatch(new RegExp(`\\| ${EXIT.internal} \\| ERROR \\| internal error`));
  });

  it('the check can fail: a README table without the internal-error row lists fewer codes', () => {
    const rows = readme.replace(/^\| 70 \| ERROR \|.*$/m, '').match(/^\| \d+ \| [A-Z]+ \|/gm);
    expect(rows?.length).toBe(Object.keys(EXIT_CODES).length - 1);
  });

  it('no command writes an exit code as a number: every one comes from the table (EXIT)', () => {
    const literal = /\b(?:return|exitCode\s*[=:]|code\s*===)\s*\d+\b|exit\(\d|^\s*\[\d+, '/m;
    const files = readdirSync(join(root, 'cli'), { recursive: true, encoding: 'utf8' }).filter(
      (f) => f.endsWith('.ts'),
    );
    expect(files.length).toBeGreaterThan(20);
    for (const file of files)
      expect(readFileSync(join(root, 'cli', file), 'utf8'), file).not.toMatch(literal);
    expect('    return 70;\n').toMatch(literal);
    expect("    [70, 'internal error'],\n").toMatch(literal);
  });
});

describe('an internal crash is not a usage error', () => {
  it('a defect inside a command (here: the output stream fails) exits 70 with "internal error" on stderr', async () => {
    const io = memoryIo();
    const broken = {
      ...io,
      stdout: () => {
        throw new Error('EPIPE: broken pipe');
      },
    };
    const code = await main(['validate', '--help'], broken);
    expect(code).toBe(70);
    expect(io.err.join('')).toContain(
      'payconform validate: internal error (a defect of payconform; please report it): Error: EPIPE: broken pipe',
    );
  });

  it('a usage error still exits 2', async () => {
    expect((await run(['validate', 'no-such-kind', '-'])).code).toBe(2);
  });
});

describe('package metadata', () => {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    license: string;
    homepage?: string;
    repository?: { type: string; url: string };
    bugs?: { url: string };
  };

  it('names the repository, homepage and issue tracker', () => {
    expect(pkg.repository).toMatchObject({
      type: 'git',
      url: expect.stringMatching(/^git\+https:\/\/.+\.git$/),
    });
    expect(pkg.homepage).toMatch(/^https:\/\//);
    expect(pkg.bugs?.url).toMatch(/^https:\/\//);
  });

  it('ships a LICENSE file whose text matches "license"', () => {
    expect(pkg.license).toBe('MIT');
    const text = readFileSync(new URL('../LICENSE', import.meta.url), 'utf8');
    expect(text.split('\n')[0]).toBe('MIT License');
    expect(text).toContain('Permission is hereby granted, free of charge');
  });
});
