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
import type { Catalogue, Requirement } from '../requirements.js';
import type { Redactor } from '../report/redact.js';
import type {
  BodyView,
  EvidenceSummary,
  EvidenceView,
  GradedFinding,
  Outcome,
  RequestView,
  ResponseView,
} from './result.js';
import { traceIdOf } from '../http/trace-context.js';

/**
 * Worst first: a check's outcome is the worst of its findings. A failure the evidence proves outranks an inconclusive
 * `error` beside it (a request with no answer must not hide a stated MUST the target broke).
 */
export const OUTCOME_SEVERITY: readonly Outcome[] = [
  'fail',
  'error',
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

/** Bytes of one recorded body a report keeps (the rest is counted, not kept): docs/security.md, "Bounded evidence". */
export const EVIDENCE_BODY_BYTES = 16 * 1024;
/** Bytes of bodies one run keeps in all; past it, bodies are counted and dropped. */
export const RUN_EVIDENCE_BYTES = 2 * 1024 * 1024;
/** Characters of one finding text (message, expected, received, notes) a report keeps. */
export const FINDING_TEXT_CHARS = 8 * 1024;

/** What one run may still keep of bodies: shared by every finding the engine grades. */
export class EvidenceBudget {
  private used = 0;
  private cut = 0;
  constructor(
    readonly perBody = EVIDENCE_BODY_BYTES,
    readonly total = RUN_EVIDENCE_BYTES,
  ) {}
  /** How many of `wanted` bytes may be kept now (and counts them as kept). */
  take(wanted: number): number {
    const granted = Math.max(0, Math.min(wanted, this.perBody, this.total - this.used));
    this.used += granted;
    return granted;
  }
  get exhausted(): boolean {
    return this.used >= this.total;
  }
  /** Counts a body the report does not keep whole. */
  countCut(): void {
    this.cut += 1;
  }
  /** The limits and what they did, for the summary. */
  report(): EvidenceSummary {
    return {
      bodyBytes: this.perBody,
      runBytes: this.total,
      keptBytes: this.used,
      bodiesCut: this.cut,
    };
  }
}

/** The body's full length when the message says it (Content-Length), else undefined. */
function declaredLength(headers: RecordedResponse['headers'] | undefined): number | undefined {
  const value = headers?.find(([n]) => n.toLowerCase() === 'content-length')?.[1];
  return value !== undefined && /^\d{1,15}$/.test(value.trim()) ? Number(value.trim()) : undefined;
}

/** Why a body is not all there, in the report's words ("body cut at N bytes of M"). */
function cutReason(
  kept: number,
  received: number,
  readStopped: boolean,
  declared: number | undefined,
  budget: EvidenceBudget,
): string | undefined {
  const whole = declared !== undefined && declared >= received ? declared : undefined;
  const of =
    whole !== undefined
      ? `${whole}`
      : readStopped
        ? `more than ${received} (reading stopped there; the rest was not read)`
        : `${received}`;
  if (kept < received)
    return kept === 0 && budget.exhausted
      ? `body not kept: the run's evidence limit of ${budget.total} bytes was reached (${of} bytes)`
      : `body cut at ${kept} bytes of ${of}`;
  if (readStopped) return `body cut at ${kept} bytes of ${of}`;
  return undefined;
}

function bodyView(
  body: Uint8Array | undefined,
  redactor: Redactor,
  budget: EvidenceBudget,
  readStopped = false,
  declared?: number,
  size?: number,
): BodyView {
  const bytes = body instanceof Uint8Array ? body : new Uint8Array(0);
  // What was received: the bytes here, or more when the record kept only the first of them (`bodySize`).
  const received =
    typeof size === 'number' && Number.isSafeInteger(size) && size > bytes.length
      ? size
      : bytes.length;
  const kept = budget.take(bytes.length);
  // Cut first, then mask: masking a megabyte to keep sixteen kilobytes would cost for nothing.
  const masked = redactor.redactBytes(bytes.subarray(0, kept));
  let text: string | undefined;
  try {
    text = utf8.decode(masked);
  } catch {
    // A cut may split a UTF-8 sequence: the text up to the last whole character is still text.
    text = kept < received ? decodeCutText(masked) : undefined;
  }
  const cut = cutReason(kept, received, readStopped, declared, budget);
  if (cut !== undefined) budget.countCut();
  return {
    bytes: declared !== undefined && declared > received ? declared : received,
    ...(text !== undefined
      ? { text: redactor.redactText(text) }
      : { base64: Buffer.from(masked).toString('base64') }),
    ...(readStopped || kept < received ? { truncated: true } : {}),
    ...(cut !== undefined ? { kept, cut } : {}),
  };
}

/** Text of a body cut inside a UTF-8 sequence: up to three trailing bytes dropped, else undefined. */
function decodeCutText(bytes: Uint8Array): string | undefined {
  for (let drop = 1; drop <= 3 && drop <= bytes.length; drop++) {
    try {
      return utf8.decode(bytes.subarray(0, bytes.length - drop));
    } catch {
      continue;
    }
  }
  return undefined;
}

function requestView(r: RecordedRequest, redactor: Redactor, budget: EvidenceBudget): RequestView {
  return {
    method: redactor.redactText(String(r.method)),
    url: redactor.redactText(cutText(String(r.url))),
    headers: redactor.redactHeaders(r.headers ?? []),
    body: bodyView(r.body, redactor, budget, false, undefined, r.bodySize),
  };
}

function responseView(
  r: RecordedResponse,
  redactor: Redactor,
  budget: EvidenceBudget,
): ResponseView {
  return {
    status: r.status,
    ...(r.statusText !== undefined
      ? { statusText: redactor.redactText(cutText(r.statusText)) }
      : {}),
    headers: redactor.redactHeaders(r.headers ?? []),
    body: bodyView(
      r.body,
      redactor,
      budget,
      r.truncated === true,
      declaredLength(r.headers),
      r.bodySize,
    ),
  };
}

/** A finding text cut to FINDING_TEXT_CHARS, saying so. */
export function cutText(text: string): string {
  return text.length <= FINDING_TEXT_CHARS
    ? text
    : `${text.slice(0, FINDING_TEXT_CHARS)}… (cut at ${FINDING_TEXT_CHARS} characters of ${text.length})`;
}

export function evidenceView(
  e: Evidence,
  redactor: Redactor,
  budget: EvidenceBudget = new EvidenceBudget(),
): EvidenceView {
  const request = e.request ? requestView(e.request, redactor, budget) : undefined;
  const traceId = request !== undefined ? traceIdOf(request.headers) : undefined;
  return {
    ...(request !== undefined ? { request } : {}),
    ...(traceId !== undefined ? { traceId } : {}),
    ...(e.response ? { response: responseView(e.response, redactor, budget) } : {}),
    // Reproduce commands refer to secrets through the environment; only literal secret forms are masked here.
    ...(e.reproduce !== undefined ? { reproduce: redactor.maskLiterals(String(e.reproduce)) } : {}),
    ...(e.notes !== undefined ? { notes: redactor.redactText(cutText(String(e.notes))) } : {}),
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
  budget: EvidenceBudget = new EvidenceBudget(),
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
  const text = (s: unknown): string => redactor.redactText(cutText(String(s)));
  return {
    outcome,
    ...(observed ? { observed: true } : {}),
    message: text(finding.message),
    ...(finding.expected !== undefined ? { expected: text(finding.expected) } : {}),
    ...(finding.received !== undefined ? { received: text(finding.received) } : {}),
    ...(finding.requirement !== undefined ? { requirement: finding.requirement } : {}),
    level,
    ...(finding.evidence ? { evidence: evidenceView(finding.evidence, redactor, budget) } : {}),
  };
}
