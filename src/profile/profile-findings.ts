// What the profile's rules report: a finding names the verification code, the spec step (read from the codes'
// catalogue), the requirement id the client audit reports it under, and expected against received.
import type { SignatureFieldProblem } from '../signatures/signature-fields.js';
import { verifyErrorCodes, type VerifyErrorCode } from './verify-error-codes.js';

/** A rejection narrower than its code, where the code covers cases the spec judges differently. */
export type FindingDetail =
  | SignatureFieldProblem
  | 'digest-unpadded'
  | 'label-beside'
  | 'signature-no-label'
  | 'signature-length'
  | 'parameter-unknown'
  | 'alg-absent';

/** What a finding is, for what the spec requires of a server (finding-verdicts.ts): its detail, else its code. */
export type FindingCase = VerifyErrorCode | FindingDetail;

export interface ProfileFinding {
  readonly code: VerifyErrorCode;
  /** The detail where the code covers several cases, else the code (finding-verdicts.ts classifies each). */
  readonly case: FindingCase;
  /** Server verification order, 1-12: the catalogue's step of the code. */
  readonly step: number;
  /** The requirement (conformance/requirements.json) a client breaks when it gets this finding. */
  readonly requirement: string;
  readonly message: string;
  readonly expected: string;
  readonly received: string;
}

/**
 * The requirement of each code, where the code alone decides it (the rules name another where the case does: a
 * duplicated header, a parameter, a header that does not parse). Steps 4 to 7, 10 and 11 are the verifier's, with
 * the service's state; they are listed so that a report can name the requirement of every code.
 */
export const codeRequirements = {
  REQUEST_MALFORMED: undefined,
  SIGNATURE_MISSING: 'SIG-HEADERS-BODY',
  SIGNATURE_INPUT_MISSING: 'SIG-HEADERS-BODY',
  HEADER_DUPLICATED: 'SIG-BASE-CONTENT-TYPE-LENGTH',
  SIGNATURE_INPUT_MALFORMED: 'SIG-INPUT-HEADER',
  SIGNATURE_MALFORMED: 'SIG-SIGNATURE-HEADER',
  LABEL_DUPLICATED: 'SIG-INPUT-HEADER',
  LABEL_UNSUPPORTED: 'SIG-LABEL-SIG1',
  COMPONENTS_MISMATCH: 'SIG-BASE-COMPONENTS-ORDER',
  ALG_UNSUPPORTED: 'SIG-PARAM-ALG',
  CREATED_INVALID: 'SIG-PARAM-CREATED',
  KEY_ID_MISSING: 'SIG-PARAM-KEYID',
  PARAMETERS_MISMATCH: 'SIG-PROFILE-PARAM-ORDER',
  CREATED_EXPIRED: 'SIG-PARAM-CREATED',
  CREATED_IN_FUTURE: 'SIG-PARAM-CREATED',
  NONCE_MISSING: 'SIG-PARAM-NONCE',
  NONCE_TOO_LONG: 'LIMIT-NONCE',
  NONCE_REPLAYED: 'LIMIT-NONCE',
  NONCE_STORE_UNAVAILABLE: undefined,
  CREATED_BEFORE_NONCE_STORE_RESET: undefined,
  APPLICATION_ID_MISSING: 'APP-ID-REQUIRED',
  APPLICATION_ID_UNKNOWN: 'SIG-BASE-APPLICATION-HEADERS',
  APPLICATION_LOOKUP_FAILED: undefined,
  APPLICATION_SECRET_MISSING: 'APP-SECRET-SENT',
  APPLICATION_SECRET_INVALID: 'APP-SECRET-SENT',
  KEY_UNKNOWN: 'SIG-PARAM-KEYID',
  DIGEST_MISSING: 'SIG-HEADERS-BODY',
  DIGEST_MALFORMED: 'DIGEST-SHA512',
  DIGEST_ALGORITHM_UNSUPPORTED: 'DIGEST-SHA512',
  DIGEST_MISMATCH: 'DIGEST-EXACT-BYTES',
  DIGEST_UNEXPECTED: 'SIG-HEADERS-BODYLESS',
  BODY_UNEXPECTED: 'SIG-HEADERS-BODYLESS',
  SIGNATURE_BASE_INVALID: 'SIG-SIGN',
  SIGNATURE_INVALID: 'SIG-SIGN',
} as const satisfies Record<VerifyErrorCode, string | undefined>;

/**
 * A finding at its code's step, under its code's requirement unless `requirement` names another; its case is `detail`
 * when given, else the code.
 */
export function finding(
  code: VerifyErrorCode,
  message: string,
  expected: string,
  received: string,
  requirement?: string,
  detail?: FindingDetail,
): ProfileFinding {
  return {
    code,
    case: detail ?? code,
    step: verifyErrorCodes[code].step,
    requirement: requirement ?? codeRequirements[code] ?? '',
    message,
    expected,
    received,
  };
}

/**
 * Where the rules put what they find: every finding (the client audit), or only the first (the verifier, which
 * stops there). `add` answers true when the rules are to stop.
 */
export class FindingSink {
  readonly all: ProfileFinding[] | undefined;
  first: ProfileFinding | undefined = undefined;

  constructor(collectAll: boolean) {
    this.all = collectAll ? [] : undefined;
  }

  add(f: ProfileFinding): boolean {
    if (this.all === undefined) {
      this.first = f;
      return true;
    }
    this.all.push(f);
    return false;
  }
}

/** Names in double quotes, separated by spaces (`"@method" "@path"`), or `none`. */
export const quotedList = (names: readonly string[]): string =>
  names.map((n) => `"${n}"`).join(' ') || 'none';
