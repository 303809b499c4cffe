// Prints the slowest test files of a vitest run, from its JSON report (`--reporter=json --outputFile.json=FILE`):
// `.ci/run` prints the ten slowest after `npm test`, so a file that grows slow is seen in every CI log, and
// vitest.config.ts's SLOWEST_FIRST can be kept true from it. Usage: tsx scripts/slowest-test-files.ts FILE [N]
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

interface FileResult {
  readonly name: string;
  readonly startTime: number;
  readonly endTime: number;
  readonly status: string;
}

/** The files of the report, slowest first, each with its wall time in seconds. */
function slowestFiles(
  report: { readonly testResults: readonly FileResult[] },
  root: string,
): Array<{ readonly file: string; readonly seconds: number; readonly status: string }> {
  return report.testResults
    .map((r) => ({
      file: relative(root, r.name),
      seconds: (r.endTime - r.startTime) / 1000,
      status: r.status,
    }))
    .sort((a, b) => b.seconds - a.seconds);
}

const [path, count = '10'] = process.argv.slice(2);
if (path === undefined) {
  process.stderr.write('usage: tsx scripts/slowest-test-files.ts VITEST_JSON_REPORT [N]\n');
  process.exit(2);
}
const report = JSON.parse(readFileSync(path, 'utf8')) as { testResults: FileResult[] };
const rows = slowestFiles(report, process.cwd()).slice(0, Number(count));
process.stdout.write(`The ${rows.length} slowest test files (wall seconds, from ${path}):\n`);
for (const r of rows)
  process.stdout.write(
    `${r.seconds.toFixed(1).padStart(7)}  ${r.file}${r.status === 'passed' ? '' : `  (${r.status})`}\n`,
  );
