// What an audit run's attestation says and how a reviewer re-checks it offline: the in-toto Test Result statement
// built from the JSON report (result from the verdict, the check ids by outcome, the digests of the report, the HAR
// and the audit's configuration), and the comparison of a statement with the files it names.
import { verifyDsseEnvelope } from '../../src/attest/dsse.js';
import {
  IN_TOTO_PAYLOAD_TYPE,
  parseTestResultStatement,
  createTestResultStatement,
  sha256Hex,
  type ResourceDescriptor,
  type Statement,
  type TestResult,
  type TestResultPredicate,
} from '../../src/attest/statement.js';
import type { Ed25519PublicKey } from '../../src/ed25519/index.js';
import type { JsonReport } from '../reporters/json.js';

/** The names the statement gives the files it digests (how `attest verify` finds the one a file must match). */
export const ATTESTED_FILES = {
  report: 'payconform-report.json',
  har: 'payconform-exchanges.har',
  config: 'payconform-audit-config.json',
} as const;
export type AttestedFile = keyof typeof ATTESTED_FILES;

const MEDIA_TYPES: Readonly<Record<AttestedFile, string>> = {
  report: 'application/json',
  har: 'application/json',
  config: 'application/json',
};

/** What the statement's test lists and result are made from: the report's verdict and each check's outcome. */
type ReportOutcomes = Pick<JsonReport, 'verdict'> & {
  readonly results: ReadonlyArray<Pick<JsonReport['results'][number], 'id' | 'outcome'>>;
};

/**
 * The Test Result predicate's result and lists from a report. A check that failed or errored is a failed test, a
 * warning a warned one, a pass a passed one (skipped and not-applicable checks are in no list). The result: FAILED
 * unless the verdict is PASS or INCOMPLETE; WARNED for an INCOMPLETE run or a PASS with warnings; else PASSED.
 */
export function testResultOf(
  report: ReportOutcomes,
): Pick<TestResultPredicate, 'result' | 'passedTests' | 'warnedTests' | 'failedTests'> {
  const ids = (...outcomes: string[]): string[] =>
    report.results.filter((r) => outcomes.includes(r.outcome)).map((r) => r.id);
  const warnedTests = ids('warn');
  const result: TestResult =
    report.verdict === 'pass'
      ? warnedTests.length > 0
        ? 'WARNED'
        : 'PASSED'
      : report.verdict === 'incomplete'
        ? 'WARNED'
        : 'FAILED';
  return { result, passedTests: ids('pass'), warnedTests, failedTests: ids('fail', 'error') };
}

export interface AttestationInputs {
  /** The JSON report's exact bytes, as written. */
  readonly report: Uint8Array;
  /** The HAR's exact bytes, when one was written. */
  readonly har?: Uint8Array;
  /** The audit's configuration without secrets (the command, its arguments, the config file): carried whole. */
  readonly config: Uint8Array;
}

function descriptor(file: AttestedFile, bytes: Uint8Array, carry = false): ResourceDescriptor {
  return {
    name: ATTESTED_FILES[file],
    digest: { sha256: sha256Hex(bytes) },
    mediaType: MEDIA_TYPES[file],
    ...(carry ? { content: Buffer.from(bytes).toString('base64') } : {}),
  };
}

