// `payconform diff OLD.json NEW.json [--format text|json|md]`: two JSON reports compared per check and per
// requirement (conformance/report/diff.ts). Exit 0 no regression, 1 a regression, 2 usage error or a file that is not a
// payconform JSON report.
import type { CliIo } from '../io.js';
import { EXIT, parseCommandArgs, UsageError, wantsHelp } from '../io.js';
import { commandSpec, formatHelp } from '../command-table.js';
import { DIFF_FORMAT_DEFAULT } from '../command-defaults.js';
import { diffReports, renderDiffMarkdown, renderDiffText } from '../../conformance/report/diff.js';
import { readJsonReport } from '../report-file.js';

const SPEC = commandSpec('diff');
const HELP = formatHelp(SPEC);
const FORMATS = ['text', 'json', 'md'] as const;

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  if (wantsHelp(args)) {
    io.stdout(HELP);
    return EXIT.ok;
  }
  const parsed = parseCommandArgs(SPEC, args, HELP);
  const [oldPath, newPath, ...extra] = parsed.positionals;
  if (oldPath === undefined || newPath === undefined || extra.length > 0)
    throw new UsageError(`expected OLD.json and NEW.json\n${HELP}`);
  const format = (parsed.values['format'] as string | undefined) ?? DIFF_FORMAT_DEFAULT;
  if (!FORMATS.some((f) => f === format))
    throw new UsageError(`--format must be ${FORMATS.join(', ')} (got "${format}")`);
  // Standard input is read once: it can be one of the two reports, not both.
  if (oldPath === '-' && newPath === '-')
    throw new UsageError('"-" (standard input) can be OLD.json or NEW.json, not both');
  const d = diffReports(await readJsonReport(oldPath, io), await readJsonReport(newPath, io));
  io.stdout(
    format === 'json'
      ? `${JSON.stringify(d, null, 2)}\n`
      : format === 'md'
        ? renderDiffMarkdown(d)
        : renderDiffText(d),
  );
  return d.regressed ? EXIT.failed : EXIT.ok;
}
