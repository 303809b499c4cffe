// The Markdown report (`--report markdown:FILE`): a run's verdict, counts, failing and warned findings with their
// requirement ids and one-line evidence, the explorer's summary and the MUST requirements not exercised, for a GitHub
// step summary or a pull-request comment. Bounded (MARKDOWN_REPORT_MAX_CHARS) and saying what it left out; every
// string from the run is a code span it cannot leave (markdown-safe.ts).
import { verdictFor } from '../run/exit-code.js';
import type { CheckResult, GradedFinding, RunSummary } from '../run/result.js';
import {
  COUNT_NAMES,
  failedRequirementsText,
  runCounts,
  type CountName,
} from '../run/run-counts.js';
import { mustExercisedLine, unexercisedMust } from '../requirement-table.js';
import { baselineLines } from '../report/baseline.js';
import { explorerOf } from './evidence-text.js';
import { markdownCode } from './markdown-safe.js';

/**
 * The most characters a Markdown report holds, its note on what it left out included: GitHub's limit on a comment
 * body (65,536 characters), well under its 1 MiB limit on a step summary, so one report fits either.
 */
export const MARKDOWN_REPORT_MAX_CHARS = 65_536;
/** Kept back from the budget for the note on what was left out (its length is bounded: counts and fixed words). */
const NOTE_RESERVE = 600;
/** The most characters of one field (a message, an expected or received value, a request line) shown. */
const FIELD_CHARS = 240;
/** The most findings shown under one check. */
const FINDINGS_PER_CHECK = 5;
/** The most reasons (why the verdict, why partial) shown on the first screen. */
const REASONS_SHOWN = 8;

const code = (text: string): string => markdownCode(text, { max: FIELD_CHARS });

/** How the first screen names each count. */
const COUNT_WORDS: Readonly<Record<CountName | 'total', string>> = {
  passed: 'passed',
  failed: 'failed',
  warned: 'warned',
  skipped: 'skipped',
  notApplicable: 'not applicable',
  known: 'known',
  inconclusive: 'inconclusive',
  total: 'checks',
};

/** A few reasons, each a code span, then how many more there were. */
const reasonList = (reasons: readonly string[]): string =>
  reasons.slice(0, REASONS_SHOWN).map(code).join('; ') +
  (reasons.length > REASONS_SHOWN ? `; … and ${reasons.length - REASONS_SHOWN} more` : '');

/** One list entry: its lines, and how many findings of its check it does not show. */
interface Item {
  readonly text: string;
  readonly findingsLeftOut: number;
}

/** The sections after the first screen, in the order shown; each item is one list entry (lines joined). */
type Section = 'failures' | 'unexercised' | 'warnings' | 'baseline';
const SHOWN_ORDER: readonly Section[] = ['failures', 'warnings', 'unexercised', 'baseline'];
/** What is kept first when the budget runs out. */
const KEPT_ORDER: readonly Section[] = ['failures', 'unexercised', 'warnings', 'baseline'];
const TITLE: Readonly<Record<Section, string>> = {
  failures: 'Failures',
  warnings: 'Warnings',
  unexercised: 'MUST requirements not exercised',
  baseline: 'Baseline',
};
const LEFT_OUT_NOUN: Readonly<Record<Section, string>> = {
  failures: 'failing checks',
  warnings: 'warned checks',
  unexercised: 'unexercised MUST requirements',
  baseline: 'baseline lines',
};

