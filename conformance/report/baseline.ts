// Known findings with reasons (`--baseline FILE`, schemas/baseline.schema.json): a finding the baseline names is
// reported as known and does not fail the run; a new one fails it as before; an entry past its `expires` whose finding
// is still there fails it, named; an entry not found again is fixed (a deterministic check) or unobserved (the
// explorer). Pure: the command line reads and writes the file.
import { parseJsonFile } from '../../net/file-read.js';
import { validateAgainst } from '../../src/schemas/index.js';
import { worstOutcome } from '../run/grade.js';
import { EXPLORE_CHECK_ID } from '../explore/check-id.js';
import { outcomeCounts } from '../run/run-counts.js';
import type {
  BaselineKey,
  BaselineOutcome,
  CheckResult,
  GradedFinding,
  Outcome,
  RunSummary,
} from '../run/result.js';

export const BASELINE_SCHEMA_ID = 'https://payconform.dev/schemas/baseline.schema.json';

/** One entry as the file has it: the key, the reason, `expires`, and whatever else the user wrote (kept). */
export type BaselineEntry = BaselineKey & {
  readonly reason: string;
  readonly expires?: string;
  readonly [field: string]: unknown;
};

export interface Baseline {
  readonly baselineVersion: '1';
  readonly entries: readonly BaselineEntry[];
  readonly [field: string]: unknown;
}

/** The reason `--baseline-update` gives an entry it adds; the user replaces it with theirs. */
export const REASON_TO_WRITE =
  'added by --baseline-update: say why this finding is accepted for now';

/** Parses and validates a baseline file's text; throws a TypeError whose message names what is wrong. */
export function parseBaseline(text: string): Baseline {
  let doc: unknown;
  try {
    doc = parseJsonFile(text);
  } catch (error) {
    throw new TypeError((error as Error).message);
  }
  const checked = validateAgainst(BASELINE_SCHEMA_ID, doc);
  if (!checked.valid)
    throw new TypeError(
      `does not match schemas/baseline.schema.json: ${(checked.errors ?? [])
        .slice(0, 5)
        .map((e) => `${e.pointer || '/'} ${e.message}`)
        .join('; ')}`,
    );
  refuseRepeatedKeys(doc as Baseline);
  return doc as Baseline;
}

/**
 * Two entries with the same key would give one finding two reasons (and `--baseline-update` would keep only the
 * first): refused when read, naming both entries.
 */
function refuseRepeatedKeys(baseline: Baseline): void {
  const first = new Map<string, number>();
  baseline.entries.forEach((entry, i) => {
    const key = keyOf(entry);
    const id = JSON.stringify(key);
    const earlier = first.get(id);
    if (earlier !== undefined)
      throw new TypeError(
        `has two entries with the same key (${describeKey(key)}): /entries/${earlier} and /entries/${i}; keep one, with one reason`,
      );
    first.set(id, i);
  });
}

const FAILING: ReadonlySet<Outcome> = new Set(['fail', 'warn', 'error']);

/** A finding's key (its status as the one discriminator when it shows an answer). */
export function findingKey(r: CheckResult, f: GradedFinding): BaselineKey | undefined {
  if (!FAILING.has(f.outcome)) return undefined;
  const requirement = f.requirement ?? r.requirements[0];
  if (requirement === undefined) return undefined;
  const status = f.evidence?.response?.status;
  return {
    check: r.id,
    requirement,
    class: f.outcome as BaselineKey['class'],
    ...(status !== undefined ? { status } : {}),
  };
}

/** The words of a finding a pointer or header discriminator is looked for in. */
const wordsOf = (f: GradedFinding): string =>
  [f.message, f.expected ?? '', f.received ?? ''].join('\n').toLowerCase();

/** A character that continues a header name or a member name: a discriminator must not end or start beside one. */
const NAME_CHAR = /[a-z0-9_-]/;

/** Whether `words` holds `name` whole: not as a piece of a longer name (`date` is not in `x-date` or `update`). */
function holdsWhole(words: string, name: string): boolean {
  for (let at = words.indexOf(name); at >= 0; at = words.indexOf(name, at + 1)) {
    const before = at > 0 ? words[at - 1]! : ' ';
    const after = words[at + name.length] ?? ' ';
    if (!NAME_CHAR.test(before) && !NAME_CHAR.test(after)) return true;
  }
  return false;
}

