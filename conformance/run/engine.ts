// The engine: validates a suite, selects checks, runs them (ordered, concurrent where allowed, each under a
// timeout), grades and redacts what they return, emits events, and returns the run summary. Generic over the
// context each check receives, so the server, client and webhook-receiver audits share it.
import { boundFindings } from './finding-bound.js';
import { PayconformError } from '../../src/errors.js';
import {
  CHECK_ID_PATTERN,
  type Check,
  type CheckRole,
  type CheckRunEnv,
  type Finding,
} from './check.js';
import type { CheckInfo, RunEvent, RunSubscriber } from './events.js';
import { EvidenceBudget, gradeFinding, worstOutcome } from './grade.js';
import {
  createRedactor,
  maskUrlCredentials,
  scrubValues,
  type Redactor,
} from '../report/redact.js';
import { currentExchangeLog, type ExchangeLog } from '../http/exchange-log.js';
import { loadCatalogue, requirementsForRole, type Catalogue } from '../requirements.js';
import { requirementTable } from '../requirement-table.js';
import { outcomeCounts } from './run-counts.js';
import { flakyResult, judgeRunAgain, needsRunAgain, type SuiteRerun } from './flaky.js';
import { withTrace } from '../http/trace-context.js';
import {
  type CheckResult,
  type GradedFinding,
  type Outcome,
  type RunGate,
  type RunStopped,
  type RunSummary,
} from './result.js';

/** Which checks a run selects by level: MUST only, MUST and SHOULD, or all. */
export type LevelFilter = 'must' | 'should' | 'all';

/**
 * What `runChecks` runs: the checks, the context they read, the level filter and the subscribers
 * that receive the run's events.
 */
export interface RunOptions<Ctx> {
  /** The whole suite, in run order. */
  readonly checks: readonly Check<Ctx>[];
  readonly context: Ctx;
  readonly role: CheckRole;
  /** What is audited, as shown in reports (a URL, or e.g. `client at 127.0.0.1:8080`). */
  readonly target: string;
  readonly toolVersion: string;
  readonly catalogue?: Catalogue;
  /** `--only`: check ids; an unknown id is a set-up error. */
  readonly only?: readonly string[];
  /** `--level`: `must` runs MUST checks, `should` MUST and SHOULD, `all` (default) everything. */
  readonly level?: LevelFilter;
  /** Checks running at once (default 4). */
  readonly concurrency?: number;
  /** Per-check time limit (default 30 s); a check's own `timeoutMs` wins. */
  readonly checkTimeoutMs?: number;
  /** Applied to every finding before any subscriber sees it. Default: masks the structural secret forms only. */
  readonly redactor?: Redactor;
  /** Whether a config field named in a check's `needs` is available (see `availableFields`). Default: all available. */
  readonly isAvailable?: (need: string) => boolean;
  /** How a missing need is named in a skip reason (e.g. where to set it). Default: `"field" in the config`. */
  readonly describeNeed?: (need: string) => string;
  /** When set, mutating checks are skipped with this reason (e.g. a non-loopback target without `--allow-live`). */
  readonly refuseMutating?: string;
  readonly subscribers?: readonly RunSubscriber[];
  /** `--fail-on` and `--allow-skips`. Default: skips make the run INCOMPLETE unless `only` or `level` was given. */
  readonly gate?: RunGate;
  /** Run-level problems that fail the run (see `RunSummary.blocking`). */
  readonly blocking?: readonly string[];
  /** The command that re-runs one check (shown with its result); default none. */
  readonly rerunCommand?: (checkId: string) => string;
  /** Cancels the run: running checks are aborted, the rest recorded as skipped, the summary marked partial. */
  readonly signal?: AbortSignal;
  /** Bytes of evidence kept: per body (default 16 KiB) and for the whole run (default 2 MiB). */
  readonly evidenceLimits?: { readonly bodyBytes?: number; readonly runBytes?: number };
  /**
   * Where the run's exchanges are recorded (its HAR): each finding names the entries that are its evidence, and the
   * log is handed the run's redactor. Default: the log of the current scope (`withExchangeLog`), if any.
   */
  readonly exchangeLog?: ExchangeLog;
  /**
   * How a failing check is run once more, alone, before its failure is reported (conformance/run/flaky.ts): `again`
   * (default) runs it again, its own way where it has one (`Check.rerunFailure`) unless it says never
   * (`Check.neverRerun`); `never` (checks that judge what a client already sent) keeps every failure as it came.
   */
  readonly rerunFailures?: SuiteRerun;
}

