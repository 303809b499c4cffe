// Dispatches `payconform <command> ...` to the command modules; each is loaded only when used.
import { COMMAND_TABLE, formatHelp, type CommandSpec } from './command-table.js';
import { createProcessIo, EXIT, UsageError, wantsHelp, withKeyFile, type CliIo } from './io.js';
import { packageVersion } from './version.js';

export type Command = (args: readonly string[], io: CliIo) => Promise<number>;

/** How to load each command of the table (cli/command-table.ts); add a line here when a command lands. */
const loaders: Readonly<Record<string, () => Promise<Command>>> = {
  serve: async () => (await import('./commands/serve.js')).run,
  sign: async () => (await import('./commands/sign.js')).run,
  verify: async () => (await import('./commands/verify.js')).run,
  validate: async () => (await import('./commands/validate.js')).run,
  'audit server': async () => (await import('./commands/audit-server.js')).run,
  'audit client': async () => (await import('./commands/audit-client.js')).run,
  'audit webhooks': async () => (await import('./commands/audit-webhooks.js')).run,
  'vectors run': async () => (await import('./commands/vectors-run.js')).run,
  'vectors starter': async () => (await import('./commands/vectors-starter.js')).run,
  'attest verify': async () => (await import('./commands/attest-verify.js')).run,
  replay: async () => (await import('./commands/replay.js')).run,
  diff: async () => (await import('./commands/diff.js')).run,
  'report fields': async () => (await import('./commands/report-fields.js')).run,
  help: async () => help,
};

const commands: Readonly<Record<string, CommandSpec>> = Object.fromEntries(
  COMMAND_TABLE.map((c) => [c.name, c]),
);

const listLine = (c: CommandSpec): string => `  payconform ${c.name.padEnd(16)} ${c.summary}`;

export function usage(): string {
  return [
    'usage: payconform <command> [options]',
    '       payconform help [command] | --version | --help',
    '',
    'commands:',
    ...COMMAND_TABLE.map(listLine),
    '',
    'Each command takes --help (the same text as payconform help <command>).',
    '',
  ].join('\n');
}

/** The list of a command group's subcommands ("payconform audit --help"). */
function groupHelp(group: string, names: readonly string[]): string {
  return [
    `usage: payconform ${group} <${names.map((g) => g.split(' ')[1]).join('|')}> [options]`,
    '',
    ...names.map((g) => listLine(commands[g]!)),
    '',
    'Each takes --help.',
    '',
  ].join('\n');
}

/** `payconform help [command words]`: a command's --help, a group's list, or the whole list. */
async function help(args: readonly string[], io: CliIo): Promise<number> {
  if (wantsHelp(args)) {
    io.stdout(formatHelp(commands['help']!));
    return EXIT.ok;
  }
  const name = args.join(' ');
  if (name === '') {
    io.stdout(usage());
    return EXIT.ok;
  }
  if (commands[name] !== undefined) {
    io.stdout(formatHelp(commands[name]));
    return EXIT.ok;
  }
  const group = Object.keys(commands).filter((c) => c.startsWith(`${name} `));
  if (group.length > 0) {
    io.stdout(groupHelp(name, group));
    return EXIT.ok;
  }
  throw new UsageError(`no command "${name}"; payconform help lists them`);
}

export async function main(
  argv: readonly string[],
  io: CliIo = createProcessIo(),
): Promise<number> {
  // Two-word commands ("audit server", "vectors run") win over one-word ones.
  const two = argv.slice(0, 2).join(' ');
  const name = two in commands ? two : (argv[0] ?? '');
  const entry = loaders[name];
  if (argv[0] === '--help' || argv[0] === '-h') {
    io.stdout(usage());
    return EXIT.ok;
  }
  if (argv[0] === '--version' || argv[0] === '-v') {
    io.stdout(`${packageVersion()}\n`);
    return EXIT.ok;
  }
  // A command group alone ("payconform audit --help", "payconform audit") lists its subcommands.
  const group = Object.keys(commands).filter((c) => c.startsWith(`${argv[0] ?? ''} `));
  if (
    !entry &&
    group.length > 0 &&
    (argv.length === 1 || argv[1] === '--help' || argv[1] === '-h')
  ) {
    const text = groupHelp(argv[0]!, group);
    if (argv.length === 1) {
      io.stderr(`payconform ${argv[0]}: which one?\n${text}`);
      return EXIT.usage;
    }
    io.stdout(text);
    return EXIT.ok;
  }
  if (!entry) {
    io.stderr(
      `${argv.length === 0 ? 'payconform: no command given' : `payconform: unknown command "${argv[0]}"`}\n${usage()}`,
    );
    return EXIT.usage;
  }
  const rest = argv.slice(name.split(' ').length);
  try {
    const command = await entry();
    return await command(rest, wantsHelp(rest) ? io : withKeyFile(io));
  } catch (error) {
    if (error instanceof UsageError) {
      // A usage error may quote what a file or an argument holds: its control characters are shown escaped, and the
      // credentials of a URL (refused wherever one is given) are masked. Loaded here, so that --help loads neither.
      const [{ showControls }, { maskUrlCredentials }] = await Promise.all([
        import('../conformance/reporters/printable.js'),
        import('../conformance/report/redact.js'),
      ]);
      io.stderr(
        `payconform ${name}: ${showControls(maskUrlCredentials(error.message), { multiline: true })}\n`,
      );
      return EXIT.usage;
    }
    // A defect of payconform, not of the user's input: its own exit code, never the usage code.
    io.stderr(
      `payconform ${name}: internal error (a defect of payconform; please report it): ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return EXIT.internal;
  }
}