/** A finding on one line: its message, requirement, expected and received values, and the exchange it saw. */
function findingLine(f: GradedFinding): string {
  const parts = [`**${f.outcome.toUpperCase()}${f.flaky ? ' (flaky)' : ''}** ${code(f.message)}`];
  if (f.requirement !== undefined) parts.push(`requirement ${code(f.requirement)}`);
  if (f.known !== undefined) parts.push(`known (baseline): ${code(f.known.reason)}`);
  if (f.expected !== undefined) parts.push(`expected ${code(f.expected)}`);
  if (f.received !== undefined) parts.push(`received ${code(f.received)}`);
  const { request, response, traceId } = f.evidence ?? {};
  if (request !== undefined || response !== undefined)
    parts.push(
      `exchange ${code(
        [
          request !== undefined ? `${request.method} ${request.url}` : '',
          response !== undefined
            ? `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`
            : '',
        ]
          .filter((p) => p !== '')
          .join(' → '),
      )}`,
    );
  if (traceId !== undefined) parts.push(`trace ${code(traceId)}`);
  return parts.join(' · ');
}

/** One check that failed, errored or warned, with its findings of that kind (a few, then how many more). */
function checkItem(r: CheckResult): Item {
  const shown = r.findings.filter((f) =>
    r.outcome === 'warn' ? f.outcome === 'warn' : f.outcome === 'fail' || f.outcome === 'error',
  );
  const lines = [
    `- **${r.outcome.toUpperCase()}${r.flaky ? ' (flaky)' : ''}** ${code(r.id)} (${r.level}): ${code(r.title)}${r.again !== undefined ? ` · run once more alone: **${r.again.outcome.toUpperCase()}**` : ''}`,
    ...shown.slice(0, FINDINGS_PER_CHECK).map((f) => `  - ${findingLine(f)}`),
  ];
  const more = Math.max(0, shown.length - FINDINGS_PER_CHECK);
  if (more > 0) lines.push(`  - … and ${more} more finding(s) of this check`);
  return { text: lines.join('\n'), findingsLeftOut: more };
}

/** The heading, where and when, the counts, the requirement line, the explorer, and why a run is not a plain verdict. */
function firstScreen(summary: RunSummary): string[] {
  const v = verdictFor(summary);
  const c = runCounts(summary);
  const out = [
    `### payconform audit ${summary.role}: ${v.verdict.toUpperCase()} (exit ${v.exitCode})`,
    '',
    `Target ${code(summary.target)} · payconform ${code(summary.toolVersion)} · catalogue ${code(summary.catalogueVersion)} · ${code(summary.startedAt)} · ${summary.durationMs} ms`,
    '',
    // Every count from the one source the other reports use (run-counts.ts).
    [...COUNT_NAMES, 'total' as const].map((n) => `**${c[n]}** ${COUNT_WORDS[n]}`).join(' · '),
  ];
  if (v.reasons.length > 0) out.push('', `**Why:** ${reasonList(v.reasons)}`);
  const table = summary.requirements.table;
  if (table !== undefined) {
    out.push(
      '',
      `**Requirements:** ${mustExercisedLine(table)}; ${code(failedRequirementsText(summary))}`,
    );
  }
  const explorer = explorerOf(summary);
  if (explorer === 'not-run') out.push('', '**Explorer:** not run');
  else if (explorer !== undefined)
    out.push(
      '',
      `**Explorer:** **${explorer.result.outcome.toUpperCase()}** ${code(explorer.result.message)}${explorer.replay !== undefined ? ` · replay the shrunk sequence: ${markdownCode(explorer.replay, { max: 4 * FIELD_CHARS })}` : ''}`,
    );
  if (summary.partial) out.push('', `**Partial run:** ${reasonList(summary.partialReasons)}`);
  return out;
}

/**
 * The MUST requirements not exercised: each one that was skipped, stopped or inconclusive on its own line with why;
 * those left out by the selection (--only/--level) counted in one line (a narrow selection leaves out most of them).
 */
function unexercisedLines(summary: RunSummary): string[] {
  const rows = unexercisedMust(summary.requirements.table);
  const deselected = rows.filter((r) => r.unexercised === 'deselected').length;
  return [
    ...rows
      .filter((r) => r.unexercised !== 'deselected')
      .map((r) => `- ${code(r.id)}: ${code(r.reason ?? r.status)}`),
    ...(deselected > 0
      ? [
          `- ${deselected} more, whose checks were not selected (--only/--level): named in the JSON and HTML reports`,
        ]
      : []),
  ];
}