/** A suite or selection that cannot run: duplicate or malformed ids, unknown requirements, unknown `--only` ids. */
export class ConformanceSetupError extends PayconformError<'CONFORMANCE_SETUP'> {
  override name = 'ConformanceSetupError';
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super('CONFORMANCE_SETUP', `the check suite cannot run:\n  - ${problems.join('\n  - ')}`);
    this.problems = problems;
  }
}

/** Start-up validation of a suite: throws `ConformanceSetupError` listing every problem. */
export function validateSuite(
  checks: readonly Check<unknown>[],
  catalogue: Catalogue,
  role?: CheckRole,
): void {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const check of checks) {
    const id = typeof check?.id === 'string' ? check.id : String(check?.id);
    if (!CHECK_ID_PATTERN.test(id)) problems.push(`check id "${id}" is not kebab-case`);
    if (seen.has(id)) problems.push(`duplicate check id "${id}"`);
    seen.add(id);
    if (typeof check.run !== 'function') problems.push(`check "${id}" has no run function`);
    if (!['MUST', 'SHOULD', 'MAY'].includes(check.level))
      problems.push(`check "${id}" has unknown level "${String(check.level)}"`);
    if (role !== undefined && check.appliesTo !== role)
      problems.push(`check "${id}" applies to ${check.appliesTo}, not to this ${role} audit`);
    if (!Array.isArray(check.requirements) || check.requirements.length === 0)
      problems.push(`check "${id}" names no requirement`);
    else
      for (const r of check.requirements)
        if (!catalogue.byId.has(r)) problems.push(`check "${id}" names unknown requirement "${r}"`);
  }
  if (problems.length > 0) throw new ConformanceSetupError(problems);
}

/** Applies `--only` and `--level`; returns the selected checks in suite order. */
export function selectChecks<Ctx>(
  checks: readonly Check<Ctx>[],
  only: readonly string[] | undefined,
  level: LevelFilter = 'all',
): Check<Ctx>[] {
  if (only !== undefined) {
    const known = new Set(checks.map((c) => c.id));
    const unknown = only.filter((id) => !known.has(id));
    if (unknown.length > 0)
      throw new ConformanceSetupError(unknown.map((id) => `--only names unknown check "${id}"`));
  }
  const wanted = only !== undefined ? new Set(only) : undefined;
  const levels =
    level === 'must'
      ? ['MUST']
      : level === 'should'
        ? ['MUST', 'SHOULD']
        : ['MUST', 'SHOULD', 'MAY'];
  return checks.filter(
    (c) => (wanted === undefined || wanted.has(c.id)) && levels.includes(c.level),
  );
}

const info = (c: Check<unknown>): CheckInfo => ({
  id: c.id,
  title: c.title,
  area: c.area,
  level: c.level,
  appliesTo: c.appliesTo,
});