/** Whether an entry names this finding: the same check, requirement and class, and its discriminator agrees. */
function names(entry: BaselineEntry, key: BaselineKey, f: GradedFinding): boolean {
  if (entry.check !== key.check || entry.requirement !== key.requirement) return false;
  if (entry.class !== key.class) return false;
  if (entry.status !== undefined) return entry.status === key.status;
  if (entry.pointer !== undefined) {
    const last = entry.pointer.split('/').at(-1)?.replace(/~1/g, '/').replace(/~0/g, '~') ?? '';
    return last === '' || holdsWhole(wordsOf(f), last.toLowerCase());
  }
  if (entry.header !== undefined) return holdsWhole(wordsOf(f), entry.header.toLowerCase());
  return true;
}

/** The key of an entry (what reports show of it). */
export function keyOf(e: BaselineEntry): BaselineKey {
  return {
    check: e.check,
    requirement: e.requirement,
    class: e.class,
    ...(e.status !== undefined ? { status: e.status } : {}),
    ...(e.pointer !== undefined ? { pointer: e.pointer } : {}),
    ...(e.header !== undefined ? { header: e.header } : {}),
  };
}

/** How an entry shows in messages: `check REQUIREMENT class [status N]`. */
export function describeKey(k: BaselineKey): string {
  const d =
    k.status !== undefined
      ? ` status ${k.status}`
      : k.pointer !== undefined
        ? ` pointer ${k.pointer}`
        : k.header !== undefined
          ? ` header ${k.header}`
          : '';
  return `${k.check} ${k.requirement} ${k.class}${d}`;
}

const isExpired = (e: BaselineEntry, today: string): boolean =>
  e.expires !== undefined && e.expires < today;

/** A BaselineOutcome being filled: the same members, as arrays to push to. */
type OutcomeDraft = {
  -readonly [K in keyof BaselineOutcome]: BaselineOutcome[K] extends ReadonlyArray<infer T>
    ? T[]
    : BaselineOutcome[K];
};

/** What judging the findings shares: the baseline, today's date, the outcome so far and the entries matched. */
interface Judging {
  readonly baseline: Baseline;
  readonly today: string;
  readonly out: OutcomeDraft;
  readonly matched: Set<BaselineEntry>;
}

/** The entry's reason and `expires`, as a known finding carries them. */
const knownAs = (entry: BaselineEntry): { reason: string; expires?: string } => ({
  reason: entry.reason,
  ...(entry.expires !== undefined ? { expires: entry.expires } : {}),
});

/** The finding marked known when a live entry names it; recorded as new, expired or known on the way. */
function judgeFinding(judging: Judging, r: CheckResult, f: GradedFinding): GradedFinding {
  const { out } = judging;
  const key = findingKey(r, f);
  if (key === undefined) return f;
  const entry = judging.baseline.entries.find((e) => names(e, key, f));
  if (entry === undefined) {
    out.new.push(key);
    return f;
  }
  // An expired entry is listed (and blocks) once, however many findings it still names.
  const firstMatch = !judging.matched.has(entry);
  judging.matched.add(entry);
  if (isExpired(entry, judging.today)) {
    if (firstMatch)
      out.expired.push({ ...keyOf(entry), reason: entry.reason, expires: entry.expires! });
    return f;
  }
  out.known.push({ ...key, ...knownAs(entry) });
  return { ...f, known: knownAs(entry) };
}

/** The check with its known findings marked; its outcome then is the worst of the rest (a pass when none is left). */
function judgeResult(judging: Judging, r: CheckResult, file: string): CheckResult {
  const findings = r.findings.map((f) => judgeFinding(judging, r, f));
  // Unchanged unless a finding was marked known (judgeFinding returns the others as they were).
  if (!findings.some((f, i) => f !== r.findings[i])) return r;
  const deciding = findings.filter((f) => f.known === undefined);
  const outcome = worstOutcome(deciding.map((f) => f.outcome)) ?? 'pass';
  const decisive = deciding.find((f) => f.outcome === outcome);
  return {
    ...r,
    findings,
    outcome,
    message: decisive?.message ?? `known findings only (baseline ${file})`,
  };
}

