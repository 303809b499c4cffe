// `payconform validate KIND FILE|-`: validates one payload against its JSON Schema and prints each violation with
// its RFC 6901 pointer. Exit 0 valid, 1 invalid, 2 bad usage or unreadable JSON.
import type { CliIo } from '../io.js';
import { EXIT, parseCommandArgs, readInput, UsageError, wantsHelp } from '../io.js';
import {
  isPayloadKind,
  parseJsonBytes,
  payloadKinds,
  payloadSchemaId,
  validatePayload,
} from '../../src/schemas/index.js';
import { commandSpec, formatHelp } from '../command-table.js';

const SPEC = commandSpec('validate');
const HELP = formatHelp(SPEC);

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  if (wantsHelp(args)) {
    io.stdout(HELP);
    return EXIT.ok;
  }
  const parsed = parseCommandArgs(SPEC, args, HELP);
  if (parsed.values.help === true) {
    io.stdout(HELP);
    return EXIT.ok;
  }
  const [kind, file, ...extra] = parsed.positionals;
  if (kind === undefined || file === undefined || extra.length > 0)
    throw new UsageError(`expected KIND and FILE|-\n${HELP}`);
  if (!isPayloadKind(kind))
    throw new UsageError(`unknown kind ${JSON.stringify(kind)}; kinds: ${payloadKinds.join(', ')}`);
  const strict = parsed.values.strict === true;

  let bytes: Buffer;
  try {
    bytes = await readInput(file, io);
  } catch (error) {
    throw new UsageError(
      `cannot read ${file === '-' ? 'standard input' : JSON.stringify(file)}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const text = parseJsonBytes(bytes);
  if (!text.ok) throw new UsageError(`${file === '-' ? 'standard input' : file}: ${text.message}`);

  const schemaId = payloadSchemaId(kind, { strict });
  const result = validatePayload(kind, text.value, { strict });
  if (parsed.values.json === true) {
    io.stdout(
      `${JSON.stringify({ valid: result.valid, kind, schemaId, errors: result.valid ? [] : result.errors }, null, 2)}\n`,
    );
  } else if (result.valid) {
    io.stdout(`valid ${kind} (${schemaId})\n`);
  } else {
    io.stdout(
      result.errors
        .map((e) => `${e.pointer === '' ? '(root)' : e.pointer}: ${e.message}\n`)
        .join(''),
    );
  }
  return result.valid ? EXIT.ok : EXIT.failed;
}
