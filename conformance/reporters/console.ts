// Console reporter: live progress while checks run, then a summary grouped by area with failure details. What a
// target, a config or a baseline put in the run (messages, bodies, reasons) is printed with its control characters
// escaped (printable.ts); the only escape sequences written are this reporter's own colours.
import { verdictFor, verdictLine } from '../run/exit-code.js';
import type { RunEvent, RunSubscriber } from '../run/events.js';
import { OUTCOMES, type CheckResult, type Outcome, type RunSummary } from '../run/result.js';
import { countOf, countsText, failedRequirementsText, runCounts } from '../run/run-counts.js';
import { againText, findingText } from './evidence-text.js';
import { mustExercisedLine, unexercisedMust } from '../requirement-table.js';
import { baselineLines } from '../report/baseline.js';
import { printableValue, showControls } from './printable.js';

export interface ConsoleStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
}

export interface ConsoleReporterOptions {
  /** Where to write (the command passes stderr, keeping stdout clean for machine output). */
  readonly stream: ConsoleStream;
  /** For NO_COLOR. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Show findings of passing checks too. */
  readonly verbose?: boolean;
  /** Print the summary when the run finishes (default true); false: the caller prints it when it knows the exit code. */
  readonly summary?: boolean;
}

const COLOUR: Readonly<Record<Outcome, string>> = {
  pass: '32',
  fail: '31',
  error: '31',
  warn: '33',
  skip: '90',
  'n/a': '90',
};

/** Colour only on a TTY and when NO_COLOR is unset or empty (https://no-color.org). */
export function useColour(
  stream: ConsoleStream,
  env: Readonly<Record<string, string | undefined>> = {},
): boolean {
  return stream.isTTY === true && (env.NO_COLOR === undefined || env.NO_COLOR === '');
}

/** A subscriber that prints the run to a terminal stream as it happens, then the summary. */
export function createConsoleReporter(options: ConsoleReporterOptions): RunSubscriber {
  const colour = useColour(options.stream, options.env);
  const paint = (o: Outcome, text: string): string =>
    colour ? `\x1b[${COLOUR[o]}m${text}\x1b[0m` : text;
  const label = (o: Outcome): string => paint(o, o.toUpperCase().padEnd(5));
  const write = (text: string): void => {
    options.stream.write(text);
  };
  return (untrusted: RunEvent) => {
    const event = untrusted.type === 'run-finished' ? untrusted : printableValue(untrusted);
    switch (event.type) {
      case 'run-started':
        write(
          `payconform ${event.toolVersion}: auditing ${event.role} ${event.target} (${event.checks.length} checks)\n`,
        );
        break;
      case 'check-started':
        break;
      case 'check-finished': {
        const r = event.result;
        const left = event.total - event.completed;
        write(
          `[${String(event.completed).padStart(String(event.total).length)}/${event.total}] ${label(r.outcome)} ${r.id}: ${r.title}${r.outcome === 'pass' ? '' : ` (${r.message})`}  ${left} left\n`,
        );
        break;
      }
      case 'run-finished':
        if (options.summary !== false)
          write(renderConsoleSummary(event.summary, { colour, verbose: options.verbose ?? false }));
        break;
    }
  };
}

function details(r: CheckResult, verbose: boolean): string {
  const shown = r.findings.filter((f) => verbose || f.outcome !== 'pass' || f.observed);
  const body = shown.map(findingText).join('\n\n');
  const rerun = r.rerun !== undefined ? `  run this check again (signs afresh): ${r.rerun}\n` : '';
  const again = againText(r);
  return `  requirements: ${r.requirements.join(', ')}\n${rerun}${body ? body.replace(/^/gm, '    ') + '\n' : ''}${again !== undefined ? again.replace(/^/gm, '    ') + '\n' : ''}`;
}

type Paint = (o: Outcome, text: string) => string;

/** How the command ends when that is not the run's own exit code (e.g. exit 2: a report was not written). */
type CommandEnding = { readonly exitCode: number; readonly reason: string };

/** One line per area, in the order the areas first appear: how many checks ended in each outcome. */
function areaLines(results: readonly CheckResult[], paint: Paint): string[] {
  const areas = new Map<string, CheckResult[]>();
  for (const r of results) areas.set(r.area, [...(areas.get(r.area) ?? []), r]);
  // A check a known finding decided is tallied as known, never as a pass (run-counts.ts).
  const kind = (r: CheckResult): Outcome | 'known' =>
    countOf(r) === 'known' ? 'known' : r.outcome;
  return [...areas].map(([area, inArea]) => {
    const tally = [...OUTCOMES, 'known' as const]
      .filter((k) => inArea.some((r) => kind(r) === k))
      .map((k) =>
        paint(k === 'known' ? 'warn' : k, `${inArea.filter((r) => kind(r) === k).length} ${k}`),
      );
    return `  ${area.padEnd(14)} ${tally.join(', ')}`;
  });
}