/** An http(s) target as the predicate's `url`; a client audit's target ("client at …") has none. */
function targetUrl(target: string): string | undefined {
  // The report may follow the URL with a note, e.g. "http://127.0.0.1:41234 (embedded reference service)".
  const first = target.split(' ', 1)[0] ?? '';
  try {
    const url = new URL(first);
    return url.protocol === 'http:' || url.protocol === 'https:' ? first : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The statement about one audit run. Its subject is the target, named as the report names it, with the digest of
 * the report that identifies what was concluded about it.
 */
export function createAuditStatement(inputs: AttestationInputs): Statement<TestResultPredicate> {
  const report = JSON.parse(Buffer.from(inputs.report).toString('utf8')) as JsonReport;
  const url = targetUrl(report.target);
  return createTestResultStatement(
    [{ name: report.target, digest: { sha256: sha256Hex(inputs.report) } }],
    {
      ...testResultOf(report),
      configuration: [
        descriptor('config', inputs.config, true),
        descriptor('report', inputs.report),
        ...(inputs.har !== undefined ? [descriptor('har', inputs.har)] : []),
      ],
      ...(url !== undefined ? { url } : {}),
    },
  );
}

const sameList = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && [...a].sort().every((v, i) => v === [...b].sort()[i]);

/**
 * What does not hold between a statement and the files given: a digest that differs, a file the statement does not
 * name, a carried configuration whose bytes do not match its digest, and, with the report, a result or a test list
 * that does not follow from the report's outcomes. Empty when everything holds.
 */
export function attestationProblems(
  statement: Statement<TestResultPredicate>,
  files: Partial<Record<AttestedFile, Uint8Array>>,
): string[] {
  const problems: string[] = [];
  const named = (file: AttestedFile): ResourceDescriptor | undefined =>
    statement.predicate.configuration.find((d) => d.name === ATTESTED_FILES[file]);
  for (const d of statement.predicate.configuration)
    if (
      d.content !== undefined &&
      sha256Hex(Buffer.from(d.content, 'base64')) !== d.digest?.['sha256']
    )
      problems.push(`the carried content of "${d.name ?? '(unnamed)'}" does not match its digest`);
  for (const file of Object.keys(files) as AttestedFile[]) {
    const bytes = files[file];
    if (bytes === undefined) continue;
    const d = named(file);
    if (d === undefined) {
      problems.push(`the statement names no ${file} ("${ATTESTED_FILES[file]}")`);
      continue;
    }
    const actual = sha256Hex(bytes);
    if (d.digest?.['sha256'] !== actual)
      problems.push(
        `the ${file} file's SHA-256 is ${actual}, the statement names ${d.digest?.['sha256'] ?? 'none'}`,
      );
  }
  const reportBytes = files.report;
  if (reportBytes !== undefined) {
    let report: ReportOutcomes;
    try {
      report = JSON.parse(Buffer.from(reportBytes).toString('utf8')) as ReportOutcomes;
      if (!Array.isArray(report.results)) throw new TypeError('no "results" list');
      // Hostile input: every result must be an object with a string id and outcome before it is read.
      const bad = report.results.findIndex(
        (r: unknown) =>
          typeof r !== 'object' ||
          r === null ||
          typeof (r as { id?: unknown }).id !== 'string' ||
          typeof (r as { outcome?: unknown }).outcome !== 'string',
      );
      if (bad !== -1)
        throw new TypeError(`"results"[${bad}] is not a result with a string "id" and "outcome"`);
    } catch (error) {
      problems.push(`the report is not a payconform JSON report: ${(error as Error).message}`);
      return problems;
    }
    const expected = testResultOf(report);
    const p = statement.predicate;
    if (p.result !== expected.result)
      problems.push(`"result" is ${p.result}; the report's outcomes give ${expected.result}`);
    for (const list of ['passedTests', 'warnedTests', 'failedTests'] as const)
      if (!sameList(p[list], expected[list]))
        problems.push(`"${list}" does not follow from the report's outcomes`);
    if (!statement.subject.some((s) => s.digest?.['sha256'] === sha256Hex(reportBytes)))
      problems.push("no subject carries the report's digest");
  }
  return problems;
}

/**
 * What `verifyAuditAttestation` found: the verified statement, or every reason the attestation
 * does not hold.
 */
export type AttestationVerification =
  | {
      readonly ok: true;
      readonly keyid: string;
      readonly statement: Statement<TestResultPredicate>;
    }
  | { readonly ok: false; readonly reasons: readonly string[] };

/**
 * Verifies an audit's attestation offline, as `payconform attest verify` does: the DSSE envelope's text (canonical,
 * in-toto payload type, an Ed25519 signature over the PAE by `publicKey`), the Test Result statement it carries, and
 * `attestationProblems` against the files given. Never throws for hostile input.
 * @example
 * const v = verifyAuditAttestation(readFileSync('run.intoto.json', 'utf8'), publicKey, { report: readFileSync('report.json') });
 * if (!v.ok) console.error(v.reasons.join('\n'));
 */
export function verifyAuditAttestation(
  envelopeFile: string | Uint8Array,
  publicKey: Ed25519PublicKey,
  files: Partial<Record<AttestedFile, Uint8Array>> = {},
): AttestationVerification {
  const envelope = verifyDsseEnvelope(envelopeFile, publicKey, {
    payloadType: IN_TOTO_PAYLOAD_TYPE,
  });
  if (!envelope.ok) return { ok: false, reasons: [`${envelope.code}: ${envelope.message}`] };
  const parsed = parseTestResultStatement(envelope.payload);
  if (!parsed.ok)
    return {
      ok: false,
      reasons: [`the signed payload is not a Test Result statement: ${parsed.message}`],
    };
  const problems = attestationProblems(parsed.statement, files);
  if (problems.length > 0) return { ok: false, reasons: problems };
  return { ok: true, keyid: envelope.keyid, statement: parsed.statement };
}
