// Part of the option table (cli/command-table.ts): the options of the test-vector commands: vectors run and vectors starter.
import { EXIT } from '../../conformance/exit-code-table.js';
import { STARTUP_TIMEOUT_MS } from '../../vectors/harness/harness-defaults.js';
import { MAX_TIMEOUT_MS, VECTOR_CASE_TIMEOUT_MS } from '../command-defaults.js';
import type { CommandSpec } from './option-spec.js';
import { HELP_OPTION, reportOption } from './shared-options.js';

export const vectorsRun: CommandSpec = {
  name: 'vectors run',
  summary: 'run the JSON test vectors against another implementation (--exec "CMD", NDJSON)',
  synopsis: '--exec "CMD" [options]',
  description: [
    'Starts CMD once and sends it every vector case as one NDJSON line on stdin; reads one answer line per',
    'case from its stdout (protocol: vectors/README.md). An adapter that cannot start, exits or does not answer',
    'the "hello" handshake is one error (exit 3). A case the adapter does not support is skipped, and a run',
    'with skips is INCOMPLETE (exit 4) unless --allow-skips. A failure shows the expected and received values;',
    'a summary per file and per op ends the output. The example adapters ship in the package, under',
    'node_modules/payconform/vectors/adapters/: python/adapter.py (every op; python3 and cryptography), and',
    'python/starter.py and go/starter.go, one op each, to start your own from (vectors/README.md); the',
    'single executable prints them: payconform vectors starter python|go.',
  ],
  options: [
    {
      name: 'exec',
      type: 'string',
      value: '"CMD"',
      help: "the implementation's adapter command, run through the shell (required)",
    },
    reportOption,
    {
      name: 'only',
      type: 'string',
      multiple: true,
      value: 'FILE|OP|ID,...',
      help: 'run only the cases of these vector files, ops or case ids (repeatable)',
    },
    {
      name: 'timeout-ms',
      type: 'string',
      value: 'N',
      default: String(VECTOR_CASE_TIMEOUT_MS),
      help: `per-case answer timeout, 1 to ${MAX_TIMEOUT_MS}`,
    },
    {
      name: 'startup-timeout-ms',
      type: 'string',
      value: 'N',
      default: String(STARTUP_TIMEOUT_MS),
      help: 'how long the adapter may take to start and answer the "hello" handshake',
    },
    {
      name: 'dir',
      type: 'string',
      value: 'DIR',
      default: 'the vectors shipped with payconform',
      help: 'vector directory (an unpacked vectors release works)',
    },
    {
      name: 'ignore-codes',
      type: 'boolean',
      help: 'compare valid/invalid only, not the error codes',
    },
    {
      name: 'allow-skips',
      type: 'boolean',
      help: 'skipped (unsupported) and inexpressible cases do not make the run INCOMPLETE',
    },
    {
      name: 'fail-on',
      type: 'string',
      value: 'skip',
      help: 'skipped and inexpressible cases fail the run (exit 1)',
    },
    { name: 'strict', type: 'boolean', help: 'old name of --fail-on skip', hidden: true },
    { name: 'verbose', type: 'boolean', help: 'list passing cases too' },
    HELP_OPTION,
  ],
  exit: [
    [EXIT.ok, 'every case passed (or skips accepted with --allow-skips)'],
    [EXIT.failed, 'a case failed, the run stopped early, or --fail-on skip and a case was skipped'],
    [EXIT.usage, 'usage error'],
    [EXIT.unreachable, 'the adapter did not start or did not answer the handshake'],
    [EXIT.incomplete, 'INCOMPLETE: nothing failed, but cases were skipped'],
    [EXIT.internal, 'internal error'],
  ],
  example:
    'payconform vectors run --exec "python3 node_modules/payconform/vectors/adapters/python/adapter.py"',
};

export const vectorsStarter: CommandSpec = {
  name: 'vectors starter',
  summary: 'print a starter adapter for vectors run (python or go): the harness loop and one op',
  synopsis: 'python|go',
  description: [
    'Prints python/starter.py or go/starter.go (vectors/README.md): the NDJSON loop of the harness and one op,',
    '"digest", end to end; every other op answers "unsupported". Save it, fill in your ops and run it with',
    'vectors run. The single executable carries them too, so this works with no package folder.',
  ],
  options: [HELP_OPTION],
  exit: [
    [EXIT.ok, 'printed'],
    [EXIT.usage, 'usage error (no such language)'],
  ],
  example:
    'payconform vectors starter python > starter.py && payconform vectors run --exec "python3 starter.py" --only digest',
};
