// Dispatches `payconform <command> ...` to the command modules; each is loaded only when used.
import { createProcessIo, EXIT, UsageError, type CliIo } from './io.js';
import { packageVersion } from './version.js';

export type Command = (args: readonly string[], io: CliIo) => Promise<number>;

/** One entry per command; the key is the command words as typed. Add a line here when a command lands. */
const commands: Readonly<
  Record<string, { readonly summary: string; readonly load: () => Promise<Command> }>
> = {
  serve: {
    summary:
      'run the reference service (spec endpoints, sandbox, signed webhooks; --fault for self-tests)',
    load: async () => (await import('./commands/serve.js')).run,
  },
  sign: {
    summary: 'sign a request (JSON) with credentials from the environment',
    load: async () => (await import('./commands/sign.js')).run,
  },
  verify: {
    summary: 'verify a signed request (JSON) under the strict profile policy',
    load: async () => (await import('./commands/verify.js')).run,
  },
  validate: {
    summary:
      'validate a payload (JSON) against its JSON Schema; prints each violation with its pointer',
    load: async () => (await import('./commands/validate.js')).run,
  },
  'audit server': {
    summary:
      'audit a service implementation (default: the embedded reference service); reports json/junit/html',
    load: async () => (await import('./commands/audit-server.js')).run,
  },
  'audit client': {
    summary:
      'audit a client: a strict verifying endpoint it calls (--exec "CMD"), findings per rule, signature diagnosis',
    load: async () => (await import('./commands/audit-client.js')).run,
  },
  'audit webhooks': {
    summary:
      'audit a webhook receiver: send valid and tampered signed webhooks (--target URL, --serve-key, --public-key-out)',
    load: async () => (await import('./commands/audit-webhooks.js')).run,
  },
  'vectors run': {
    summary: 'run the JSON test vectors against another implementation (--exec "CMD", NDJSON)',
    load: async () => (await import('./commands/vectors-run.js')).run,
  },
};

export function usage(): string {
  const lines = Object.entries(commands).map(
    ([name, c]) => `  payconform ${name.padEnd(16)} ${c.summary}`,
  );
  return [
    'usage: payconform <command> [options]',
    '       payconform --version | --help',
    '',
    'commands:',
    ...lines,
    '',
  ].join('\n');
}

export async function main(
  argv: readonly string[],
  io: CliIo = createProcessIo(),
): Promise<number> {
  // Two-word commands ("audit server", "vectors run") win over one-word ones.
  const two = argv.slice(0, 2).join(' ');
  const name = two in commands ? two : (argv[0] ?? '');
  const entry = commands[name];
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
    const text = [
      'usage: payconform ' +
        argv[0] +
        ' <' +
        group.map((g) => g.split(' ')[1]).join('|') +
        '> [options]',
      '',
      ...group.map((g) => `  payconform ${g.padEnd(16)} ${commands[g]!.summary}`),
      '',
      `Each takes --help.`,
      '',
    ].join('\n');
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
    const command = await entry.load();
    return await command(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`payconform ${name}: ${error.message}\n`);
      return EXIT.usage;
    }
    // A defect of payconform, not of the user's input: its own exit code, never the usage code.
    io.stderr(
      `payconform ${name}: internal error (a defect of payconform; please report it): ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return EXIT.internal;
  }
}
