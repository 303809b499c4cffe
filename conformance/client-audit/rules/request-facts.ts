// The facts every client-audit rule reads about one request, computed once: the endpoint it calls, every finding
// of the profile's rules (src/profile/profile-rules.ts) at its arrival, and where it stands on signing.
import { getFieldValues, type HttpRequest } from '../../../src/http/message.js';
import { bodyKindOf } from '../../../src/profile/body-kind.js';
import { evaluateRequest, type ProfileEvaluation } from '../../../src/profile/profile-rules.js';
import { endpointSpecs, type EndpointMatch, type EndpointSpec } from '../endpoints.js';
import type { RequestFacts, SigningState } from './rule.js';

export function requestFacts(
  request: HttpRequest,
  receivedAt: number,
  index: number,
  match: EndpointMatch,
): RequestFacts {
  const spec =
    match.endpoint !== undefined && !match.wrongMethod ? endpointSpecs[match.endpoint] : undefined;
  const values = (name: string): string[] => getFieldValues(request.headers, name);
  const profile = evaluateRequest(request, Math.floor(receivedAt / 1000));
  return {
    request,
    receivedAt,
    index,
    match,
    spec,
    bodyless: bodyKindOf(request.method, request.body.length) === 'bodyless',
    signing: signingState(values, spec, profile),
    profile,
    values,
  };
}

function signingState(
  values: (name: string) => string[],
  spec: EndpointSpec | undefined,
  profile: ProfileEvaluation,
): SigningState {
  const isSigned = values('signature-input').length > 0 || values('signature').length > 0;
  if (!isSigned && spec?.signature !== 'required') return { kind: 'unsigned' };
  const codes = new Set(profile.findings.map((f) => f.code));
  const missing = [
    ...(codes.has('SIGNATURE_INPUT_MISSING') ? ['Signature-Input'] : []),
    ...(codes.has('SIGNATURE_MISSING') ? ['Signature'] : []),
  ];
  if (missing.length > 0) return { kind: 'headers-missing', missing };
  const members = profile.members;
  return {
    kind: 'present',
    labels: members?.labels ?? [],
    bothHaveSig1: members?.bothHaveLabel ?? false,
    ...(members?.input !== undefined ? { input: members.input } : {}),
    ...(members?.signature !== undefined ? { signature: members.signature } : {}),
  };
}
