// in-toto attestations (in-toto/attestation, spec v1): the Statement that binds a predicate to its subjects, the
// ResourceDescriptor, and the Test Result predicate (test-result v0.1). Pure: building, digesting and checking the
// shape; what a test run concluded is mapped onto it by the conformance layer (conformance/report/attestation.ts).
import { createHash } from 'node:crypto';

/** The `_type` of an in-toto Statement v1. */
export const IN_TOTO_STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
/** The DSSE payload type of an in-toto Statement. */
export const IN_TOTO_PAYLOAD_TYPE = 'application/vnd.in-toto+json';
/** The in-toto Test Result predicate type an audit's attestation uses. */
export const TEST_RESULT_PREDICATE_TYPE = 'https://in-toto.io/attestation/test-result/v0.1';

/** A resource by name, location and digest (in-toto ResourceDescriptor v1; only the fields used here). */
export interface ResourceDescriptor {
  readonly name?: string;
  readonly uri?: string;
  /** Algorithm to lowercase hex, e.g. `{ sha256: "…" }`. */
  readonly digest?: Readonly<Record<string, string>>;
  /** The resource's bytes, base64, when it is small enough to carry. */
  readonly content?: string;
  readonly mediaType?: string;
}

export const TEST_RESULTS = ['PASSED', 'WARNED', 'FAILED'] as const;
/** The in-toto Test Result's `result`: PASSED, WARNED or FAILED. */
export type TestResult = (typeof TEST_RESULTS)[number];

/**
 * An in-toto Test Result predicate: the result, the configuration, and the passed, warned and
 * failed tests.
 */
export interface TestResultPredicate {
  readonly result: TestResult;
  readonly configuration: readonly ResourceDescriptor[];
  readonly url?: string;
  readonly passedTests: readonly string[];
  readonly warnedTests: readonly string[];
  readonly failedTests: readonly string[];
}

/** An in-toto Statement v1: the subjects it speaks of and its predicate. */
export interface Statement<P> {
  readonly _type: typeof IN_TOTO_STATEMENT_TYPE;
  readonly subject: readonly ResourceDescriptor[];
  readonly predicateType: string;
  readonly predicate: P;
}

/** Lowercase hex SHA-256 of some bytes (a ResourceDescriptor's `digest.sha256`). */
export function sha256Hex(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A Test Result statement about `subject`. */
export function createTestResultStatement(
  subject: readonly ResourceDescriptor[],
  predicate: TestResultPredicate,
): Statement<TestResultPredicate> {
  if (subject.length === 0) throw new TypeError('an in-toto statement needs at least one subject');
  return {
    _type: IN_TOTO_STATEMENT_TYPE,
    subject,
    predicateType: TEST_RESULT_PREDICATE_TYPE,
    predicate,
  };
}

export type StatementParseResult =
  | { readonly ok: true; readonly statement: Statement<TestResultPredicate> }
  | { readonly ok: false; readonly message: string };

const isStringList = (v: unknown): v is string[] =>
  Array.isArray(v) && v.every((s) => typeof s === 'string');

const isDescriptor = (v: unknown): v is ResourceDescriptor =>
  typeof v === 'object' &&
  v !== null &&
  ((v as ResourceDescriptor).digest === undefined ||
    (typeof (v as ResourceDescriptor).digest === 'object' &&
      Object.values((v as ResourceDescriptor).digest ?? {}).every((d) => typeof d === 'string')));

/** Reads a Test Result statement from a DSSE payload; says what is wrong when it is not one. */
export function parseTestResultStatement(payload: Uint8Array): StatementParseResult {
  let s: Partial<Statement<Partial<TestResultPredicate>>>;
  try {
    s = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(payload)) as typeof s;
  } catch (error) {
    return { ok: false, message: `the payload is not JSON: ${(error as Error).message}` };
  }
  if (typeof s !== 'object' || s === null)
    return { ok: false, message: 'the payload is not an object' };
  if (s._type !== IN_TOTO_STATEMENT_TYPE)
    return { ok: false, message: `"_type" is not "${IN_TOTO_STATEMENT_TYPE}"` };
  if (s.predicateType !== TEST_RESULT_PREDICATE_TYPE)
    return { ok: false, message: `"predicateType" is not "${TEST_RESULT_PREDICATE_TYPE}"` };
  if (!Array.isArray(s.subject) || s.subject.length === 0 || !s.subject.every(isDescriptor))
    return { ok: false, message: '"subject" must be a non-empty list of resource descriptors' };
  const p = s.predicate;
  if (
    typeof p !== 'object' ||
    p === null ||
    !(TEST_RESULTS as readonly unknown[]).includes(p.result) ||
    !Array.isArray(p.configuration) ||
    !p.configuration.every(isDescriptor) ||
    !isStringList(p.passedTests) ||
    !isStringList(p.warnedTests) ||
    !isStringList(p.failedTests)
  )
    return {
      ok: false,
      message: `the predicate needs "result" (${TEST_RESULTS.join(', ')}), "configuration" and the three test lists`,
    };
  return { ok: true, statement: s as Statement<TestResultPredicate> };
}
