// A JSON report (`--report json:FILE`) read back by the commands that take one (`diff`, `report fields`): read through
// the one reader, parsed, and checked against its schema, so that what they print comes from a report's fields.
import type { CliIo } from './io.js';
import { readInput, UsageError } from './io.js';
import type { JsonReport } from '../conformance/reporters/json.js';
import { validateAgainst } from '../src/schemas/index.js';
import { FileReadError, parseJsonFile, textOf } from '../net/file-read.js';

const REPORT_SCHEMA_ID = 'https://payconform.dev/schemas/conformance-report.schema.json';

/** A JSON report from a file: read, parsed and checked against its schema (a UsageError naming what is wrong). */
export async function readJsonReport(path: string, io: CliIo): Promise<JsonReport> {
  let text: string;
  try {
    text = textOf(await readInput(path, io, 'report'));
  } catch (error) {
    if (!(error instanceof FileReadError)) throw error;
    throw new UsageError(`cannot read "${path}": ${error.message}`);
  }
  let doc: unknown;
  try {
    doc = parseJsonFile(text);
  } catch (error) {
    // Not JSON, or nested deeper than any report (net/file-read.ts): said before anything walks it.
    throw new UsageError(`"${path}": ${(error as Error).message}`);
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
