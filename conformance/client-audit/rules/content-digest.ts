// The client audit's Content-Digest rule (spec: Authentication, step 1 and the body/bodyless table; RFC 9530):
// what the profile's rules (src/profile/profile-rules.ts) find is reported here, a mismatch with the diagnosis of
// what was digested instead, and a POST the spec shows without a body read as SHOULD.
import { computeContentDigest } from '../../../src/digest/content-digest.js';
import type { ProfileFinding } from '../../../src/profile/profile-findings.js';
import { serviceProfile } from '../../../src/profile/service-profile.js';
import { diagnoseContentDigest } from '../../signatures/diagnose-signature.js';
import { findingsFor } from './finding-routes.js';
import {
  findingOutcome,
  notApplicable,
  outcome,
  type ClientRule,
  type RequestFacts,
  type RuleOutcome,
} from './rule.js';

const rule = 'client-content-digest';

/** The Content-Digest of an empty body. */
const EMPTY_BODY_DIGEST = computeContentDigest(new Uint8Array(0), [serviceProfile.digestAlgorithm]);

export const contentDigestRule: ClientRule = (facts) => {
  const { signing, request, bodyless } = facts;
  if (signing.kind === 'unsigned') return notApplicable(rule, 'not a signed request');
  const found = findingsFor(facts, rule);
  if (found.length > 0) return found.map((f) => reported(f, facts));
  if (bodyless)
    return [
      outcome(rule, 'pass', 'SIG-HEADERS-BODYLESS', `no Content-Digest on ${request.method}`),
    ];
  return [
    outcome(
      rule,
      'pass',
      'DIGEST-EXACT-BYTES',
      `${serviceProfile.digestAlgorithm} digest matches the ${request.body.length} body bytes`,
    ),
  ];
};

/** One finding as the report gives it. */
function reported(f: ProfileFinding, { request, spec, values }: RequestFacts): RuleOutcome {
  if (f.code === 'DIGEST_MISMATCH') {
    const d = diagnoseContentDigest(values('content-digest').join(', '), request.body);
    return findingOutcome(rule, f, d.status === 'matches' ? {} : { notes: d.message });
  }
  // commit and cancel: POST calls the spec shows with "No body". The table names POST as body-carrying, yet they
  // carry no body: a reading that treats them as bodyless is not clearly wrong, but a server following the table
  // by method rejects it.
  if (f.code === 'DIGEST_MISSING' && spec?.body === 'none' && request.body.length === 0)
    return findingOutcome(rule, f, {
      message: `no "Content-Digest" on a signed ${request.method} without a body: the spec's table requires it for ${request.method}; send ${serviceProfile.digestAlgorithm}=:<digest of the empty body>: so that a server reading the table by method accepts it`,
      expected: `Content-Digest: ${EMPTY_BODY_DIGEST}`,
      level: 'SHOULD',
    });
  return findingOutcome(rule, f);
}
