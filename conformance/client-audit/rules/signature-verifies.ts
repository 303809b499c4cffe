// The client audit's last rule (spec: Server verification order, step 10): the Ed25519 signature verifies with
// the configured public key over the base rebuilt from the request; when not, the diagnosis names the mistake.
import { nodeBackend } from '../../../src/ed25519/node-backend.js';
import type { HttpRequest } from '../../../src/http/message.js';
import { serviceProfile } from '../../../src/profile/service-profile.js';
import { verifySignatureBase } from '../../../src/signatures/create-signature.js';
import { createSignatureBase } from '../../../src/signatures/signature-base.js';
import type { SignatureInput } from '../../../src/signatures/signature-fields.js';
import { diagnoseSignature } from '../../diagnose-signature.js';
import {
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
  if (member.signature === undefined)
    return notApplicable(rule, 'no signature bytes under the label');
  return [verify(facts.request, member.input, member.signature, session)];
};

function verify(
  request: HttpRequest,
  input: SignatureInput,
  signature: Uint8Array,
  session: RuleSession,
): RuleOutcome {
  const backend = session.options.backend ?? nodeBackend;
  const base = createSignatureBase(
    request,
    input.components,
    input.params,
    serviceProfile.signatureBaseOptions,
  );
  if (!base.ok)
    return outcome(
      rule,
      'violation',
      'SIG-SIGN',
      `the signature base cannot be built from the request: ${base.message}`,
    );
  if (verifySignatureBase(base.base, signature, session.credentials.publicKey, backend))
    return outcome(
      rule,
      'pass',
      'SIG-SIGN',
      'the Ed25519 signature verifies with the configured public key over the base rebuilt from the request (alg ed25519)',
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
