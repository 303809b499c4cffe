// The rules on the signature headers themselves (spec: Authentication, Steps 3-5): both sent, in the form the spec
// gives (RFC 8941 Dictionaries, a 64-byte signature in padded base64), under the label "sig1".
import { serviceProfile } from '../../../src/profile/service-profile.js';
import {
  noSignatureHeaders,
  notApplicable,
  outcome,
  type ClientRule,
  type RuleOutcome,
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

export const signatureSyntaxRule: ClientRule = ({ signing }) => {
  const rule = 'client-signature-syntax';
  if (signing.kind !== 'present') return notApplicable(rule, noSignatureHeaders(signing));
  const { syntax, shortSignature } = signing;
  if (syntax.length > 0)
    return syntax.map((x) =>
      outcome(rule, 'violation', x.requirement, `not in the form the spec gives: ${x.message}`, {
        expected:
          x.requirement === 'SIG-INPUT-HEADER'
            ? 'sig1=("@method" ... "x-application-secret");created=<UNIX_SECONDS>;keyid="<KEY_ID>";alg="ed25519";nonce="<NONCE>"'
            : 'sig1=:<BASE64_SIGNATURE>: (88 characters of padded base64)',
        received: x.received,
      }),
    );
  if (shortSignature !== undefined)
    return [
      outcome(
        rule,
        'violation',
        'SIG-SIGNATURE-HEADER',
        `the signature "${shortSignature.label}" is ${shortSignature.length} bytes; an Ed25519 signature is 64 bytes (88 base64 characters)`,
        { expected: '64 bytes', received: `${shortSignature.length} bytes` },
      ),
    ];
  return [
    outcome(
      rule,
      'pass',
      'SIG-PROFILE-STRUCTURED-FIELDS',
      'Signature-Input and Signature are in the form the spec gives (RFC 8941 Dictionaries, a 64-byte signature)',
    ),
  ];
};

export const signatureLabelRule: ClientRule = ({ signing }) => {
  const rule = 'client-signature-label';
  if (signing.kind !== 'present') return notApplicable(rule, noSignatureHeaders(signing));
  if (signing.syntax.length > 0)
    return notApplicable(rule, 'Signature-Input or Signature does not parse');
  return judgeLabels(signing.labels ?? [], signing.bothHaveSig1 === true);
};

function judgeLabels(labels: readonly string[], bothHaveSig1: boolean): RuleOutcome[] {
  const rule = 'client-signature-label';
  const others = labels.filter((l) => l !== serviceProfile.label);
  if (others.length === 0) return [outcome(rule, 'pass', 'SIG-LABEL-SIG1', 'label "sig1"')];
  if (bothHaveSig1)
    // sig1 is there; a server may verify sig1 alone (RFC 9421 §7.1.2 lets a verifier choose), or refuse the rest.
    return [
      outcome(
        rule,
        'violation',
        'SIG-LABEL-SIG1',
        `labels ${others.map((l) => `"${l}"`).join(', ')} sent beside "sig1": the spec's headers carry sig1 only, and a server may refuse the others`,
        { expected: 'sig1', received: labels.join(', '), level: 'SHOULD' },
      ),
    ];
  return [
    outcome(
      rule,
      'violation',
      'SIG-LABEL-SIG1',
      `the label is always "sig1"; found ${labels.map((l) => `"${l}"`).join(', ')}`,
      { expected: 'sig1', received: labels.join(', ') },
    ),
  ];
}
