// Every exit code payconform ends with, in one table: its name, its value and what it means. No imports, so that
// `payconform --help` (cli/command-table.ts) shows the codes without loading the engine.

/** Each exit code by name: its value, and what it means for an audit (a command's help may say it its own way). */
export const EXIT_CODES = {
  ok: { code: 0, meaning: 'PASS: every selected check reached a verdict and none failed' },
  failed: {
    code: 1,
    meaning: 'FAIL: a MUST failure, a check error or timeout, or a --fail-on outcome',
  },
  usage: { code: 2, meaning: 'usage, config or report-write error' },
  unreachable: {
    code: 3,
    meaning: 'target unreachable, at the start or mid-run (it stopped answering)',
  },
  incomplete: {
    code: 4,
    meaning:
      'INCOMPLETE: nothing failed, but no selected check ran, or a check you did not deselect was skipped',
  },
  // sysexits EX_SOFTWARE: payconform itself crashed, distinct from the usage code 2.
  internal: { code: 70, meaning: 'internal error (a defect of payconform)' },
} as const;

export type ExitName = keyof typeof EXIT_CODES;
export type ExitCode = (typeof EXIT_CODES)[ExitName]['code'];

/** The value of each exit code by name (`EXIT.usage` is 2), read from the table. */
export const EXIT = Object.fromEntries(
  Object.entries(EXIT_CODES).map(([name, entry]) => [name, entry.code]),
) as { readonly [N in ExitName]: (typeof EXIT_CODES)[N]['code'] };