function result(
  check: Check<unknown>,
  outcome: Outcome,
  message: string,
  findings: readonly GradedFinding[],
  durationMs: number,
): CheckResult {
  return {
    ...info(check),
    requirements: [...check.requirements],
    outcome,
    message,
    findings,
    durationMs: Math.round(durationMs * 10) / 10,
  };
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** Grades what a check returned; a malformed return is the check's defect (`error`). */
function gradeAll(
  check: Check<unknown>,
  returned: unknown,
  catalogue: Catalogue,
  redactor: Redactor,
  durationMs: number,
  budget: EvidenceBudget,
  log: ExchangeLog | undefined,
): CheckResult {
  if (!Array.isArray(returned))
    return result(
      check,
      'error',
      `check returned ${typeof returned}, not an array of findings`,
      [],
      durationMs,
    );
  if (returned.length === 0)
    return result(
      check,
      'error',
      'check returned no findings (a check must report what it saw)',
      [],
      durationMs,
    );
  let graded: GradedFinding[];
  try {
    // Bounded before grading: what a target or adapter answers cannot grow a check's findings without end.
    graded = boundFindings(returned as Finding[]).map((f) => {
      const g = gradeFinding(check, f, catalogue, redactor, budget);
      const harEntries = f.evidence !== undefined ? log?.entriesFor(f.evidence) : undefined;
      return harEntries !== undefined && harEntries.length > 0 ? { ...g, harEntries } : g;
    });
  } catch (error) {
    return result(check, 'error', redactor.redactText(errorMessage(error)), [], durationMs);
  }
  const outcome = worstOutcome(graded.map((f) => f.outcome)) ?? 'error';
  const decisive = graded.find((f) => f.outcome === outcome) ?? graded[0];
  return result(check, outcome, decisive?.message ?? '', graded, durationMs);
}

/** Last-line guard: whatever a check put anywhere, no secret form leaves the engine (values only: keys are ours). */
function scrub(r: CheckResult, redactor: Redactor): CheckResult {
  return scrubValues(r, redactor);
}

/** How one run of a check is started: its own `run`, or the way it runs a failure again. */
type CheckBody<Ctx> = (ctx: Ctx, env: CheckRunEnv) => Promise<readonly Finding[]>;

/** What running a check once gave: its graded result, and its findings graded again under another evidence budget. */
interface Ran {
  readonly result: CheckResult;
  readonly regrade: (budget: EvidenceBudget) => CheckResult;
}

/** The result alone (nothing returned to grade again: a timeout, an abort, a throw). */
const ranOnly = (result: CheckResult): Ran => ({ result, regrade: () => result });

async function runOne<Ctx>(
  check: Check<Ctx>,
  options: RunOptions<Ctx>,
  catalogue: Catalogue,
  redactor: Redactor,
  runSignal: AbortSignal | undefined,
  budget: EvidenceBudget,
  log: ExchangeLog | undefined,
  body: CheckBody<Ctx> | undefined = undefined,
): Promise<Ran> {
  const started = performance.now();
  const timeoutMs = check.timeoutMs ?? options.checkTimeoutMs ?? 30_000;
  const controller = new AbortController();
  const onRunAbort = (): void => controller.abort(new Error('run aborted'));
  runSignal?.addEventListener('abort', onRunAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  const aborted = new Promise<'aborted'>((resolve) => {
    if (controller.signal.aborted) resolve('aborted');
    controller.signal.addEventListener('abort', () => resolve('aborted'), { once: true });
  });
  try {
    // A trace of its own (trace-context.ts): every request the check sends carries it in `traceparent`.
    const running = Promise.resolve().then(() =>
      withTrace(() =>
        (body ?? ((ctx: Ctx, env: CheckRunEnv) => check.run(ctx, env)))(options.context, {
          signal: controller.signal,
          deadline: Date.now() + timeoutMs,
        }),
      ),
    );
    running.catch(() => undefined); // a check that rejects after its timeout must not surface as unhandled
    const first = await Promise.race([
      running.then(
        (v) => ({ v }),
        (e: unknown) => ({ e }),
      ),
      timedOut,
      aborted,
    ]);
    const elapsed = performance.now() - started;
    if (first === 'timeout') {
      controller.abort(new Error('check timed out'));
      // A timeout is never evidence of a MUST failure: the check is inconclusive, an error with the reason.
      return ranOnly(
        result(
          check,
          'error',
          `check did not finish within ${timeoutMs} ms (the target may be hanging); it was abandoned, inconclusive`,
          [],
          elapsed,
        ),
      );
    }
    if (first === 'aborted')
      return ranOnly(
        result(check, 'skip', 'run aborted while this check was running', [], elapsed),
      );
    if ('e' in first)
      return ranOnly(
        result(
          check,
          'error',
          `check threw: ${redactor.redactText(errorMessage(first.e))}`,
          [],
          elapsed,
        ),
      );
    const returned = first.v;
    const regrade = (b: EvidenceBudget): CheckResult =>
      gradeAll(check as Check<unknown>, returned, catalogue, redactor, elapsed, b, log);
    return { result: regrade(budget), regrade };
  } finally {
    clearTimeout(timer);
    runSignal?.removeEventListener('abort', onRunAbort);
  }
}

/**
 * Runs a suite and returns its summary. Throws only `ConformanceSetupError` (before anything runs).
 * @example
 * const summary = await runChecks({ checks: webhookChecks, role: 'receiver', context });
 * process.exitCode = exitCodeFor(summary);
 */
export async function runChecks<Ctx>(options: RunOptions<Ctx>): Promise<RunSummary> {
  const run = prepareRun(options);
  const { selected, redactor } = run;
  run.emit({
    type: 'run-started',
    target: maskUrlCredentials(redactor.maskLiterals(options.target)),
    role: options.role,
    toolVersion: options.toolVersion,
    startedAt: run.startedAt.toISOString(),
    checks: selected.map((c) => run.masked(c as Check<unknown>)),
  });
  const pending = decideUpFront(run);
  const aborted = await runPending(run, pending);
  const summary = summarize(run, aborted);
  run.emit({ type: 'run-finished', summary });
  return summary;
}

/** One run's fixed parts and its results so far. */
interface Run<Ctx> {
  readonly options: RunOptions<Ctx>;
  readonly catalogue: Catalogue;
  readonly redactor: Redactor;
  readonly budget: EvidenceBudget;
  readonly log: ExchangeLog | undefined;
  readonly level: LevelFilter;
  readonly selected: readonly Check<Ctx>[];
  readonly deselected: readonly string[];
  readonly startedAt: Date;
  readonly t0: number;
  readonly results: (CheckResult | undefined)[];
  readonly emit: (event: RunEvent) => void;
  readonly masked: (c: Check<unknown>) => CheckInfo;
  /** Records a check's result (scrubbed, with its re-run command) and emits it. */
  readonly finish: (index: number, r: CheckResult) => void;
}

/** Validates the suite, selects the checks, and builds the emitter and the result recorder. */
function prepareRun<Ctx>(options: RunOptions<Ctx>): Run<Ctx> {
  const catalogue = options.catalogue ?? loadCatalogue();
  const redactor = options.redactor ?? createRedactor();
  const budget = new EvidenceBudget(
    options.evidenceLimits?.bodyBytes,
    options.evidenceLimits?.runBytes,
  );
  validateSuite(options.checks as readonly Check<unknown>[], catalogue, options.role);
  const log = options.exchangeLog ?? currentExchangeLog();
  log?.useRedactor(redactor);
  const level = options.level ?? 'all';
  const selected = selectChecks(options.checks, options.only, level);
  const selectedIds = new Set(selected.map((c) => c.id));
  const deselected = options.checks.filter((c) => !selectedIds.has(c.id)).map((c) => c.id);
  const emit = (event: RunEvent): void => {
    for (const subscriber of options.subscribers ?? []) {
      try {
        subscriber(event);
      } catch {
        // A reporter's failure must not change the verdict or stop the run.
      }
    }
  };
  const masked = (c: Check<unknown>): CheckInfo => {
    const i = info(c);
    return { ...i, title: redactor.maskLiterals(i.title) };
  };
  const results = new Array<CheckResult | undefined>(selected.length);
  let completed = 0;
  const finish = (index: number, r: CheckResult): void => {
    const rerun = options.rerunCommand?.(r.id);
    const clean = scrub(rerun !== undefined ? { ...r, rerun } : r, redactor);
    results[index] = clean;
    completed += 1;
    emit({ type: 'check-finished', result: clean, completed, total: selected.length });
  };
  const startedAt = new Date();
  const t0 = performance.now();
  return {
    options,
    catalogue,
    redactor,
    budget,
    log,
    level,
    selected,
    deselected,
    startedAt,
    t0,
    results,
    emit,
    masked,
    finish,
  };
}

/**
 * Checks that never start (not applicable, missing config, refused mutation) are decided up front, in order.
 * Returns the indexes of the checks left to run.
 */
function decideUpFront<Ctx>(run: Run<Ctx>): number[] {
  const { options, finish } = run;
  const pending: number[] = [];
  run.selected.forEach((check, index) => {
    const notApplicable = check.notApplicableTo?.(options.context);
    if (notApplicable !== undefined) {
      finish(index, result(check as Check<unknown>, 'n/a', notApplicable, [], 0));
      return;
    }
    const missing = (check.needs ?? []).filter((need) => !(options.isAvailable?.(need) ?? true));
    if (missing.length > 0) {
      const describe = options.describeNeed ?? ((need: string) => `"${need}" in the config`);
      const names = missing.map(describe).join(' and ');
      const reason = `not run: ${names} ${missing.length === 1 ? 'is' : 'are'} not set`;
      finish(index, result(check as Check<unknown>, 'skip', reason, [], 0));
    } else if (check.mutating && options.refuseMutating !== undefined)
      finish(index, result(check as Check<unknown>, 'skip', options.refuseMutating, [], 0));
    else pending.push(index);
  });
  return pending;
}

/**
 * Runs the pending checks, then runs once more, alone, each that failed (conformance/run/flaky.ts): after every other
 * check has ended, the failed ones under the same scheduling, each judged against its first run before it is
 * reported. Returns whether the run was aborted (a failure not yet run again is then reported as it came).
 */
async function runPending<Ctx>(run: Run<Ctx>, pending: number[]): Promise<boolean> {
  const { options, selected } = run;
  const failed = new Map<number, CheckResult>();
  const aborted = await schedule(run, pending, {
    body: () => undefined,
    budget: run.budget,
    started: (index) =>
      run.emit({
        type: 'check-started',
        check: run.masked(selected[index] as Check<unknown>),
        index,
        total: selected.length,
      }),
    settled: (index, { result: r }, abortedNow) => {
      if (!abortedNow && needsRunAgain(r) && bodyAgain(selected[index]!, options) !== undefined)
        failed.set(index, r);
      else run.finish(index, r);
    },
    notStarted: (index) =>
      run.finish(
        index,
        result(
          selected[index] as Check<unknown>,
          'skip',
          'run aborted before this check started',
          [],
          0,
        ),
      ),
  });
  const firsts = [...failed].sort(([a], [b]) => a - b);
  if (aborted) {
    for (const [index, first] of firsts) run.finish(index, first);
    return true;
  }
  // The second runs' evidence counts against the run's budget only when it is kept (a flaky result).
  const scratch = new EvidenceBudget(run.budget.perBody, Number.POSITIVE_INFINITY);
  return schedule(
    run,
    firsts.map(([index]) => index),
    {
      body: (index) => bodyAgain(selected[index]!, options),
      budget: scratch,
      started: () => undefined,
      settled: (index, again) => {
        const first = failed.get(index)!;
        const judged = judgeRunAgain(first, again.result);
        run.finish(
          index,
          judged.flaky === true ? flakyResult(first, again.regrade(run.budget)) : judged,
        );
      },
      notStarted: (index) => run.finish(index, failed.get(index)!),
    },
  );
}

/** One pass of the scheduler: how each check is run, under which evidence budget, and what becomes of it. */
interface Phase<Ctx> {
  /** The check's body in this pass (undefined: its own `run`). */
  readonly body: (index: number) => CheckBody<Ctx> | undefined;
  readonly budget: EvidenceBudget;
  readonly started: (index: number) => void;
  /** A check ended; `aborted`: the run was aborted by then. */
  readonly settled: (index: number, ran: Ran, aborted: boolean) => void;
  /** A check the abort left unstarted. */
  readonly notStarted: (index: number) => void;
}

/**
 * Runs the pending checks in order, up to `concurrency` at once: a serial check is a barrier, checks of one group
 * never overlap. On abort, the checks not yet started are handed to `notStarted`. Returns whether the run was aborted.
 */
async function schedule<Ctx>(
  run: Run<Ctx>,
  pending: number[],
  phase: Phase<Ctx>,
): Promise<boolean> {
  const { options, selected } = run;
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 4));
  const running = new Map<number, Promise<void>>();
  const busyGroups = new Set<string>();
  let serialRunning = false;
  let aborted = options.signal?.aborted ?? false;
  const onAbort = (): void => {
    aborted = true;
  };
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const abortWake = new Promise<void>((resolve) => {
    if (aborted) resolve();
    options.signal?.addEventListener('abort', () => resolve(), { once: true });
  });

  const start = (index: number): void => {
    const check = selected[index]!;
    if (check.group !== undefined) busyGroups.add(check.group);
    phase.started(index);
    const task = runOne(
      check,
      options,
      run.catalogue,
      run.redactor,
      options.signal,
      phase.budget,
      run.log,
      phase.body(index),
    );
    const settled = task.then((ran) => {
      running.delete(index);
      if (check.group !== undefined) busyGroups.delete(check.group);
      if (check.serial) serialRunning = false;
      phase.settled(index, ran, aborted);
    });
    running.set(index, settled);
  };

  while (pending.length > 0 || running.size > 0) {
    if (!aborted) {
      for (let i = 0; i < pending.length && running.size < concurrency && !serialRunning;) {
        const check = selected[pending[i]!]!;
        if (check.serial) {
          if (running.size > 0) break; // a serial check is a barrier: later checks wait for it
          serialRunning = true;
        } else if (check.group !== undefined && busyGroups.has(check.group)) {
          i += 1;
          continue;
        }
        start(pending.splice(i, 1)[0]!);
      }
    } else for (const index of pending.splice(0)) phase.notStarted(index);
    if (running.size === 0) continue;
    const wakeOnAbort = aborted || pending.length === 0 ? [] : [abortWake];
    await Promise.race([...running.values(), ...wakeOnAbort]);
  }
  options.signal?.removeEventListener('abort', onAbort);
  return aborted;
}

