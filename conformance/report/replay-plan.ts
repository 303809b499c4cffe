// `payconform replay REPORT.json`: what a report's failures are, how each is run again, and what became of each. Each
// failure (a check that failed, or was flaky) is replayed its own way: a fixed server check by its id, the explorer's
// failure by its replay token, the drawn forgeries by their seed; what cannot be replayed yet is named with the reason,
// never skipped in silence. After the run, each is FIXED, STILL FAILING, CHANGED (it fails now on another requirement
// or another kind of message), UNDECIDED (the check reached no verdict) or NOT REPLAYABLE. Pure: a report in, a plan
// out; a plan and the run's results in, verdicts out.
import type { JsonReport } from '../reporters/json.js';
import type { CheckResult, GradedFinding } from '../run/result.js';
import { EXPLORE_CHECK_ID, SDK_EXPLORE_CHECK_ID } from '../explore/check-id.js';
import { parseReplayToken } from '../explore/replay-token.js';
import { FORGERIES_CHECK_ID } from '../checks/server/forgery-settings.js';

/** How one failure of a report is run again. */
export type ReplayWay =
  | { readonly kind: 'check' }
  | { readonly kind: 'explore'; readonly token: string }
  | { readonly kind: 'forge'; readonly seed: number }
  | { readonly kind: 'not-replayable'; readonly reason: string };

/** One failure of the report: its check, what it failed on, and how it is run again. */
export interface ReplayFailure {
  readonly check: string;
  /** The requirements its failing findings cite (the check's first where a finding cites none). */
  readonly requirements: readonly string[];
  /** The kinds of its failing findings' messages (`messageKind`), by requirement: `REQ message kind`. */
  readonly kinds: readonly string[];
  /** One line of what failed, as the report said it. */
  readonly message: string;
  readonly way: ReplayWay;
}

export type ReplayVerdict = 'FIXED' | 'STILL FAILING' | 'CHANGED' | 'UNDECIDED' | 'NOT REPLAYABLE';

/** What became of one failure, with why. */
export interface ReplayJudgement {
  readonly failure: ReplayFailure;
  readonly verdict: ReplayVerdict;
  readonly reason: string;
}

/** Why the failures of a client audit are not replayed: they are the requests a client sent. */
const CLIENT_REQUESTS =
  'it judged the requests the client sent; run the client again under audit client (--exec) to see them again';
/** Why an SDK exploration's failure is not replayed here: it would run a command read from the report. */
const SDK_SEQUENCE =
  "not replayed by replay, which would have to run the adapter command a report names: run the report's own command (audit client --adapter ... --explore-replay TOKEN)";
/** Why a receiver's failures are not replayed yet: the receiver's targets and key are not in the report. */
const RECEIVER =
  "not replayable yet: the receiver's URLs and how it learns the key are not in the report; run the check's rerun command (audit webhooks --only ...)";

/** A finding that counts as the failure: failed, or failed once (flaky). */
const failing = (f: GradedFinding): boolean => f.outcome === 'fail' || f.flaky === true;

/** The check results of a report that are failures: failed, or flaky (failed once). */
export function failuresOf(results: readonly CheckResult[]): readonly CheckResult[] {
  return results.filter((r) => r.outcome === 'fail' || r.flaky === true);
}

/**
 * A message's kind: its words without what differs from run to run (bracketed and parenthesised notes, quoted values,
 * anything with a digit: ids, amounts, counts, steps, status codes), lower case.
 */
export function messageKind(message: string): string {
  return message
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\([^)]*\)/g, ' ')
    .replace(/"[^"]*"|`[^`]*`/g, ' ')
    .replace(/\S*\d\S*/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
}

/** The requirement a finding is about: its own, else its check's first. */
const requirementOf = (r: CheckResult, f: GradedFinding): string =>
  f.requirement ?? r.requirements[0] ?? '';

/** `REQ kind` of each failing finding: what STILL FAILING compares. */
function kindsOf(r: CheckResult): string[] {
  return [
    ...new Set(
      r.findings.filter(failing).map((f) => `${requirementOf(r, f)} ${messageKind(f.message)}`),
    ),
  ];
}

/** The word after `flag` in a command line (a single-quoted shell word unquoted), if any. */
function wordAfter(command: string, flag: string): string | undefined {
  const at = command.indexOf(`${flag} `);
  if (at === -1) return undefined;
  const rest = command.slice(at + flag.length + 1).trimStart();
  const quoted = /^'([^']*)'/.exec(rest);
  return quoted !== null ? quoted[1] : /^\S+/.exec(rest)?.[0];
}

