// The profile's rules on the body and the base (spec: Server verification order, steps 8 and 9): Content-Digest
// required or forbidden by the request's kind and matching the exact body bytes, then the signature base rebuilt.
// Part of the profile's rules written once (profile-rules.ts has steps 1 to 4 and evaluateRequest).
import { verifyContentDigest } from '../digest/content-digest.js';
import type { HttpRequest } from '../http/message.js';
import type { FieldIndex } from '../signatures/field-values.js';
import { createSignatureBase } from '../signatures/signature-base.js';
import type { SignatureInput } from '../signatures/signature-fields.js';
import { bodyKindOf } from './body-kind.js';
import type { Progress } from './profile-parameter-rules.js';
import { FindingSink, finding, type ProfileFinding } from './profile-findings.js';
import {
  createProfileSignatureBase,
  isProfileComponentList,
  type ProfileSignatureBaseResult,
} from './profile-signature-base.js';
import { serviceProfile } from './service-profile.js';
import type { VerificationPolicy } from './verification-policy.js';

/** Step 8's rule for a request of this kind (spec: the headers' table; Step 1). */
function checkDigest(
  request: HttpRequest,
  digest: string | undefined,
  policy: VerificationPolicy,
  sink: FindingSink,
): boolean {
  const method = request.method;
  if (bodyKindOf(method, request.body.length) === 'bodyless') {
    if (digest !== undefined) {
      const message = `a bodyless ${method} request must not send "Content-Digest"`;
      if (sink.add(finding('DIGEST_UNEXPECTED', message, '(absent)', digest))) return true;
    }
    if (request.body.length === 0) return false;
    const message = `a ${method} request must not have a body`;
    return sink.add(finding('BODY_UNEXPECTED', message, 'no body', `${request.body.length} bytes`));
  }
  if (digest === undefined) {
    const form = `${policy.digestAlgorithm}=:<base64>:`;
    const message = `missing "Content-Digest": a ${method} request carries ${form} over the exact body`;
    return sink.add(finding('DIGEST_MISSING', message, `Content-Digest: ${form}`, '(absent)'));
  }
  const checked = verifyContentDigest(digest, request.body, { accept: [policy.digestAlgorithm] });
  if (checked.ok) return false;
  const expected =
    checked.code === 'DIGEST_MISMATCH'
      ? `the ${policy.digestAlgorithm} of the ${request.body.length} bytes sent`
      : `${policy.digestAlgorithm}=:<base64>:`;
  return sink.add(
    finding(checked.code, checked.message, expected, digest, undefined, checked.problem),
  );
}

/** Steps 8 and 9 into `sink`: the base (with its bytes when the template built them) unless a finding stopped them. */
export function readBodyAndBase(
  request: HttpRequest,
  fields: FieldIndex,
  input: SignatureInput | undefined,
  policy: VerificationPolicy,
  progress: Progress,
  sink: FindingSink,
): ProfileSignatureBaseResult | undefined {
  // Step 8: Content-Digest against the body, when present; required or forbidden by the request's kind.
  progress.step = 8;
  if (
    policy.enforce.digest &&
    checkDigest(request, fields.get('content-digest')?.[0], policy, sink)
  )
    return undefined;
  if (input === undefined) return undefined;
  // Step 9: rebuild the signature base, including the nonce in the signature parameters. The profile's own list
  // goes through the precomputed template (equal to the generic engine's base).
  progress.step = 9;
  const base: ProfileSignatureBaseResult =
    policy.enforce.components && isProfileComponentList(input.components)
      ? createProfileSignatureBase(request, fields, input)
      : createSignatureBase(
          request,
          input.components,
          input,
          serviceProfile.signatureBaseOptions,
          fields,
        );
  if (base.ok) return base;
  const message = `${base.code}: ${base.message}`;
  sink.add(finding('SIGNATURE_BASE_INVALID', message, 'a base the request can give', base.code));
  return undefined;
}

/** Steps 8 and 9, which read only the request: the base, or the first failure. */
export function checkBodyAndBase(
  request: HttpRequest,
  fields: FieldIndex,
  input: SignatureInput,
  policy: VerificationPolicy,
  progress: Progress,
): ProfileFinding | (ProfileSignatureBaseResult & { readonly ok: true }) {
  const sink = new FindingSink(false);
  const base = readBodyAndBase(request, fields, input, policy, progress, sink);
  return sink.first ?? (base?.ok === true ? base : NO_BASE);
}

/** Never given (a base that is not built records a finding), but typed rather than asserted. */
const NO_BASE = finding(
  'SIGNATURE_BASE_INVALID',
  'no signature base was built',
  'a base',
  '(none)',
);