/** How a check's failure is run once more (undefined: never, as the suite or the check says): its own way, or `run`. */
function bodyAgain<Ctx>(check: Check<Ctx>, options: RunOptions<Ctx>): CheckBody<Ctx> | undefined {
  if ((options.rerunFailures ?? 'again') !== 'again' || check.neverRerun !== undefined)
    return undefined;
  if (check.rerunFailure !== undefined) return (ctx, env) => check.rerunFailure!(ctx, env);
  return (ctx, env) => check.run(ctx, env);
}

/** The run's summary: counts, requirement coverage, why it is partial, the gate and the evidence budget. */
function summarize<Ctx>(run: Run<Ctx>, aborted: boolean): RunSummary {
  const { options, redactor, catalogue, level, deselected } = run;
  const done = run.results.filter((r): r is CheckResult => r !== undefined);
  const counts = outcomeCounts(done);

  const covered = new Set<string>();
  for (const r of done)
    if (r.outcome !== 'skip' && r.outcome !== 'n/a')
      for (const id of r.requirements) covered.add(id);
  const named = new Set(options.checks.flatMap((c) => c.requirements));
  const notRun = [...named].filter((id) => !covered.has(id));
  const uncovered = requirementsForRole(catalogue, options.role)
    .map((r) => r.id)
    .filter((id) => !named.has(id));

  const partialReasons: string[] = [];
  if (deselected.length > 0)
    partialReasons.push(`${deselected.length} check(s) not selected (--only/--level)`);
  if (aborted) partialReasons.push('run aborted before every check finished');
  if (counts.skip > 0) partialReasons.push(`${counts.skip} check(s) skipped`);

  return {
    target: maskUrlCredentials(redactor.maskLiterals(options.target)),
    role: options.role,
    toolVersion: options.toolVersion,
    catalogueVersion: catalogue.catalogueVersion,
    startedAt: run.startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    durationMs: Math.round(performance.now() - run.t0),
    selection: {
      level,
      ...(options.only !== undefined ? { only: [...options.only] } : {}),
      deselected,
    },
    partial: partialReasons.length > 0,
    partialReasons,
    results: done,
    counts,
    requirements: {
      covered: [...covered].sort(),
      notRun: notRun.sort(),
      uncovered: uncovered.sort(),
      table: requirementTable({
        catalogue,
        role: options.role,
        checks: options.checks as readonly Check<unknown>[],
        results: done,
        deselected,
      }),
    },
    gate: options.gate ?? {
      failOn: [],
      allowSkips: options.only !== undefined || options.level !== undefined,
    },
    blocking: (options.blocking ?? []).map((b) => redactor.maskLiterals(b)),
    evidence: run.budget.report(),
  };
}

