// `payconform report fields REPORT.json`: a JSON report's verdict, exit code and the number of checks that ran, one
// NAME=VALUE a line, so that a shell with no JSON parser reads them from the report's fields, whatever the order of
// its members (the GitHub Action's step does: action/audit.sh). Exit 0 printed, 2 not a payconform JSON report.
import type { CliIo } from '../io.js';
import { EXIT, parseCommandArgs, UsageError, wantsHelp } from '../io.js';
import { commandSpec, formatHelp } from '../command-table.js';
import { readJsonReport } from '../report-file.js';
import { ranCount } from '../../conformance/run/run-counts.js';

const SPEC = commandSpec('report fields');
const HELP = formatHelp(SPEC);

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  if (wantsHelp(args)) {
    io.stdout(HELP);
    return EXIT.ok;
  }
  const parsed = parseCommandArgs(SPEC, args, HELP);
  const [path, ...extra] = parsed.positionals;
  if (path === undefined || extra.length > 0)
    throw new UsageError(`expected one REPORT.json\n${HELP}`);
  const report = await readJsonReport(path, io);
  // The schema holds each value to its enum or to a whole number: none can add a line of its own.
  io.stdout(
    [
      `verdict=${report.verdict}`,
      `exit-code=${report.exitCode}`,
      `checks-ran=${ranCount(report.counts)}`,
      '',
    ].join('\n'),
  );
  return EXIT.ok;
}