/** Every section's items, before the budget. */
function sectionItems(summary: RunSummary): Record<Section, Item[]> {
  const checks = (pick: (r: CheckResult) => boolean): Item[] =>
    summary.results.filter(pick).map(checkItem);
  const line = (text: string): Item => ({ text, findingsLeftOut: 0 });
  return {
    failures: checks((r) => r.outcome === 'fail' || r.outcome === 'error'),
    warnings: checks((r) => r.outcome === 'warn'),
    unexercised: unexercisedLines(summary).map(line),
    baseline:
      summary.baseline !== undefined
        ? baselineLines(summary.baseline).map((l) => line(`- ${code(l.trim())}`))
        : [],
  };
}

/**
 * The items that fit in `budget` characters, most important sections first; how many of each were left out, and how
 * many findings the kept checks do not show.
 */
function fitItems(
  items: Record<Section, Item[]>,
  budget: number,
): { kept: Record<Section, string[]>; leftOut: Record<Section, number>; findingsLeftOut: number } {
  const kept: Record<Section, string[]> = {
    failures: [],
    warnings: [],
    unexercised: [],
    baseline: [],
  };
  const leftOut: Record<Section, number> = {
    failures: 0,
    warnings: 0,
    unexercised: 0,
    baseline: 0,
  };
  let used = 0;
  let findingsLeftOut = 0;
  for (const section of KEPT_ORDER) {
    // A section's title and blank lines come with its first item.
    let cost = TITLE[section].length + 16;
    for (const item of items[section]) {
      if (used + cost + item.text.length + 1 > budget) {
        leftOut[section] += 1;
        continue;
      }
      used += cost + item.text.length + 1;
      cost = 0;
      kept[section].push(item.text);
      findingsLeftOut += item.findingsLeftOut;
    }
  }
  return { kept, leftOut, findingsLeftOut };
}

/** What this report never shows and what the budget of `max` characters cut, and where to find it. */
function leftOutNote(
  leftOut: Record<Section, number>,
  findingsLeftOut: number,
  max: number,
): string {
  const cut = KEPT_ORDER.filter((s) => leftOut[s] > 0).map(
    (s) => `${leftOut[s]} ${LEFT_OUT_NOUN[s]}`,
  );
  if (findingsLeftOut > 0) cut.push(`${findingsLeftOut} more findings of the checks shown`);
  const budget =
    cut.length > 0 ? ` To stay under ${max} characters it also left out ${cut.join(', ')}.` : '';
  return `*This summary leaves out passing and not-applicable checks and the full evidence (headers, bodies, curl commands), and cuts a field at ${FIELD_CHARS} characters.${budget} The JSON and HTML reports hold all of it.*`;
}

/** Renders the Markdown report of a run; at most `maxChars` characters (default MARKDOWN_REPORT_MAX_CHARS). */
export function renderMarkdownReport(
  summary: RunSummary,
  options: { readonly maxChars?: number } = {},
): string {
  const max = options.maxChars ?? MARKDOWN_REPORT_MAX_CHARS;
  const head = firstScreen(summary).join('\n');
  const { kept, leftOut, findingsLeftOut } = fitItems(
    sectionItems(summary),
    max - head.length - NOTE_RESERVE,
  );
  const out = [head];
  for (const section of SHOWN_ORDER) {
    const count =
      section === 'unexercised'
        ? unexercisedMust(summary.requirements.table).length
        : kept[section].length + leftOut[section];
    if (count === 0 || kept[section].length + leftOut[section] === 0) continue;
    out.push('', `#### ${TITLE[section]} (${count})`, '', ...kept[section]);
  }
  if (summary.stopped !== undefined && summary.results.length === 0) out.push('', 'No check ran.');
  out.push('', leftOutNote(leftOut, findingsLeftOut, max), '');
  return out.join('\n');
}
