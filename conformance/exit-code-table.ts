// Every exit code payconform ends with, in one table: its name, its value, the verdict an audit that ends with it has
// and what it means. No imports, so that `payconform --help` (cli/command-table.ts) shows the codes without loading
// the engine. The GitHub Action's verdicts are this table's too (action/audit.sh's block generated from it by
// `npm run docs:cli`, action.yml's `verdict` output checked against it by test/ci-recipes.test.ts).

/**
 * Each exit code by name: its value, the verdict of an audit that ends with it (the JSON report's `verdict`), and what
 * it means for an audit (a command's help may say it its own way).
 */
export const EXIT_CODES = {
  ok: {
    code: 0,
    verdict: 'pass',
    meaning: 'PASS: every selected check reached a verdict and none failed',
  },
  failed: {
    code: 1,
    verdict: 'fail',
    meaning: 'FAIL: a MUST failure, a check error or timeout, or a --fail-on outcome',
  },
  usage: { code: 2, verdict: 'error', meaning: 'usage, config or report-write error' },
  unreachable: {
    code: 3,
    verdict: 'error',
    meaning: 'target unreachable, at the start or mid-run (it stopped answering)',
  },
  incomplete: {
    code: 4,
    verdict: 'incomplete',
    meaning:
      'INCOMPLETE: nothing failed, but no selected check ran, or a check you did not deselect was skipped',
  },
  // sysexits EX_SOFTWARE: payconform itself crashed, distinct from the usage code 2.
  internal: { code: 70, verdict: 'error', meaning: 'internal error (a defect of payconform)' },
} as const;

export type ExitName = keyof typeof EXIT_CODES;
export type ExitCode = (typeof EXIT_CODES)[ExitName]['code'];
/** An audit's verdict: `error` when the run stopped before one (usage or config error, unreachable, internal). */
export type Verdict = (typeof EXIT_CODES)[ExitName]['verdict'];

/** The verdict of an audit that ended with `code`; undefined for a code payconform never ends with. */
export function verdictOfExitCode(code: number): Verdict | undefined {
  return Object.values(EXIT_CODES).find((entry) => entry.code === code)?.verdict;
}

/** The value of each exit code by name (`EXIT.usage` is 2), read from the table. */
export const EXIT = Object.fromEntries(
  Object.entries(EXIT_CODES).map(([name, entry]) => [name, entry.code]),
) as { readonly [N in ExitName]: (typeof EXIT_CODES)[N]['code'] };
