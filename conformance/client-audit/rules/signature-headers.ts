// The rules on the signature headers themselves (spec: Authentication, Steps 3-5): both sent, in the form the spec
// gives (RFC 8941 Dictionaries, a signature of the profile's length in padded base64), under the profile's label.
// What is wrong with them is found by the profile's rules (src/profile/profile-rules.ts); these rules report it.
import { serviceProfile } from '../../../src/profile/service-profile.js';
import { findingsFor } from './finding-routes.js';
import {
  findingOutcome,
  noSignatureHeaders,
  notApplicable,
  outcome,
  type ClientRule,
} from './rule.js';

export const signatureHeadersRule: ClientRule = ({ signing, spec, bodyless }) => {
  const rule = 'client-signature-headers';
  const headersRequirement = bodyless ? 'SIG-HEADERS-BODYLESS' : 'SIG-HEADERS-BODY';
  if (signing.kind === 'unsigned') {
    if (spec?.signature !== 'optional') return notApplicable(rule, 'not a signed request');
    return [
      outcome(
        rule,
        'observation',
        'SIG-OTHER-ENDPOINTS-SIGNED',
        `${spec.title} sent unsigned (the spec does not show whether it must be signed; its examples carry only the application headers)`,
      ),
    ];
  }
  if (signing.kind === 'present')
    return [outcome(rule, 'pass', headersRequirement, 'Signature-Input and Signature present')];
  const { missing } = signing;
  const signatureRequired = spec?.signature === 'required';
  const requirement =
    missing.length === 2 && signatureRequired ? 'SIG-PAYOUT-CREATE-SIGNED' : headersRequirement;
  return [
    outcome(
      rule,
      'violation',
      requirement,
      `missing ${missing.map((m) => `"${m}"`).join(' and ')} header${missing.length > 1 ? 's' : ''}${signatureRequired ? ': payout creation must be signed' : ''}`,
      {
        expected: 'Signature-Input and Signature',
        received: missing.length === 2 ? 'neither' : `no ${missing[0]}`,
      },
    ),
  ];
};

export const signatureSyntaxRule: ClientRule = (facts) => {
  const rule = 'client-signature-syntax';
  const { signing } = facts;
  if (signing.kind !== 'present') return notApplicable(rule, noSignatureHeaders(signing));
  const found = findingsFor(facts, rule);
  if (found.length > 0)
    return found.map((f) =>
      findingOutcome(rule, { ...f, message: `not in the form the spec gives: ${f.message}` }),
    );
  return [
    outcome(
      rule,
      'pass',
      'SIG-PROFILE-STRUCTURED-FIELDS',
      `Signature-Input and Signature are in the form the spec gives (RFC 8941 Dictionaries, a ${serviceProfile.signatureLength}-byte signature)`,
    ),
  ];
};

export const signatureLabelRule: ClientRule = (facts) => {
  const rule = 'client-signature-label';
  const { signing } = facts;
  if (signing.kind !== 'present') return notApplicable(rule, noSignatureHeaders(signing));
  const found = findingsFor(facts, rule);
  if (found.length > 0)
    // Beside the label, a server may verify it alone (RFC 9421 §7.1.2 lets a verifier choose), or refuse the rest.
    return found.map((f) =>
      findingOutcome(rule, f, signing.bothHaveSig1 ? { level: 'SHOULD' } : {}),
    );
  if (findingsFor(facts, 'client-signature-syntax').length > 0 || signing.labels.length === 0)
    return notApplicable(rule, 'Signature-Input or Signature does not parse');
  return [outcome(rule, 'pass', 'SIG-LABEL-SIG1', `label "${serviceProfile.label}"`)];
};
