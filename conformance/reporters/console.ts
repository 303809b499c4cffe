// Console reporter: live progress while checks run, then a summary grouped by area with failure details.
import { verdictFor, verdictLine } from '../exit-code.js';
import type { RunEvent, RunSubscriber } from '../events.js';
import type { CheckResult, Outcome, RunSummary } from '../result.js';
import { findingText } from './evidence-text.js';
import { mustExercisedLine, unexercisedMust } from '../requirement-table.js';
import { baselineLines } from '../baseline.js';

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

export function createConsoleReporter(options: ConsoleReporterOptions): RunSubscriber {
  const colour = useColour(options.stream, options.env);
  const paint = (o: Outcome, text: string): string =>
    colour ? `\x1b[${COLOUR[o]}m${text}\x1b[0m` : text;
  const label = (o: Outcome): string => paint(o, o.toUpperCase().padEnd(5));
  const write = (text: string): void => {
    options.stream.write(text);
  };
  return (event: RunEvent) => {
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
  return `  requirements: ${r.requirements.join(', ')}\n${rerun}${body ? body.replace(/^/gm, '    ') + '\n' : ''}`;
}

export function renderConsoleSummary(
  summary: RunSummary,
  options: {
    colour?: boolean;
    verbose?: boolean;
    /** How the command ends when that is not the run's own exit code (e.g. exit 2: a report was not written). */
    ending?: { readonly exitCode: number; readonly reason: string };
  } = {},
): string {
  const paint = (o: Outcome, text: string): string =>
    options.colour ? `\x1b[${COLOUR[o]}m${text}\x1b[0m` : text;
  const out: string[] = ['', 'Summary by area:'];
  const areas = new Map<string, CheckResult[]>();
  for (const r of summary.results) areas.set(r.area, [...(areas.get(r.area) ?? []), r]);
  for (const [area, results] of areas) {
    const tally = (['pass', 'fail', 'warn', 'skip', 'n/a', 'error'] as const)
      .filter((o) => results.some((r) => r.outcome === o))
      .map((o) => paint(o, `${results.filter((r) => r.outcome === o).length} ${o}`));
    out.push(`  ${area.padEnd(14)} ${tally.join(', ')}`);
  }
  const problems = summary.results.filter(
    (r) => r.outcome === 'fail' || r.outcome === 'error' || r.outcome === 'warn',
  );
  if (problems.length > 0) {
    out.push('', 'Failures and warnings:');
    for (const r of problems)
      out.push(
        '',
        `${paint(r.outcome, r.outcome.toUpperCase())} ${r.id} [${r.level}]: ${r.title}`,
        `  ${r.message}`,
        details(r, options.verbose ?? false),
      );
  }
  const na = summary.results.filter((r) => r.outcome === 'n/a');
  if (na.length > 0) {
    out.push(
      '',
      'Not applicable to this target (not skipped: they do not make the run INCOMPLETE):',
    );
    for (const r of na) out.push(`  ${r.id}: ${r.message}`);
  }
  const c = summary.counts;
  out.push(
    '',
    `${c.pass} passed, ${c.fail} failed, ${c.warn} warnings, ${c.skip} skipped, ${c['n/a']} not applicable, ${c.error} errors in ${summary.durationMs} ms`,
  );
  out.push(
    `requirements: ${summary.requirements.covered.length} covered, ${summary.requirements.notRun.length} not run, ${summary.requirements.uncovered.length} not covered by any check`,
  );
  const table = summary.requirements.table;
  if (table !== undefined) {
    const failed = table.rows.filter((r) => r.must && r.status === 'failed').length;
    out.push(`${mustExercisedLine(table)} (${failed} failed)`);
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
  for (const problem of summary.blocking) out.push(paint('fail', `run failed: ${problem}`));
  const v = verdictFor(summary);
  // The command's own ending (a report that could not be written) overrides the run's exit code: never claim another.
  const ending =
    options.ending !== undefined
      ? `; ${options.ending.reason}, exit ${options.ending.exitCode}`
      : `, exit ${v.exitCode}`;
  out.push(
    paint(
      v.verdict === 'pass' && options.ending === undefined
        ? 'pass'
        : v.verdict === 'incomplete'
          ? 'warn'
          : 'fail',
      `${verdictLine(summary)}${ending}`,
    ),
    '',
  );
  return out.join('\n');
}