/** The commands the failing findings carry (`evidence.reproduce`). */
const reproducesOf = (r: CheckResult): string[] =>
  r.findings.filter(failing).flatMap((f) => f.evidence?.reproduce ?? []);

/** The explorer's failure: replayed by the token its replay command names (the one grammar reads it). */
function exploreWay(r: CheckResult): ReplayWay {
  for (const command of reproducesOf(r)) {
    const word = wordAfter(command, '--explore-replay');
    if (word === undefined) continue;
    const parsed = parseReplayToken(word);
    if (parsed.ok && parsed.token.replayPath !== undefined) return { kind: 'explore', token: word };
  }
  return {
    kind: 'not-replayable',
    reason: 'the report carries no replay token for this failure (--explore-replay)',
  };
}

/** The drawn forgeries' failure: drawn again from its seed (a failure without one runs the check again). */
function forgeWay(r: CheckResult): ReplayWay {
  for (const command of reproducesOf(r)) {
    const word = wordAfter(command, '--forge-seed');
    if (word !== undefined && /^\d{1,10}$/.test(word) && Number(word) < 2 ** 31)
      return { kind: 'forge', seed: Number(word) };
  }
  return { kind: 'check' };
}

/** How one failing result of a server report is run again. */
function serverWay(r: CheckResult, known: ReadonlySet<string>): ReplayWay {
  if (r.id === EXPLORE_CHECK_ID) return exploreWay(r);
  if (!known.has(r.id))
    return {
      kind: 'not-replayable',
      reason: 'this version of payconform has no check of that id',
    };
  return r.id === FORGERIES_CHECK_ID ? forgeWay(r) : { kind: 'check' };
}

/** How one failing result of a report of `role` is run again. */
function wayOf(report: JsonReport, r: CheckResult, known: ReadonlySet<string>): ReplayWay {
  switch (report.role) {
    case 'server':
      return serverWay(r, known);
    case 'client':
      return {
        kind: 'not-replayable',
        reason: r.id === SDK_EXPLORE_CHECK_ID ? SDK_SEQUENCE : CLIENT_REQUESTS,
      };
    case 'receiver':
      return { kind: 'not-replayable', reason: RECEIVER };
  }
}

/** The report's failures, each with how it is run again; `known` is the server checks this version has. */
export function replayPlan(report: JsonReport, known: ReadonlySet<string>): ReplayFailure[] {
  return failuresOf(report.results).map((r) => {
    const cited = r.findings.filter(failing).map((f) => requirementOf(r, f));
    return {
      check: r.id,
      requirements: [...new Set(cited.length > 0 ? cited : r.requirements.slice(0, 1))],
      kinds: kindsOf(r),
      message: r.message,
      way: wayOf(report, r, known),
    };
  });
}

/** The failing findings of a result now, as `REQUIREMENT: message`. */
const nowFailing = (r: CheckResult): string =>
  r.findings
    .filter(failing)
    .slice(0, 3)
    .map((f) => `${requirementOf(r, f)}: ${f.message}`)
    .join('; ');

/** What became of one failure, given its check's result in the replay (undefined: it did not run). */
export function judgeReplay(failure: ReplayFailure, now: CheckResult | undefined): ReplayJudgement {
  const judged = (verdict: ReplayVerdict, reason: string): ReplayJudgement => ({
    failure,
    verdict,
    reason,
  });
  if (failure.way.kind === 'not-replayable') return judged('NOT REPLAYABLE', failure.way.reason);
  if (now === undefined) return judged('UNDECIDED', 'the check did not run');
  const failed = now.outcome === 'fail' || now.flaky === true;
  if (!failed)
    return now.outcome === 'pass' || now.outcome === 'warn'
      ? judged('FIXED', `no failure now (${now.outcome}: ${now.message})`)
      : judged('UNDECIDED', `no verdict now (${now.outcome}: ${now.message})`);
  const flaky = now.flaky === true ? ' (flaky: it failed once of two runs)' : '';
  const same = kindsOf(now).some((k) => failure.kinds.includes(k));
  return same
    ? judged('STILL FAILING', `${nowFailing(now)}${flaky}`)
    : judged('CHANGED', `fails now on ${nowFailing(now)}${flaky}`);
}
