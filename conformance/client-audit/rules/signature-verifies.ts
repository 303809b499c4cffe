// The client audit's last rule (spec: Server verification order, step 10): the Ed25519 signature verifies with
// the configured public key over the base rebuilt from the request; when not, the diagnosis names the mistake.
import { nodeBackend } from '../../../src/ed25519/node-backend.js';
import type { HttpRequest } from '../../../src/http/message.js';
import { serviceProfile } from '../../../src/profile/service-profile.js';
import { verifySignatureBase } from '../../../src/signatures/create-signature.js';
import { diagnoseSignature } from '../../signatures/diagnose-signature.js';
import { findingsFor } from './finding-routes.js';
import {
  findingOutcome,
  notApplicable,
  outcome,
  signatureMember,
  type ClientRule,
  type RuleOutcome,
  type RuleSession,
} from './rule.js';

const rule = 'client-signature-verifies';

export const signatureVerifiesRule: ClientRule = (facts, session) => {
  const member = signatureMember(facts);
  if ('none' in member) return notApplicable(rule, member.none);
  // Step 9 (the profile's rules): a base that cannot be built, or a covered header on several lines.
  const found = findingsFor(facts, rule);
  if (found.length > 0) return found.map((f) => findingOutcome(rule, f));
  if (member.signature === undefined)
    return notApplicable(rule, 'no signature bytes under the label');
  const base = facts.profile.signatureBase;
  if (base === undefined) return notApplicable(rule, 'no signature base to verify');
  return [verify(facts.request, base, member.signature, session)];
};

function verify(
  request: HttpRequest,
  base: string,
  signature: Uint8Array,
  session: RuleSession,
): RuleOutcome {
  const backend = session.options.backend ?? nodeBackend;
  if (verifySignatureBase(base, signature, session.credentials.publicKey, backend))
    return outcome(
      rule,
      'pass',
      'SIG-SIGN',
      `the Ed25519 signature verifies with the configured public key over the base rebuilt from the request (alg ${serviceProfile.alg})`,
    );
  return diagnosed(request, session);
}

/** A signature that does not verify: the diagnosis (full while the session's budget lasts) names the mistake. */
function diagnosed(request: HttpRequest, session: RuleSession): RuleOutcome {
  const full = session.nextDiagnosisIsFull();
  const d = diagnoseSignature(request, {
    publicKey: session.credentials.publicKey,
    backend: session.options.backend ?? nodeBackend,
    ...(full ? {} : { maxAttempts: 80 }),
  });
  if (d.status !== 'found')
    return outcome(
      rule,
      'violation',
      'SIG-SIGN',
      `the Ed25519 signature does not verify with the configured public key; ${d.status === 'verified' ? 'it verifies under the diagnosis (inconsistent state)' : d.message}`,
      { notes: `diagnosis tried ${d.attempts} variants of the base` },
    );
  const lines = (side: 'expected' | 'signed'): string =>
    d.differences.map((x) => `line ${x.line}: ${x[side] ?? '(no line)'}`).join('\n');
  return outcome(
    rule,
    'violation',
    d.requirement,
    `the signature does not verify; diagnosis: ${d.message}`,
    {
      expected: lines('expected'),
      received: lines('signed'),
      notes: `mistake: ${d.mistakes.join(' + ')} (found after ${d.attempts} attempts)`,
    },
  );
}
