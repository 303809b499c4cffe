// What the explorer prints while it runs, in either role: one line when it starts (its budget), and each sequence's
// line only with --verbose (a default run prints no line per sequence: a hundred of them say nothing a report does
// not).

/** The explorer's `progress` callback for the console. */
export function exploreProgress(
  out: (text: string) => void,
  options: {
    readonly verbose: boolean;
    readonly seconds: number;
    readonly what: string;
    /** A replay plays the one sequence its token names, whatever the budget. */
    readonly replay?: string;
  },
): (line: string) => void {
  let started = false;
  return (line) => {
    if (!started) {
      started = true;
      const doing =
        options.replay !== undefined
          ? `replaying on ${options.what} the sequence ${options.replay}`
          : `exploring ${options.what} for up to ${options.seconds} s`;
      out(`  ${doing}${options.verbose ? '' : ' (--verbose shows each sequence)'}\n`);
    }
    if (options.verbose) out(`  ${line}\n`);
  };
}
