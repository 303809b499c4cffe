// `payconform diff OLD.json NEW.json [--format text|json|md]`: two JSON reports compared per check and per
// requirement (conformance/diff.ts). Exit 0 no regression, 1 a regression, 2 usage error or a file that is not a
// payconform JSON report.
import type { CliIo } from '../io.js';
import { EXIT, parseCommandArgs, readInput, UsageError, wantsHelp } from '../io.js';
import { commandSpec, formatHelp } from '../command-table.js';
import { DIFF_FORMAT_DEFAULT } from '../command-defaults.js';
import { diffReports, renderDiffMarkdown, renderDiffText } from '../../conformance/diff.js';
import type { JsonReport } from '../../conformance/reporters/json.js';
import { validateAgainst } from '../../src/schemas/index.js';
import { FileReadError, parseJsonFile, textOf } from '../../net/file-read.js';

const SPEC = commandSpec('diff');
const HELP = formatHelp(SPEC);
const REPORT_SCHEMA_ID = 'https://payconform.dev/schemas/conformance-report.schema.json';
const FORMATS = ['text', 'json', 'md'] as const;

/** A JSON report from a file: read, parsed and checked against its schema (a UsageError naming what is wrong). */
async function readReport(path: string, io: CliIo): Promise<JsonReport> {
  let text: string;
  try {
    text = textOf(await readInput(path, io, 'report'));
  } catch (error) {
    if (!(error instanceof FileReadError)) throw error;
    throw new UsageError(`cannot read "${path}": ${error.message}`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`"${path}" is not JSON: ${(error as Error).message}`);
  }
  const checked = validateAgainst(REPORT_SCHEMA_ID, doc);
  if (!checked.valid)
    throw new UsageError(
      `"${path}" is not a payconform JSON report (schemas/conformance-report.schema.json): ${(
        checked.errors ?? []
      )
        .slice(0, 3)
        .map((e) => `${e.pointer || '/'} ${e.message}`)
        .join('; ')}`,
    );
  return doc as JsonReport;
}

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
  const d = diffReports(await readReport(oldPath, io), await readReport(newPath, io));
  io.stdout(
    format === 'json'
      ? `${JSON.stringify(d, null, 2)}\n`
      : format === 'md'
        ? renderDiffMarkdown(d)
        : renderDiffText(d),
  );
  return d.regressed ? EXIT.failed : EXIT.ok;
}
