// `payconform vectors starter LANGUAGE`: prints a starter adapter (the harness loop and one op) to start your own from.
// It reads the package's copy, or the executable's embedded one (cli/package-files.ts), so a user of the single
// executable, who has no package folder, gets the same file.
import { commandSpec, formatHelp } from '../command-table.js';
import { EXIT, UsageError, wantsHelp, type CliIo, parseCommandArgs } from '../io.js';
import { STARTER_FILES, starterSource } from '../package-files.js';

const SPEC = commandSpec('vectors starter');

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  if (wantsHelp(args)) {
    io.stdout(formatHelp(SPEC));
    return EXIT.ok;
  }
  const { positionals } = parseCommandArgs(SPEC, args);
  const languages = Object.keys(STARTER_FILES);
  const language = positionals[0];
  if (positionals.length !== 1 || language === undefined || !languages.includes(language))
    throw new UsageError(
      `give one language: ${languages.join(' or ')}${language !== undefined ? `, got ${JSON.stringify(positionals.join(' '))}` : ''}`,
    );
  io.stdout(await starterSource(language));
  return EXIT.ok;
}