/** Whether the check ran to a verdict (pass, fail or warn) in this run. */
function reachedVerdict(summary: RunSummary, check: string): boolean {
  const r = summary.results.find((x) => x.id === check);
  return r !== undefined && ['pass', 'fail', 'warn'].includes(r.outcome);
}

/** Each entry no finding matched: not run, unobserved (the explorer's) or fixed. */
function sortUnmatched(judging: Judging, summary: RunSummary): void {
  for (const entry of judging.baseline.entries) {
    if (judging.matched.has(entry)) continue;
    if (!reachedVerdict(summary, entry.check)) judging.out.notRun.push(keyOf(entry));
    else if (entry.check === EXPLORE_CHECK_ID) judging.out.unobserved.push(keyOf(entry));
    else judging.out.fixed.push(keyOf(entry));
  }
}

/**
 * The run judged against a baseline: known findings marked (and no longer deciding their check's outcome), the counts
 * recomputed, each expired entry that still matches a finding added to `blocking`, and `baseline` saying it all.
 */
export function applyBaseline(
  summary: RunSummary,
  baseline: Baseline,
  options: { readonly file: string; readonly now?: Date },
): RunSummary {
  const judging: Judging = {
    baseline,
    today: (options.now ?? new Date()).toISOString().slice(0, 10),
    matched: new Set(),
    out: {
      file: options.file,
      known: [],
      new: [],
      expired: [],
      fixed: [],
      unobserved: [],
      notRun: [],
    },
  };
  const results = summary.results.map((r) => judgeResult(judging, r, options.file));
  sortUnmatched(judging, summary);
  const { out } = judging;
  return {
    ...summary,
    results,
    counts: outcomeCounts(results),
    blocking: [
      ...summary.blocking,
      ...out.expired.map(
        (e) =>
          `baseline entry ${describeKey(e)} expired on ${e.expires} and its finding is still there (${e.reason})`,
      ),
    ],
    baseline: out,
  };
}

/**
 * The baseline `--baseline-update` writes: every failing finding of the run, keeping the entry that names it as the
 * user wrote it (reason, expires, fields payconform does not know); entries of the explorer not seen again and of
 * checks that did not run are kept; entries a deterministic check no longer finds (fixed) are dropped.
 */
export function updateBaseline(summary: RunSummary, old: Baseline | undefined): Baseline {
  const entries: BaselineEntry[] = [];
  const seen = new Set<string>();
  const add = (e: BaselineEntry): void => {
    const id = describeKey(keyOf(e));
    if (seen.has(id)) return;
    seen.add(id);
    entries.push(e);
  };
  for (const r of summary.results)
    for (const f of r.findings) {
      const key = findingKey(r, f);
      if (key === undefined) continue;
      add(old?.entries.find((e) => names(e, key, f)) ?? { ...key, reason: REASON_TO_WRITE });
    }
  for (const e of old?.entries ?? [])
    if (!reachedVerdict(summary, e.check) || e.check === EXPLORE_CHECK_ID) add(e);
  return {
    ...(old ?? {}),
    $schema: BASELINE_SCHEMA_ID,
    baselineVersion: '1',
    entries,
  };
}

/** What a baseline made of a run, as lines (console, JUnit system-out, HTML). */
export function baselineLines(b: BaselineOutcome): string[] {
  const lines = [
    `baseline ${b.file}: ${b.known.length} known, ${b.new.length} new, ${b.expired.length} expired, ${b.fixed.length} fixed, ${b.unobserved.length} unobserved, ${b.notRun.length} not run`,
  ];
  for (const k of b.known)
    lines.push(
      `  known: ${describeKey(k)}: ${k.reason}${k.expires !== undefined ? ` (until ${k.expires})` : ''}`,
    );
  for (const e of b.expired)
    lines.push(
      `  EXPIRED on ${e.expires}: ${describeKey(e)}: ${e.reason} (its finding is still there: the run fails)`,
    );
  for (const k of b.new) lines.push(`  new: ${describeKey(k)}`);
  for (const k of b.fixed)
    lines.push(`  fixed (not found again; remove the entry): ${describeKey(k)}`);
  for (const k of b.unobserved)
    lines.push(
      `  unobserved (the explorer did not draw it this time; not a fix): ${describeKey(k)}`,
    );
  for (const k of b.notRun)
    lines.push(`  not run (its check reached no verdict): ${describeKey(k)}`);
  return lines;
}