/** Failures, errors and warnings with their details, then the checks that did not apply. */
function problemLines(results: readonly CheckResult[], paint: Paint, verbose: boolean): string[] {
  const out: string[] = [];
  const problems = results.filter(
    (r) => r.outcome === 'fail' || r.outcome === 'error' || r.outcome === 'warn',
  );
  if (problems.length > 0) {
    out.push('', 'Failures and warnings:');
    for (const r of problems)
      out.push(
        '',
        `${paint(r.outcome, r.outcome.toUpperCase())}${r.flaky ? ' (flaky)' : ''} ${r.id} [${r.level}]: ${r.title}`,
        `  ${r.message}`,
        details(r, verbose),
      );
  }
  const na = results.filter((r) => r.outcome === 'n/a');
  if (na.length > 0) {
    out.push(
      '',
      'Not applicable to this target (not skipped: they do not make the run INCOMPLETE):',
    );
    for (const r of na) out.push(`  ${r.id}: ${r.message}`);
  }
  return out;
}

/** The counts, what the requirements came to, the baseline, and what made the run partial or cut its evidence. */
function tallyLines(summary: RunSummary): string[] {
  const out = [
    '',
    `${countsText(runCounts(summary))} in ${summary.durationMs} ms`,
    `requirements: ${summary.requirements.covered.length} covered, ${summary.requirements.notRun.length} not run, ${summary.requirements.uncovered.length} not covered by any check`,
  ];
  const table = summary.requirements.table;
  if (table !== undefined) {
    out.push(`${mustExercisedLine(table)} (${failedRequirementsText(summary)})`);
    // The MUST requirements that apply to this target and were not exercised, each with why (a few, then a count).
    const missing = unexercisedMust(table);
    for (const r of missing.slice(0, 12)) out.push(`  not exercised: ${r.id}: ${r.reason ?? ''}`);
    if (missing.length > 12)
      out.push(`  ... and ${missing.length - 12} more (see the JSON report)`);
  }
  if (summary.baseline !== undefined) out.push(...baselineLines(summary.baseline));
  if (summary.partial) out.push(`partial run: ${summary.partialReasons.join('; ')}`);
  const ev = summary.evidence;
  if (ev !== undefined && ev.bodiesCut > 0)
    out.push(
      `evidence: ${ev.bodiesCut} bod${ev.bodiesCut === 1 ? 'y' : 'ies'} cut (a report keeps ${ev.bodyBytes} bytes of a body and ${ev.runBytes} bytes of bodies in all; ${ev.keptBytes} kept)`,
    );
  return out;
}

/** The verdict line, painted by the verdict; the command's own ending, when given, names the exit code instead. */
function verdictLineFor(summary: RunSummary, paint: Paint, ending?: CommandEnding): string {
  const v = verdictFor(summary);
  // The command's own ending (a report that could not be written) overrides the run's exit code: never claim another.
  const tail =
    ending !== undefined ? `; ${ending.reason}, exit ${ending.exitCode}` : `, exit ${v.exitCode}`;
  return paint(
    v.verdict === 'pass' && ending === undefined
      ? 'pass'
      : v.verdict === 'incomplete'
        ? 'warn'
        : 'fail',
    `${verdictLine(summary)}${tail}`,
  );
}

/** The run's summary as the console prints it at the end. */
export function renderConsoleSummary(
  untrusted: RunSummary,
  options: {
    colour?: boolean;
    verbose?: boolean;
    /** How the command ends when that is not the run's own exit code (e.g. exit 2: a report was not written). */
    ending?: CommandEnding;
  } = {},
): string {
  const paint: Paint = (o, text) => (options.colour ? `\x1b[${COLOUR[o]}m${text}\x1b[0m` : text);
  const summary = printableValue(untrusted);
  const ending =
    options.ending !== undefined
      ? { ...options.ending, reason: showControls(options.ending.reason) }
      : undefined;
  return [
    '',
    'Summary by area:',
    ...areaLines(summary.results, paint),
    ...problemLines(summary.results, paint, options.verbose ?? false),
    ...tallyLines(summary),
    ...summary.blocking.map((problem) => paint('fail', `run failed: ${problem}`)),
    verdictLineFor(summary, paint, ending),
    '',
  ].join('\n');
}