/**
 * The summary of a run that stopped before its checks (a usage or config error, an unreachable target, an internal
 * error): no results, the reason, and the command's exit code, so every requested report can still be written.
 */
export function stoppedRunSummary(options: {
  readonly role: CheckRole;
  readonly target: string;
  readonly toolVersion: string;
  readonly stopped: RunStopped;
  readonly catalogue?: Catalogue;
  readonly redactor?: Redactor;
}): RunSummary {
  const redactor = options.redactor ?? createRedactor();
  const now = new Date().toISOString();
  const reason = redactor.redactText(options.stopped.reason);
  return {
    target: maskUrlCredentials(redactor.maskLiterals(options.target)),
    role: options.role,
    toolVersion: options.toolVersion,
    catalogueVersion: (options.catalogue ?? loadCatalogue()).catalogueVersion,
    startedAt: now,
    finishedAt: now,
    durationMs: 0,
    selection: { level: 'all', deselected: [] },
    partial: true,
    partialReasons: [`the run stopped before its checks: ${reason}`],
    results: [],
    counts: outcomeCounts([]),
    requirements: { covered: [], notRun: [], uncovered: [] },
    gate: { failOn: [], allowSkips: false },
    blocking: [],
    stopped: { exitCode: options.stopped.exitCode, reason },
  };
}
