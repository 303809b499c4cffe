// Grading: turns what a check returned into redacted, serialisable verdicts (MUST → fail, SHOULD/MAY → warn).
import type {
  Check,
  Evidence,
  Finding,
  FindingOutcome,
  Level,
  RecordedRequest,
  RecordedResponse,
} from './check.js';
import type { Catalogue, Requirement } from './requirements.js';
import type { Redactor } from './redact.js';
import type {
  BodyView,
  EvidenceView,
  GradedFinding,
  Outcome,
  RequestView,
  ResponseView,
} from './result.js';

/** Worst first: a check's outcome is the worst of its findings. */
export const OUTCOME_SEVERITY: readonly Outcome[] = [
  'error',
  'fail',
  'warn',
  'skip',
  'pass',
  'n/a',
];

export function worstOutcome(outcomes: readonly Outcome[]): Outcome | undefined {
  let worst: Outcome | undefined;
  for (const o of outcomes)
    if (worst === undefined || OUTCOME_SEVERITY.indexOf(o) < OUTCOME_SEVERITY.indexOf(worst))
      worst = o;
  return worst;
}

const FINDING_OUTCOMES: ReadonlySet<FindingOutcome> = new Set([
  'pass',
  'violation',
  'observation',
  'skip',
  'n/a',
  'inconclusive',
]);
const LEVELS: ReadonlySet<Level> = new Set(['MUST', 'SHOULD', 'MAY']);
const utf8 = new TextDecoder('utf-8', { fatal: true });

function bodyView(body: Uint8Array | undefined, redactor: Redactor, truncated?: boolean): BodyView {
  const bytes = body instanceof Uint8Array ? body : new Uint8Array(0);
  const masked = redactor.redactBytes(bytes);
  let text: string | undefined;
  try {
    text = utf8.decode(masked);
  } catch {
    text = undefined;
  }
  return {
    bytes: bytes.length,
    ...(text !== undefined
      ? { text: redactor.redactText(text) }
      : { base64: Buffer.from(masked).toString('base64') }),
    ...(truncated ? { truncated: true } : {}),
  };
}

function requestView(r: RecordedRequest, redactor: Redactor): RequestView {
  return {
    method: redactor.redactText(String(r.method)),
    url: redactor.redactText(String(r.url)),
    headers: redactor.redactHeaders(r.headers ?? []),
    body: bodyView(r.body, redactor),
  };
}

function responseView(r: RecordedResponse, redactor: Redactor): ResponseView {
  return {
    status: r.status,
    ...(r.statusText !== undefined ? { statusText: redactor.redactText(r.statusText) } : {}),
    headers: redactor.redactHeaders(r.headers ?? []),
    body: bodyView(r.body, redactor, r.truncated),
  };
}

export function evidenceView(e: Evidence, redactor: Redactor): EvidenceView {
  return {
    ...(e.request ? { request: requestView(e.request, redactor) } : {}),
    ...(e.response ? { response: responseView(e.response, redactor) } : {}),
    // Reproduce commands refer to secrets through the environment; only literal secret forms are masked here.
    ...(e.reproduce !== undefined ? { reproduce: redactor.maskLiterals(String(e.reproduce)) } : {}),
    ...(e.notes !== undefined ? { notes: redactor.redactText(String(e.notes)) } : {}),
  };
}

/**
 * Only a MUST sentence of the spec can fail a target: a violation of payconform's own choice (`source: payconform`)
 * or of a sentence the spec states as less than MUST warns at most. A finding without a requirement is judged by its
 * check's first requirement.
 */
function statesMust(
  check: Check<unknown>,
  requirement: Requirement | undefined,
  catalogue: Catalogue,
): boolean {
  return canFailTarget(
    requirement ??
      (check.requirements[0] !== undefined ? catalogue.byId.get(check.requirements[0]) : undefined),
  );
}

/** True for a requirement whose violation fails a target: a MUST the spec states, not payconform's own choice. */
export function canFailTarget(rule: Requirement | undefined): boolean {
  return rule !== undefined && rule.shown && rule.source === undefined && rule.level === 'MUST';
}

/** Grades one finding. Throws a TypeError for a malformed finding (a defect of the check, reported as `error`). */
export function gradeFinding(
  check: Check<unknown>,
  finding: Finding,
  catalogue: Catalogue,
  redactor: Redactor,
): GradedFinding {
  if (typeof finding !== 'object' || finding === null || !FINDING_OUTCOMES.has(finding.outcome)) {
    throw new TypeError(`check "${check.id}" returned a malformed finding`);
  }
  if (finding.level !== undefined && !LEVELS.has(finding.level))
    throw new TypeError(
      `check "${check.id}" returned a finding with unknown level "${String(finding.level)}"`,
    );
  const requirement =
    finding.requirement !== undefined ? catalogue.byId.get(finding.requirement) : undefined;
  if (finding.requirement !== undefined && !requirement)
    throw new TypeError(`check "${check.id}" names unknown requirement "${finding.requirement}"`);
  if (finding.requirement !== undefined && !check.requirements.includes(finding.requirement)) {
    throw new TypeError(
      `check "${check.id}" reports on requirement "${finding.requirement}", which is not in its requirements list`,
    );
  }
  const level: Level = finding.level ?? check.level;
  let outcome: Outcome;
  let observed = false;
  switch (finding.outcome) {
    case 'pass':
      outcome = 'pass';
      break;
    case 'skip':
      outcome = 'skip';
      break;
    case 'n/a':
      outcome = 'n/a';
      break;
    case 'observation':
      outcome = 'pass';
      observed = true;
      break;
    // No answer is not a verdict either way: the run cannot show conformance (counted as a failure of the run).
    case 'inconclusive':
      outcome = 'error';
      break;
    case 'violation':
      // The spec leaves it "not shown": record what was seen, never fail the target for it.
      if (requirement && !requirement.shown) {
        outcome = 'pass';
        observed = true;
      } else
        outcome = level === 'MUST' && statesMust(check, requirement, catalogue) ? 'fail' : 'warn';
      break;
  }
  const text = (s: unknown): string => redactor.redactText(String(s));
  return {
    outcome,
    ...(observed ? { observed: true } : {}),
    message: text(finding.message),
    ...(finding.expected !== undefined ? { expected: text(finding.expected) } : {}),
    ...(finding.received !== undefined ? { received: text(finding.received) } : {}),
    ...(finding.requirement !== undefined ? { requirement: finding.requirement } : {}),
    level,
    ...(finding.evidence ? { evidence: evidenceView(finding.evidence, redactor) } : {}),
  };
}
