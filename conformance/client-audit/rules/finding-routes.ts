// Which client-audit rule reports each finding of the profile's rules (src/profile/profile-rules.ts): the audit
// judges nothing of the profile itself, it files each finding under the check a reader looks for it in.
import type { ProfileFinding } from '../../../src/profile/profile-findings.js';
import type { VerifyErrorCode } from '../../../src/profile/verify-error-codes.js';
import type { ClientRuleId, RequestFacts } from './rule.js';

type Route = ClientRuleId | ((f: ProfileFinding) => ClientRuleId);

/** The findings the profile's rules can give, by code (the others need the service's state). */
const routes: Partial<Record<VerifyErrorCode, Route>> = {
  SIGNATURE_MISSING: 'client-signature-headers',
  SIGNATURE_INPUT_MISSING: 'client-signature-headers',
  HEADER_DUPLICATED: (f) =>
    f.requirement === 'APP-ID-REQUIRED' || f.requirement === 'APP-SECRET-SENT'
      ? 'client-application-headers'
      : f.requirement === 'DIGEST-SHA512'
        ? 'client-content-digest'
        : 'client-signature-verifies',
  SIGNATURE_INPUT_MALFORMED: 'client-signature-syntax',
  SIGNATURE_MALFORMED: (f) =>
    f.requirement === 'SIG-LABEL-SIG1' ? 'client-signature-label' : 'client-signature-syntax',
  LABEL_DUPLICATED: 'client-signature-syntax',
  LABEL_UNSUPPORTED: (f) =>
    f.requirement === 'SIG-INPUT-HEADER' ? 'client-signature-syntax' : 'client-signature-label',
  COMPONENTS_MISMATCH: 'client-covered-components',
  ALG_UNSUPPORTED: 'client-signature-alg',
  CREATED_INVALID: 'client-signature-created',
  KEY_ID_MISSING: 'client-signature-keyid',
  PARAMETERS_MISMATCH: (f) =>
    f.requirement === 'SIG-PARAM-ALG'
      ? 'client-signature-alg'
      : f.requirement === 'SIG-PARAM-NONCE'
        ? 'client-signature-nonce'
        : 'client-signature-parameter-order',
  CREATED_EXPIRED: 'client-signature-created',
  CREATED_IN_FUTURE: 'client-signature-created',
  NONCE_MISSING: 'client-signature-nonce',
  NONCE_TOO_LONG: 'client-signature-nonce',
  DIGEST_MISSING: 'client-content-digest',
  DIGEST_MALFORMED: 'client-content-digest',
  DIGEST_ALGORITHM_UNSUPPORTED: 'client-content-digest',
  DIGEST_MISMATCH: 'client-content-digest',
  DIGEST_UNEXPECTED: 'client-content-digest',
  BODY_UNEXPECTED: 'client-content-digest',
  SIGNATURE_BASE_INVALID: 'client-signature-verifies',
};

/** The rule that reports `f`, or undefined for a finding no rule reports (REQUEST_MALFORMED). */
export function ruleOfFinding(f: ProfileFinding): ClientRuleId | undefined {
  const route = routes[f.code];
  return typeof route === 'function' ? route(f) : route;
}

/** The profile's findings on the request that `rule` reports, in the spec's order. */
export function findingsFor(facts: RequestFacts, rule: ClientRuleId): ProfileFinding[] {
  return facts.profile.findings.filter((f) => ruleOfFinding(f) === rule);
}
